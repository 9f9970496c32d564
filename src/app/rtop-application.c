/* rtop-application.c: the application (libadwaita's, which follows the
 * desktop's light or dark style and loads the app's style sheets): settings,
 * the session every window shows, notifications and the app.* actions. */
#include "config.h"

#include <signal.h>
#include <glib/gi18n.h>
#include <glib-unix.h>

#include "rtop-application.h"
#include "rtop-askpass.h"
#include "rtop-askpass-dialog.h"
#include "rtop-connect-dialog.h"
#include "rtop-format.h"
#include "rtop-preferences.h"
#include "rtop-remote.h"
#include "rtop-sampler.h"
#include "rtop-memory-report.h"
#include "rtop-startup.h"
#include "rtop-window.h"

/* At most one error notification this often; the ones in between are
 * counted into the next. */
#define NOTIFY_MIN_INTERVAL_US (30 * G_USEC_PER_SEC)

struct _RtopApplication {
  AdwApplication parent_instance;

  GSettings *settings;
  RtopSession *session;
  gint64 last_notified_us;
  gboolean focus_seen;       /* a window has had the focus: the desktop tracks it */
  gboolean notifier;         /* a notification service is there to send to */
  guint notifier_watch;
  guint held_back;           /* errors not notified since the last notification */
  guint sigterm_source;
  guint sigint_source;
  GStrv hosts;               /* the "hosts" setting the session follows */
  RtopAskpass *askpass;
  gboolean first_frame_asked; /* the window's first frame is under way or shown */
};

G_DEFINE_FINAL_TYPE (RtopApplication, rtop_application, ADW_TYPE_APPLICATION)


static GtkWindow *
get_window (RtopApplication *self)
{
  return gtk_application_get_active_window (GTK_APPLICATION (self));
}

static GtkWindow *
ensure_window (RtopApplication *self)
{
  GtkWindow *window = get_window (self);

  if (window == NULL)
    window = GTK_WINDOW (rtop_window_new (GTK_APPLICATION (self), self->session, self->settings));
  return window;
}

/* With no window to show it in, an error still reaches the user. */
static void
session_error_cb (RtopSession *session, const char *title, const char *message, RtopApplication *self)
{
  if (get_window (self) == NULL)
    g_printerr ("rdmatop: %s: %s\n", title, message);
}

/* ---- desktop notifications -------------------------------------------------- */

static void
window_active_cb (GtkWindow *window, GParamSpec *pspec, RtopApplication *self)
{
  if (gtk_window_is_active (window))
    self->focus_seen = TRUE;
}

/* "Not focused" means something only where windows get the focus at all:
 * on a display without a window manager (a test's Xvfb) no window ever is,
 * and nothing is notified. */
static void
rtop_application_window_added (GtkApplication *app, GtkWindow *window)
{
  GTK_APPLICATION_CLASS (rtop_application_parent_class)->window_added (app, window);
  g_signal_connect_object (window, "notify::is-active", G_CALLBACK (window_active_cb), app, 0);
}

/* Any window of ours, dialogs included: the user is looking at rdmatop. */
static gboolean
any_window_focused (RtopApplication *self)
{
  GListModel *toplevels = gtk_window_get_toplevels ();   /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (gtk_window_is_active (window))
        return TRUE;
    }
  return FALSE;
}

static void
notifier_appeared_cb (GDBusConnection *connection, const char *name, const char *owner, gpointer user_data)
{
  RTOP_APPLICATION (user_data)->notifier = TRUE;
}

static void
notifier_vanished_cb (GDBusConnection *connection, const char *name, gpointer user_data)
{
  RTOP_APPLICATION (user_data)->notifier = FALSE;
}

/* Where nothing would show a notification (a bare X server in a test),
 * sending one only makes GIO warn. A sandbox sends through its portal. */
static void
watch_notifier (RtopApplication *self)
{
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    {
      self->notifier = TRUE;
      return;
    }
  self->notifier_watch = g_bus_watch_name (G_BUS_TYPE_SESSION, "org.freedesktop.Notifications",
                                           G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                           notifier_appeared_cb, notifier_vanished_cb, self, NULL);
}

