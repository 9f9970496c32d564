/* rtop-window.c: the main window: its sections, the session's state in the
 * header bar and message bar, dialogs, settings and closing. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-compare-section.h"
#include "rtop-events-section.h"
#include "rtop-overview-section.h"
#include "rtop-port-section.h"
#include "rtop-process-section.h"
#include "rtop-processes-section.h"
#include "rtop-rails-section.h"
#include "rtop-recording.h"
#include "rtop-remote.h"
#include "rtop-startup.h"
#include "rtop-window-private.h"

/* The interval menu: common choices; a value set elsewhere is added to it. */
static const double interval_presets[] = { 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60 };

G_DEFINE_FINAL_TYPE (RtopWindow, rtop_window, GTK_TYPE_APPLICATION_WINDOW)

enum { PROP_0, PROP_SESSION, PROP_SETTINGS, PROP_TIME_WINDOW, PROP_SPARKLINE_SCALE, N_PROPS };
static GParamSpec *props[N_PROPS];

RtopSession *
rtop_window_get_session (RtopWindow *self)
{
  g_return_val_if_fail (RTOP_IS_WINDOW (self), NULL);
  return self->session;
}

/* ---- sections ------------------------------------------------------------- */

/* Every section of the window: the tabs in order, then the port page. */
GPtrArray *
rtop_window_get_sections (RtopWindow *self)
{
  GPtrArray *sections = g_ptr_array_new ();

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->views_stack));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (RTOP_IS_SECTION (child))
      g_ptr_array_add (sections, child);
  /* The pages built so far. */
  if (self->port_detail)
    g_ptr_array_add (sections, self->port_detail);
  if (self->process_page)
    g_ptr_array_add (sections, self->process_page);
  if (self->compare_view)
    g_ptr_array_add (sections, self->compare_view);
  if (self->job_page)
    g_ptr_array_add (sections, self->job_page);
  return sections;
}

/* The stack pages take their name and title from the section.  The icon is
 * not set: the switcher would show it instead of the title. */
static void
setup_section_pages (RtopWindow *self)
{
  g_autoptr(GPtrArray) sections = rtop_window_get_sections (self);

  for (guint i = 0; i < sections->len; i++)
    {
      RtopSection *section = g_ptr_array_index (sections, i);
      GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (section));
      GtkStackPage *page;

      if (!GTK_IS_STACK (parent))
        continue;
      page = gtk_stack_get_page (GTK_STACK (parent), GTK_WIDGET (section));
      g_object_set (page,
                    "name", rtop_section_get_page_name (section),
                    "title", rtop_section_get_page_title (section),
                    "use-underline", TRUE,
                    NULL);
    }
}

static void
bind_sections (RtopWindow *self, RtopSession *session)
{
  g_autoptr(GPtrArray) sections = rtop_window_get_sections (self);

  for (guint i = 0; i < sections->len; i++)
    rtop_section_set_session (g_ptr_array_index (sections, i), session);
}

/* The port, process and compare pages are built when first shown: most
 * sessions never open one, and building them took a good part of the
 * window's start-up.  A page built follows the time window setting (the
 * port page also sets it) and the session, as the tabs do. */
static gboolean minutes_to_seconds (GValue *value, GVariant *variant, gpointer user_data);
static GVariant *seconds_to_minutes (const GValue *value, const GVariantType *type, gpointer user_data);

GtkWidget *
rtop_window_add_page (RtopWindow *self, GType type, GSettingsBindFlags time_flags)
{
  GtkWidget *section = g_object_new (type, NULL);
  GtkStackPage *page = gtk_stack_add_child (self->main_stack, section);

  g_object_set (page,
                "name", rtop_section_get_page_name (RTOP_SECTION (section)),
                "title", rtop_section_get_page_title (RTOP_SECTION (section)),
                "use-underline", TRUE,
                NULL);
  rtop_a11y_fix_mnemonics (section);
  if (self->settings && g_object_class_find_property (G_OBJECT_GET_CLASS (section), "time-window"))
    g_settings_bind_with_mapping (self->settings, "time-window", section, "time-window", time_flags,
                                  minutes_to_seconds,
                                  time_flags & G_SETTINGS_BIND_SET ? seconds_to_minutes : NULL,
                                  NULL, NULL);
  if (self->session)
    rtop_section_set_session (RTOP_SECTION (section), self->session);
  return section;
}

