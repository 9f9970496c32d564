/* rtop-port-detail-private.h: what only rtop-port-detail.c and the tests use. */
#pragma once

#include "rtop-port-detail.h"

G_BEGIN_DECLS

GtkWidget *rtop_port_detail_new (void);

/* The counters in the order shown (after filter and sort). */
GListModel *rtop_port_detail_get_counters_model (RtopPortDetail *self);

void rtop_port_detail_set_counter_filter (RtopPortDetail *self, const char *text);

G_END_DECLS
