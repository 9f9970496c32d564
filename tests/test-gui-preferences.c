/* test-gui-preferences.c: the preferences are an AdwPreferencesWindow of
 * groups of rows.  Its format dropdown lists every recordable row of the
 * format table, in table order, and follows the recording-format setting
 * both ways (GSettings memory backend).  Each remembered host has a row
 * with a switch for its process names and ids and a button that forgets
 * it; Connect to Host… opens the connect dialog, which sets them; its
 * Connect waits for a host name.  Every control has an accessible name
 * (read from GTK's test accessibility backend) and is reached with Tab;
 * the rows keep the old labels' mnemonics; Escape closes the window. */
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

/* The label under root that shows text (its label, mnemonic included). */
static GtkWidget *
find_titled_label (GtkWidget *root, const char *text)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_label (GTK_LABEL (root)), text) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_titled_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The label under root that shows text (what is seen, markup parsed). */
static GtkWidget *
find_shown_label (GtkWidget *root, const char *text)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_shown_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
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

/* The page the window shows: ours (the window holds one of its own). */
static GtkWidget *
the_page (GtkWidget *prefs)
{
  GtkWidget *page = GTK_WIDGET (adw_preferences_window_get_visible_page (ADW_PREFERENCES_WINDOW (prefs)));

  g_assert_true (ADW_IS_PREFERENCES_PAGE (page));
  return page;
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

/* The groups, in order, each with its controls; the hosts' rows come and
 * go with the setting, and a remove button forgets its host. */
static void
test_structure (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *titles[] = { _("Sampling"), _("Recording"), _("Units"), _("Remote Hosts") };
  const char *node1[] = { "node1", NULL }, *hosts[] = { "node1", "alice@node2", NULL };
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  GtkWidget *prefs = new_preferences (settings);
  AdwActionRow *empty;
  g_auto(GStrv) left = NULL;

  g_assert_true (ADW_IS_PREFERENCES_WINDOW (prefs));
  g_assert_false (adw_preferences_window_get_search_enabled (ADW_PREFERENCES_WINDOW (prefs)));
  collect_titled (the_page (prefs), ADW_TYPE_PREFERENCES_GROUP, NULL, groups);
  g_assert_cmpuint (groups->len, ==, G_N_ELEMENTS (titles));
  for (guint i = 0; i < groups->len; i++)
    g_assert_cmpstr (adw_preferences_group_get_title (groups->pdata[i]), ==, titles[i]);
  /* Each control at the end of its row. */
  g_assert_true (GTK_IS_SPIN_BUTTON (row_control (find_row (groups->pdata[0], _("_Interval (seconds)")), GTK_TYPE_SPIN_BUTTON)));
  g_assert_true (GTK_IS_DROP_DOWN (row_control (find_row (groups->pdata[0], _("Graph _time window")), GTK_TYPE_DROP_DOWN)));
  g_assert_true (GTK_IS_BUTTON (row_control (find_row (groups->pdata[1], _("_Folder")), GTK_TYPE_BUTTON)));
  g_assert_true (GTK_IS_DROP_DOWN (row_control (find_row (groups->pdata[1], _("F_ormat")), GTK_TYPE_DROP_DOWN)));
  g_assert_true (GTK_IS_SWITCH (row_control (find_row (groups->pdata[1], _("_Notify about errors when rdmatop is not in front")), GTK_TYPE_SWITCH)));
  g_assert_true (GTK_IS_SWITCH (row_control (find_row (groups->pdata[2], _("Show throughput in _bytes per second (not bits)")), GTK_TYPE_SWITCH)));
  g_assert_true (GTK_IS_ENTRY (row_control (find_row (groups->pdata[3], _("Remote _command")), GTK_TYPE_ENTRY)));
  g_assert_true (find_one (groups->pdata[3], GTK_TYPE_BUTTON, _("Connect to _Host…")) != NULL);
  /* The folder is the row's subtitle (markup), shown as it is. */
  g_settings_set_string (settings, "recordings-folder", "/srv/R&D <traces>");
  gui_test_spin ();
  g_assert_nonnull (find_shown_label (GTK_WIDGET (find_row (groups->pdata[1], _("_Folder"))), "/srv/R&D <traces>"));
  g_settings_reset (settings, "recordings-folder");

  /* No host: a row says so. */
  empty = find_row (groups->pdata[3], _("No hosts are remembered. Connect to a host to add one."));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (empty)));
  g_settings_set_strv (settings, "hosts", hosts);
  gui_test_spin ();
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (empty)));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (find_row (groups->pdata[3], "node1"))));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (find_row (groups->pdata[3], "alice@node2"))));
  g_signal_emit_by_name (find_one (GTK_WIDGET (find_row (prefs, "alice@node2")), GTK_TYPE_BUTTON, NULL), "clicked");
  gui_test_spin ();
  left = g_settings_get_strv (settings, "hosts");
  g_assert_cmpstrv (left, node1);
  {
    g_autoptr(GPtrArray) rows = g_ptr_array_new ();

    collect_titled (prefs, ADW_TYPE_ACTION_ROW, "alice@node2", rows);
    g_assert_cmpuint (rows->len, ==, 0);
  }
  g_signal_emit_by_name (find_one (GTK_WIDGET (find_row (prefs, "node1")), GTK_TYPE_BUTTON, NULL), "clicked");
  gui_test_spin ();
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (empty)));

  destroy_preferences (prefs);
  g_settings_reset (settings, "hosts");
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

