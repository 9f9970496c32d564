/* rtop-port-section.h: one port: graphs over a time window, its counters
 * table and the processes using its device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PORT_SECTION (rtop_port_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopPortSection, rtop_port_section, RTOP, PORT_SECTION, RtopSection)

void rtop_port_section_set_port (RtopPortSection *self, RtopPortItem *port);

G_END_DECLS
