/* rtop-graph-private.h: what rtop-graph.c, rtop-graph-draw.c and the tests share. */
#pragma once

#include "rtop-graph.h"
#include "rtop-graph-canvas.h"

G_BEGIN_DECLS

/* One channel the graph draws. */
typedef struct {
  guint channel;
  char *label;
  char *color_name;
  RtopSeries *series;            /* a series of its own (several ports in one chart); NULL: the graph's */
  gulong changed_id;
} RtopGraphChannel;

/* What a stepped frame's tiles were drawn for: any change and they are
 * all drawn anew. */
typedef struct {
  int width, height, scale;
  gint64 frame_end;
  double window_s, fixed_max, axis_max;
  guint n_channels;
  gpointer series;
  GdkRGBA fg, colors[RTOP_GRAPH_MAX_CHANNELS];
} RtopGraphTileKey;

struct _RtopGraph {
  GtkWidget parent_instance;

  RtopSeries *series;
  gulong changed_id;
  RtopGraphChannel channels[RTOP_GRAPH_MAX_CHANNELS];
  guint n_channels;
  RtopUnit unit;
  double window_s;
  gboolean compact;
  gboolean hide_legend;          /* the caller shows the channels itself */
  double fixed_max;              /* > 0: the y axis's top (unless data passes it): a link's rate */
  double peak_gutter;            /* a sparkline's room for its peak text, right of the line; 0: unmeasured */
  gint64 view_end;               /* series time the right edge shows; 0: the newest */
  gboolean held;                 /* new data waits (not seen, or refreshed less often) */
  gboolean held_changes;         /* the series changed while held */

  double hover_x;                /* < 0: no pointer */
  graphene_rect_t plot;          /* plot area of the last frame */
  gint64 frame_start, frame_end; /* time range of the last frame */

  double scroll_step;            /* > 0: the right edge moves in steps of this share of the window */
  gboolean in_tile;              /* drawing a tile or a sparkline's line: no peak text */
  gboolean tile_columns_ready;   /* mins/maxs hold this frame's columns */
  GPtrArray *tiles;              /* GskRenderNode per tile of a stepped frame, or NULL */
  RtopGraphTileKey tiles_key;             /* what the tiles were drawn for */
  gint64 tiles_newest;           /* newest sample the tiles show */

  double *mins, *maxs;           /* [RTOP_GRAPH_MAX_CHANNELS * buf_columns] */
  guint buf_columns;
  RtopGraphFrameStats stats;

  /* A sparkline's channels are written here as pixels while a frame is drawn. */
  RtopGraphCanvas canvas;
};

guint rtop_graph_get_n_channels (RtopGraph *self);

void rtop_graph_get_frame_stats (RtopGraph *self, RtopGraphFrameStats *stats);

/* The text a hover at x (widget coordinates) shows, NULL outside the plot. */
char *rtop_graph_describe_at (RtopGraph *self, double x);

/* Fills runs of at most `bridge` NaN columns between samples by linear
 * interpolation (what a sparkline of sparse samples draws as boxes). */
void rtop_graph_bridge_columns (const double *src, double *dst, guint columns, guint bridge);

/* Drawing a frame (rtop-graph-draw.c). */

/* A colour the CSS defines with @define-color, or its fallback. */
void rtop_graph_lookup_color (GtkWidget *widget, const char *name, GdkRGBA *out);
/* Places the plot area in a widget of this size. */
void rtop_graph_compute_layout (RtopGraph *self, double width, double height);
/* The right edge of a stepped frame for the newest sample's time. */
gint64 rtop_graph_stepped_end (RtopGraph *self, gint64 newest);
/* Draws a frame of this size into cr. */
void rtop_graph_draw (RtopGraph *self, cairo_t *cr, double width, double height);
/* A sparkline's peak, as a text node of its own. */
void rtop_graph_append_peak (RtopGraph *self, GtkSnapshot *snapshot, const GdkRGBA *fg);

/* As the last frame drew them: the time axis' label seconds_ago before
 * the right edge ("now", "−30 s"; a clock time off the live edge), and
 * channel c's value in the legend (the newest, or at the right edge). */
char *rtop_graph_dup_time_label (RtopGraph *self, double seconds_ago);
double rtop_graph_get_legend_value (RtopGraph *self, guint c);

G_END_DECLS
