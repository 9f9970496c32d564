/* rtop-port-detail.h: one port: graphs over a time window, its counters
 * table and the processes using its device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PORT_DETAIL (rtop_port_detail_get_type ())
G_DECLARE_FINAL_TYPE (RtopPortDetail, rtop_port_detail, RTOP, PORT_DETAIL, RtopSection)

GtkWidget *rtop_port_detail_new (void);
void rtop_port_detail_set_port (RtopPortDetail *self, RtopPortItem *port);
RtopPortItem *rtop_port_detail_get_port (RtopPortDetail *self);
/* Minutes: 1, 5, 15 or 60.  Property "time-window" (seconds, double). */
void rtop_port_detail_set_window_minutes (RtopPortDetail *self, int minutes);
/* The counters in the order shown (after filter and sort). */
GListModel *rtop_port_detail_get_counters_model (RtopPortDetail *self);
void rtop_port_detail_set_counter_filter (RtopPortDetail *self, const char *text);

G_END_DECLS