static void
recording_saved_cb (RtopSession *session, const char *path, gboolean repaired, RtopApplication *self)
{
  g_autoptr(GNotification) notification = NULL;
  g_autofree char *body = NULL;

  if (!self->notifier || !self->focus_seen || any_window_focused (self))
    return;   /* the window's own message says it */
  notification = g_notification_new (repaired ? _("Recording Repaired") : _("Recording Saved"));
  body = g_strdup_printf (_("Saved to %s"), path);
  g_notification_set_body (notification, body);
  g_notification_add_button_with_target (notification, _("Open Folder"), "app.open-folder", "s", path);
  g_notification_add_button_with_target (notification, _("Copy Path"), "app.copy-path", "s", path);
  g_application_send_notification (G_APPLICATION (self), "recording-saved", notification);
}

/* An Error while nobody looks: a notification that opens the port. */
static void
notify_error (RtopApplication *self, const RtopEvent *event)
{
  g_autoptr(GNotification) notification = g_notification_new (_("RDMA Error"));
  g_autofree char *body = NULL;
  gint64 now = g_get_monotonic_time ();

  if (self->last_notified_us != 0 && now - self->last_notified_us < NOTIFY_MIN_INTERVAL_US)
    {
      self->held_back++;
      return;
    }
  if (self->held_back > 0)
    /* Translators: a notification's text; %s is the newest error, %u how many more came since the last notification */
    body = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s (and %u more error)", "%s (and %u more errors)",
                                         self->held_back),
                            event->message, self->held_back);
  else
    body = g_strdup (event->message);
  g_notification_set_body (notification, body);
  g_notification_set_priority (notification, G_NOTIFICATION_PRIORITY_HIGH);
  if (event->device && event->port)
    {
      RtopSnapshot *snapshot = rtop_history_get_latest (rtop_session_get_history (self->session));
      g_autofree char *key = rtop_port_item_key_for (snapshot ? snapshot->host : NULL,
                                                     event->device, event->port);
      g_notification_set_default_action_and_target (notification, "app.show-port", "s", key);
    }
  else
    g_notification_set_default_action (notification, "app.activate-window");
  g_application_send_notification (G_APPLICATION (self), "rdma-error", notification);
  self->last_notified_us = now;
  self->held_back = 0;
}

static void
history_updated_cb (RtopApplication *self)
{
  RtopSnapshot *snapshot = rtop_history_get_latest (rtop_session_get_history (self->session));

  if (snapshot == NULL || snapshot->events == NULL || rtop_session_get_replay_title (self->session) ||
      !g_settings_get_boolean (self->settings, "notify-errors") || !self->notifier || !self->focus_seen ||
      any_window_focused (self))
    return;
  for (guint i = snapshot->events->len; i > 0; i--)
    {
      const RtopEvent *event = g_ptr_array_index (snapshot->events, i - 1);

      /* Collection-wide errors are the window's own state page. */
      if (event->severity == RTOP_SEVERITY_ERROR && event->device != NULL)
        {
          notify_error (self, event);
          break;
        }
    }
}

static void
queue_draw_tree (GtkWidget *widget)
{
  gtk_widget_queue_draw (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    queue_draw_tree (child);
}

/* Every throughput in bits or bytes per second, as the setting says; the
 * views show it from their next update, the graphs at once. */
static void
units_changed_cb (RtopApplication *self)
{
  rtop_format_set_throughput_bytes (g_settings_get_boolean (self->settings, "throughput-in-bytes"));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    queue_draw_tree (l->data);
}

/* ---- actions that follow the session -------------------------------------- */

static void
sync_actions (RtopApplication *self)
{
  gboolean replay = rtop_session_get_replay_title (self->session) != NULL;
  gboolean recording = rtop_session_get_recording (self->session);
  GActionMap *map = G_ACTION_MAP (self);
  gboolean can_record = rtop_session_can_record (self->session);

  g_simple_action_set_state (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "record")),
                             g_variant_new_boolean (recording));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "record")), can_record);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (map, "go-live")), replay);
}

static void
record_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean want = !rtop_session_get_recording (self->session);

  if (!rtop_session_set_recording (self->session, want, &error))
    g_signal_emit_by_name (self->session, "error", _("Cannot Start Recording"), error->message);
  /* The state follows the session, which may not have changed (a refusal). */
  sync_actions (self);
}