/* The section shown: a tab, or the port, process or compare page. */
RtopSection *
rtop_window_get_visible_section (RtopWindow *self)
{
  GtkWidget *child;

  if (self->port_detail && g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "detail") == 0)
    return RTOP_SECTION (self->port_detail);
  if (self->process_page && g_strcmp0 (gtk_stack_get_visible_child_name (self->main_stack), "process") == 0)
    return RTOP_SECTION (self->process_page);
  if (self->compare_view && gtk_stack_get_visible_child (self->main_stack) == GTK_WIDGET (self->compare_view))
    return RTOP_SECTION (self->compare_view);
  if (self->job_page && gtk_stack_get_visible_child (self->main_stack) == GTK_WIDGET (self->job_page))
    return RTOP_SECTION (self->job_page);
  child = gtk_stack_get_visible_child (self->views_stack);
  return RTOP_IS_SECTION (child) ? RTOP_SECTION (child) : NULL;
}

const char *
rtop_window_get_visible_view (RtopWindow *self)
{
  RtopSection *section;

  g_return_val_if_fail (RTOP_IS_WINDOW (self), NULL);
  section = rtop_window_get_visible_section (self);
  return section ? rtop_section_get_page_name (section) : NULL;
}

static void
views_changed_cb (RtopWindow *self)
{
  const char *name = gtk_stack_get_visible_child_name (self->views_stack);

  if (name != NULL && self->settings)
    g_settings_set_string (self->settings, "last-view", name);
}

/* ---- the session's state ---------------------------------------------------- */

static char *
format_elapsed (gint64 us)
{
  gint64 s = MAX (us, 0) / G_USEC_PER_SEC;

  if (s >= 3600)
    return g_strdup_printf ("%" G_GINT64_FORMAT ":%02d:%02d", s / 3600, (int) (s / 60 % 60), (int) (s % 60));
  return g_strdup_printf ("%d:%02d", (int) (s / 60), (int) (s % 60));
}

/* The Record button says what is being recorded: time and samples. */
static void
update_record_button (RtopWindow *self)
{
  gboolean recording = self->session && rtop_session_get_recording (self->session);
  g_autofree char *label = NULL;
  g_autofree char *a11y = NULL;
  g_autofree char *tip = NULL;

  if (self->recorder)
    {
      g_autofree char *elapsed = format_elapsed (rtop_recorder_get_elapsed_us (self->recorder));
      g_autofree char *samples = g_strdup_printf ("%" G_GUINT64_FORMAT, rtop_recorder_get_samples (self->recorder));

      /* Translators: the Record button while recording: elapsed time and
       * samples taken, e.g. "Stop · 1:05 · 66 samples" */
      label = g_strdup_printf (_("Stop · %s · %s samples"), elapsed, samples);
      /* Translators: accessible name of the Record button while recording */
      a11y = g_strdup_printf (_("Stop recording (%s recorded, %s samples)"), elapsed, samples);
      /* Translators: tooltip while recording; %s is the file */
      tip = g_strdup_printf (_("Recording to %s. Click to stop (Ctrl+Shift+R)."),
                             rtop_recorder_get_path (self->recorder));
    }
  else if (recording)
    {
      label = g_strdup (_("Stop"));
      a11y = g_strdup (_("Stop recording"));
      tip = g_strdup (_("Starting the recording…"));
    }
  else
    {
      label = g_strdup (_("Record"));
      a11y = g_strdup (_("Record"));
      tip = g_strdup (_("Record a Perfetto trace of all counters (Ctrl+Shift+R)"));
    }
  gtk_label_set_label (self->record_label, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->record_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, a11y, -1);
  rtop_widget_set_tooltip (GTK_WIDGET (self->record_button), tip);
  if (recording)
    gtk_widget_add_css_class (GTK_WIDGET (self->record_button), "recording");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->record_button), "recording");
}

