/* rtop-events-view.h: the health event log, filtered by severity and device. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_EVENTS_VIEW (rtop_events_view_get_type ())
G_DECLARE_FINAL_TYPE (RtopEventsView, rtop_events_view, RTOP, EVENTS_VIEW, RtopSection)

GtkWidget *rtop_events_view_new (void);
/* Lowest severity shown. */
void rtop_events_view_set_min_severity (RtopEventsView *self, RtopSeverity severity);
/* NULL: all devices. */
void rtop_events_view_set_device (RtopEventsView *self, const char *device);
/* TRUE while the list shows the newest events and moves with new ones. */
gboolean rtop_events_view_get_following (RtopEventsView *self);
GListModel *rtop_events_view_get_model (RtopEventsView *self);

G_END_DECLS
