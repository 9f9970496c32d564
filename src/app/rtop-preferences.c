/* rtop-preferences.c: the preferences window, bound to the application's
 * GSettings: an AdwPreferencesWindow whose rows are in
 * rtop-preferences.ui, but for one row a remembered host. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-connect-dialog.h"
#include "rtop-preferences.h"
#include "rtop-remote.h"
#include "rtop-session.h"
#include "rtop-record-format.h"

static const int window_minutes[] = { 1, 5, 15, 60 };

struct _RtopPreferences {
  AdwPreferencesWindow parent_instance;

  GSettings *settings;
  AdwPreferencesPage *page;
  GtkSpinButton *interval_spin;
  GtkDropDown *window_dropdown;
  AdwActionRow *folder_row;
  GtkButton *folder_button;
  GtkDropDown *format_dropdown;
  GtkSwitch *notify_switch;
  GtkSwitch *bytes_switch;
  GtkEntry *remote_command_entry;
  AdwPreferencesGroup *hosts_group;
  GtkWidget *hosts_empty;
  GPtrArray *host_rows;        /* AdwActionRow*: one a remembered host, in hosts_group */
  GPtrArray *formats;          /* RtopRecordFormatInfo*: the dropdown's rows */
};

G_DEFINE_FINAL_TYPE (RtopPreferences, rtop_preferences, ADW_TYPE_PREFERENCES_WINDOW)

static gboolean
minutes_to_index (GValue *value, GVariant *variant, gpointer user_data)
{
  int minutes = g_variant_get_int32 (variant);

  for (guint i = 0; i < G_N_ELEMENTS (window_minutes); i++)
    if (minutes <= window_minutes[i])
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  g_value_set_uint (value, G_N_ELEMENTS (window_minutes) - 1);
  return TRUE;
}

static GVariant *
index_to_minutes (const GValue *value, const GVariantType *type, gpointer user_data)
{
  guint i = g_value_get_uint (value);

  return g_variant_new_int32 (window_minutes[MIN (i, G_N_ELEMENTS (window_minutes) - 1)]);
}

static gboolean
format_to_index (GValue *value, GVariant *variant, gpointer user_data)
{
  RtopPreferences *self = user_data;
  const char *format = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < self->formats->len; i++)
    if (g_strcmp0 (format, ((const RtopRecordFormatInfo *) g_ptr_array_index (self->formats, i))->name) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_format (const GValue *value, const GVariantType *type, gpointer user_data)
{
  RtopPreferences *self = user_data;
  guint i = g_value_get_uint (value);

  if (i >= self->formats->len)
    return NULL;
  return g_variant_new_string (((const RtopRecordFormatInfo *) g_ptr_array_index (self->formats, i))->name);
}

/* The dropdown lists every format the table says can be recorded. */
static void
fill_formats (RtopPreferences *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  const RtopRecordFormatInfo *formats;
  guint n;

  self->formats = g_ptr_array_new ();
  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    if (formats[i].flags & RTOP_RECORD_FORMAT_RECORDABLE)
      {
        g_ptr_array_add (self->formats, (gpointer) &formats[i]);
        gtk_string_list_append (names, _(formats[i].display_name));
      }
  gtk_drop_down_set_model (self->format_dropdown, G_LIST_MODEL (names));
}

static void
update_folder (RtopPreferences *self)
{
  g_autofree char *folder = rtop_session_get_recordings_folder (self->settings);
  /* A row's subtitle is markup. */
  g_autofree char *markup = g_markup_escape_text (folder, -1);

  adw_action_row_set_subtitle (self->folder_row, markup);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->folder_button), folder);
}

static void
folder_response_cb (GtkNativeDialog *dialog, int response, RtopPreferences *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file ? g_file_get_path (file) : NULL;

      if (path)
        g_settings_set_string (self->settings, "recordings-folder", path);
    }
  g_object_unref (dialog);
}

