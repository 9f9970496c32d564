/* rtop-application.c */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <glib/gi18n.h>

#include "rtop-application.h"
#include "rtop-preferences.h"
#include "rtop-recorder.h"
#include "rtop-recording.h"
#include "rtop-remote.h"
#include "rtop-sampler.h"
#include "rtop-window.h"

/* Snapshots of a recording ingested per main-loop iteration, so a long
 * recording loads without freezing the window. */
#define REPLAY_CHUNK 64

struct _RtopApplication {
  GtkApplication parent_instance;

  GSettings *settings;
  RtopHistory *history;
  RtopSampler *sampler;
  RtopRecorder *recorder;
  gboolean recorder_starting;
  RtopRecording *replay;
  guint replay_pos;
  guint replay_source;
  GCancellable *cancellable;
  gboolean startup_reported;
};

G_DEFINE_FINAL_TYPE (RtopApplication, rtop_application, GTK_TYPE_APPLICATION)

static RtopWindow *
get_window (RtopApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  return RTOP_IS_WINDOW (window) ? RTOP_WINDOW (window) : NULL;
}

static void
show_error (RtopApplication *self, const char *title, const char *message)
{
  RtopWindow *window = get_window (self);

  if (window)
    rtop_window_show_error (window, title, message);
  else
    g_printerr ("%s: %s\n", title, message);
}

RtopHistory *
rtop_application_get_history (RtopApplication *self)
{
  return self->history;
}

GSettings *
rtop_application_get_settings (RtopApplication *self)
{
  return self->settings;
}

/* ---- start-up report (RDMATOP_REPORT_STARTUP=1, for tests/bench) ---------- */

/* Milliseconds since boot at which this process started, or -1.  A one-off
 * read of /proc/self/stat, only when the report is asked for. */
static double
process_start_ms (void)
{
  g_autofree char *stat = NULL;
  const char *p;
  guint64 start = 0;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      (p = strrchr (stat, ')')) == NULL)
    return -1;
  p++;
  /* Fields after comm's last ')' start at 3; the start time is field 22. */
  for (int field = 3; field <= 22 && p != NULL; field++)
    {
      while (*p == ' ')
        p++;
      if (field == 22)
        start = g_ascii_strtoull (p, NULL, 10);
      p = strchr (p, ' ');
    }
  return start * 1000.0 / sysconf (_SC_CLK_TCK);
}

static void
report_after_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  struct timespec ts;

  clock_gettime (CLOCK_BOOTTIME, &ts);
  g_printerr ("rdmatop: startup-ms=%.0f\n", ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 - process_start_ms ());
  g_signal_handlers_disconnect_by_func (clock, report_after_paint_cb, user_data);
}

/* After the first snapshot with devices, the next painted frame is the
 * first with live data: report the time from process start to it. */
static void
maybe_report_startup (RtopApplication *self, RtopSnapshot *snapshot)
{
  RtopWindow *window;
  GdkFrameClock *clock;

  if (self->startup_reported || snapshot->devices == NULL || snapshot->devices->len == 0 ||
      g_strcmp0 (g_getenv ("RDMATOP_REPORT_STARTUP"), "1") != 0)
    return;
  window = get_window (self);
  if (window == NULL || (clock = gtk_widget_get_frame_clock (GTK_WIDGET (window))) == NULL)
    return;
  self->startup_reported = TRUE;
  g_signal_connect (clock, "after-paint", G_CALLBACK (report_after_paint_cb), NULL);
}

/* ---- live sampling -------------------------------------------------------- */

static void
snapshot_cb (RtopSampler *sampler, RtopSnapshot *snapshot, RtopApplication *self)
{
  if (self->replay)
    return;
  rtop_history_ingest (self->history, snapshot);
  maybe_report_startup (self, snapshot);
  if (self->recorder)
    rtop_recorder_add (self->recorder, snapshot);
}

void
rtop_application_refresh (RtopApplication *self)
{
  if (self->sampler && rtop_sampler_is_running (self->sampler))
    rtop_sampler_refresh (self->sampler);
}

static void
start_live (RtopApplication *self)
{
  if (!rtop_sampler_is_running (self->sampler))
    rtop_sampler_start (self->sampler);
}

