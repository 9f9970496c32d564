/* rtop-series.h: bounded history of one or more value channels that share
 * timestamps, with a min/max pyramid so that reducing any time range to N
 * pixel columns costs O(N log capacity), not O(samples in range).
 *
 * Memory is fixed by the capacity (set from the sampling interval so that it
 * holds 60 minutes); appending never allocates. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define RTOP_SERIES_SPAN_S 3600.0   /* how much history every series keeps */
/* An hour at 10 samples/s, or the most snapshots a loaded recording has
 * per port (its load budget: RTOP_RECORDING_DEFAULT_MAX_PORT_SAMPLES). */
#define RTOP_SERIES_MAX_CAPACITY 50001

#define RTOP_TYPE_SERIES (rtop_series_get_type ())
G_DECLARE_FINAL_TYPE (RtopSeries, rtop_series, RTOP, SERIES, GObject)

RtopSeries *rtop_series_new (guint n_channels, guint capacity);
/* Keeps the newest samples that fit. */
void rtop_series_set_capacity (RtopSeries *self, guint capacity);
/* Capacity for RTOP_SERIES_SPAN_S at this interval, clamped. */
guint rtop_series_capacity_for_interval (double interval_s);
guint rtop_series_get_length (RtopSeries *self);

/* values has n_channels entries; NAN means "no value" (e.g. a first sample).
 * time_us must not go backwards (monotonic clock).  Emits "changed". */
void rtop_series_append (RtopSeries *self, gint64 time_us, gint64 realtime_us,
                         const double *values);

gboolean rtop_series_get_time_range (RtopSeries *self, gint64 *first_us, gint64 *last_us);
/* Wall-clock time for a monotonic time of this series (offset of the newest sample). */
gint64 rtop_series_to_realtime (RtopSeries *self, gint64 time_us);
/* Newest value of a channel, NAN when none. */
double rtop_series_get_last (RtopSeries *self, guint channel);

/* Reduces [start_us, end_us) to n_columns equal columns: mins[i]/maxs[i] are
 * the extremes of the samples whose time falls in column i, NAN when it has
 * none.  Returns the number of aggregate cells read (for tests of the cost). */
guint rtop_series_decimate (RtopSeries *self, guint channel,
                            gint64 start_us, gint64 end_us, guint n_columns,
                            double *mins, double *maxs);
/* The sample nearest to time_us (any channel value may be NAN); FALSE
 * when none is near it (empty history, or a gap in it). */
gboolean rtop_series_sample_at (RtopSeries *self, guint channel, gint64 time_us,
                                gint64 *sample_time_us, double *value);

G_END_DECLS