static void
refresh_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  rtop_session_refresh (RTOP_APPLICATION (user_data)->session);
}

static void
go_live_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  rtop_session_go_live (RTOP_APPLICATION (user_data)->session);
}

/* For notifications and the session bus: the window the user sees shows
 * a port, a view, a job's page or its rails (app.NAME runs win.NAME). */
static void
show_in_window_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkWindow *window = ensure_window (user_data);
  g_autofree char *name = g_strconcat ("win.", g_action_get_name (G_ACTION (action)), NULL);

  gtk_window_present (window);
  gtk_widget_activate_action_variant (GTK_WIDGET (window), name, param);
}

/* A host for this run (rdmatop --host, the session bus); remembered hosts
 * are the settings' "hosts". */
static void
add_host_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  g_autoptr(GError) error = NULL;

  if (!rtop_session_add_host (self->session, g_variant_get_string (param, NULL), &error))
    g_signal_emit_by_name (self->session, "error", _("Cannot Connect to Host"), error->message);
}

static void
connect_host_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;

  gtk_window_present (GTK_WINDOW (rtop_connect_dialog_new (get_window (self), self->settings)));
}

static void
activate_window_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  gtk_window_present (ensure_window (user_data));
}

static void
open_folder_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  g_autofree char *dir = g_path_get_dirname (g_variant_get_string (param, NULL));
  g_autoptr(GFile) file = g_file_new_for_path (dir);
  g_autofree char *uri = g_file_get_uri (file);

  gtk_show_uri (get_window (user_data), uri, GDK_CURRENT_TIME);
}

static void
copy_path_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GdkDisplay *display = gdk_display_get_default ();

  if (display)
    gdk_clipboard_set_text (gdk_display_get_clipboard (display), g_variant_get_string (param, NULL));
}

/* What the window's Save As offers, for scripts and the session bus: the
 * recording so far moves to the file and goes on there. */
static void
save_recording_as_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  rtop_session_save_recording_as (RTOP_APPLICATION (user_data)->session,
                                  g_variant_get_string (param, NULL));
}

/* A view by its page name, in the window the user sees (session bus). */
static void
dump_state_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkWindow *window = get_window (user_data);

  if (window)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.dump-state", NULL);
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  /* Closing the windows saves their size; the app then quits by itself
   * once the last is gone.  A window may ask first (a recording runs). */
  for (GList *l = windows; l; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
  if (gtk_application_get_windows (GTK_APPLICATION (user_data)) == NULL)
    g_application_quit (G_APPLICATION (user_data));
}

/* SIGTERM and SIGINT (logout, systemd, Ctrl+C in a terminal): quit without
 * asking; shutdown closes the recording so the trace is complete. */
static gboolean
terminate_cb (gpointer user_data)
{
  g_application_quit (G_APPLICATION (user_data));
  return G_SOURCE_CONTINUE;
}

/* libadwaita's about window where the build's libadwaita has it (1.2:
 * Debian 12 and newer); GTK's dialog with libadwaita 1.1 (Ubuntu 22.04). */
static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  const char *developers[] = { _("The rdmatop developers"), NULL };
  const char *comments = _("Live RDMA traffic, counters, health events and processes");

#if ADW_CHECK_VERSION (1, 2, 0)
  GtkWidget *about;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  about = adw_about_window_new ();
  adw_about_window_set_application_name (ADW_ABOUT_WINDOW (about), "rdmatop");
  adw_about_window_set_application_icon (ADW_ABOUT_WINDOW (about), APP_ID);
  adw_about_window_set_version (ADW_ABOUT_WINDOW (about), PACKAGE_VERSION);
  adw_about_window_set_comments (ADW_ABOUT_WINDOW (about), comments);
  adw_about_window_set_developer_name (ADW_ABOUT_WINDOW (about), developers[0]);
  adw_about_window_set_developers (ADW_ABOUT_WINDOW (about), developers);
  adw_about_window_set_license_type (ADW_ABOUT_WINDOW (about), GTK_LICENSE_APACHE_2_0);
  adw_about_window_set_translator_credits (ADW_ABOUT_WINDOW (about), _("translator-credits"));
  adw_about_window_set_issue_url (ADW_ABOUT_WINDOW (about), PACKAGE_ISSUES_URL);
  adw_about_window_set_website (ADW_ABOUT_WINDOW (about), PACKAGE_URL);
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_window_set_transient_for (GTK_WINDOW (about), get_window (user_data));
  gtk_window_set_modal (GTK_WINDOW (about), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (about), TRUE);
  gtk_window_present (GTK_WINDOW (about));
