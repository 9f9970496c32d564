/* rtop-preferences.c: the preferences window, bound to the application's
 * GSettings. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-preferences.h"
#include "rtop-remote.h"
#include "rtop-session.h"
#include "rtop-record-format.h"

static const int window_minutes[] = { 1, 5, 15, 60 };

struct _RtopPreferences {
  GtkWindow parent_instance;

  GSettings *settings;
  GtkSpinButton *interval_spin;
  GtkDropDown *window_dropdown;
  GtkButton *folder_button;
  GtkLabel *folder_label;
  GtkDropDown *format_dropdown;
  GtkSwitch *notify_switch;
  GtkSwitch *bytes_switch;
  GtkEntry *remote_command_entry;
  GtkListBox *hosts_list;
  GtkWidget *hosts_empty;
  GPtrArray *formats;          /* RtopRecordFormatInfo*: the dropdown's rows */
};

G_DEFINE_FINAL_TYPE (RtopPreferences, rtop_preferences, GTK_TYPE_WINDOW)

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
update_folder_label (RtopPreferences *self)
{
  g_autofree char *folder = rtop_session_get_recordings_folder (self->settings);

  gtk_label_set_label (self->folder_label, folder);
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

static GtkWidget *
host_row (RtopPreferences *self, const char *host)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (host);
  GtkWidget *shown = gtk_label_new (_("Process names and ids"));
  GtkWidget *remove = gtk_button_new_from_icon_name ("list-remove-symbolic");
  g_autofree char *name = g_strdup_printf (_("Remove %s"), host);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_set_tooltip_text (remove, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  gtk_widget_add_css_class (remove, "flat");
  g_object_set_data_full (G_OBJECT (remove), "rtop-host", g_strdup (host), g_free);
  g_signal_connect_object (remove, "clicked", G_CALLBACK (remove_host_cb), self, 0);
  gtk_widget_add_css_class (shown, "dim-label");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), shown);
  gtk_box_append (GTK_BOX (box), processes_switch (self, host));
  gtk_box_append (GTK_BOX (box), remove);
  return box;
}

static void
update_hosts (RtopPreferences *self)
{
  g_auto(GStrv) hosts = g_settings_get_strv (self->settings, "hosts");
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->hosts_list))) != NULL)
    gtk_list_box_remove (self->hosts_list, child);
  for (guint i = 0; hosts[i] != NULL; i++)
    gtk_list_box_append (self->hosts_list, host_row (self, hosts[i]));
  gtk_widget_set_visible (GTK_WIDGET (self->hosts_list), hosts[0] != NULL);
  gtk_widget_set_visible (self->hosts_empty, hosts[0] == NULL);
}

static void
rtop_preferences_dispose (GObject *object)
{
  RtopPreferences *self = RTOP_PREFERENCES (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->formats, g_ptr_array_unref);
  G_OBJECT_CLASS (rtop_preferences_parent_class)->dispose (object);
}

static void
rtop_preferences_class_init (RtopPreferencesClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = rtop_preferences_dispose;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, interval_spin);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, window_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, folder_button);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, folder_label);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, format_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, notify_switch);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, bytes_switch);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, remote_command_entry);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, hosts_list);
  gtk_widget_class_bind_template_child (widget_class, RtopPreferences, hosts_empty);
  gtk_widget_class_bind_template_callback (widget_class, folder_clicked_cb);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
rtop_preferences_init (RtopPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  fill_formats (self);
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
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
                           G_CALLBACK (update_folder_label), self, G_CONNECT_SWAPPED);
  update_folder_label (self);
  g_settings_bind (settings, "remote-command", self->remote_command_entry, "text", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (settings, "changed::hosts", G_CALLBACK (update_hosts), self, G_CONNECT_SWAPPED);
  update_hosts (self);
  return GTK_WIDGET (self);
}
