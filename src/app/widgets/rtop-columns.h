/* rtop-columns.h: GtkColumnView columns described by tables.
 *
 * Each view lists its columns as RtopColumnDef rows: a title, how to get the
 * cell text from an item, how to sort, and an optional CSS class.  Items
 * emit "updated" when their values change; bound cells refresh then. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef char *(*RtopCellTextFunc) (gpointer item);
typedef double (*RtopCellNumberFunc) (gpointer item);
typedef const char *(*RtopCellStringFunc) (gpointer item);
/* A CSS class for the cell (NULL for none). */
typedef const char *(*RtopCellClassFunc) (gpointer item);
/* A widget cell (e.g. a graph): create, and bind to an item. */
typedef GtkWidget *(*RtopCellSetupFunc) (void);
typedef void (*RtopCellBindFunc) (GtkWidget *cell, gpointer item);
/* Label text that depends on where the cell is (e.g. the port a table
 * belongs to): cell is the label, NULL outside a view (dumps). */
typedef char *(*RtopCellTextInFunc) (gpointer item, GtkWidget *cell);

typedef struct {
  const char *id;              /* stable id (for tests and saved sort) */
  const char *title;           /* N_() marked; translated when the column is built */
  const char *tooltip;         /* N_() or NULL */
  RtopCellTextFunc text;       /* label cells */
  RtopCellNumberFunc number;   /* numeric sort key (NAN sorts first) */
  RtopCellStringFunc string;   /* natural-order sort key when number is NULL */
  RtopCellClassFunc css;
  RtopCellSetupFunc setup;     /* widget cells instead of text */
  RtopCellBindFunc bind;
  gboolean numeric;            /* right-aligned, tabular figures */
  gboolean expand;
  int fixed_width;             /* 0: natural */
  RtopCellTextInFunc text_in;  /* instead of text, when set */
} RtopColumnDef;

void rtop_column_view_add_columns (GtkColumnView *view, const RtopColumnDef *defs, guint n_defs);
/* Cells show their items' changes a few per frame.  Held, they only note
 * which items changed (nothing is set, laid out or drawn); released, those
 * cells show their items' values over the next frames.  For content that
 * is not seen, or that is refreshed less often. */
void rtop_column_view_set_held (GtkColumnView *view, gboolean held);
/* At most n cells show their changes per frame (0, the default: all in the
 * next frame): each frame's damage stays a few small rectangles. */
void rtop_column_view_set_cells_per_frame (GtkColumnView *view, guint n);
/* Values changed in place: re-sort by the current sort column. */
void rtop_column_view_resort (GtkColumnView *view);
/* Shows or hides the column with this id. */
void rtop_column_view_set_column_visible (GtkColumnView *view, const char *id, gboolean visible);
/* The ids of the visible columns, comma-separated (for --dump). */
char *rtop_column_view_get_visible_ids (GtkColumnView *view);
/* The texts a row shows, in column order, tab-separated (for --dump). */
char *rtop_column_defs_row_text (const RtopColumnDef *defs, guint n_defs, gpointer item);

G_END_DECLS