#else
  gtk_show_about_dialog (get_window (user_data),
                         "program-name", "rdmatop",
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", comments,
                         "website", PACKAGE_URL,
                         "license-type", GTK_LICENSE_APACHE_2_0,
                         "authors", developers,
                         "translator-credits", _("translator-credits"),
                         NULL);
#endif
}

static void
preferences_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  GtkWidget *prefs = rtop_preferences_new (get_window (self), self->settings);

  gtk_window_present (GTK_WINDOW (prefs));
}

static void
shortcuts_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/rdmatop/Rdmatop/ui/rtop-shortcuts.ui");
  GtkWindow *shortcuts = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts_window"));

  gtk_window_set_transient_for (shortcuts, get_window (self));
  gtk_window_present (shortcuts);
}

static const GActionEntry app_entries[] = {
  { "quit", quit_action, NULL, NULL, NULL },
  { "about", about_action, NULL, NULL, NULL },
  { "preferences", preferences_action, NULL, NULL, NULL },
  { "shortcuts", shortcuts_action, NULL, NULL, NULL },
  { "record", record_action, NULL, "false", NULL },
  { "refresh", refresh_action, NULL, NULL, NULL },
  { "go-live", go_live_action, NULL, NULL, NULL },
  { "show-port", show_in_window_action, "s", NULL, NULL },
  { "show-job", show_in_window_action, "s", NULL, NULL },
  { "show-job-rails", show_in_window_action, "s", NULL, NULL },
  { "add-host", add_host_action, "s", NULL, NULL },
  { "connect-host", connect_host_action, NULL, NULL, NULL },
  { "show-view", show_in_window_action, "s", NULL, NULL },
  { "dump-state", dump_state_action, NULL, NULL, NULL },
  { "activate-window", activate_window_action, NULL, NULL, NULL },
  { "open-folder", open_folder_action, "s", NULL, NULL },
  { "copy-path", copy_path_action, "s", NULL, NULL },
  { "save-recording-as", save_recording_as_action, "s", NULL, NULL },
};

/* The application's keys; each window's own are installed on its class.
 * The shortcuts window lists both. */
static const struct {
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "app.shortcuts", { "<Control>question", NULL } },
  { "app.record", { "<Control><Shift>r", NULL } },
  { "app.connect-host", { "<Control><Shift>h", NULL } },
  { "app.go-live", { "<Control>l", NULL } },
  { "app.refresh", { "F5", "<Control>r", NULL } },
};

/* The session follows the "hosts" setting: a host added there (Connect to
 * Host) is connected, one removed (Preferences) disconnected. */
