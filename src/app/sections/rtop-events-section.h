/* rtop-events-section.h: the health event log, filtered by severity and device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_EVENTS_SECTION (rtop_events_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopEventsSection, rtop_events_section, RTOP, EVENTS_SECTION, RtopSection)


G_END_DECLS