/* ---- recording ------------------------------------------------------------ */

typedef struct {
  char *folder;
  char *path;
  RtopRecordFormat format;
} RecordStart;

static void
record_start_free (gpointer data)
{
  RecordStart *rs = data;

  g_free (rs->folder);
  g_free (rs->path);
  g_free (rs);
}

/* Runs on a worker: creating the folder and the file is file I/O. */
static void
record_start_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  RecordStart *rs = task_data;
  GError *error = NULL;
  RtopRecorder *recorder;

  if (g_mkdir_with_parents (rs->folder, 0755) != 0)
    {
      int saved = errno;

      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (saved),
                               _("Cannot create the recordings folder %s: %s. Choose another folder in Preferences."),
                               rs->folder, g_strerror (saved));
      return;
    }
  recorder = rtop_recorder_new (rs->path, rs->format, &error);
  if (recorder == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, recorder, g_object_unref);
}

static void
recorder_error_cb (RtopRecorder *recorder, const GError *error, RtopApplication *self)
{
  g_autofree char *message = g_strdup_printf (_("%s\n\nRecording goes on in memory and is written when the file can be written again."),
                                              error->message);

  show_error (self, _("Cannot Write the Recording"), message);
}

static void
record_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopApplication) self = user_data;
  g_autoptr(GError) error = NULL;
  RtopRecorder *recorder = g_task_propagate_pointer (G_TASK (result), &error);
  RtopWindow *window = get_window (self);

  self->recorder_starting = FALSE;
  if (recorder == NULL)
    {
      if (window)
        rtop_window_set_recording (window, FALSE, NULL);
      show_error (self, _("Cannot Start Recording"), error->message);
      return;
    }
  self->recorder = recorder;
  g_signal_connect_object (recorder, "error", G_CALLBACK (recorder_error_cb), self, 0);
  if (window)
    rtop_window_set_recording (window, TRUE, rtop_recorder_get_path (recorder));
}

static void
start_recording (RtopApplication *self)
{
  RecordStart *rs = g_new0 (RecordStart, 1);
  g_autofree char *format = g_settings_get_string (self->settings, "recording-format");
  g_autofree char *name = NULL;
  g_autoptr(GTask) task = NULL;

  if (!rtop_record_format_from_string (format, &rs->format))
    rs->format = RTOP_RECORD_FORMAT_JSON_GZ;
  rs->folder = rtop_preferences_get_recordings_folder (self->settings);
  name = rtop_recording_default_filename (rs->format);
  rs->path = g_build_filename (rs->folder, name, NULL);
  self->recorder_starting = TRUE;
  task = g_task_new (NULL, NULL, record_started_cb, g_object_ref (self));
  g_task_set_task_data (task, rs, record_start_free);
  g_task_run_in_thread (task, record_start_thread);
}

static void
record_closed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopApplication) self = user_data;
  RtopRecorder *recorder = RTOP_RECORDER (source);
  g_autoptr(GError) error = NULL;
  RtopWindow *window = get_window (self);

  if (!rtop_recorder_close_finish (recorder, result, &error))
    {
      /* The data is kept: the user can stop again once the disk has room. */
      g_autofree char *message = g_strdup_printf (_("%s\n\nThe recorded data is kept; free some space or fix the folder, then press Stop again."),
                                                  error->message);
      show_error (self, _("Cannot Finish the Recording"), message);
      return;
    }
  if (self->recorder == recorder)
    g_clear_object (&self->recorder);
  if (window)
    rtop_window_set_recording (window, FALSE, NULL);
}

static void
stop_recording (RtopApplication *self)
{
  if (self->recorder == NULL)
    return;
  rtop_recorder_close_async (self->recorder, NULL, record_closed_cb, g_object_ref (self));
}

gboolean
rtop_application_set_recording (RtopApplication *self, gboolean recording, GError **error)
{
  if (recording && self->replay)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("A recording is being shown. Go back to live data (Ctrl+L) to record."));
      return FALSE;
    }
  if (recording && self->recorder == NULL && !self->recorder_starting)
    start_recording (self);
  else if (!recording)
    stop_recording (self);
  return TRUE;
}

