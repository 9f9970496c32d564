/* rtop-processes-view-private.h: what only rtop-processes-view.c and the tests use. */
#pragma once

#include "rtop-processes-view.h"

G_BEGIN_DECLS

GtkWidget *rtop_processes_view_new (void);

/* The rows shown, after search and sort. */
GListModel *rtop_processes_view_get_model (RtopProcessesView *self);

void rtop_processes_view_set_search (RtopProcessesView *self, const char *text);

G_END_DECLS