static void
recorder_changed_cb (RtopWindow *self)
{
  RtopRecorder *recorder = rtop_session_get_recorder (self->session);

  if (self->recorder != recorder)
    {
      if (self->recorder)
        g_signal_handlers_disconnect_by_data (self->recorder, self);
      g_set_object (&self->recorder, recorder);
      if (recorder)
        {
          g_signal_connect_object (recorder, "notify::samples", G_CALLBACK (update_record_button),
                                   self, G_CONNECT_SWAPPED);
          g_signal_connect_object (recorder, "notify::elapsed-us", G_CALLBACK (update_record_button),
                                   self, G_CONNECT_SWAPPED);
        }
    }
  update_record_button (self);
}

static void
replay_changed_cb (RtopWindow *self)
{
  rtop_window_update_replay (self);
}

/* Shows an error the user can act on, in a dialog. */
static void
show_error (RtopWindow *self, const char *title, const char *message)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", message);
  g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* One dialog, in the window the user is looking at. */
static gboolean
is_current_window (RtopWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));

  return app == NULL || gtk_application_get_active_window (app) == GTK_WINDOW (self);
}

static void
session_error_cb (RtopSession *session, const char *title, const char *message, RtopWindow *self)
{
  self->closing = FALSE;
  if (is_current_window (self))
    show_error (self, title, message);
}

/* ---- the message bar: where a recording went -------------------------------- */

static void
show_message (RtopWindow *self, const char *text, const char *path, gboolean can_repair)
{
  g_free (self->message_path);
  self->message_path = g_strdup (path);
  gtk_label_set_label (self->message_label, text);
  gtk_widget_set_visible (self->message_folder_button, path != NULL);
  gtk_widget_set_visible (self->message_copy_button, path != NULL);
  gtk_widget_set_visible (self->message_repair_button, can_repair);
  gtk_revealer_set_reveal_child (self->message_revealer, TRUE);
}

/* ---- a remote display ----------------------------------------------------- */

/* On ssh -X or a TCP display every repaint crosses the network as pixels;
 * the app on the user's own machine, connected to this host, sends only
 * the data.  One line says so, with the command to type there. */
static void
setup_remote_banner (RtopWindow *self)
{
  g_autofree char *command = NULL;

  if (!rtop_remote_display_is_remote (g_getenv ("SSH_CONNECTION"), g_getenv ("DISPLAY")))
    return;
  command = rtop_remote_connect_command (g_get_user_name (), g_get_host_name ());
  gtk_label_set_label (self->remote_command, command);
  gtk_widget_set_visible (self->remote_banner, TRUE);
}

gboolean
rtop_window_get_remote_banner (RtopWindow *self, const char **command)
{
  if (command)
    *command = gtk_label_get_label (self->remote_command);
  return gtk_widget_get_visible (self->remote_banner);
}

/* An older toast dismissed when a newer one comes leaves the newer's text. */
static void
toast_dismissed_cb (AdwToast *toast, RtopWindow *self)
{
  if (toast != self->toast)
    return;
  self->toast = NULL;
  g_clear_pointer (&self->toast_title, g_free);
}

/* Where a recording went, as a toast with Open Folder: it passes, and the
 * system notification (rtop-application.c) says it when the window is not
 * looked at. */
