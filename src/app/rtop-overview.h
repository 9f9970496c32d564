/* rtop-overview.h: every port at a glance, totals, newest health events,
 * and the empty/error states. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_OVERVIEW (rtop_overview_get_type ())
G_DECLARE_FINAL_TYPE (RtopOverview, rtop_overview, RTOP, OVERVIEW, RtopSection)

GtkWidget *rtop_overview_new (void);
/* The ports in the order shown (after sorting). */
GListModel *rtop_overview_get_model (RtopOverview *self);
/* Which page shows: "waiting", "ports", "empty", "unavailable". */
const char *rtop_overview_get_state (RtopOverview *self);

G_END_DECLS