gboolean
rtop_application_get_recording (RtopApplication *self)
{
  return self->recorder != NULL;
}

/* ---- replay --------------------------------------------------------------- */

static gboolean
replay_chunk_cb (gpointer user_data)
{
  RtopApplication *self = user_data;
  guint n = rtop_recording_get_n_snapshots (self->replay);

  for (guint i = 0; i < REPLAY_CHUNK && self->replay_pos < n; i++)
    rtop_history_ingest (self->history, rtop_recording_get_snapshot (self->replay, self->replay_pos++));
  if (self->replay_pos < n)
    return G_SOURCE_CONTINUE;
  self->replay_source = 0;
  return G_SOURCE_REMOVE;
}

static void
stop_replay (RtopApplication *self)
{
  g_clear_handle_id (&self->replay_source, g_source_remove);
  g_clear_object (&self->replay);
}

typedef struct {
  RtopApplication *app;
  char *path;
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_object_unref (data->app);
  g_free (data->path);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LoadData, load_data_free)

static void
recording_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LoadData) data = user_data;
  RtopApplication *self = data->app;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) recording = rtop_recording_load_finish (result, &error);
  g_autofree char *base = g_path_get_basename (data->path);
  g_autofree char *title = NULL;
  RtopWindow *window = get_window (self);

  if (recording == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      show_error (self, _("Cannot Open Recording"), error->message);
      /* Started with a file that did not load: show live data instead of nothing. */
      if (self->replay == NULL)
        start_live (self);
      return;
    }
  stop_recording (self);
  rtop_sampler_stop (self->sampler);
  stop_replay (self);
  rtop_history_reset (self->history);
  self->replay = g_steal_pointer (&recording);
  self->replay_pos = 0;
  self->replay_source = g_idle_add (replay_chunk_cb, self);
  /* Translators: shown after a recording's name when it was cut short */
  title = rtop_recording_is_complete (self->replay)
          ? g_strdup (base) : g_strdup_printf (_("%s (cut short)"), base);
  if (window)
    rtop_window_set_replay (window, title);
}

void
rtop_application_open_recording (RtopApplication *self, GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  LoadData *data;

  if (path == NULL)
    {
      show_error (self, _("Cannot Open Recording"),
                  _("Only recordings stored as local files can be opened. Copy it to this computer first."));
      return;
    }
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  data = g_new0 (LoadData, 1);
  data->app = g_object_ref (self);
  data->path = g_strdup (path);
  rtop_recording_load_async (path, self->cancellable, recording_loaded_cb, data);
}

void
rtop_application_go_live (RtopApplication *self)
{
  RtopWindow *window = get_window (self);

  if (self->replay == NULL)
    return;
  stop_replay (self);
  rtop_history_reset (self->history);
  if (window)
    rtop_window_set_replay (window, NULL);
  start_live (self);
}

/* ---- app actions -------------------------------------------------------- */

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GList *windows = g_list_copy (gtk_application_get_windows (GTK_APPLICATION (user_data)));

  /* Closing the windows saves their size; the app then quits by itself. */
  for (GList *l = windows; l; l = l->next)
    gtk_window_close (l->data);
  g_list_free (windows);
  g_application_quit (G_APPLICATION (user_data));
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  const char *authors[] = { _("The rdmatop developers"), NULL };

  gtk_show_about_dialog (GTK_WINDOW (get_window (user_data)),
                         "program-name", "rdmatop",
                         "logo-icon-name", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Live RDMA traffic, counters, health events and processes"),
                         "license-type", GTK_LICENSE_APACHE_2_0,
                         "authors", authors,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

static void
preferences_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  GtkWidget *prefs = rtop_preferences_new (GTK_WINDOW (get_window (self)), self->settings);

  gtk_window_present (GTK_WINDOW (prefs));
}

static void
shortcuts_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  RtopApplication *self = user_data;
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/rdmatop/Rdmatop/ui/rtop-shortcuts.ui");
  GtkWindow *shortcuts = GTK_WINDOW (gtk_builder_get_object (builder, "shortcuts_window"));

  gtk_window_set_transient_for (shortcuts, GTK_WINDOW (get_window (self)));
  gtk_window_present (shortcuts);
}