static void
recording_saved_cb (RtopSession *session, const char *path, gboolean repaired, RtopWindow *self)
{
  g_autofree char *text = NULL;
  g_autofree char *markup = NULL;
  AdwToast *toast;

  if (repaired)
    /* Translators: %s is a file path */
    text = g_strdup_printf (_("A complete copy of the recording was saved to %s."), path);
  else
    /* Translators: %s is a file path */
    text = g_strdup_printf (_("Recording saved to %s."), path);
  markup = g_markup_escape_text (text, -1);
  toast = adw_toast_new (markup);
  adw_toast_set_button_label (toast, _("Open _Folder"));
  adw_toast_set_action_name (toast, "win.open-folder");
  adw_toast_set_action_target_value (toast, g_variant_new_string (path));
  adw_toast_set_timeout (toast, 10);
  g_free (self->toast_title);
  self->toast_title = g_steal_pointer (&text);
  self->toast = toast;
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (toast_dismissed_cb), self, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  if (self->closing)
    gtk_window_destroy (GTK_WINDOW (self));
}

static void
replay_message (RtopWindow *self)
{
  if (rtop_session_get_replay_title (self->session) && !rtop_session_get_replay_complete (self->session))
    show_message (self, _("This recording was cut short: it is shown up to its last complete interval. "
                          "Repair it to open it in Perfetto."),
                  rtop_session_get_replay_path (self->session), TRUE);
}

/* ---- a recording that cannot be written: save it elsewhere ---------------- */

static void
save_as_response_cb (GtkNativeDialog *dialog, int response, RtopWindow *self)
{
  if (response == GTK_RESPONSE_ACCEPT && self->session)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = g_file_get_path (file);

      if (path)
        rtop_session_save_recording_as (self->session, path);
    }
  g_object_unref (dialog);
}

static void
save_recording_as (RtopWindow *self)
{
  RtopRecorder *recorder = rtop_session_get_recorder (self->session);
  GtkFileChooserNative *dialog;
  g_autofree char *name = NULL;

  if (recorder == NULL)
    return;
  dialog = gtk_file_chooser_native_new (_("Save Recording As"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Save"), _("_Cancel"));
  name = g_path_get_basename (rtop_recorder_get_path (recorder));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (save_as_response_cb), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

enum { RESPONSE_SAVE_AS = 1, RESPONSE_DISCARD, RESPONSE_SAVE };

static void
recording_failed_response_cb (GtkDialog *dialog, int response, RtopWindow *self)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  if (response == RESPONSE_SAVE_AS)
    save_recording_as (self);
}

static void
recording_failed_cb (RtopSession *session, const char *title, const char *message, RtopWindow *self)
{
  GtkWidget *dialog;

  self->closing = FALSE;
  if (!is_current_window (self))
    return;
  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_ERROR, GTK_BUTTONS_NONE, "%s", title);
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", message);
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), _("_Close"), GTK_RESPONSE_CLOSE,
                          _("_Save As…"), RESPONSE_SAVE_AS, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), RESPONSE_SAVE_AS);
  g_signal_connect (dialog, "response", G_CALLBACK (recording_failed_response_cb), self);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- start-up report (RDMATOP_REPORT_STARTUP=1, for tests/bench) ---------- */

static void
report_after_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  g_printerr ("rdmatop: startup-ms=%.0f\n", rtop_startup_elapsed_ms ());
  g_signal_handlers_disconnect_by_func (clock, report_after_paint_cb, user_data);
}

static void
report_on_realize_cb (GtkWidget *widget, gpointer user_data)
{
  g_signal_handlers_disconnect_by_func (widget, report_on_realize_cb, user_data);
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (report_after_paint_cb), NULL);
}

/* After the first snapshot with devices, the next painted frame is the
 * first with live data: report the time from process start to it. */
