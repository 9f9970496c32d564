/* test-gui-preferences.c: the preferences are an AdwPreferencesWindow of
 * groups of rows.  Its format dropdown lists every recordable row of the
 * format table, in table order, and follows the recording-format setting
 * both ways (GSettings memory backend).  Each remembered host has a row
 * with a switch for its process names and ids and a button that forgets
 * it; Connect to Host… opens the connect dialog, which sets them; its
 * Connect waits for a host name. */
#include "config.h"

#include <glib/gi18n.h>
#include <gtk/gtk.h>

#include "rtop-connect-dialog.h"
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
  g_settings_reset (settings, "recording-format");
}

/* Widgets of type under root, in tree order, whose label (a button's or
 * a check button's, when label is not NULL) is label. */
static void
collect (GtkWidget *root, GType type, const char *label, GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      const char *text = GTK_IS_CHECK_BUTTON (root) ? gtk_check_button_get_label (GTK_CHECK_BUTTON (root))
                       : GTK_IS_BUTTON (root) ? gtk_button_get_label (GTK_BUTTON (root)) : NULL;

      if (label == NULL || g_strcmp0 (text, label) == 0)
        g_ptr_array_add (found, root);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, type, label, found);
}

static GtkWidget *
find_one (GtkWidget *root, GType type, const char *label)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();

  collect (root, type, label, found);
  g_assert_cmpuint (found->len, ==, 1);
  return found->pdata[0];
}

static gboolean
shows_processes (GSettings *settings, const char *host)
{
  g_auto(GStrv) hosts = g_settings_get_strv (settings, "process-hosts");

  return g_strv_contains ((const char * const *) hosts, host);
}

static GtkWidget *
new_preferences (GSettings *settings)
{
  GtkWidget *prefs = rtop_preferences_new (NULL, settings);

  gtk_window_present (GTK_WINDOW (prefs));
  gui_test_wait_mapped (prefs);
  gui_test_spin ();
  return prefs;
}

static void
destroy_preferences (GtkWidget *prefs)
{
  g_object_add_weak_pointer (G_OBJECT (prefs), (gpointer *) &prefs);
  gtk_window_destroy (GTK_WINDOW (prefs));
  gui_test_spin ();
  g_assert_null (prefs);
}

/* The preferences rows (or groups) under root whose title is title. */
static void
collect_titled (GtkWidget *root, GType type, const char *title, GPtrArray *found)
{
  const char *text = ADW_IS_PREFERENCES_ROW (root) ? adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root))
                   : ADW_IS_PREFERENCES_GROUP (root) ? adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (root))
                   : NULL;

  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && (title == NULL || g_strcmp0 (text, title) == 0))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_titled (child, type, title, found);
}

static GtkWidget *
find_titled (GtkWidget *root, GType type, const char *title)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new ();

  collect_titled (root, type, title, found);
  if (found->len != 1)
    g_error ("%u %s titled \"%s\", not one", found->len, g_type_name (type), title);
  return found->pdata[0];
}

static AdwActionRow *
find_row (GtkWidget *root, const char *title)
{
  return ADW_ACTION_ROW (find_titled (root, ADW_TYPE_ACTION_ROW, title));
}

/* The one widget of type in the row's suffixes. */
static GtkWidget *
row_control (AdwActionRow *row, GType type)
{
  return find_one (GTK_WIDGET (row), type, NULL);
}

static gboolean
switch_is_on (gpointer toggle)
{
  return gtk_switch_get_active (toggle);
}

static void
test_host_processes (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *hosts[] = { "node1", "node2", NULL }, *shown[] = { "node2", NULL };
  g_autoptr(GPtrArray) switches = g_ptr_array_new ();
  GtkWidget *prefs, *group;
  AdwActionRow *row1, *row2;

  g_settings_set_strv (settings, "hosts", hosts);
  g_settings_set_strv (settings, "process-hosts", shown);
  prefs = new_preferences (settings);
  /* One switch a host in the Remote Hosts group, each in its host's row,
   * as the setting says. */
  group = find_titled (prefs, ADW_TYPE_PREFERENCES_GROUP, _("Remote Hosts"));
  collect (group, GTK_TYPE_SWITCH, NULL, switches);
  g_assert_cmpuint (switches->len, ==, 2);
  row1 = find_row (prefs, "node1");
  row2 = find_row (prefs, "node2");
  g_assert_true (row_control (row1, GTK_TYPE_SWITCH) == switches->pdata[0]);
  g_assert_true (row_control (row2, GTK_TYPE_SWITCH) == switches->pdata[1]);
  g_assert_false (gtk_switch_get_active (switches->pdata[0]));
  g_assert_true (gtk_switch_get_active (switches->pdata[1]));
  gtk_switch_set_active (switches->pdata[0], TRUE);
  gtk_switch_set_active (switches->pdata[1], FALSE);
  gui_test_spin ();
  g_assert_true (shows_processes (settings, "node1"));
  g_assert_false (shows_processes (settings, "node2"));
  /* Activating the row (a click, its mnemonic) toggles its switch (once
   * the switch's slide has run). */
  adw_action_row_activate (row2);
  gui_test_wait_until (switch_is_on, switches->pdata[1], "the row's switch to be on");
  g_assert_true (shows_processes (settings, "node2"));
  g_assert_true (shows_processes (settings, "node1"));

  destroy_preferences (prefs);
  g_settings_reset (settings, "hosts");
  g_settings_reset (settings, "process-hosts");
}