/* How many things name the control for a screen reader, as GTK 4.8
 * reads them, one after the other: its own label; labelling widgets (a
 * row names the control it activates after its title); a button's own
 * child when it labels the button (a mnemonic label; an icon says
 * nothing); without any of these, the text a button shows.  One is a
 * name, none no name, two a name said twice ("Notify about errors Notify
 * about errors when …"). */
static guint
name_sources (GtkWidget *widget)
{
  GtkAccessible *accessible = GTK_ACCESSIBLE (widget);
  GtkWidget *child = GTK_IS_BUTTON (widget) ? gtk_button_get_child (GTK_BUTTON (widget)) : NULL;
  const char *text = GTK_IS_BUTTON (widget) ? gtk_button_get_label (GTK_BUTTON (widget)) : NULL;
  gboolean own = gtk_test_accessible_has_property (accessible, GTK_ACCESSIBLE_PROPERTY_LABEL);
  gboolean related = gtk_test_accessible_has_relation (accessible, GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  g_autofree char *not_child = NULL;
  gboolean by_child = FALSE;

  if (related && child != NULL)
    {
      not_child = gtk_test_accessible_check_relation (accessible, GTK_ACCESSIBLE_RELATION_LABELLED_BY, child, NULL);
      by_child = not_child == NULL;
    }
  if (by_child)
    return own + (GTK_IS_LABEL (child) && *gtk_label_get_text (GTK_LABEL (child)) != '\0');
  if (own || related)
    return own + related;
  return text != NULL && *text != '\0';
}

/* The controls a user works: switches, spin buttons, drop-downs, entries
 * and buttons, not the parts GTK builds them from (a spin button's +
 * and −, a drop-down's toggle). */
static void
collect_controls (GtkWidget *root, GPtrArray *found)
{
  if (GTK_IS_SWITCH (root) || GTK_IS_SPIN_BUTTON (root) || GTK_IS_DROP_DOWN (root) ||
      GTK_IS_ENTRY (root) || GTK_IS_BUTTON (root))
    {
      g_ptr_array_add (found, root);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_controls (child, found);
}

static void
test_accessible_names (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *hosts[] = { "node1", NULL };
  const struct { const char *row, *name; } names[] = {
    { N_("_Interval (seconds)"), N_("Sampling interval in seconds") },
    { N_("Graph _time window"), N_("Graph time window") },
    { N_("_Folder"), N_("Choose the recordings folder") },
    { N_("F_ormat"), N_("Recording format") },
    { N_("_Notify about errors when rdmatop is not in front"), N_("Notify about errors") },
    { N_("Show throughput in _bytes per second (not bits)"), N_("Show throughput in bytes per second") },
    { N_("Remote _command"), N_("Remote command") },
  };
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();
  GtkWidget *prefs, *page;
  AdwActionRow *host;

  g_settings_set_strv (settings, "hosts", hosts);
  prefs = new_preferences (settings);
  page = the_page (prefs);
  collect_controls (page, controls);
  /* 2 drop-downs, a spin button, 2 + 1 switches, an entry, 1 + 1 + 1 buttons. */
  g_assert_cmpuint (controls->len, ==, 10);
  for (guint i = 0; i < controls->len; i++)
    if (name_sources (controls->pdata[i]) != 1)
      g_error ("%s %p (%s) has %u accessible names, not one", G_OBJECT_TYPE_NAME (controls->pdata[i]),
               controls->pdata[i], gtk_widget_get_tooltip_text (controls->pdata[i]), name_sources (controls->pdata[i]));
  /* Each control by name: the row's title names the row, not the control
   * at its end. */
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      AdwActionRow *row = find_row (page, _(names[i].row));
      GtkWidget *control = adw_action_row_get_activatable_widget (row);

      g_assert_nonnull (control);
      gtk_test_accessible_assert_property (control, GTK_ACCESSIBLE_PROPERTY_LABEL, _(names[i].name));
    }
  host = find_row (page, "node1");
  gtk_test_accessible_assert_property (row_control (host, GTK_TYPE_SWITCH), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Show process names and ids of node1");
  gtk_test_accessible_assert_property (find_one (GTK_WIDGET (host), GTK_TYPE_BUTTON, NULL),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Remove node1");
  /* Every row has a title, which names it. */
  collect_titled (page, ADW_TYPE_ACTION_ROW, NULL, rows);
  g_assert_cmpuint (rows->len, ==, G_N_ELEMENTS (names) + 2);
  for (guint i = 0; i < rows->len; i++)
    {
      const char *title = adw_preferences_row_get_title (rows->pdata[i]);

      g_assert_true (title != NULL && *title != '\0');
      g_assert_true (gtk_test_accessible_has_relation (rows->pdata[i], GTK_ACCESSIBLE_RELATION_LABELLED_BY));
    }

  destroy_preferences (prefs);
  g_settings_reset (settings, "hosts");
}

/* Whether focus, the window's focus widget, is control or inside it (an
 * entry's text, a drop-down's button). */
static gboolean
focus_in (GtkWidget *focus, GtkWidget *control)
{
  return focus != NULL && (focus == control || gtk_widget_is_ancestor (focus, control));
}

/* The shortcut of prefs' class that Escape triggers, if any. */
static GtkShortcutAction *
escape_action (GtkWidget *prefs)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (prefs);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          g_autofree char *trigger = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));

          if (g_strcmp0 (trigger, "Escape") == 0)
            return gtk_shortcut_get_action (shortcut);
        }
    }
  return NULL;
}