static void
history_updated_cb (RtopWindow *self)
{
  RtopSnapshot *snapshot = rtop_history_get_latest (rtop_session_get_history (self->session));
  GdkFrameClock *clock;

  if (rtop_session_get_replay_title (self->session) != NULL)
    rtop_window_update_replay (self);
  if (self->startup_reported || snapshot == NULL || snapshot->devices == NULL ||
      snapshot->devices->len == 0 || !rtop_startup_reporting ())
    return;
  self->startup_reported = TRUE;
  /* When this computer's sampler began the pass (a remote host's clock
   * is its own), and when its snapshot got here. */
  if (snapshot->host == NULL)
    {
      double now_ms = rtop_startup_elapsed_ms ();
      gint64 now_us = g_get_monotonic_time (), last_read_us = snapshot->monotonic_us;

      for (guint d = 0; d < snapshot->devices->len; d++)
        {
          RtopDevice *dev = g_ptr_array_index (snapshot->devices, d);

          for (guint p = 0; p < dev->ports->len; p++)
            last_read_us = MAX (last_read_us, ((RtopPort *) g_ptr_array_index (dev->ports, p))->read_time_us);
        }
      /* The pass's counter reads end before its /proc scan. */
      g_printerr ("rdmatop: startup-phase pass-started ms=%.0f\n"
                  "rdmatop: startup-phase pass-counters-read ms=%.0f\n",
                  now_ms - (now_us - snapshot->monotonic_us) / 1e3, now_ms - (now_us - last_read_us) / 1e3);
    }
  rtop_startup_mark ("snapshot");
  /* Taken before the window was shown: its first frame reports. */
  if ((clock = gtk_widget_get_frame_clock (GTK_WIDGET (self))) == NULL)
    g_signal_connect (self, "realize", G_CALLBACK (report_on_realize_cb), NULL);
  else
    g_signal_connect (clock, "after-paint", G_CALLBACK (report_after_paint_cb), NULL);
}

