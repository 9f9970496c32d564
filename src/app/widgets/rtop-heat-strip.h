/* rtop-heat-strip.h: one port's history as a row of coloured cells, the
 * rails view's heatmap row.
 *
 * Each cell is a stretch of time, its colour how busy the port was then:
 * throughput against the port's link rate, or a counter (retransmits,
 * congestion notifications, drops) a second on a log scale that saturates
 * at RTOP_HEAT_COUNTER_TOP, so that rows compare by colour alone.  The
 * right edge is the port's newest sample; the strip redraws when its
 * port's series changes and costs nothing while unmapped.  Hovering says
 * what a cell holds (time and value) as a tooltip.  Marks (a rail's
 * imbalance episodes) underline stretches of it. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-port-item.h"

G_BEGIN_DECLS

typedef enum {
  RTOP_HEAT_THROUGHPUT,      /* max (transmit, receive) / link rate */
  RTOP_HEAT_RETRANSMITS,
  RTOP_HEAT_CONGESTION,
  RTOP_HEAT_DROPS,
  RTOP_HEAT_N
} RtopHeatMetric;

/* A counter's colour is full at this many a second. */
#define RTOP_HEAT_COUNTER_TOP 1000.0
/* At most this many cells a strip, however wide. */
#define RTOP_HEAT_MAX_CELLS 1024

#define RTOP_TYPE_HEAT_STRIP (rtop_heat_strip_get_type ())
G_DECLARE_FINAL_TYPE (RtopHeatStrip, rtop_heat_strip, RTOP, HEAT_STRIP, GtkWidget)

GtkWidget *rtop_heat_strip_new (void);
void rtop_heat_strip_set_port (RtopHeatStrip *self, RtopPortItem *port);
RtopPortItem *rtop_heat_strip_get_port (RtopHeatStrip *self);
void rtop_heat_strip_set_metric (RtopHeatStrip *self, RtopHeatMetric metric);
/* How much history the strip spans, in seconds (1..3600). */
void rtop_heat_strip_set_span (RtopHeatStrip *self, double seconds);
/* Deferred (the rails view's rows), a change of the port's series only
 * marks the strip; rtop_heat_strip_flush() draws it.  Many hosts' passes
 * then make one frame, not one each. */
void rtop_heat_strip_set_deferred (RtopHeatStrip *self, gboolean deferred);
void rtop_heat_strip_flush (RtopHeatStrip *self);

/* A stretch of the port's history to mark (a rail imbalance episode), in
 * wall-clock microseconds; end_us 0 while it lasts.  Drawn as a bar along
 * the strip's foot in the warning colour, and said in the tooltip. */
typedef struct {
  gint64 start_us;
  gint64 end_us;
} RtopHeatMark;

/* At most this many marks a strip (the newest are kept). */
#define RTOP_HEAT_MAX_MARKS 32

/* Replaces the strip's marks (copied); redraws only when they changed. */
void rtop_heat_strip_set_marks (RtopHeatStrip *self, const RtopHeatMark *marks, guint n_marks);

/* "93 % of 200 Gb/s", "12.0 /s": a value as the rails view says it. */
char *rtop_heat_format (RtopHeatMetric metric, double value, double link_gbps);

G_END_DECLS