/* Tab reaches every control; each row keeps its label's mnemonic, which
 * works its control; Escape closes the window. */
static void
test_keyboard (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *hosts[] = { "node1", NULL };
  const struct { const char *row; guint keyval; } mnemonics[] = {
    { N_("_Interval (seconds)"), GDK_KEY_i },
    { N_("Graph _time window"), GDK_KEY_t },
    { N_("_Folder"), GDK_KEY_f },
    { N_("F_ormat"), GDK_KEY_o },
    { N_("_Notify about errors when rdmatop is not in front"), GDK_KEY_n },
    { N_("Show throughput in _bytes per second (not bits)"), GDK_KEY_b },
    { N_("Remote _command"), GDK_KEY_c },
  };
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  g_autoptr(GHashTable) reached = g_hash_table_new (NULL, NULL);
  GtkWidget *prefs, *page, *connect;
  GtkShortcutAction *escape;

  g_settings_set_strv (settings, "hosts", hosts);
  prefs = new_preferences (settings);
  page = the_page (prefs);
  collect_controls (page, controls);
  g_assert_cmpuint (controls->len, ==, 10);
  for (guint step = 0; step < 200; step++)
    {
      GtkWidget *focus;

      if (!gtk_widget_child_focus (prefs, GTK_DIR_TAB_FORWARD))
        gtk_window_set_focus (GTK_WINDOW (prefs), NULL);   /* round again */
      focus = gtk_root_get_focus (GTK_ROOT (prefs));
      for (guint i = 0; i < controls->len; i++)
        if (focus_in (focus, controls->pdata[i]))
          g_hash_table_add (reached, controls->pdata[i]);
    }
  for (guint i = 0; i < controls->len; i++)
    if (!g_hash_table_contains (reached, controls->pdata[i]))
      g_error ("Tab never reaches %s %p", G_OBJECT_TYPE_NAME (controls->pdata[i]), controls->pdata[i]);

  /* The mnemonics of the old labels, now the rows' titles. */
  for (guint i = 0; i < G_N_ELEMENTS (mnemonics); i++)
    {
      AdwActionRow *row = find_row (page, _(mnemonics[i].row));
      GtkWidget *title = find_titled_label (GTK_WIDGET (row), _(mnemonics[i].row));

      g_assert_cmpuint (gdk_keyval_to_lower (gtk_label_get_mnemonic_keyval (GTK_LABEL (title))), ==, mnemonics[i].keyval);
      g_assert_nonnull (adw_action_row_get_activatable_widget (row));
    }
  /* Alt+I, Alt+C: the label's mnemonic focuses the spin button, the entry. */
  gtk_widget_mnemonic_activate (find_titled_label (page, _("_Interval (seconds)")), FALSE);
  g_assert_true (focus_in (gtk_root_get_focus (GTK_ROOT (prefs)), find_one (page, GTK_TYPE_SPIN_BUTTON, NULL)));
  gtk_widget_mnemonic_activate (find_titled_label (page, _("Remote _command")), FALSE);
  g_assert_true (focus_in (gtk_root_get_focus (GTK_ROOT (prefs)), find_one (page, GTK_TYPE_ENTRY, NULL)));
  /* Alt+B flips the bytes switch, as before. */
  gtk_widget_mnemonic_activate (find_titled_label (page, _("Show throughput in _bytes per second (not bits)")), FALSE);
  gui_test_wait_until (switch_is_on, row_control (find_row (page, _("Show throughput in _bytes per second (not bits)")),
                                                  GTK_TYPE_SWITCH), "the bytes switch to be on");
  g_assert_true (g_settings_get_boolean (settings, "throughput-in-bytes"));
  g_settings_reset (settings, "throughput-in-bytes");
  /* Connect to Host… has its mnemonic, Alt+H. */
  connect = find_one (page, GTK_TYPE_BUTTON, _("Connect to _Host…"));
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (connect)));

  /* Escape closes the window. */
  escape = escape_action (prefs);
  g_assert_nonnull (escape);
  g_object_add_weak_pointer (G_OBJECT (prefs), (gpointer *) &prefs);
  g_assert_true (gtk_shortcut_action_activate (escape, 0, prefs, NULL));
  gui_test_spin ();
  g_assert_null (prefs);
  g_settings_reset (settings, "hosts");
}

