/* rtop-askpass-dialog.c: ssh's question to the user as a dialog that
 * answers the request. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-askpass-dialog.h"

typedef struct {
  RtopAskpassRequest *request;
  GtkWidget *entry;            /* the hidden entry, for secrets */
} Question;

static void
question_free (gpointer data)
{
  Question *q = data;

  /* Closed without an answer: declined. */
  rtop_askpass_request_answer (q->request, NULL);
  g_object_unref (q->request);
  g_free (q);
}

static Question *
question_of (GtkWidget *widget)
{
  return g_object_get_data (G_OBJECT (gtk_widget_get_root (widget)), "rtop-question");
}

static void
accept_cb (GtkWidget *button)
{
  Question *q = question_of (button);
  RtopAskpassKind kind = rtop_askpass_request_get_kind (q->request);

  if (kind == RTOP_ASKPASS_SECRET)
    rtop_askpass_request_answer (q->request, gtk_editable_get_text (GTK_EDITABLE (q->entry)));
  else
    rtop_askpass_request_answer (q->request, kind == RTOP_ASKPASS_YES_NO ? "yes" : "");
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_root (button)));
}

static void
decline_cb (GtkWidget *button)
{
  gtk_window_destroy (GTK_WINDOW (gtk_widget_get_root (button)));
}

static GtkWidget *
make_buttons (RtopAskpassKind kind, GtkWindow *window)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *no = gtk_button_new_with_mnemonic (kind == RTOP_ASKPASS_SECRET ? _("_Cancel") : _("_No"));
  GtkWidget *yes = gtk_button_new_with_mnemonic (kind == RTOP_ASKPASS_SECRET ? _("_OK")
                                                 /* Translators: accept a host key ssh does not know */
                                                 : _("_Yes, Connect"));

  gtk_widget_set_halign (box, GTK_ALIGN_END);
  gtk_widget_add_css_class (yes, kind == RTOP_ASKPASS_SECRET ? "suggested-action" : "destructive-action");
  g_signal_connect (no, "clicked", G_CALLBACK (decline_cb), NULL);
  g_signal_connect (yes, "clicked", G_CALLBACK (accept_cb), NULL);
  gtk_box_append (GTK_BOX (box), no);
  gtk_box_append (GTK_BOX (box), yes);
  /* Enter answers a password; a host key needs a deliberate Yes. */
  if (kind == RTOP_ASKPASS_SECRET)
    gtk_window_set_default_widget (window, yes);
  return box;
}

GtkWidget *
rtop_askpass_dialog_new (GtkWindow *parent, RtopAskpassRequest *request)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *prompt = gtk_label_new (rtop_askpass_request_get_prompt (request));
  RtopAskpassKind kind = rtop_askpass_request_get_kind (request);
  Question *q = g_new0 (Question, 1);
  GtkEventController *escape;
  GtkWidget *buttons;

  q->request = g_object_ref (request);
  g_object_set_data_full (G_OBJECT (window), "rtop-question", q, question_free);
  gtk_window_set_title (GTK_WINDOW (window), kind == RTOP_ASKPASS_SECRET ? _("ssh Asks for a Password")
                                                                         : _("ssh Asks to Confirm"));
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  gtk_window_set_resizable (GTK_WINDOW (window), FALSE);
  gtk_widget_set_margin_start (box, 18);
  gtk_widget_set_margin_end (box, 18);
  gtk_widget_set_margin_top (box, 18);
  gtk_widget_set_margin_bottom (box, 18);
  gtk_label_set_wrap (GTK_LABEL (prompt), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (prompt), 60);
  gtk_label_set_selectable (GTK_LABEL (prompt), TRUE);
  gtk_label_set_xalign (GTK_LABEL (prompt), 0);
  gtk_box_append (GTK_BOX (box), prompt);
  if (kind == RTOP_ASKPASS_SECRET)
    {
      q->entry = gtk_password_entry_new ();
      gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (q->entry), TRUE);
      g_object_set (q->entry, "activates-default", TRUE, NULL);
      gtk_accessible_update_property (GTK_ACCESSIBLE (q->entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      _("Password or passphrase"), -1);
      gtk_accessible_update_relation (GTK_ACCESSIBLE (q->entry), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY,
                                      prompt, NULL, -1);
      gtk_box_append (GTK_BOX (box), q->entry);
    }
  buttons = make_buttons (kind, GTK_WINDOW (window));
  gtk_box_append (GTK_BOX (box), buttons);
  gtk_window_set_child (GTK_WINDOW (window), box);
  /* Escape declines, as closing does. */
  escape = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (escape),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (window, escape);
  /* Focus on the entry, or on No: never on the question, which would
   * select its whole text. */
  if (q->entry != NULL)
    gtk_widget_grab_focus (q->entry);
  else
    gtk_widget_grab_focus (gtk_widget_get_first_child (buttons));
  return window;
}
