/* rtop-processes-view.h: every process holding RDMA resources. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PROCESSES_VIEW (rtop_processes_view_get_type ())
G_DECLARE_FINAL_TYPE (RtopProcessesView, rtop_processes_view, RTOP, PROCESSES_VIEW, RtopSection)

/* The process columns (shared with the port detail). */
void rtop_processes_view_add_columns (GtkColumnView *view);
/* Activating a row opens the process's page (win.show-process). */
void rtop_processes_view_connect_activate (GtkColumnView *view);

G_END_DECLS
