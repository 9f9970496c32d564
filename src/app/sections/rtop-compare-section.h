/* rtop-compare-section.h: several ports in one chart.
 *
 * The ports are checked in a list beside the chart (up to
 * RTOP_COMPARE_MAX_PORTS, each keeping its colour while it stays checked);
 * one metric is shown at a time, one line per port on one scale, with a
 * legend naming each port and its newest value.  The window opens it with
 * win.compare (Ctrl+4, the main menu), win.compare-with (a port's page
 * adds its port) or win.compare-ports (exactly these ports). */
#pragma once

#include <gtk/gtk.h>
#include "rtop-port-item.h"
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_COMPARE_MAX_PORTS 6

#define RTOP_TYPE_COMPARE_SECTION (rtop_compare_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopCompareSection, rtop_compare_section, RTOP, COMPARE_SECTION, RtopSection)

/* Checks exactly these ports (keys as rtop_port_item_get_key(); unknown
 * ones and those beyond the limit are left out).  Returns how many. */
guint rtop_compare_section_set_ports (RtopCompareSection *self, const char * const *keys);
/* Checks or unchecks one port; FALSE when the limit is reached. */
gboolean rtop_compare_section_set_port_checked (RtopCompareSection *self, const char *key,
                                                gboolean checked);

G_END_DECLS
