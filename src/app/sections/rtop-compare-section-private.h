/* rtop-compare-section-private.h: what only rtop-compare-section.c and the tests use. */
#pragma once

#include "rtop-compare-section.h"
#include "rtop-graph.h"

G_BEGIN_DECLS

/* What the metric menu sets. */
void rtop_compare_section_set_metric (RtopCompareSection *self, RtopPortChannel channel);
RtopGraph *rtop_compare_section_get_graph (RtopCompareSection *self);
GtkListView *rtop_compare_section_get_port_list (RtopCompareSection *self);

G_END_DECLS
