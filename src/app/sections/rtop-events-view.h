/* rtop-events-view.h: the health event log, filtered by severity and device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_EVENTS_VIEW (rtop_events_view_get_type ())
G_DECLARE_FINAL_TYPE (RtopEventsView, rtop_events_view, RTOP, EVENTS_VIEW, RtopSection)


G_END_DECLS
