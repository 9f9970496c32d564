/* rtop-compare-view-private.h: what only rtop-compare-view.c and the tests use. */
#pragma once

#include "rtop-compare-view.h"
#include "rtop-graph.h"

G_BEGIN_DECLS

/* What the metric menu sets. */
void rtop_compare_view_set_metric (RtopCompareView *self, RtopPortChannel channel);
RtopGraph *rtop_compare_view_get_graph (RtopCompareView *self);
GtkListView *rtop_compare_view_get_port_list (RtopCompareView *self);

G_END_DECLS
