/* rtop-overview-private.h: what only rtop-overview.c and the tests use. */
#pragma once

#include "rtop-overview.h"

G_BEGIN_DECLS

GtkWidget *rtop_overview_new (void);

/* The ports in the order shown (after sorting). */
GListModel *rtop_overview_get_model (RtopOverview *self);

/* Which page shows: "waiting", "ports", "empty", "unavailable". */
const char *rtop_overview_get_state (RtopOverview *self);

/* Whether new values wait (hidden, or within the refresh period). */
gboolean rtop_overview_get_held (RtopOverview *self);

G_END_DECLS
