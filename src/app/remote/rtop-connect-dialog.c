/* rtop-connect-dialog.c: the "Connect to Host…" dialog: one host name,
 * checked, connected and maybe remembered. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-connect-dialog.h"
#include "rtop-remote.h"

struct _RtopConnectDialog {
  GtkWindow parent_instance;

  GSettings *settings;
  GtkEntry *entry;
  GtkCheckButton *remember;
  GtkCheckButton *processes;
  GtkWidget *connect;
  GtkLabel *error;
};

G_DEFINE_FINAL_TYPE (RtopConnectDialog, rtop_connect_dialog, GTK_TYPE_WINDOW)

static void
remember_host (RtopConnectDialog *self, const char *host)
{
  g_auto(GStrv) hosts = g_settings_get_strv (self->settings, "hosts");
  g_autoptr(GStrvBuilder) next = g_strv_builder_new ();
  g_auto(GStrv) value = NULL;

  if (g_strv_contains ((const char * const *) hosts, host))
    return;
  g_strv_builder_addv (next, (const char **) hosts);
  g_strv_builder_add (next, host);
  value = g_strv_builder_end (next);
  g_settings_set_strv (self->settings, "hosts", (const char * const *) value);
}

static void
text_changed_cb (RtopConnectDialog *self)
{
  g_autofree char *host = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry))));

  gtk_widget_set_sensitive (self->connect, *host != '\0');
}

static void
connect_cb (RtopConnectDialog *self)
{
  g_autofree char *host = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry))));
  g_autoptr(GError) error = NULL;
  GApplication *app = g_application_get_default ();

  if (!rtop_remote_host_is_valid (host, &error))
    {
      gtk_label_set_label (self->error, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->error), TRUE);
      gtk_widget_grab_focus (GTK_WIDGET (self->entry));
      return;
    }
  if (self->settings != NULL)
    rtop_remote_set_host_processes (self->settings, host, gtk_check_button_get_active (self->processes));
  if (gtk_check_button_get_active (self->remember) && self->settings != NULL)
    remember_host (self, host);
  else if (app != NULL)
    g_action_group_activate_action (G_ACTION_GROUP (app), "add-host", g_variant_new_string (host));
  gtk_window_close (GTK_WINDOW (self));
}

static GtkWidget *
make_content (RtopConnectDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *label = gtk_label_new_with_mnemonic (_("_Host"));
  GtkWidget *hint = gtk_label_new (_("As you would give it to ssh: node1, alice@node1, or an alias from ~/.ssh/config. Your ssh configuration, keys and agent are used; rdmatop-cli must be installed there."));

  self->entry = GTK_ENTRY (gtk_entry_new ());
  gtk_entry_set_placeholder_text (self->entry, "node1");
  gtk_entry_set_activates_default (self->entry, TRUE);
  gtk_entry_set_max_length (self->entry, RTOP_REMOTE_HOST_MAX);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->entry));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Host"), -1);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (self->entry), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY,
                                  hint, NULL, -1);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (hint), 50);
  gtk_widget_add_css_class (hint, "dim-label");
  self->remember = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("_Remember this host and connect at start")));
  gtk_check_button_set_active (self->remember, TRUE);
  self->processes = GTK_CHECK_BUTTON (gtk_check_button_new_with_mnemonic (_("Show _process names and ids")));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->processes),
                               _("Asks the host for the name, id and user of every process using RDMA"));
  g_signal_connect_swapped (self->entry, "changed", G_CALLBACK (text_changed_cb), self);
  self->error = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->error, TRUE);
  gtk_label_set_xalign (self->error, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->error), "error");
  gtk_widget_set_visible (GTK_WIDGET (self->error), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->error), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Why the host cannot be used"), -1);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->entry));
  gtk_box_append (GTK_BOX (box), hint);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->remember));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->processes));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->error));
  return box;
}

static GtkWidget *
make_buttons (RtopConnectDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *cancel = gtk_button_new_with_mnemonic (_("_Cancel"));
  GtkWidget *connect = gtk_button_new_with_mnemonic (_("C_onnect"));

  gtk_widget_set_halign (box, GTK_ALIGN_END);
  gtk_widget_add_css_class (connect, "suggested-action");
  g_signal_connect_swapped (cancel, "clicked", G_CALLBACK (gtk_window_close), self);
  g_signal_connect_swapped (connect, "clicked", G_CALLBACK (connect_cb), self);
  gtk_box_append (GTK_BOX (box), cancel);
  gtk_box_append (GTK_BOX (box), connect);
  gtk_window_set_default_widget (GTK_WINDOW (self), connect);
  self->connect = connect;
  return box;
}

static void
rtop_connect_dialog_dispose (GObject *object)
{
  g_clear_object (&RTOP_CONNECT_DIALOG (object)->settings);
  G_OBJECT_CLASS (rtop_connect_dialog_parent_class)->dispose (object);
}

static void
rtop_connect_dialog_class_init (RtopConnectDialogClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_connect_dialog_dispose;
  gtk_widget_class_add_binding_action (GTK_WIDGET_CLASS (klass), GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
rtop_connect_dialog_init (RtopConnectDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 18);

  gtk_window_set_title (GTK_WINDOW (self), _("Connect to Host"));
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_resizable (GTK_WINDOW (self), FALSE);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_box_append (GTK_BOX (box), make_content (self));
  gtk_box_append (GTK_BOX (box), make_buttons (self));
  gtk_window_set_child (GTK_WINDOW (self), box);
  text_changed_cb (self);
}

GtkWidget *
rtop_connect_dialog_new (GtkWindow *parent, GSettings *settings)
{
  RtopConnectDialog *self = g_object_new (RTOP_TYPE_CONNECT_DIALOG, "transient-for", parent, NULL);

  self->settings = settings != NULL ? g_object_ref (settings) : NULL;
  gtk_widget_set_sensitive (GTK_WIDGET (self->remember), settings != NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->processes), settings != NULL);
  return GTK_WIDGET (self);
}