static void
hosts_changed_cb (RtopApplication *self)
{
  g_auto(GStrv) hosts = g_settings_get_strv (self->settings, "hosts");

  for (guint i = 0; self->hosts != NULL && self->hosts[i] != NULL; i++)
    if (!g_strv_contains ((const char * const *) hosts, self->hosts[i]))
      rtop_session_remove_host (self->session, self->hosts[i]);
  for (guint i = 0; hosts[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      if (self->hosts != NULL && g_strv_contains ((const char * const *) self->hosts, hosts[i]))
        continue;
      /* Someone wrote the settings by hand: skip what ssh would not take. */
      if (!rtop_session_add_host (self->session, hosts[i], &error))
        g_printerr ("rdmatop: %s: %s\n", hosts[i], error->message);
    }
  g_strfreev (self->hosts);
  self->hosts = g_steal_pointer (&hosts);
}

static void
askpass_request_cb (RtopAskpass *askpass, RtopAskpassRequest *request, RtopApplication *self)
{
  gtk_window_present (GTK_WINDOW (rtop_askpass_dialog_new (ensure_window (self), request)));
}

/* ssh never asks on a terminal nobody sees: its questions come here as
 * dialogs.  Without the helper or the socket, ssh runs in BatchMode and
 * a host that needs a password fails with the reason. */
static void
setup_askpass (RtopApplication *self)
{
  g_autofree char *helper = rtop_askpass_find_helper ();
  g_autoptr(GError) error = NULL;

  if (helper == NULL)
    return;
  self->askpass = rtop_askpass_new (&error);
  if (self->askpass == NULL)
    {
      g_printerr ("rdmatop: %s\n", error->message);
      return;
    }
  g_signal_connect_object (self->askpass, "request", G_CALLBACK (askpass_request_cb), self, 0);
  rtop_session_set_askpass (self->session, helper, rtop_askpass_get_environment (self->askpass));
}

static void
add_remembered_hosts (RtopApplication *self)
{
  g_signal_connect_object (self->settings, "changed::hosts", G_CALLBACK (hosts_changed_cb), self,
                           G_CONNECT_SWAPPED);
  hosts_changed_cb (self);
}

static void
rtop_application_startup (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  RtopCollectorOptions options = { 0 };
  g_autoptr(RtopSampler) sampler = NULL;

  rtop_startup_mark ("startup");
  rtop_memory_report_start ();
  G_APPLICATION_CLASS (rtop_application_parent_class)->startup (app);
  rtop_startup_mark ("gtk");

  if (rtop_remote_display_is_remote (g_getenv ("SSH_CONNECTION"), g_getenv ("DISPLAY")))
    g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_entries, G_N_ELEMENTS (app_entries), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);

  self->settings = g_settings_new (APP_ID);
  g_signal_connect_object (self->settings, "changed::throughput-in-bytes", G_CALLBACK (units_changed_cb),
                           self, G_CONNECT_SWAPPED);
  units_changed_cb (self);
  self->session = rtop_session_new (self->settings);
  sampler = rtop_sampler_new (&options);
  rtop_session_add_live_source (self->session, RTOP_SOURCE (sampler));
  setup_askpass (self);
  add_remembered_hosts (self);
  g_signal_connect_object (self->session, "error", G_CALLBACK (session_error_cb), self, 0);
  g_signal_connect_object (self->session, "recording-saved", G_CALLBACK (recording_saved_cb), self, 0);
  g_signal_connect_object (rtop_session_get_history (self->session), "updated",
                           G_CALLBACK (history_updated_cb), self, G_CONNECT_SWAPPED);
  watch_notifier (self);
  self->sigterm_source = g_unix_signal_add (SIGTERM, terminate_cb, self);
  self->sigint_source = g_unix_signal_add (SIGINT, terminate_cb, self);
  g_signal_connect_object (self->session, "notify::recording", G_CALLBACK (sync_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "notify::replay-title", G_CALLBACK (sync_actions), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (rtop_session_get_history (self->session), "updated",
                           G_CALLBACK (sync_actions), self, G_CONNECT_SWAPPED);
  sync_actions (self);
  /* The first pass (and the ssh connections) run while the window is
   * built and shown: the first frame with data waits for both, not the
   * sum.  Opening a recording replaces them, as it does from the window. */
  rtop_session_start (self->session);
  rtop_startup_mark ("sources-started");
}

static gboolean
release_snapshots_cb (gpointer user_data)
{
  RtopApplication *self = user_data;

  if (self->session != NULL)
    rtop_session_release_snapshots (self->session);
  return G_SOURCE_REMOVE;
}

static void
first_frame_cb (GdkFrameClock *clock, RtopApplication *self)
{
  rtop_startup_mark ("first-frame");
  g_signal_handlers_disconnect_by_func (clock, first_frame_cb, self);
  /* After this paint, not inside it. */
  g_idle_add_full (G_PRIORITY_DEFAULT, release_snapshots_cb, g_object_ref (self), g_object_unref);
}

/* The window is painted first with what is known: the first pass, when
 * it finished while the window was built (it runs beside that), and
 * otherwise the overview's "Reading RDMA devices…".  Snapshots that come
 * after the window is shown wait until its first frame is painted, so
 * that their rows and layout never keep the window from showing. */
static void
show_first_frame_first (RtopApplication *self, GtkWindow *window)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));

  if (clock == NULL || self->first_frame_asked)
    return;
  self->first_frame_asked = TRUE;
  rtop_session_hold_snapshots (self->session);
  g_signal_connect (clock, "after-paint", G_CALLBACK (first_frame_cb), self);
}

