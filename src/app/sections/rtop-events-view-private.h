/* rtop-events-view-private.h: what only rtop-events-view.c and the tests use. */
#pragma once

#include "rtop-events-view.h"

G_BEGIN_DECLS

GtkWidget *rtop_events_view_new (void);

/* Lowest severity shown. */
void rtop_events_view_set_min_severity (RtopEventsView *self, RtopSeverity severity);

/* NULL: all devices. */
void rtop_events_view_set_device (RtopEventsView *self, const char *device);

/* TRUE while the list shows the newest events and moves with new ones. */
gboolean rtop_events_view_get_following (RtopEventsView *self);

GListModel *rtop_events_view_get_model (RtopEventsView *self);

G_END_DECLS