static void
folder_clicked_cb (RtopPreferences *self)
{
  GtkFileChooserNative *dialog;

  dialog = gtk_file_chooser_native_new (_("Recordings Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                        _("_Select"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (folder_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
remove_host_cb (GtkButton *button, RtopPreferences *self)
{
  const char *host = g_object_get_data (G_OBJECT (button), "rtop-host");
  g_auto(GStrv) hosts = g_settings_get_strv (self->settings, "hosts");
  g_autoptr(GStrvBuilder) kept = g_strv_builder_new ();
  g_auto(GStrv) next = NULL;

  for (guint i = 0; hosts[i] != NULL; i++)
    if (g_strcmp0 (hosts[i], host) != 0)
      g_strv_builder_add (kept, hosts[i]);
  next = g_strv_builder_end (kept);
  /* The application follows the setting: the host is disconnected. */
  g_settings_set_strv (self->settings, "hosts", (const char * const *) next);
}

static void
processes_active_cb (GtkSwitch *toggle, GParamSpec *pspec, RtopPreferences *self)
{
  const char *host = g_object_get_data (G_OBJECT (toggle), "rtop-host");

  /* The session follows the setting: the host is connected again. */
  rtop_remote_set_host_processes (self->settings, host, gtk_switch_get_active (toggle));
}

/* Accessible names as a screen reader reads them.  A row names the control
 * it activates after its title (libadwaita 1.2; 1.1 may not); GTK 4.8
 * reads that after the control's own label: "Notify about errors Notify
 * about errors when …".  The control's own label stays, alone (the row
 * itself is named after its title; its subtitle still describes the
 * control).  The window's search entry, unused here (search is off) but
 * in the tree, gets a name too. */
static void
name_controls (GtkWidget *widget)
{
  if (GTK_IS_SEARCH_ENTRY (widget))
    gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _("Search preferences"), -1);
  if (ADW_IS_ACTION_ROW (widget) && adw_action_row_get_activatable_widget (ADW_ACTION_ROW (widget)))
    gtk_accessible_reset_relation (GTK_ACCESSIBLE (adw_action_row_get_activatable_widget (ADW_ACTION_ROW (widget))),
                                   GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    name_controls (child);
}

/* "Show process names and ids" of one host: a switch, off by default. */
static GtkWidget *
processes_switch (RtopPreferences *self, const char *host)
{
  GtkWidget *toggle = gtk_switch_new ();
  g_autofree char *name = g_strdup_printf (_("Show process names and ids of %s"), host);

  gtk_switch_set_active (GTK_SWITCH (toggle), rtop_remote_host_shows_processes (self->settings, host));
  gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (toggle, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (toggle), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  g_object_set_data_full (G_OBJECT (toggle), "rtop-host", g_strdup (host), g_free);
  g_signal_connect_object (toggle, "notify::active", G_CALLBACK (processes_active_cb), self, 0);
  return toggle;
}

/* A remembered host: its name, its switch (the row toggles it) and a
 * button that forgets it. */
static GtkWidget *
host_row (RtopPreferences *self, const char *host)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *toggle = processes_switch (self, host);
  GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
  g_autofree char *title = g_markup_escape_text (host, -1);
  g_autofree char *name = g_strdup_printf (_("Remove %s"), host);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Show process names and ids"));
  gtk_widget_set_tooltip_text (remove, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  g_object_set_data_full (G_OBJECT (remove), "rtop-host", g_strdup (host), g_free);
  g_signal_connect_object (remove, "clicked", G_CALLBACK (remove_host_cb), self, 0);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), remove);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), toggle);
  name_controls (row);
  return row;
}

static void
update_hosts (RtopPreferences *self)
{
  g_auto(GStrv) hosts = g_settings_get_strv (self->settings, "hosts");

  for (guint i = 0; i < self->host_rows->len; i++)
    adw_preferences_group_remove (self->hosts_group, self->host_rows->pdata[i]);
  g_ptr_array_set_size (self->host_rows, 0);
  for (guint i = 0; hosts[i] != NULL; i++)
    {
      GtkWidget *row = host_row (self, hosts[i]);

      adw_preferences_group_add (self->hosts_group, row);
      g_ptr_array_add (self->host_rows, row);
    }
  gtk_widget_set_visible (self->hosts_empty, hosts[0] == NULL);
}