static void
rtop_application_activate (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  GtkWindow *window = ensure_window (self);

  rtop_startup_mark ("window");
  /* Once: the first frame of the first window. */
  if (!self->first_frame_asked)
    rtop_session_take_ready_snapshots (self->session);
  gtk_window_present (window);
  show_first_frame_first (self, window);
  rtop_startup_mark ("presented");
}

static void
rtop_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  RtopApplication *self = RTOP_APPLICATION (app);

  gtk_window_present (ensure_window (self));
  if (n_files > 0)
    rtop_session_open_recording (self->session, files[0]);
  rtop_session_start (self->session);
}

static gboolean
schema_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  return schema != NULL;
}

/* --host HOST: checked here, then handed to whichever instance runs (this
 * one, or the one already running) as app.add-host. */
static int
add_command_line_hosts (GApplication *app, GVariantDict *options)
{
  g_autofree const char **hosts = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_variant_dict_lookup (options, "host", "^a&s", &hosts))
    return -1;
  for (guint i = 0; hosts[i] != NULL; i++)
    if (!rtop_remote_host_is_valid (hosts[i], &error))
      {
        g_printerr ("rdmatop: --host %s: %s\n", hosts[i], error->message);
        return 1;
      }
  if (!g_application_register (app, NULL, &error))
    {
      g_printerr ("rdmatop: %s\n", error->message);
      return 1;
    }
  for (guint i = 0; hosts[i] != NULL; i++)
    g_action_group_activate_action (G_ACTION_GROUP (app), "add-host", g_variant_new_string (hosts[i]));
  return -1;
}

static int
rtop_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("rdmatop %s\n", PACKAGE_VERSION);
      return 0;
    }
  /* GSettings aborts on a missing schema: say what to do instead. */
  if (!schema_installed ())
    {
      g_printerr (_("rdmatop: its settings schema %s is not installed. Install rdmatop "
                    "(meson install), or run it from the build tree with "
                    "GSETTINGS_SCHEMA_DIR=build/data (./launch.sh does that).\n"), APP_ID);
      return 1;
    }
  return add_command_line_hosts (app, options);
}

static void
rtop_application_shutdown (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  g_clear_handle_id (&self->notifier_watch, g_bus_unwatch_name);
  g_clear_handle_id (&self->sigterm_source, g_source_remove);
  g_clear_handle_id (&self->sigint_source, g_source_remove);
  if (self->session && !rtop_session_shutdown (self->session, &error))
    g_printerr ("rdmatop: %s\n", error->message);
  G_APPLICATION_CLASS (rtop_application_parent_class)->shutdown (app);
}

static void
rtop_application_dispose (GObject *object)
{
  RtopApplication *self = RTOP_APPLICATION (object);

  g_clear_object (&self->session);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->hosts, g_strfreev);
  g_clear_object (&self->askpass);
  G_OBJECT_CLASS (rtop_application_parent_class)->dispose (object);
}

static void
rtop_application_class_init (RtopApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = rtop_application_dispose;
  app_class->startup = rtop_application_startup;
  app_class->activate = rtop_application_activate;
  app_class->open = rtop_application_open;
  app_class->handle_local_options = rtop_application_handle_local_options;
  app_class->shutdown = rtop_application_shutdown;
  GTK_APPLICATION_CLASS (klass)->window_added = rtop_application_window_added;
}

static const GOptionEntry option_entries[] = {
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
  { "host", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
    N_("Also watch HOST over SSH (as ssh takes it: node1, alice@node1, an alias); repeatable"),
    N_("HOST") },
  { NULL }
};

static void
rtop_application_init (RtopApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), option_entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[RECORDING]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Shows live RDMA traffic, counters, health events and the processes using RDMA.\n"
                                              "With RECORDING (a file rdmatop recorded: .json, .json.gz or .csv, also cut short), shows that recording instead."));
}

RtopApplication *
rtop_application_new (void)
{
  return g_object_new (RTOP_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_CAN_OVERRIDE_APP_ID,
                       "resource-base-path", "/io/github/rdmatop/Rdmatop",
                       NULL);
}
