/* rtop-history-private.h: what only rtop-history.c and the tests use. */
#pragma once

#include "rtop-history.h"

G_BEGIN_DECLS

RtopPortItem *rtop_history_find_port (RtopHistory *self, const char *device, guint32 port);

/* Number of events dropped from the log because it was full. */
guint64 rtop_history_get_events_dropped (RtopHistory *self);

G_END_DECLS
