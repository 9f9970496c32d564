/* rtop-columns.c: GtkColumnView columns built from RtopColumnDef tables, whose
 * cells show their items' changes a few per frame. */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-columns-private.h"
#include "rtop-snapshot.h"

#define HANDLER_KEY "rtop-updated-handler"
#define ITEM_KEY "rtop-bound-item"

#define COLUMN_KEY "rtop-column"
#define WIDEST_KEY "rtop-widest"
#define MEASURE_KEY "rtop-measure-after"

/* A column keeps the width of the widest text it has shown: every label of
 * the column asks for that width.  Otherwise a text a few pixels wider or
 * narrower than the last (a verdict that comes and goes, "9.58" after
 * "10.1") resizes its column, the expanding graph column takes up the
 * difference, and every row is repainted whole: on X11 all of it is sent
 * as image data (with ssh -X most of the window's bytes, in
 * tests/bench/native-gui.sh), and the columns move under the reader's
 * eyes.  The width grows only when a wider text comes.
 *
 * A label is measured a frame after its change, once its new style (a
 * bold verdict) is in place. */
static gboolean
keep_widest_cb (GtkWidget *label, GdkFrameClock *clock, gpointer user_data)
{
  GObject *column = g_object_get_data (G_OBJECT (label), COLUMN_KEY);
  gint64 after = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (label), MEASURE_KEY));
  int widest, natural, requested;

  if (gdk_frame_clock_get_frame_counter (clock) <= after)
    return G_SOURCE_CONTINUE;
  g_object_set_data (G_OBJECT (label), MEASURE_KEY, NULL);
  widest = GPOINTER_TO_INT (g_object_get_data (column, WIDEST_KEY));
  gtk_widget_get_size_request (label, &requested, NULL);
  /* At least what it asks for: its text's width, or the request. */
  gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
  if (natural > widest)
    {
      widest = natural;
      g_object_set_data (column, WIDEST_KEY, GINT_TO_POINTER (widest));
    }
  if (requested != widest)
    gtk_widget_set_size_request (label, widest, -1);
  return G_SOURCE_REMOVE;
}

static void
keep_widest (GtkWidget *label)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (label);

  if (g_object_get_data (G_OBJECT (label), COLUMN_KEY) == NULL || clock == NULL
      || g_object_get_data (G_OBJECT (label), MEASURE_KEY) != NULL)
    return;
  g_object_set_data (G_OBJECT (label), MEASURE_KEY,
                     GSIZE_TO_POINTER (MAX (gdk_frame_clock_get_frame_counter (clock), 1)));
  gtk_widget_add_tick_callback (label, keep_widest_cb, NULL, NULL);
}

/* Sets the label's text and class; returns whether anything changed. */
static gboolean
refresh_label (GtkLabel *label, const RtopColumnDef *def, gpointer item)
{
  g_autofree char *text = def->text_in ? def->text_in (item, GTK_WIDGET (label)) : def->text (item);
  const char *old_class = g_object_get_data (G_OBJECT (label), "rtop-css");
  const char *css = def->css ? def->css (item) : NULL;
  gboolean changed = FALSE;

  if (g_strcmp0 (gtk_label_get_label (label), text) != 0)
    {
      gtk_label_set_label (label, text);
      changed = TRUE;
    }
  if (g_strcmp0 (old_class, css) != 0)
    {
      if (old_class)
        gtk_widget_remove_css_class (GTK_WIDGET (label), old_class);
      if (css)
        gtk_widget_add_css_class (GTK_WIDGET (label), css);
      /* The class names are static strings from the tables. */
      g_object_set_data (G_OBJECT (label), "rtop-css", (gpointer) css);
      changed = TRUE;
    }
  if (changed)
    keep_widest (GTK_WIDGET (label));
  return changed;
}

static gboolean
refresh_cell (gpointer item, GtkWidget *cell)
{
  const RtopColumnDef *def = g_object_get_data (G_OBJECT (cell), "rtop-def");

  if (def->bind)
    {
      /* A widget cell (a sparkline) repaints its area: it counts. */
      def->bind (cell, item);
      return TRUE;
    }
  return refresh_label (GTK_LABEL (cell), def, item);
}

/* ---- updates, a few cells a frame ------------------------------------------ */

/* GSK's node diff keeps at most 30 rectangles before it repaints the whole
 * container it is in (for a table: whole rows), and on X11 every repainted
 * pixel is sent as image data.  Where pixels are dear (a remote display),
 * the cells whose items changed are shown a few per frame, over a few
 * frames: each frame repaints just those.  Locally one frame costs less
 * than several. */
#define UPDATES_KEY "rtop-cell-updates"

typedef struct {
  GHashTable *pending;          /* cells (refs) whose items changed while held */
  GHashTable *showing;          /* cells (refs) to show in the next frames */
  gboolean held;
  guint per_frame;              /* cells shown per frame, 0: all */
  guint tick_id;
  GtkWidget *view;
} Updates;

