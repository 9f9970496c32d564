/* rtop-processes-section-private.h: what only rtop-processes-section.c and the tests use. */
#pragma once

#include "rtop-processes-section.h"

G_BEGIN_DECLS

GtkWidget *rtop_processes_section_new (void);

/* The rows shown, after search and sort. */
GListModel *rtop_processes_section_get_model (RtopProcessesSection *self);

void rtop_processes_section_set_search (RtopProcessesSection *self, const char *text);

G_END_DECLS
