/* rtop-overview.h: every port at a glance, totals, newest health events,
 * and the empty/error states. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_OVERVIEW (rtop_overview_get_type ())
G_DECLARE_FINAL_TYPE (RtopOverview, rtop_overview, RTOP, OVERVIEW, RtopSection)


G_END_DECLS
