/* rtop-events-section-private.h: what only rtop-events-section.c and the tests use. */
#pragma once

#include "rtop-events-section.h"

G_BEGIN_DECLS

GtkWidget *rtop_events_section_new (void);

/* Lowest severity shown. */
void rtop_events_section_set_min_severity (RtopEventsSection *self, RtopSeverity severity);

/* NULL: all devices. */
void rtop_events_section_set_device (RtopEventsSection *self, const char *device);

/* TRUE while the list shows the newest events and moves with new ones. */
gboolean rtop_events_section_get_following (RtopEventsSection *self);

GListModel *rtop_events_section_get_model (RtopEventsSection *self);

G_END_DECLS