static GtkWindow *
find_connect_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (RTOP_IS_CONNECT_DIALOG (window))
        return window;
    }
  return NULL;
}

static gboolean
has_connect_dialog (gpointer data)
{
  return find_connect_dialog () != NULL;
}

/* Connect to Host… works in the preferences (it was insensitive: its
 * action, app.connect-host, is out of a non-application window's reach):
 * it opens the connect dialog over them, and the host connected there
 * gets its row. */
static void
test_connect_host (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkWidget *prefs = new_preferences (settings);
  GtkWidget *button = find_one (prefs, GTK_TYPE_BUTTON, _("Connect to _Host…"));
  GtkWindow *dialog;

  g_assert_null (find_connect_dialog ());
  g_assert_true (gtk_widget_is_sensitive (button));
  g_assert_true (gtk_widget_get_mapped (button));
  /* Enter or Space on it: the button shows itself pressed a moment, then
   * is clicked. */
  g_assert_true (gtk_widget_activate (button));
  gui_test_wait_until (has_connect_dialog, NULL, "the connect dialog to open");
  dialog = find_connect_dialog ();
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  gui_test_wait_mapped (GTK_WIDGET (dialog));
  g_assert_true (gtk_window_get_transient_for (dialog) == GTK_WINDOW (prefs));
  g_assert_true (gtk_window_get_modal (dialog));
  gtk_editable_set_text (GTK_EDITABLE (find_one (GTK_WIDGET (dialog), GTK_TYPE_ENTRY, NULL)), "node7");
  g_signal_emit_by_name (find_one (GTK_WIDGET (dialog), GTK_TYPE_BUTTON, _("C_onnect")), "clicked");
  gui_test_spin ();
  g_assert_null (dialog);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (find_row (prefs, "node7"))));

  destroy_preferences (prefs);
  g_settings_reset (settings, "hosts");
  g_settings_reset (settings, "process-hosts");
}

static void
test_connect_dialog (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkWidget *dialog = rtop_connect_dialog_new (NULL, settings);
  GtkWidget *connect, *entry, *processes;
  g_auto(GStrv) hosts = NULL;

  gtk_window_present (GTK_WINDOW (dialog));
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &dialog);
  gui_test_spin ();
  connect = find_one (dialog, GTK_TYPE_BUTTON, _("C_onnect"));
  entry = find_one (dialog, GTK_TYPE_ENTRY, NULL);
  processes = find_one (dialog, GTK_TYPE_CHECK_BUTTON, _("Show _process names and ids"));
  /* Nothing to connect to yet; blanks are nothing either. */
  g_assert_false (gtk_widget_get_sensitive (connect));
  gtk_editable_set_text (GTK_EDITABLE (entry), "   ");
  g_assert_false (gtk_widget_get_sensitive (connect));
  gtk_editable_set_text (GTK_EDITABLE (entry), "node3");
  g_assert_true (gtk_widget_get_sensitive (connect));
  /* Off by default; on, the host's processes are asked for. */
  g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (processes)));
  gtk_check_button_set_active (GTK_CHECK_BUTTON (processes), TRUE);
  g_signal_emit_by_name (connect, "clicked");
  gui_test_spin ();
  g_assert_null (dialog);
  hosts = g_settings_get_strv (settings, "hosts");
  g_assert_true (g_strv_contains ((const char * const *) hosts, "node3"));
  g_assert_true (shows_processes (settings, "node3"));
  g_settings_reset (settings, "hosts");
  g_settings_reset (settings, "process-hosts");
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);

  g_test_add_func ("/gui/preferences/formats", test_formats);
  g_test_add_func ("/gui/preferences/host-processes", test_host_processes);
  g_test_add_func ("/gui/preferences/connect-host", test_connect_host);
  g_test_add_func ("/gui/preferences/connect-dialog", test_connect_dialog);
  return g_test_run ();
}
