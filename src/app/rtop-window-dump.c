/* rtop-window-dump.c: the window's state as text (win.dump-state, the
 * tests' and the guest scenarios' view of what a user sees): the view, the
 * Record button, the sources, the message bar, the toast, the dialogs
 * shown over the window, then each section's own lines. */
#include "config.h"

#include "rtop-source.h"
#include "rtop-window-private.h"

/* ---- dump --------------------------------------------------------------- */

/* What feeds the window: each source's name, state and trouble. */
static void
append_sources (GString *out, GListModel *sources)
{
  GEnumClass *states = g_type_class_ref (RTOP_TYPE_SOURCE_STATE);

  for (guint i = 0; i < g_list_model_get_n_items (sources); i++)
    {
      g_autoptr(RtopSource) source = g_list_model_get_item (sources, i);
      RtopSourceState state = rtop_source_get_state (source);
      GEnumValue *value = g_enum_get_value (states, state);
      const char *error = rtop_source_get_error (source);

      g_string_append_printf (out, "source\tname=%s\tstate=%s\tlabel=%s\terror=%s\n",
                              rtop_source_get_name (source), value ? value->value_nick : "?",
                              rtop_source_state_to_label (state), error ? error : "");
    }
  g_type_class_unref (states);
}

/* The windows shown over this one (About, Preferences, a dialog), by type
 * and title. */
static void
append_dialogs (GString *out, RtopWindow *self)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);
      const char *title = gtk_window_get_title (window);

      if (gtk_window_get_transient_for (window) == GTK_WINDOW (self) && gtk_widget_get_visible (GTK_WIDGET (window)))
        g_string_append_printf (out, "dialog\t%s\t%s\n", G_OBJECT_TYPE_NAME (window), title ? title : "");
    }
}

char *
rtop_window_dump (RtopWindow *self)
{
  g_autoptr(GPtrArray) sections = rtop_window_get_sections (self);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "view=%s\n", rtop_window_get_visible_view (self));
  g_string_append_printf (out, "record\t%s\n", gtk_label_get_label (self->record_label));
  append_sources (out, rtop_session_get_sources (self->session));
  if (gtk_revealer_get_reveal_child (self->message_revealer))
    g_string_append_printf (out, "message\t%s\n", gtk_label_get_label (self->message_label));
  if (self->toast_title != NULL)
    g_string_append_printf (out, "toast\t%s\n", self->toast_title);
  if (gtk_widget_get_visible (GTK_WIDGET (self->mode_label)))
    g_string_append_printf (out, "mode\t%s\n", gtk_label_get_label (self->mode_label));
  append_dialogs (out, self);
  if (self->close_question)
    {
      g_autofree char *text = NULL;
      g_autofree char *secondary = NULL;

      g_object_get (self->close_question, "text", &text, "secondary-text", &secondary, NULL);
      g_string_append_printf (out, "question\t%s\t%s\n", text, secondary ? secondary : "");
    }
  for (guint i = 0; i < sections->len; i++)
    {
      g_autofree char *text = rtop_section_dump (g_ptr_array_index (sections, i));
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

