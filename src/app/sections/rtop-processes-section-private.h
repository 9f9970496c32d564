/* rtop-processes-section-private.h: what only rtop-processes-section.c and the tests use. */
#pragma once

#include "rtop-processes-section.h"

G_BEGIN_DECLS

GtkWidget *rtop_processes_section_new (void);

/* The rows shown, after search and sort. */
GListModel *rtop_processes_section_get_model (RtopProcessesSection *self);

void rtop_processes_section_set_search (RtopProcessesSection *self, const char *text);

/* Rows of one job next to each other, in the view's order within a job
 * (also the "processes.group-by-job" action). */
gboolean rtop_processes_section_get_group_by_job (RtopProcessesSection *self);
void rtop_processes_section_set_group_by_job (RtopProcessesSection *self, gboolean group);

G_END_DECLS
