/* rtop-overview-section-private.h: what only rtop-overview-section.c and the tests use. */
#pragma once

#include "rtop-overview-section.h"

G_BEGIN_DECLS

GtkWidget *rtop_overview_section_new (void);

/* The ports in the order shown (after sorting). */
GListModel *rtop_overview_section_get_model (RtopOverviewSection *self);

/* Which page shows: "waiting", "ports", "empty", "unavailable". */
const char *rtop_overview_section_get_state (RtopOverviewSection *self);

/* Whether new values wait (hidden, or within the refresh period). */
gboolean rtop_overview_section_get_held (RtopOverviewSection *self);

G_END_DECLS
