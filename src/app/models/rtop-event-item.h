/* rtop-event-item.h: one health event in the log (immutable). */
#pragma once

#include <glib-object.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_TYPE_EVENT_ITEM (rtop_event_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopEventItem, rtop_event_item, RTOP, EVENT_ITEM, GObject)

/* The event is copied.  host: the remote host it happened on, NULL here. */
RtopEventItem *rtop_event_item_new (const RtopEvent *event, const char *host);
const char *rtop_event_item_get_host (RtopEventItem *self);
const RtopEvent *rtop_event_item_get_event (RtopEventItem *self);
/* The same episode, later (completed, or with more folded in): the item
 * takes its text and figures and emits "updated".  Its place in the log
 * (when the episode started) stays. */
void rtop_event_item_update (RtopEventItem *self, const RtopEvent *event);
/* Severity first, then the newest: how a short list keeps an Error in
 * view while Info and Warning come and go.  GCompareDataFunc. */
int rtop_event_item_compare_rank (gconstpointer a, gconstpointer b, gpointer user_data);
/* "rxe0/1", "rxe0" or "" for collection-wide events; "node1:rxe0/1" or
 * "node1" on a remote host. */
const char *rtop_event_item_get_location (RtopEventItem *self);
/* Translated severity name for people. */
const char *rtop_severity_to_label (RtopSeverity severity);
/* Each severity's sign, so that it is told by a shape and not by colour
 * alone: "✖" Error, "⚠" Warning, "●" Info. */
#define RTOP_SIGN_ERROR "✖"
#define RTOP_SIGN_WARNING "⚠"
#define RTOP_SIGN_INFO "●"
const char *rtop_severity_sign (RtopSeverity severity);

G_END_DECLS
