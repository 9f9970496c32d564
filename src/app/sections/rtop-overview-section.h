/* rtop-overview-section.h: every port at a glance, totals, newest health events,
 * and the empty/error states. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_OVERVIEW_SECTION (rtop_overview_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopOverviewSection, rtop_overview_section, RTOP, OVERVIEW_SECTION, RtopSection)


G_END_DECLS
