/* rtop-graph-private.h: what only rtop-graph.c and the tests use. */
#pragma once

#include "rtop-graph.h"

G_BEGIN_DECLS

guint rtop_graph_get_n_channels (RtopGraph *self);

void rtop_graph_get_frame_stats (RtopGraph *self, RtopGraphFrameStats *stats);

/* The text a hover at x (widget coordinates) shows, NULL outside the plot. */
char *rtop_graph_describe_at (RtopGraph *self, double x);

/* Fills runs of at most `bridge` NaN columns between samples by linear
 * interpolation (what a sparkline of sparse samples draws as boxes). */
void rtop_graph_bridge_columns (const double *src, double *dst, guint columns, guint bridge);

G_END_DECLS