static void
bind_session (RtopWindow *self)
{
  RtopSession *session = self->session;

  bind_sections (self, session);
  g_signal_connect_object (session, "notify::recording", G_CALLBACK (recorder_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "notify::recorder", G_CALLBACK (recorder_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "notify::replay-title", G_CALLBACK (replay_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "error", G_CALLBACK (session_error_cb), self, 0);
  g_signal_connect_object (session, "recording-failed", G_CALLBACK (recording_failed_cb), self, 0);
  g_signal_connect_object (session, "recording-saved", G_CALLBACK (recording_saved_cb), self, 0);
  g_signal_connect_object (session, "notify::replay-title", G_CALLBACK (replay_message),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (rtop_session_get_history (session), "updated",
                           G_CALLBACK (history_updated_cb), self, G_CONNECT_SWAPPED);
  recorder_changed_cb (self);
  replay_changed_cb (self);
  replay_message (self);
}

/* ---- sampling interval ------------------------------------------------- */

static char *
interval_label (double seconds)
{
  /* Translators: a sampling interval in seconds, e.g. "0.5 s" */
  return g_strdup_printf (_("%g s"), seconds);
}

/* Position of the interval in the menu, adding it when it is not a preset. */
static guint
ensure_interval (RtopWindow *self, double seconds)
{
  guint i;
  g_autofree char *label = NULL;
  const char *labels[2] = { NULL, NULL };

  for (i = 0; i < self->interval_values->len; i++)
    {
      double v = g_array_index (self->interval_values, double, i);

      if (fabs (v - seconds) < 1e-6)
        return i;
      if (v > seconds)
        break;
    }
  label = interval_label (seconds);
  labels[0] = label;
  g_array_insert_val (self->interval_values, i, seconds);
  gtk_string_list_splice (self->interval_labels, i, 0, labels);
  return i;
}

static void
interval_setting_cb (RtopWindow *self)
{
  double seconds = g_settings_get_double (self->settings, "interval");

  self->syncing_interval = TRUE;
  gtk_drop_down_set_selected (self->interval_dropdown, ensure_interval (self, seconds));
  self->syncing_interval = FALSE;
}

static void
interval_selected_cb (RtopWindow *self)
{
  guint i = gtk_drop_down_get_selected (self->interval_dropdown);

  if (self->syncing_interval || i >= self->interval_values->len || self->settings == NULL)
    return;
  g_settings_set_double (self->settings, "interval", g_array_index (self->interval_values, double, i));
}

static void
setup_intervals (RtopWindow *self)
{
  self->interval_values = g_array_new (FALSE, FALSE, sizeof (double));
  self->interval_labels = gtk_string_list_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (interval_presets); i++)
    ensure_interval (self, interval_presets[i]);
  gtk_drop_down_set_model (self->interval_dropdown, G_LIST_MODEL (self->interval_labels));
  g_signal_connect_swapped (self->interval_dropdown, "notify::selected",
                            G_CALLBACK (interval_selected_cb), self);
}

/* ---- settings ------------------------------------------------------------ */

static gboolean
minutes_to_seconds (GValue *value, GVariant *variant, gpointer user_data)
{
  int minutes = g_variant_get_int32 (variant);

  g_value_set_double (value, CLAMP (minutes, 1, 60) * 60.0);
  return TRUE;
}

static GVariant *
seconds_to_minutes (const GValue *value, const GVariantType *type, gpointer user_data)
{
  return g_variant_new_int32 ((gint32) round (g_value_get_double (value) / 60));
}

static void
set_time_window (RtopWindow *self, int minutes)
{
  if (minutes != 1 && minutes != 5 && minutes != 15 && minutes != 60)
    return;
  if (self->time_window != minutes)
    {
      self->time_window = minutes;
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TIME_WINDOW]);
    }
  /* Only a change is written: some backends (keyfile) announce every write,
   * and the announcement comes back here. */
  if (self->settings && g_settings_get_int (self->settings, "time-window") != minutes)
    g_settings_set_int (self->settings, "time-window", minutes);
}

static void
time_window_setting_cb (RtopWindow *self)
{
  set_time_window (self, g_settings_get_int (self->settings, "time-window"));
}

static void
bind_settings (RtopWindow *self)
{
  g_autofree char *last_view = NULL;

  g_signal_connect_object (self->settings, "changed::time-window",
                           G_CALLBACK (time_window_setting_cb), self, G_CONNECT_SWAPPED);
  time_window_setting_cb (self);
  g_settings_bind_with_mapping (self->settings, "time-window", self->overview, "time-window",
                                G_SETTINGS_BIND_GET, minutes_to_seconds, NULL, NULL, NULL);
  g_settings_bind_with_mapping (self->settings, "time-window", self->rails, "time-window",
                                G_SETTINGS_BIND_GET, minutes_to_seconds, NULL, NULL, NULL);
  g_settings_bind (self->settings, "sparkline-scale", self, "sparkline-scale", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (self->settings, "changed::interval", G_CALLBACK (interval_setting_cb),
                           self, G_CONNECT_SWAPPED);
  interval_setting_cb (self);

  last_view = g_settings_get_string (self->settings, "last-view");
  if (gtk_stack_get_child_by_name (self->views_stack, last_view))
    gtk_stack_set_visible_child_name (self->views_stack, last_view);
  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

/* The last window asks before a running recording is stopped with it. */
static gboolean
is_last_window (RtopWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GList *windows = app ? gtk_application_get_windows (app) : NULL;

  for (GList *l = windows; l; l = l->next)
    if (l->data != self && RTOP_IS_WINDOW (l->data))
      return FALSE;
  return TRUE;
}

static void
close_response_cb (GtkDialog *dialog, int response, RtopWindow *self)
{
  gtk_window_destroy (GTK_WINDOW (dialog));
  switch (response)
    {
    case RESPONSE_SAVE:
      /* Closes when "recording-saved" comes; an error keeps the window. */
      self->closing = TRUE;
      rtop_session_set_recording (self->session, FALSE, NULL);
      break;
    case RESPONSE_DISCARD:
      rtop_session_discard_recording (self->session);
      gtk_window_destroy (GTK_WINDOW (self));
      break;
    default:
      break;
    }
}

static void
ask_before_closing (RtopWindow *self)
{
  RtopRecorder *recorder = rtop_session_get_recorder (self->session);
  GtkWidget *dialog;

  dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                   GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                   GTK_MESSAGE_QUESTION, GTK_BUTTONS_NONE,
                                   "%s", _("Save the Recording Before Closing?"));
  if (recorder)
    /* Translators: %s is the file being recorded */
    gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog),
                                              _("A recording to %s is running. Closing the window ends it."),
                                              rtop_recorder_get_path (recorder));
  gtk_dialog_add_buttons (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL,
                          _("_Discard"), RESPONSE_DISCARD,
                          _("_Save and Close"), RESPONSE_SAVE, NULL);
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), RESPONSE_SAVE);
  g_signal_connect (dialog, "response", G_CALLBACK (close_response_cb), self);
  self->close_question = dialog;
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &self->close_question);
  gtk_window_present (GTK_WINDOW (dialog));
}