/* Connect to Host…: the application's dialog, over this modal window.
 * (app.connect-host is out of reach here: this window is not one of the
 * application's, so a button naming it stayed insensitive.) */
static void
connect_host_cb (GtkWidget *widget, const char *action_name, GVariant *param)
{
  RtopPreferences *self = RTOP_PREFERENCES (widget);

  gtk_window_present (GTK_WINDOW (rtop_connect_dialog_new (GTK_WINDOW (self), self->settings)));
}

/* The rows of the page's groups (rows do not nest). */
static void
collect_rows (GtkWidget *widget, GPtrArray *rows)
{
  if (ADW_IS_PREFERENCES_ROW (widget))
    {
      g_ptr_array_add (rows, widget);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_rows (child, rows);
}

/* libadwaita 1.1 to 1.2.4 keep a reference to each group of a preferences
 * window for good: the window's search maps each group through
 * adw_preferences_group_get_rows(), which never releases the group it is
 * given (fixed in 1.2.5).  The groups outlive the window, and with them
 * their rows, the controls and the controls' settings bindings (which
 * hold the settings).  Emptied, only the groups' own widgets remain. */
static void
empty_groups (RtopPreferences *self)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new ();

  collect_rows (GTK_WIDGET (self->page), rows);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *group = gtk_widget_get_ancestor (rows->pdata[i], ADW_TYPE_PREFERENCES_GROUP);

      adw_preferences_group_remove (ADW_PREFERENCES_GROUP (group), rows->pdata[i]);
    }
  adw_preferences_group_set_header_suffix (self->hosts_group, NULL);
}

static void
rtop_preferences_dispose (GObject *object)
{
  RtopPreferences *self = RTOP_PREFERENCES (object);

  /* Nothing reaches the window once it is gone: not a change of the hosts
   * nor of the folder, nor the format's mapping (it reads formats). */
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  if (self->format_dropdown != NULL)
    g_settings_unbind (self->format_dropdown, "selected");
  if (self->page != NULL)
    empty_groups (self);
  self->page = NULL;
  g_clear_object (&self->settings);
  g_clear_pointer (&self->formats, g_ptr_array_unref);
  g_clear_pointer (&self->host_rows, g_ptr_array_unref);
  G_OBJECT_CLASS (rtop_preferences_parent_class)->dispose (object);
}

static void
rtop_preferences_class_init (RtopPreferencesClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = rtop_preferences_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, page);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, interval_spin);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, window_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, folder_row);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, folder_button);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, notify_switch);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, bytes_switch);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, remote_command_entry);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, hosts_group);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, hosts_empty);
  gtk_widget_class_bind_template_callback (widget_class, folder_clicked_cb);
  gtk_widget_class_install_action (widget_class, "preferences.connect-host", NULL, connect_host_cb);
}

static void
rtop_preferences_init (RtopPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->host_rows = g_ptr_array_new ();
  fill_formats (self);
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
  name_controls (GTK_WIDGET (self));
}

GtkWidget *
rtop_preferences_new (GtkWindow *parent, GSettings *settings)
{
  RtopPreferences *self = g_object_new (RTOP_TYPE_PREFERENCES, "transient-for", parent, NULL);

  self->settings = g_object_ref (settings);
  g_settings_bind (settings, "interval", self->interval_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "time-window", self->window_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, minutes_to_index, index_to_minutes,
                                NULL, NULL);
  g_settings_bind_with_mapping (settings, "recording-format", self->format_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, format_to_index, index_to_format,
                                self, NULL);
  g_settings_bind (settings, "notify-errors", self->notify_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "throughput-in-bytes", self->bytes_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (settings, "changed::recordings-folder",
                           G_CALLBACK (update_folder), self, G_CONNECT_SWAPPED);
  update_folder (self);
  g_settings_bind (settings, "remote-command", self->remote_command_entry, "text", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (settings, "changed::hosts", G_CALLBACK (update_hosts), self, G_CONNECT_SWAPPED);
  update_hosts (self);
  return GTK_WIDGET (self);
}