static const GActionEntry app_entries[] = {
  { "quit", quit_action, NULL, NULL, NULL },
  { "about", about_action, NULL, NULL, NULL },
  { "preferences", preferences_action, NULL, NULL, NULL },
  { "shortcuts", shortcuts_action, NULL, NULL, NULL },
};

/* Every action has a key (the shortcuts window lists them too). */
static const struct {
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "app.shortcuts", { "<Control>question", NULL } },
  { "app.about", { "F1", NULL } },
  { "win.open", { "<Control>o", NULL } },
  { "win.record", { "<Control><Shift>r", NULL } },
  { "win.go-live", { "<Control>l", NULL } },
  { "win.refresh", { "F5", "<Control>r", NULL } },
  { "win.find", { "<Control>f", NULL } },
  { "win.back", { "<Alt>Left", NULL } },
  { "win.show-view::overview", { "<Control>1", NULL } },
  { "win.show-view::processes", { "<Control>2", NULL } },
  { "win.show-view::events", { "<Control>3", NULL } },
  { "win.interval-faster", { "<Control>minus", NULL } },
  { "win.interval-slower", { "<Control>plus", "<Control>equal", NULL } },
  { "win.time-window(1)", { "<Alt>1", NULL } },
  { "win.time-window(5)", { "<Alt>2", NULL } },
  { "win.time-window(15)", { "<Alt>3", NULL } },
  { "win.time-window(60)", { "<Alt>4", NULL } },
  { "win.dump-state", { "<Control><Shift>d", NULL } },
};

static void
rtop_application_startup (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  RtopCollectorOptions options = { 0 };

  G_APPLICATION_CLASS (rtop_application_parent_class)->startup (app);

  if (rtop_remote_display_is_remote (g_getenv ("SSH_CONNECTION"), g_getenv ("DISPLAY")))
    g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  g_action_map_add_action_entries (G_ACTION_MAP (self), app_entries, G_N_ELEMENTS (app_entries), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);

  self->settings = g_settings_new (APP_ID);
  self->history = rtop_history_new ();
  self->sampler = rtop_sampler_new (&options);
  g_settings_bind (self->settings, "interval", self->sampler, "interval", G_SETTINGS_BIND_GET);
  g_signal_connect_object (self->sampler, "snapshot", G_CALLBACK (snapshot_cb), self, 0);
}

static RtopWindow *
ensure_window (RtopApplication *self)
{
  RtopWindow *window = get_window (self);

  if (window == NULL)
    window = rtop_window_new (GTK_APPLICATION (self), self->history, self->settings);
  return window;
}

static void
rtop_application_activate (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  RtopWindow *window = ensure_window (self);

  gtk_window_present (GTK_WINDOW (window));
  if (self->replay == NULL)
    start_live (self);
}

static void
rtop_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  RtopApplication *self = RTOP_APPLICATION (app);

  gtk_window_present (GTK_WINDOW (ensure_window (self)));
  if (n_files > 0)
    rtop_application_open_recording (self, files[0]);
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
  return -1;
}

static void
rtop_application_shutdown (GApplication *app)
{
  RtopApplication *self = RTOP_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (self->cancellable);
  if (self->sampler)
    rtop_sampler_stop (self->sampler);
  stop_replay (self);
  /* At exit the file must be complete, so this close waits for the writer. */
  if (self->recorder && !rtop_recorder_close (self->recorder, &error))
    g_printerr ("rdmatop: %s\n", error->message);
  g_clear_object (&self->recorder);
  G_APPLICATION_CLASS (rtop_application_parent_class)->shutdown (app);
}

static void
rtop_application_dispose (GObject *object)
{
  RtopApplication *self = RTOP_APPLICATION (object);

  stop_replay (self);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->recorder);
  g_clear_object (&self->sampler);
  g_clear_object (&self->history);
  g_clear_object (&self->settings);
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
}

static const GOptionEntry option_entries[] = {
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and exit"), NULL },
  { NULL }
};

static void
rtop_application_init (RtopApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), option_entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[RECORDING]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Shows live RDMA traffic, counters, health events and the processes using RDMA.\n"
                                              "With RECORDING (a .json or .json.gz file made by rdmatop), shows that recording instead."));
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