static gboolean
rtop_window_close_request (GtkWindow *window)
{
  RtopWindow *self = RTOP_WINDOW (window);
  int width, height;

  if (self->session && rtop_session_get_recording (self->session) && is_last_window (self))
    {
      if (!self->closing)
        ask_before_closing (self);
      return TRUE;
    }

  if (self->settings)
    {
      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
      if (!gtk_window_is_maximized (window) && width > 0 && height > 0)
        {
          g_settings_set_int (self->settings, "window-width", width);
          g_settings_set_int (self->settings, "window-height", height);
        }
    }
  return GTK_WINDOW_CLASS (rtop_window_parent_class)->close_request (window);
}

/* ---- GObject ------------------------------------------------------------- */

static void
rtop_window_constructed (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  G_OBJECT_CLASS (rtop_window_parent_class)->constructed (object);

  g_return_if_fail (self->session != NULL);
  bind_session (self);
  g_object_bind_property (self, "sparkline-scale", self->overview, "sparkline-scale", G_BINDING_SYNC_CREATE);
  if (self->settings)
    bind_settings (self);
  views_changed_cb (self);
  g_signal_connect_swapped (self->views_stack, "notify::visible-child-name",
                            G_CALLBACK (views_changed_cb), self);
}

static void
rtop_window_dispose (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  if (self->recorder)
    g_signal_handlers_disconnect_by_data (self->recorder, self);
  g_clear_object (&self->recorder);
  if (self->close_question)
    g_object_remove_weak_pointer (G_OBJECT (self->close_question), (gpointer *) &self->close_question);
  self->close_question = NULL;
  if (self->session)
    bind_sections (self, NULL);
  g_clear_object (&self->session);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (rtop_window_parent_class)->dispose (object);
}

static void
rtop_window_finalize (GObject *object)
{
  RtopWindow *self = RTOP_WINDOW (object);

  g_clear_object (&self->interval_labels);
  g_clear_pointer (&self->interval_values, g_array_unref);
  g_free (self->message_path);
  g_free (self->toast_title);
  g_free (self->sparkline_scale);
  G_OBJECT_CLASS (rtop_window_parent_class)->finalize (object);
}

