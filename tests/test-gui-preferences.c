/* test-gui-preferences.c: the preferences' format dropdown lists every
 * recordable row of the format table, in table order, and follows the
 * recording-format setting both ways (GSettings memory backend). */
#include "config.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "rtop-preferences.h"
#include "rtop-record-format.h"
#include "support/gui-test-util.h"

/* The dropdown whose first row is the first recordable format's name. */
static GtkDropDown *
find_format_dropdown (GtkWidget *widget, const char *first_row)
{
  if (GTK_IS_DROP_DOWN (widget))
    {
      GListModel *model = gtk_drop_down_get_model (GTK_DROP_DOWN (widget));

      if (GTK_IS_STRING_LIST (model)
          && g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (model), 0), first_row) == 0)
        return GTK_DROP_DOWN (widget);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkDropDown *found = find_format_dropdown (child, first_row);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_formats (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  const RtopRecordFormatInfo *formats;
  GtkWidget *prefs;
  GtkDropDown *dropdown;
  GListModel *model;
  guint n;

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    if (formats[i].flags & RTOP_RECORD_FORMAT_RECORDABLE)
      g_ptr_array_add (rows, (gpointer) &formats[i]);
  g_assert_cmpuint (rows->len, >, 0);

  prefs = rtop_preferences_new (NULL, settings);
  gtk_window_present (GTK_WINDOW (prefs));
  gui_test_spin ();
  dropdown = find_format_dropdown (prefs, _(((const RtopRecordFormatInfo *) rows->pdata[0])->display_name));
  g_assert_nonnull (dropdown);
  model = gtk_drop_down_get_model (dropdown);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, rows->len);

  for (guint i = 0; i < rows->len; i++)
    {
      const RtopRecordFormatInfo *info = rows->pdata[i];
      g_autofree char *chosen = NULL;

      g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (model), i), ==,
                       _(info->display_name));
      /* Setting -> dropdown. */
      g_settings_set_string (settings, "recording-format", info->name);
      gui_test_spin ();
      g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), ==, i);
      /* Dropdown -> setting. */
      g_settings_reset (settings, "recording-format");
      gtk_drop_down_set_selected (dropdown, i);
      gui_test_spin ();
      chosen = g_settings_get_string (settings, "recording-format");
      g_assert_cmpstr (chosen, ==, info->name);
    }

  g_object_add_weak_pointer (G_OBJECT (prefs), (gpointer *) &prefs);
  gtk_window_destroy (GTK_WINDOW (prefs));
  gui_test_spin ();
  g_assert_null (prefs);
}

int
main (int argc, char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gui/preferences/formats", test_formats);
  return g_test_run ();
}
