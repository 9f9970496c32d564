/* rtop-graph.h: a time-series chart drawn with cairo through GtkSnapshot.
 *
 * Shows the last window-seconds of some channels of an RtopSeries.  Each
 * pixel column is reduced to the min and max of its samples (via the
 * series' pyramid), so a frame costs the same for 1 or 60 minutes of
 * history.  Redraws only when the series changes (or the pointer moves over
 * it to show the exact value and time); it has no timer of its own. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-format.h"
#include "rtop-series.h"

G_BEGIN_DECLS

/* A port's channels, or one channel of each port compared in one chart. */
#define RTOP_GRAPH_MAX_CHANNELS 8
/* The widest time window: a replayed recording's whole length. */
#define RTOP_GRAPH_MAX_WINDOW_S (14.0 * 24 * 3600)

#define RTOP_TYPE_GRAPH (rtop_graph_get_type ())
G_DECLARE_FINAL_TYPE (RtopGraph, rtop_graph, RTOP, GRAPH, GtkWidget)

GtkWidget *rtop_graph_new (void);
void rtop_graph_set_series (RtopGraph *self, RtopSeries *series);
/* color_name is a colour defined in the CSS with @define-color. */
void rtop_graph_add_channel (RtopGraph *self, guint channel, const char *label,
                             const char *color_name);
/* A channel of another series than the graph's: several ports in one
 * chart, one line each.  The time axis follows the newest of them. */
void rtop_graph_add_series_channel (RtopGraph *self, RtopSeries *series, guint channel,
                                    const char *label, const char *color_name);
void rtop_graph_clear_channels (RtopGraph *self);
/* FALSE: no legend in the plot (the caller shows the channels itself). */
void rtop_graph_set_show_legend (RtopGraph *self, gboolean show);
/* The unit of the values, for the axis, the legend and the readout.
 * Property "unit". */
void rtop_graph_set_unit (RtopGraph *self, RtopUnit unit);
void rtop_graph_set_window (RtopGraph *self, double seconds);
/* The series time (monotonic microseconds) at the right edge; 0 follows
 * the newest sample.  Property "view-end". */
void rtop_graph_set_view_end (RtopGraph *self, gint64 end_us);
double rtop_graph_get_window (RtopGraph *self);
/* Compact: a sparkline without axes or legend, for table rows. */
void rtop_graph_set_compact (RtopGraph *self, gboolean compact);

/* A compact graph's right edge moves in steps of this share of the window
 * (0, the default: with every sample), so that a new sample repaints only
 * where it is drawn. */
void rtop_graph_set_scroll_step (RtopGraph *self, double share);

/* Held, new samples are not drawn (the graph is not seen, or is refreshed
 * less often); released, it draws once if any came meanwhile.  Property
 * "held". */
void rtop_graph_set_held (RtopGraph *self, gboolean held);
/* Held: draws the samples that came meanwhile, and stays held. */
void rtop_graph_show_held (RtopGraph *self);

/* What the last frame did, for tests and the benchmark. */
typedef struct {
  guint columns;        /* pixel columns per channel */
  guint cells_read;     /* pyramid cells read, all channels */
  double axis_max;      /* top of the y axis, in the unit */
  double data_max;      /* largest value in the window */
  guint frames;         /* frames drawn since the graph was made */
  guint tiles_drawn;    /* a stepped frame: tiles drawn anew */
  guint tiles_kept;     /* a stepped frame: tiles kept from the frame before */
  guint paths;          /* anti-aliased paths filled or stroked (the boxes are not) */
  guint canvas_frames;  /* channels written as pixels and painted as one image */
} RtopGraphFrameStats;


G_END_DECLS
