/* rtop-port-item-private.h: what only rtop-port-item.c and the tests use. */
#pragma once

#include "rtop-port-item.h"

G_BEGIN_DECLS

/* The port is in trouble: not Active, physical link down, its read
 * failed, or an episode of loss or errors is running on it. */
gboolean rtop_port_item_get_has_problems (RtopPortItem *self);

/* Why a channel has no figure (translated, e.g. "Soft-RoCE reports no drop
 * counter"), NULL when it has one. */
const char *rtop_port_item_get_channel_absent_reason (RtopPortItem *self, RtopPortChannel channel);

G_END_DECLS