static void
updates_free (Updates *u)
{
  if (u->tick_id)
    gtk_widget_remove_tick_callback (u->view, u->tick_id);
  g_hash_table_unref (u->pending);
  g_hash_table_unref (u->showing);
  g_free (u);
}

static Updates *
get_updates (GtkWidget *view)
{
  Updates *u = g_object_get_data (G_OBJECT (view), UPDATES_KEY);

  if (u == NULL)
    {
      u = g_new0 (Updates, 1);
      u->pending = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
      u->showing = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
      u->view = view;
      g_object_set_data_full (G_OBJECT (view), UPDATES_KEY, u, (GDestroyNotify) updates_free);
    }
  return u;
}

static gboolean
show_updates_cb (GtkWidget *view, GdkFrameClock *clock, gpointer user_data)
{
  Updates *u = user_data;
  GHashTableIter iter;
  gpointer cell;
  guint shown = 0;

  g_hash_table_iter_init (&iter, u->showing);
  while ((u->per_frame == 0 || shown < u->per_frame) &&
         g_hash_table_iter_next (&iter, &cell, NULL))
    {
      /* A cell unbound meanwhile has nothing to show. */
      gpointer item = g_object_get_data (G_OBJECT (cell), ITEM_KEY);

      if (item && refresh_cell (item, cell))
        shown++;
      g_hash_table_iter_remove (&iter);
    }
  if (g_hash_table_size (u->showing) > 0)
    return G_SOURCE_CONTINUE;
  u->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
schedule_updates (Updates *u)
{
  if (u->tick_id == 0 && g_hash_table_size (u->showing) > 0)
    u->tick_id = gtk_widget_add_tick_callback (u->view, show_updates_cb, u, NULL);
}

static void
item_updated_cb (gpointer item, GtkWidget *cell)
{
  GtkWidget *view = gtk_widget_get_ancestor (cell, GTK_TYPE_COLUMN_VIEW);
  Updates *u;

  if (view == NULL)
    {
      refresh_cell (item, cell);
      return;
    }
  u = get_updates (view);
  g_hash_table_add (u->held ? u->pending : u->showing, g_object_ref (cell));
  schedule_updates (u);
}

static void
setup_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, const RtopColumnDef *def)
{
  GtkWidget *cell;
  GObject *column;

  if (def->setup)
    cell = def->setup ();
  else
    {
      /* Labels, numeric ones too.  GtkInscriptions (which repaint without
       * a new layout of the table) measured cheaper natively, but in four
       * guest runs of tests/bench/run-benchmarks.sh --parts gui the window
       * over ssh -X sent 2-5x the bytes with them; not yet understood. */
      cell = gtk_label_new (NULL);
      gtk_label_set_xalign (GTK_LABEL (cell), def->numeric ? 1 : 0);
      gtk_label_set_ellipsize (GTK_LABEL (cell), def->numeric ? PANGO_ELLIPSIZE_NONE
                                                              : PANGO_ELLIPSIZE_END);
      if (def->numeric)
        gtk_widget_add_css_class (cell, "numeric");
    }
  g_object_set_data (G_OBJECT (cell), "rtop-def", (gpointer) def);
  /* The column keeps the widest width its labels have had (no cycle: the
   * column owns the factory, the view the cells). */
  column = g_object_get_data (G_OBJECT (factory), COLUMN_KEY);
  if (column != NULL)
    g_object_set_data_full (G_OBJECT (cell), COLUMN_KEY, g_object_ref (column), g_object_unref);
  gtk_list_item_set_child (list_item, cell);
}

static void
bind_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, const RtopColumnDef *def)
{
  GtkWidget *cell = gtk_list_item_get_child (list_item);
  gpointer item = gtk_list_item_get_item (list_item);
  gulong id;

  refresh_cell (item, cell);
  /* Immutable items (events) have no "updated" signal. */
  if (g_signal_lookup ("updated", G_OBJECT_TYPE (item)) == 0)
    return;
  id = g_signal_connect_object (item, "updated", G_CALLBACK (item_updated_cb), cell, 0);
  g_object_set_data (G_OBJECT (cell), HANDLER_KEY, GSIZE_TO_POINTER (id));
  g_object_set_data (G_OBJECT (cell), ITEM_KEY, item);
}

static void
unbind_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, const RtopColumnDef *def)
{
  GtkWidget *cell = gtk_list_item_get_child (list_item);
  gulong id = GPOINTER_TO_SIZE (g_object_get_data (G_OBJECT (cell), HANDLER_KEY));
  gpointer item = g_object_get_data (G_OBJECT (cell), ITEM_KEY);

  if (id != 0 && item != NULL)
    g_signal_handler_disconnect (item, id);
  g_object_set_data (G_OBJECT (cell), HANDLER_KEY, NULL);
  g_object_set_data (G_OBJECT (cell), ITEM_KEY, NULL);
  if (def->bind)
    def->bind (cell, NULL);
}

