/* rtop-event-item.h: one health event in the log (immutable). */
#pragma once

#include <glib-object.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_TYPE_EVENT_ITEM (rtop_event_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopEventItem, rtop_event_item, RTOP, EVENT_ITEM, GObject)

/* The event is copied. */
RtopEventItem *rtop_event_item_new (const RtopEvent *event);
const RtopEvent *rtop_event_item_get_event (RtopEventItem *self);
/* "rxe0/1", "rxe0" or "" for collection-wide events. */
const char *rtop_event_item_get_location (RtopEventItem *self);
/* Translated severity name for people. */
const char *rtop_severity_to_label (RtopSeverity severity);

G_END_DECLS
