/* rtop-port-detail.h: one port: graphs over a time window, its counters
 * table and the processes using its device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PORT_DETAIL (rtop_port_detail_get_type ())
G_DECLARE_FINAL_TYPE (RtopPortDetail, rtop_port_detail, RTOP, PORT_DETAIL, RtopSection)

void rtop_port_detail_set_port (RtopPortDetail *self, RtopPortItem *port);

G_END_DECLS
