/* rtop-window-actions.c: the window's actions (win.*) and their keyboard shortcuts. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-record-format.h"
#include "rtop-window-private.h"

/* ---- sections ----------------------------------------------------------- */

static void
show_views (RtopWindow *self)
{
  gtk_stack_set_visible_child_name (self->main_stack, "views");
  gtk_stack_set_visible_child_name (self->title_stack, "switcher");
  gtk_widget_set_visible (self->back_button, FALSE);
}

static void
show_view_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  const char *view = g_variant_get_string (param, NULL);

  if (gtk_stack_get_child_by_name (self->views_stack, view) == NULL)
    return;
  gtk_stack_set_visible_child_name (self->views_stack, view);
  show_views (self);
}

/* The rails view, narrowed to one job's ports ("": every port). */
static void
show_job_rails_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  const char *job = g_variant_get_string (param, NULL);

  rtop_rails_section_set_job (self->rails, job[0] != '\0' ? job : NULL);
  gtk_stack_set_visible_child (self->views_stack, GTK_WIDGET (self->rails));
  show_views (self);
}

/* ---- the pages built when first shown ---------------------------------- */

RtopPortSection *
rtop_window_ensure_port_detail (RtopWindow *self)
{
  if (self->port_detail == NULL)
    self->port_detail = RTOP_PORT_SECTION (rtop_window_add_page (self, RTOP_TYPE_PORT_SECTION, G_SETTINGS_BIND_DEFAULT));
  return self->port_detail;
}

RtopProcessSection *
rtop_window_ensure_process_page (RtopWindow *self)
{
  if (self->process_page == NULL)
    self->process_page = RTOP_PROCESS_SECTION (rtop_window_add_page (self, RTOP_TYPE_PROCESS_SECTION, 0));
  return self->process_page;
}

RtopCompareSection *
rtop_window_ensure_compare_view (RtopWindow *self)
{
  if (self->compare_view == NULL)
    self->compare_view = RTOP_COMPARE_SECTION (rtop_window_add_page (self, RTOP_TYPE_COMPARE_SECTION, G_SETTINGS_BIND_GET));
  return self->compare_view;
}

RtopJobSection *
rtop_window_ensure_job_page (RtopWindow *self)
{
  if (self->job_page == NULL)
    self->job_page = RTOP_JOB_SECTION (rtop_window_add_page (self, RTOP_TYPE_JOB_SECTION, 0));
  return self->job_page;
}

static void
show_compare (RtopWindow *self)
{
  rtop_window_ensure_compare_view (self);
  gtk_label_set_label (self->detail_title, _("Compare Ports"));
  gtk_stack_set_visible_child_name (self->title_stack, "detail");
  gtk_stack_set_visible_child (self->main_stack, GTK_WIDGET (self->compare_view));
  gtk_widget_set_visible (self->back_button, TRUE);
  rtop_section_focus (RTOP_SECTION (self->compare_view));
}

/* Several ports in one chart: as checked before (win.compare), with one
 * more (win.compare-with, from a port's page) or exactly these. */
static void
compare_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  if (g_str_equal (name, "win.compare-ports"))
    {
      g_autofree const char **keys = g_variant_get_strv (param, NULL);

      rtop_compare_section_set_ports (rtop_window_ensure_compare_view (self), keys);
    }
  else if (g_str_equal (name, "win.compare-with"))
    rtop_compare_section_set_port_checked (rtop_window_ensure_compare_view (self),
                                           g_variant_get_string (param, NULL), TRUE);
  show_compare (self);
}

static gboolean
show_port (RtopWindow *self, const char *key)
{
  RtopPortItem *port = self->session ? rtop_history_find_port_by_key (rtop_session_get_history (self->session), key) : NULL;
  g_autofree char *title = NULL;

  if (port == NULL)
    return FALSE;
  rtop_port_section_set_port (rtop_window_ensure_port_detail (self), port);
  /* Translators: the header bar title on a port's page, "rxe0 port 1" */
  title = g_strdup_printf (_("%s port %u"), rtop_port_item_get_device (port), rtop_port_item_get_port (port));
  gtk_label_set_label (self->detail_title, title);
  gtk_stack_set_visible_child_name (self->title_stack, "detail");
  gtk_stack_set_visible_child_name (self->main_stack, "detail");
  gtk_widget_set_visible (self->back_button, TRUE);
  return TRUE;
}

static void
show_port_action (GtkWidget *widget, const char *name, GVariant *param)
{
  const char *key = g_variant_get_string (param, NULL);

  if (!show_port (RTOP_WINDOW (widget), key))
    g_message ("No port %s to show", key);
}

