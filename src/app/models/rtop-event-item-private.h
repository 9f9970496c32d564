/* rtop-event-item-private.h: what only rtop-event-item.c and the tests use. */
#pragma once

#include "rtop-event-item.h"

G_BEGIN_DECLS

/* The monotonic time of the newest event the item shows (its start, or
 * its completion). */
gint64 rtop_event_item_get_last_us (RtopEventItem *self);

G_END_DECLS