static void
rtop_window_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopWindow *self = RTOP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_TIME_WINDOW:
      g_value_set_int (value, self->time_window);
      break;
    case PROP_SPARKLINE_SCALE:
      g_value_set_string (value, self->sparkline_scale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_window_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopWindow *self = RTOP_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      self->session = g_value_dup_object (value);
      break;
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    case PROP_TIME_WINDOW:
      set_time_window (self, g_value_get_int (value));
      break;
    case PROP_SPARKLINE_SCALE:
      if (g_strcmp0 (self->sparkline_scale, g_value_get_string (value)) != 0)
        {
          g_free (self->sparkline_scale);
          self->sparkline_scale = g_value_dup_string (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_window_class_init (RtopWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = rtop_window_constructed;
  object_class->dispose = rtop_window_dispose;
  object_class->finalize = rtop_window_finalize;
  object_class->get_property = rtop_window_get_property;
  object_class->set_property = rtop_window_set_property;
  window_class->close_request = rtop_window_close_request;

  props[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, RTOP_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  props[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Minutes of history the graphs show: 1, 5, 15 or 60 (the menu's radio items). */
  props[PROP_TIME_WINDOW] =
    g_param_spec_int ("time-window", NULL, NULL, 1, 60, 5,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* What tops the overview's sparklines: "link-rate" or "peak" (the menu's radio items). */
  props[PROP_SPARKLINE_SCALE] =
    g_param_spec_string ("sparkline-scale", NULL, NULL, "link-rate",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  g_type_ensure (RTOP_TYPE_OVERVIEW_SECTION);
  g_type_ensure (RTOP_TYPE_PROCESSES_SECTION);
  g_type_ensure (RTOP_TYPE_EVENTS_SECTION);
  g_type_ensure (RTOP_TYPE_RAILS_SECTION);
  g_type_ensure (RTOP_TYPE_COMPARE_SECTION);
  g_type_ensure (RTOP_TYPE_PORT_SECTION);
  g_type_ensure (RTOP_TYPE_PROCESS_SECTION);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-window.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, record_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, record_label);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, mode_label);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, title_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, detail_title);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, interval_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, message_revealer);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, message_label);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, message_repair_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, message_folder_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, message_copy_button);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, remote_banner);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, remote_command);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, views_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, overview);
  gtk_widget_class_bind_template_child (widget_class, RtopWindow, rails);

  rtop_window_class_actions_init (widget_class);
}

static void
update_dark_style (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  GtkCssProvider *dark = g_object_get_data (G_OBJECT (display), "rtop-style-dark");
  gboolean want = adw_style_manager_get_dark (adw_style_manager_get_for_display (display));
  gboolean have = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (display), "rtop-style-dark-on"));

  if (want == have)
    return;
  if (want)
    gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (dark),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
  else
    gtk_style_context_remove_provider_for_display (display, GTK_STYLE_PROVIDER (dark));
  g_object_set_data (G_OBJECT (display), "rtop-style-dark-on", GINT_TO_POINTER (want));
}

static void
dark_changed_cb (AdwStyleManager *manager, GParamSpec *pspec, GtkWidget *widget)
{
  update_dark_style (widget);
}

/* The app's CSS, once per display (windows made by tests get it too), and
 * its dark variant while libadwaita's style is dark (the desktop's choice,
 * which the style manager follows). */
static void
ensure_style (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autoptr(GtkCssProvider) provider = NULL;
  g_autoptr(GtkCssProvider) dark = NULL;

  if (!g_object_get_data (G_OBJECT (display), "rtop-style"))
    {
      provider = gtk_css_provider_new ();
      gtk_css_provider_load_from_resource (provider, "/io/github/rdmatop/Rdmatop/css/rtop.css");
      gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_object_set_data_full (G_OBJECT (display), "rtop-style", g_steal_pointer (&provider),
                              g_object_unref);
      dark = gtk_css_provider_new ();
      gtk_css_provider_load_from_resource (dark, "/io/github/rdmatop/Rdmatop/css/rtop-dark.css");
      g_object_set_data_full (G_OBJECT (display), "rtop-style-dark", g_steal_pointer (&dark),
                              g_object_unref);
    }
  update_dark_style (widget);
  g_signal_connect_object (adw_style_manager_get_for_display (display), "notify::dark",
                           G_CALLBACK (dark_changed_cb), widget, 0);
}

static void
rtop_window_init (RtopWindow *self)
{
  self->time_window = 5;
  self->sparkline_scale = g_strdup ("link-rate");
  ensure_style (GTK_WIDGET (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  setup_section_pages (self);
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
  setup_intervals (self);
  setup_remote_banner (self);
}

RtopWindow *
rtop_window_new (GtkApplication *application, RtopSession *session, GSettings *settings)
{
  return g_object_new (RTOP_TYPE_WINDOW,
                       "application", application,
                       "session", session,
                       "settings", settings,
                       NULL);
}
