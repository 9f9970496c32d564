/* rtop-counter-item-private.h: what only rtop-counter-item.c and the tests use. */
#pragma once

#include "rtop-counter-item.h"

G_BEGIN_DECLS

/* The value is the last one read before the device went away. */
gboolean rtop_counter_item_get_frozen (RtopCounterItem *self);

G_END_DECLS
