/* rtop-processes-section.h: every process holding RDMA resources. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PROCESSES_SECTION (rtop_processes_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopProcessesSection, rtop_processes_section, RTOP, PROCESSES_SECTION, RtopSection)

/* The process columns (shared with the port detail). */
void rtop_processes_section_add_columns (GtkColumnView *view);
/* Activating a row opens the process's page (win.show-process). */
void rtop_processes_section_connect_activate (GtkColumnView *view);

G_END_DECLS