static RtopProcessItem *
find_process (RtopWindow *self, const char *key)
{
  GListModel *processes = rtop_history_get_processes (rtop_session_get_history (self->session));

  for (guint i = 0; i < g_list_model_get_n_items (processes); i++)
    {
      g_autoptr(RtopProcessItem) item = g_list_model_get_item (processes, i);

      if (g_strcmp0 (rtop_process_item_get_key (item), key) == 0)
        return item;   /* the model holds it */
    }
  return NULL;
}

static void
show_process_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  const char *key = g_variant_get_string (param, NULL);
  RtopProcessItem *process = self->session ? find_process (self, key) : NULL;
  g_autofree char *title = NULL;

  if (process == NULL)
    {
      g_message ("No process %s to show", key);
      return;
    }
  rtop_process_section_set_process (rtop_window_ensure_process_page (self), process);
  /* Translators: the header bar title on a process's page: its name and pid */
  title = g_strdup_printf (_("%s (pid %d)"), rtop_process_item_get_comm (process) ? rtop_process_item_get_comm (process) : "?",
                           rtop_process_item_get_pid (process));
  gtk_label_set_label (self->detail_title, title);
  gtk_stack_set_visible_child_name (self->title_stack, "detail");
  gtk_stack_set_visible_child_name (self->main_stack, "process");
  gtk_widget_set_visible (self->back_button, TRUE);
}

/* A job's page (s: its key, rtop-jobs.h "slurm/1234"); a job that is gone
 * shows that it is. */
static void
show_job_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  const char *key = g_variant_get_string (param, NULL);
  RtopJobSection *page;

  if (key[0] == '\0')
    return;
  page = rtop_window_ensure_job_page (self);
  rtop_job_section_set_job (page, key);
  gtk_label_set_label (self->detail_title, rtop_job_section_get_title (page));
  gtk_stack_set_visible_child_name (self->title_stack, "detail");
  gtk_stack_set_visible_child (self->main_stack, GTK_WIDGET (page));
  gtk_widget_set_visible (self->back_button, TRUE);
  rtop_section_focus (RTOP_SECTION (page));
}

static void
back_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  RtopSection *section;

  show_views (self);
  section = rtop_window_get_visible_section (self);
  if (section && section == RTOP_SECTION (self->overview))
    rtop_section_focus (section);
}

static void
find_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopSection *section = rtop_window_get_visible_section (RTOP_WINDOW (widget));

  if (section)
    rtop_section_find (section);
}

/* ---- the message bar: where a recording went ---------------------------- */

static void
dismiss_message_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  gtk_revealer_set_reveal_child (self->message_revealer, FALSE);
  g_clear_pointer (&self->message_path, g_free);
}

/* The folder a file is in, in the file manager. */
static void
show_folder_of (RtopWindow *self, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autofree char *uri = g_file_get_uri (file);

  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

static void
open_message_folder_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  if (self->message_path != NULL)
    show_folder_of (self, self->message_path);
}

/* A toast's Open Folder: the file's path is the target. */
static void
open_folder_action (GtkWidget *widget, const char *name, GVariant *param)
{
  const char *path = g_variant_get_string (param, NULL);

  if (g_path_is_absolute (path))
    show_folder_of (RTOP_WINDOW (widget), path);
}

static void
copy_message_path_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  if (self->message_path)
    gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), self->message_path);
}

static void
repair_recording_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  gtk_widget_set_visible (self->message_repair_button, FALSE);
  rtop_session_repair_replay (self->session);
}

/* ---- a remote display --------------------------------------------------- */

static void
copy_remote_command_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);

  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget),
                          gtk_label_get_label (self->remote_command));
}

static void
dismiss_remote_banner_action (GtkWidget *widget, const char *name, GVariant *param)
{
  gtk_widget_set_visible (RTOP_WINDOW (widget)->remote_banner, FALSE);
}

/* ---- opening recordings ------------------------------------------------- */

static void
open_response_cb (GtkNativeDialog *dialog, int response, RtopWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      rtop_session_open_recording (self->session, file);
    }
  g_object_unref (dialog);
}

/* Every format the readers load, finished or cut short (a crash, power
 * loss: it loads up to its last complete interval, and can be repaired). */
static void
add_format_patterns (GtkFileFilter *filter)
{
  guint n;
  const RtopRecordFormatInfo *formats = rtop_record_formats (&n);
  GString *names = g_string_new (NULL);
  g_autofree char *title = NULL;

  for (guint i = 0; i < n; i++)
    {
      if (formats[i].reader == NULL)
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (formats[i].patterns) && formats[i].patterns[j]; j++)
        gtk_file_filter_add_pattern (filter, formats[i].patterns[j]);
      if (names->len > 0)
        g_string_append (names, ", ");
      g_string_append (names, _(formats[i].display_name));
    }
  /* Translators: the Open dialog's filter; %s lists the formats */
  title = g_strdup_printf (_("rdmatop recordings (%s; also cut short)"), names->str);
  gtk_file_filter_set_name (filter, title);
  g_string_free (names, TRUE);
}