static int
compare_cb (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const RtopColumnDef *def = user_data;

  if (def->number)
    {
      double x = def->number ((gpointer) a), y = def->number ((gpointer) b);

      /* Rows without a value sort before every value. */
      if (isnan (x) || isnan (y))
        return isnan (x) && isnan (y) ? 0 : isnan (x) ? -1 : 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
  if (def->string)
    {
      const char *x = def->string ((gpointer) a), *y = def->string ((gpointer) b);

      return rtop_natural_compare (x ? x : "", y ? y : "");
    }
  return 0;
}

static GtkColumnViewColumn *
column_new (const RtopColumnDef *def)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), (gpointer) def);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), (gpointer) def);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_cb), (gpointer) def);
  column = gtk_column_view_column_new (_(def->title), factory);
  if (def->setup == NULL)
    g_object_set_data (G_OBJECT (factory), COLUMN_KEY, column);
  if (def->number || def->string)
    {
      g_autoptr(GtkSorter) sorter = GTK_SORTER (gtk_custom_sorter_new (compare_cb, (gpointer) def, NULL));

      gtk_column_view_column_set_sorter (column, sorter);
    }
  gtk_column_view_column_set_expand (column, def->expand);
  gtk_column_view_column_set_resizable (column, TRUE);
  if (def->fixed_width > 0)
    gtk_column_view_column_set_fixed_width (column, def->fixed_width);
  g_object_set_data (G_OBJECT (column), "rtop-def", (gpointer) def);
  return column;
}

void
rtop_column_view_add_columns (GtkColumnView *view, const RtopColumnDef *defs, guint n_defs)
{
  for (guint i = 0; i < n_defs; i++)
    {
      g_autoptr(GtkColumnViewColumn) column = column_new (&defs[i]);

      gtk_column_view_append_column (view, column);
    }
}

void
rtop_column_view_set_held (GtkColumnView *view, gboolean held)
{
  Updates *u = get_updates (GTK_WIDGET (view));

  GHashTableIter iter;
  gpointer cell;

  u->held = !!held;
  if (u->held)
    return;
  /* What was noted meanwhile shows in the next frames, even if the view
   * is held again before. */
  g_hash_table_iter_init (&iter, u->pending);
  while (g_hash_table_iter_next (&iter, &cell, NULL))
    {
      g_hash_table_add (u->showing, g_object_ref (cell));
      g_hash_table_iter_remove (&iter);
    }
  schedule_updates (u);
}

void
rtop_column_view_set_cells_per_frame (GtkColumnView *view, guint n)
{
  get_updates (GTK_WIDGET (view))->per_frame = n;
}

guint
rtop_column_view_get_n_pending (GtkColumnView *view)
{
  Updates *u = g_object_get_data (G_OBJECT (view), UPDATES_KEY);

  return u ? g_hash_table_size (u->pending) + g_hash_table_size (u->showing) : 0;
}

void
rtop_column_view_resort (GtkColumnView *view)
{
  GtkSorter *sorter = gtk_column_view_get_sorter (view);

  /* One re-sort, and none while no column is sorted (the model's own order,
   * e.g. natural port order, stands). */
  if (gtk_sorter_get_order (sorter) != GTK_SORTER_ORDER_NONE)
    gtk_sorter_changed (sorter, GTK_SORTER_CHANGE_DIFFERENT);
}

void
rtop_column_view_sort_by (GtkColumnView *view, const char *id, GtkSortType order)
{
  GListModel *columns = gtk_column_view_get_columns (view);
  guint n = g_list_model_get_n_items (columns);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const RtopColumnDef *def = g_object_get_data (G_OBJECT (column), "rtop-def");

      if (def && g_strcmp0 (def->id, id) == 0)
        gtk_column_view_sort_by_column (view, column, order);
    }
}

void
rtop_column_view_set_column_visible (GtkColumnView *view, const char *id, gboolean visible)
{
  GListModel *columns = gtk_column_view_get_columns (view);
  guint n = g_list_model_get_n_items (columns);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const RtopColumnDef *def = g_object_get_data (G_OBJECT (column), "rtop-def");

      if (def && g_strcmp0 (def->id, id) == 0 &&
          gtk_column_view_column_get_visible (column) != visible)
        gtk_column_view_column_set_visible (column, visible);
    }
}

char *
rtop_column_view_get_visible_ids (GtkColumnView *view)
{
  GListModel *columns = gtk_column_view_get_columns (view);
  guint n = g_list_model_get_n_items (columns);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const RtopColumnDef *def = g_object_get_data (G_OBJECT (column), "rtop-def");

      if (def == NULL || !gtk_column_view_column_get_visible (column))
        continue;
      if (out->len > 0)
        g_string_append_c (out, ',');
      g_string_append (out, def->id);
    }
  return g_string_free (out, FALSE);
}

char *
rtop_column_defs_row_text (const RtopColumnDef *defs, guint n_defs, gpointer item)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n_defs; i++)
    {
      g_autofree char *text = defs[i].text ? defs[i].text (item) : NULL;

      if (defs[i].text == NULL)
        continue;
      if (out->len > 0)
        g_string_append_c (out, '\t');
      g_string_append_printf (out, "%s=%s", defs[i].id, text ? text : "");
    }
  return g_string_free (out, FALSE);
}
