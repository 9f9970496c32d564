/* rtop-columns-private.h: what only rtop-columns.c and the tests use. */
#pragma once

#include "rtop-columns.h"

G_BEGIN_DECLS

/* Sort by the column with this id (ascending or descending). */
void rtop_column_view_sort_by (GtkColumnView *view, const char *id, GtkSortType order);

/* Cells whose items changed and that have not shown it yet. */
guint rtop_column_view_get_n_pending (GtkColumnView *view);

G_END_DECLS