static void
open_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (_("Open Recording"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  add_format_patterns (filter);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (open_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* ---- sampling interval -------------------------------------------------- */

static void
step_interval_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopWindow *self = RTOP_WINDOW (widget);
  guint i = gtk_drop_down_get_selected (self->interval_dropdown);
  /* A longer interval means sampling less often. */
  int direction = g_str_equal (name, "win.interval-slower") ? +1 : -1;

  if (direction < 0 && i > 0)
    gtk_drop_down_set_selected (self->interval_dropdown, i - 1);
  else if (direction > 0 && i + 1 < self->interval_values->len)
    gtk_drop_down_set_selected (self->interval_dropdown, i + 1);
}

/* ---- dump --------------------------------------------------------------- */

static void
dump_action (GtkWidget *widget, const char *name, GVariant *param)
{
  g_autofree char *text = rtop_window_dump (RTOP_WINDOW (widget));

  /* For the end-to-end test, which reads the app's output. */
  g_print ("--- rdmatop dump begin ---\n%s--- rdmatop dump end ---\n", text);
}

/* ---- Tab leaves a table -------------------------------------------------- */

/* The table or list around the focus, if any. */
static GtkWidget *
focused_table (GtkWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *table;

  if (focus == NULL)
    return NULL;
  table = gtk_widget_get_ancestor (focus, GTK_TYPE_COLUMN_VIEW);
  return table != NULL ? table : gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_VIEW);
}

/* Tab and Shift+Tab go to the control after or before a table at once,
 * instead of through each of its rows (the arrow keys move between rows):
 * the table takes no focus while the window moves it. */
static void
move_focus_cb (GtkWindow *window, GtkDirectionType direction)
{
  GtkWidget *table = direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD
                     ? focused_table (window) : NULL;

  if (table != NULL)
    gtk_widget_set_can_focus (table, FALSE);
  g_signal_chain_from_overridden_handler (window, direction);
  if (table != NULL)
    gtk_widget_set_can_focus (table, TRUE);
}

/* ---- the class: actions and their keys ---------------------------------- */

/* Window actions and their keys.  Application-wide ones (quit, record,
 * refresh, live/replay) are the application's. */
void
rtop_window_class_actions_init (GtkWidgetClass *widget_class)
{
  g_signal_override_class_handler ("move-focus", G_TYPE_FROM_CLASS (widget_class), G_CALLBACK (move_focus_cb));
  gtk_widget_class_install_action (widget_class, "win.show-view", "s", show_view_action);
  gtk_widget_class_install_action (widget_class, "win.show-port", "s", show_port_action);
  gtk_widget_class_install_action (widget_class, "win.show-job-rails", "s", show_job_rails_action);
  gtk_widget_class_install_action (widget_class, "win.show-job", "s", show_job_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.compare-with", "s", compare_action);
  gtk_widget_class_install_action (widget_class, "win.compare-ports", "as", compare_action);
  gtk_widget_class_install_action (widget_class, "win.show-process", "s", show_process_action);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.interval-faster", NULL, step_interval_action);
  gtk_widget_class_install_action (widget_class, "win.interval-slower", NULL, step_interval_action);
  gtk_widget_class_install_action (widget_class, "win.dump-state", NULL, dump_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-message", NULL, dismiss_message_action);
  gtk_widget_class_install_action (widget_class, "win.open-message-folder", NULL, open_message_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", "s", open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.copy-message-path", NULL, copy_message_path_action);
  gtk_widget_class_install_action (widget_class, "win.copy-remote-command", NULL, copy_remote_command_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-remote-banner", NULL, dismiss_remote_banner_action);
  gtk_widget_class_install_action (widget_class, "win.repair-recording", NULL, repair_recording_action);
  gtk_widget_class_install_property_action (widget_class, "win.time-window", "time-window");
  gtk_widget_class_install_property_action (widget_class, "win.sparkline-scale", "sparkline-scale");

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);
  /* Escape leaves the port page, like Alt+Left. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_CONTROL_MASK, "win.show-view", "s", "overview");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_CONTROL_MASK, "win.show-view", "s", "processes");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_CONTROL_MASK, "win.show-view", "s", "events");
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_4, GDK_CONTROL_MASK, "win.compare", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_5, GDK_CONTROL_MASK, "win.show-view", "s", "rails");
  /* Ctrl+Plus samples more often, Ctrl+Minus less often, as the keys read. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "win.interval-faster", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "win.interval-faster", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "win.interval-faster", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "win.interval-slower", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "win.interval-slower", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1, GDK_ALT_MASK, "win.time-window", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_2, GDK_ALT_MASK, "win.time-window", "i", 5);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_3, GDK_ALT_MASK, "win.time-window", "i", 15);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_4, GDK_ALT_MASK, "win.time-window", "i", 60);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.dump-state", NULL);
}