/* The window at its default size, light or dark (test-gui-preferences-dark):
 * a page with a host remembered, every group's title drawn. */
static void
test_screenshot (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *hosts[] = { "node1", "alice@node2", NULL }, *shown[] = { "alice@node2", NULL };
  g_autoptr(GPtrArray) groups = g_ptr_array_new ();
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GuiTestPixels) pixels = NULL;
  GtkWidget *prefs;

  g_settings_set_strv (settings, "hosts", hosts);
  g_settings_set_strv (settings, "process-hosts", shown);
  g_settings_set_string (settings, "recordings-folder", "/home/alice/Documents/rdmatop");
  prefs = new_preferences (settings);
  gui_test_wait_painted (prefs);
  texture = gui_test_screenshot (prefs, "preferences.png");
  pixels = gui_test_pixels_new (texture, prefs);
  gui_test_assert_page (pixels);
  collect_titled (the_page (prefs), ADW_TYPE_PREFERENCES_GROUP, NULL, groups);
  g_assert_cmpuint (groups->len, ==, 4);
  for (guint i = 0; i < groups->len; i++)
    gui_test_assert_drawn (pixels, prefs, find_titled_label (groups->pdata[i],
                                                             adw_preferences_group_get_title (groups->pdata[i])), 20);

  destroy_preferences (prefs);
  g_settings_reset (settings, "hosts");
  g_settings_reset (settings, "process-hosts");
  g_settings_reset (settings, "recordings-folder");
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

/* Nothing of the window outlives it: its rows, their controls, the
 * settings' bindings (libadwaita up to 1.2.4 keeps its groups alive). */
static void
test_released (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *hosts[] = { "node1", NULL };
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  guint refs;
  GtkWidget *prefs;
  AdwActionRow *row;

  g_settings_set_strv (settings, "hosts", hosts);
  refs = G_OBJECT (settings)->ref_count;
  prefs = new_preferences (settings);
  row = find_row (prefs, "node1");
  g_object_add_weak_pointer (G_OBJECT (row), (gpointer *) &row);
  collect_controls (the_page (prefs), controls);
  g_assert_cmpuint (controls->len, ==, 10);
  for (guint i = 0; i < controls->len; i++)
    g_object_add_weak_pointer (controls->pdata[i], &controls->pdata[i]);
  g_assert_cmpuint (G_OBJECT (settings)->ref_count, >, refs);
  destroy_preferences (prefs);
  g_assert_null (row);
  for (guint i = 0; i < controls->len; i++)
    g_assert_null (controls->pdata[i]);
  g_assert_cmpuint (G_OBJECT (settings)->ref_count, ==, refs);
  g_settings_reset (settings, "hosts");
}

int
main (int argc, char *argv[])
{
  /* GTK's in-process accessibility backend keeps the names and relations
   * it is given, for the test to read; under GTK_A11Y=none (the suite's)
   * it keeps none. */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gui_test_init (&argc, &argv);

  g_test_add_func ("/gui/preferences/formats", test_formats);
  g_test_add_func ("/gui/preferences/structure", test_structure);
  g_test_add_func ("/gui/preferences/host-processes", test_host_processes);
  g_test_add_func ("/gui/preferences/connect-host", test_connect_host);
  g_test_add_func ("/gui/preferences/accessible-names", test_accessible_names);
  g_test_add_func ("/gui/preferences/keyboard", test_keyboard);
  g_test_add_func ("/gui/preferences/screenshot", test_screenshot);
  g_test_add_func ("/gui/preferences/released", test_released);
  g_test_add_func ("/gui/preferences/connect-dialog", test_connect_dialog);
  return g_test_run ();
}
