/* rtop-session.c: what every window shows: the sources that feed the history,
 * the recording and the replay. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>

#include "rtop-recording.h"
#include "rtop-remote.h"
#include "rtop-remote-source.h"
#include "rtop-replay-source.h"
#include "rtop-session-private.h"
#include "rtop-source-list.h"

struct _RtopSession {
  GObject parent_instance;

  GSettings *settings;
  RtopHistory *history;
  RtopSourceList *sources;   /* what feeds the history now */
  GPtrArray *live;           /* RtopSource*: the live sources, fed or not */
  RtopRecorder *recorder;
  gboolean recorder_starting;
  guint record_generation;   /* bumped by every start and stop */
  RtopReplaySource *replay;
  char *replay_title;
  char *replay_path;
  gboolean replay_complete;  /* FALSE while a cut-short recording is shown */
  GCancellable *cancellable; /* the recording being opened */
  gboolean loading;
  gboolean started;
  char *askpass;
  GStrv askpass_env;
  char *ssh_config;          /* -F for the hosts added, or NULL */
  GPtrArray *held;           /* Held*, in arrival order; NULL when not holding */
  guint hold_timeout;
};

/* A snapshot that arrived while the window had not shown its first frame. */
typedef struct {
  RtopSource *source;
  RtopSnapshot *snapshot;
} Held;

/* However long the first frame takes, snapshots are held no longer than
 * this, nor more of them than this. */
#define HOLD_MAX_MS 2000
#define HOLD_MAX 16

enum {
  PROP_0,
  PROP_HISTORY,
  PROP_SOURCES,
  PROP_RECORDING,
  PROP_RECORDER,
  PROP_REPLAY_TITLE,
  PROP_REPLAY_PATH,
  PROP_REPLAY_COMPLETE,
  N_PROPS
};
enum { SIGNAL_ERROR, SIGNAL_RECORDING_FAILED, SIGNAL_RECORDING_SAVED, N_SIGNALS };

static GParamSpec *props[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (RtopSession, rtop_session, G_TYPE_OBJECT)

static void
report (RtopSession *self, const char *title, const char *message)
{
  g_signal_emit (self, signals[SIGNAL_ERROR], 0, title, message);
}

RtopHistory *
rtop_session_get_history (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), NULL);
  return self->history;
}

GListModel *
rtop_session_get_sources (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), NULL);
  return G_LIST_MODEL (self->sources);
}

/* ---- sources ------------------------------------------------------------ */

static void
take_snapshot (RtopSession *self, RtopSource *source, RtopSnapshot *snapshot)
{
  rtop_history_ingest (self->history, snapshot);
  if (self->recorder && rtop_source_get_live (source))
    rtop_recorder_add (self->recorder, snapshot);
}

static void
held_free (gpointer data)
{
  Held *h = data;

  g_object_unref (h->source);
  rtop_snapshot_unref (h->snapshot);
  g_free (h);
}

static void
snapshot_cb (RtopSourceList *list, RtopSource *source, RtopSnapshot *snapshot, RtopSession *self)
{
  if (self->held != NULL && self->held->len >= HOLD_MAX)
    rtop_session_release_snapshots (self);
  if (self->held != NULL)
    {
      Held *h = g_new0 (Held, 1);

      h->source = g_object_ref (source);
      h->snapshot = rtop_snapshot_ref (snapshot);
      g_ptr_array_add (self->held, h);
      return;
    }
  take_snapshot (self, source, snapshot);
}

static gboolean
hold_timeout_cb (gpointer user_data)
{
  RtopSession *self = user_data;

  self->hold_timeout = 0;
  rtop_session_release_snapshots (self);
  return G_SOURCE_REMOVE;
}

void
rtop_session_hold_snapshots (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  if (self->held != NULL)
    return;
  self->held = g_ptr_array_new_with_free_func (held_free);
  self->hold_timeout = g_timeout_add (HOLD_MAX_MS, hold_timeout_cb, self);
}

void
rtop_session_release_snapshots (RtopSession *self)
{
  g_autoptr(GPtrArray) held = NULL;

  g_return_if_fail (RTOP_IS_SESSION (self));

  g_clear_handle_id (&self->hold_timeout, g_source_remove);
  held = g_steal_pointer (&self->held);
  /* In the order they came, each as if it had just come. */
  for (guint i = 0; held != NULL && i < held->len; i++)
    {
      Held *h = g_ptr_array_index (held, i);

      take_snapshot (self, h->source, h->snapshot);
    }
}

void
rtop_session_take_ready_snapshots (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));
  rtop_source_list_deliver_pending (self->sources);
}

static void
apply_interval (RtopSession *self)
{
  if (self->settings)
    rtop_source_list_set_interval (self->sources, g_settings_get_double (self->settings, "interval"));
}

static void
feed_live (RtopSession *self)
{
  for (guint i = 0; i < self->live->len; i++)
    rtop_source_list_add (self->sources, g_ptr_array_index (self->live, i));
  apply_interval (self);
}

const char *
rtop_session_source_host (RtopSource *source)
{
  if (RTOP_IS_REMOTE_SOURCE (source))
    return rtop_remote_source_get_host (RTOP_REMOTE_SOURCE (source));
  return NULL;
}

/* A host out of reach shows no rates from before: its next snapshot is
 * the first of a new connection, and the graphs show the gap. */
static void
source_state_cb (RtopSource *source, GParamSpec *pspec, RtopSession *self)
{
  switch (rtop_source_get_state (source))
    {
    case RTOP_SOURCE_STATE_LOST:
    case RTOP_SOURCE_STATE_FAILED:
      if (self->replay == NULL)
        rtop_history_set_host_offline (self->history, rtop_session_source_host (source));
      break;
    case RTOP_SOURCE_STATE_STOPPED:
    case RTOP_SOURCE_STATE_CONNECTING:
    case RTOP_SOURCE_STATE_RUNNING:
    case RTOP_SOURCE_STATE_FINISHED:
    default:
      break;
    }
}

void
rtop_session_add_live_source (RtopSession *self, RtopSource *source)
{
  g_return_if_fail (RTOP_IS_SESSION (self));
  g_return_if_fail (RTOP_IS_SOURCE (source));

  if (g_ptr_array_find (self->live, source, NULL))
    return;
  g_ptr_array_add (self->live, g_object_ref (source));
  g_signal_connect_object (source, "notify::state", G_CALLBACK (source_state_cb), self, 0);
  if (self->replay == NULL)
    {
      rtop_source_list_add (self->sources, source);
      apply_interval (self);
    }
}

static RtopSource *
find_host_source (RtopSession *self, const char *host)
{
  for (guint i = 0; i < self->live->len; i++)
    {
      RtopSource *source = g_ptr_array_index (self->live, i);

      if (g_strcmp0 (rtop_session_source_host (source), host) == 0)
        return source;
    }
  return NULL;
}

gboolean
rtop_session_add_host (RtopSession *self, const char *host, GError **error)
{
  g_autofree char *command = NULL;
  RtopRemoteOptions options = { 0 };
  g_autoptr(RtopRemoteSource) source = NULL;

  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);

  if (!rtop_remote_host_is_valid (host, error))
    return FALSE;
  if (find_host_source (self, host) != NULL)
    return TRUE;
  if (self->settings)
    command = g_settings_get_string (self->settings, "remote-command");
  options.host = host;
  options.remote_command = command != NULL && *command != '\0' ? command : NULL;
  options.askpass = self->askpass;
  options.environment = (const char * const *) self->askpass_env;
  options.config_file = self->ssh_config;
  options.processes = rtop_remote_host_shows_processes (self->settings, host);
  if (self->settings)
    options.interval = g_settings_get_double (self->settings, "interval");
  source = rtop_remote_source_new (&options);
  rtop_session_add_live_source (self, RTOP_SOURCE (source));
  return TRUE;
}

gboolean
rtop_session_remove_host (RtopSession *self, const char *host)
{
  RtopSource *source;

  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);

  if (host == NULL || (source = find_host_source (self, host)) == NULL)
    return FALSE;
  g_signal_handlers_disconnect_by_func (source, source_state_cb, self);
  rtop_source_list_remove (self->sources, source);
  g_ptr_array_remove (self->live, source);
  if (self->replay == NULL)
    rtop_history_forget_host (self->history, host);
  return TRUE;
}

gboolean
rtop_session_can_record (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);

  /* A recording in progress can always be stopped. */
  return self->recorder != NULL || self->recorder_starting ||
         (self->replay == NULL && rtop_history_has_devices (self->history));
}

/* A host whose "process-hosts" setting changed is connected again, asking
 * the remote for process names and ids, or no longer asking. */
static void
process_hosts_changed_cb (RtopSession *self)
{
  g_autoptr(GPtrArray) again = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < self->live->len; i++)
    {
      RtopSource *source = g_ptr_array_index (self->live, i);
      const char *host = rtop_session_source_host (source);

      if (RTOP_IS_REMOTE_SOURCE (source) &&
          rtop_remote_source_get_processes (RTOP_REMOTE_SOURCE (source)) !=
          rtop_remote_host_shows_processes (self->settings, host))
        g_ptr_array_add (again, g_strdup (host));
    }
  for (guint i = 0; i < again->len; i++)
    {
      const char *host = g_ptr_array_index (again, i);

      rtop_session_remove_host (self, host);
      rtop_session_add_host (self, host, NULL);
    }
}

void
rtop_session_set_ssh_config (RtopSession *self, const char *config_file)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  g_free (self->ssh_config);
  self->ssh_config = g_strdup (config_file);
}

void
rtop_session_set_askpass (RtopSession *self, const char *program, const char * const *environment)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  g_free (self->askpass);
  self->askpass = g_strdup (program);
  g_strfreev (self->askpass_env);
  self->askpass_env = g_strdupv ((char **) environment);
}

void
rtop_session_start (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  self->started = TRUE;
  if (self->replay == NULL && !self->loading)
    rtop_source_list_start (self->sources);
}

void
rtop_session_refresh (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));
  rtop_source_list_refresh (self->sources);
}

/* ---- recording ------------------------------------------------------------ */

typedef struct {
  char *folder;
  char *path;
  RtopRecordFormat format;
  guint generation;
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
recorder_error_cb (RtopRecorder *recorder, const GError *error, RtopSession *self)
{
  g_autofree char *message = g_strdup_printf (_("%s\n\nRecording goes on in memory and is written when the file can be written again, or save it elsewhere now."),
                                              error->message);

  g_signal_emit (self, signals[SIGNAL_RECORDING_FAILED], 0, _("Cannot Write the Recording"), message);
}

static void
set_recorder (RtopSession *self, RtopRecorder *recorder, gboolean starting)
{
  gboolean was = rtop_session_get_recording (self);
  gboolean changed = self->recorder != recorder;

  if (changed)
    {
      if (self->recorder)
        g_signal_handlers_disconnect_by_func (self->recorder, recorder_error_cb, self);
      g_set_object (&self->recorder, recorder);
      if (recorder)
        g_signal_connect_object (recorder, "error", G_CALLBACK (recorder_error_cb), self, 0);
    }
  self->recorder_starting = starting;
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RECORDER]);
  if (was != rtop_session_get_recording (self))
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RECORDING]);
}

static void
record_started_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopSession) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = g_task_propagate_pointer (G_TASK (result), &error);
  RecordStart *rs = g_task_get_task_data (G_TASK (result));

  if (rs->generation != self->record_generation)
    {
      /* Stopped (or replaced by a replay) while the file was being made. */
      if (recorder)
        rtop_recorder_discard (recorder);
      return;
    }
  if (recorder == NULL)
    {
      set_recorder (self, NULL, FALSE);
      report (self, _("Cannot Start Recording"), error->message);
      return;
    }
  set_recorder (self, recorder, FALSE);
}

static void
start_recording (RtopSession *self)
{
  RecordStart *rs = g_new0 (RecordStart, 1);
  g_autofree char *format = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GTask) task = NULL;

  if (self->settings)
    format = g_settings_get_string (self->settings, "recording-format");
  if (format == NULL || !rtop_record_format_from_string (format, &rs->format))
    rs->format = RTOP_RECORD_FORMAT_JSON_GZ;
  rs->folder = rtop_session_get_recordings_folder (self->settings);
  name = rtop_recording_default_filename (rs->format);
  rs->path = g_build_filename (rs->folder, name, NULL);
  rs->generation = ++self->record_generation;
  set_recorder (self, NULL, TRUE);
  task = g_task_new (NULL, NULL, record_started_cb, g_object_ref (self));
  g_task_set_task_data (task, rs, record_start_free);
  g_task_run_in_thread (task, record_start_thread);
}

static void
record_closed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopSession) self = user_data;
  RtopRecorder *recorder = RTOP_RECORDER (source);
  g_autoptr(GError) error = NULL;

  if (!rtop_recorder_close_finish (recorder, result, &error))
    {
      /* The data is kept: the user can stop again once the disk has room. */
      g_autofree char *message = g_strdup_printf (_("%s\n\nThe recorded data is kept; save it elsewhere, or free some space or fix the folder and press Stop again."),
                                                  error->message);
      g_signal_emit (self, signals[SIGNAL_RECORDING_FAILED], 0, _("Cannot Finish the Recording"), message);
      return;
    }
  if (self->recorder == recorder)
    set_recorder (self, NULL, FALSE);
  g_signal_emit (self, signals[SIGNAL_RECORDING_SAVED], 0, rtop_recorder_get_path (recorder), FALSE);
}

static void
stop_recording (RtopSession *self)
{
  if (self->recorder_starting)
    {
      self->record_generation++;
      set_recorder (self, NULL, FALSE);
    }
  if (self->recorder == NULL)
    return;
  rtop_recorder_close_async (self->recorder, NULL, record_closed_cb, g_object_ref (self));
}

gboolean
rtop_session_set_recording (RtopSession *self, gboolean recording, GError **error)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);

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

static void
saved_as_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopSession) self = user_data;
  RtopRecorder *recorder = RTOP_RECORDER (source);
  g_autoptr(GError) error = NULL;

  if (!rtop_recorder_save_as_finish (recorder, result, &error))
    {
      g_signal_emit (self, signals[SIGNAL_RECORDING_FAILED], 0, _("Cannot Save the Recording There"),
                     error->message);
      return;
    }
  /* After a failed stop, save-as completes the file: the recording is done. */
  if (rtop_recorder_get_state (recorder) == RTOP_RECORDER_STATE_CLOSED)
    {
      if (self->recorder == recorder)
        set_recorder (self, NULL, FALSE);
      g_signal_emit (self, signals[SIGNAL_RECORDING_SAVED], 0, rtop_recorder_get_path (recorder), FALSE);
    }
  else
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_RECORDER]);
}

void
rtop_session_save_recording_as (RtopSession *self, const char *path)
{
  g_return_if_fail (RTOP_IS_SESSION (self));
  g_return_if_fail (path != NULL);

  if (self->recorder == NULL)
    return;
  rtop_recorder_save_as_async (self->recorder, path, NULL, saved_as_cb, g_object_ref (self));
}

void
rtop_session_discard_recording (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  if (self->recorder_starting)
    self->record_generation++;
  if (self->recorder)
    rtop_recorder_discard (self->recorder);
  set_recorder (self, NULL, FALSE);
}

gboolean
rtop_session_get_recording (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);
  return self->recorder != NULL || self->recorder_starting;
}

RtopRecorder *
rtop_session_get_recorder (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), NULL);
  return self->recorder;
}

/* ---- replay --------------------------------------------------------------- */

static void
set_replay (RtopSession *self, const char *title, const char *path)
{
  gboolean complete = self->replay == NULL ||
                      rtop_recording_is_complete (rtop_replay_source_get_recording (self->replay));
  gboolean was_complete = self->replay_complete;

  if (g_strcmp0 (self->replay_path, path) != 0)
    {
      g_free (self->replay_path);
      self->replay_path = g_strdup (path);
      g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REPLAY_PATH]);
    }
  self->replay_complete = complete;
  if (complete != was_complete)
    g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REPLAY_COMPLETE]);
  /* Last: a window reading the title sees the path and completeness too. */
  if (g_strcmp0 (self->replay_title, title) == 0)
    return;
  g_free (self->replay_title);
  self->replay_title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REPLAY_TITLE]);
}

const char *
rtop_session_get_replay_path (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), NULL);
  return self->replay_path;
}

gboolean
rtop_session_get_replay_complete (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), TRUE);
  return self->replay_complete;
}

static void
repair_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  GError *error = NULL;
  char *written = rtop_recording_recover (task_data, NULL, &error);

  if (written)
    g_task_return_pointer (task, written, g_free);
  else
    g_task_return_error (task, error);
}

static void
repaired_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(RtopSession) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = g_task_propagate_pointer (G_TASK (result), &error);

  if (written == NULL)
    report (self, _("Cannot Repair the Recording"), error->message);
  else
    g_signal_emit (self, signals[SIGNAL_RECORDING_SAVED], 0, written, TRUE);
}

void
rtop_session_repair_replay (RtopSession *self)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RTOP_IS_SESSION (self));

  if (self->replay_path == NULL)
    return;
  task = g_task_new (NULL, NULL, repaired_cb, g_object_ref (self));
  g_task_set_task_data (task, g_strdup (self->replay_path), g_free);
  g_task_run_in_thread (task, repair_thread);
}

const char *
rtop_session_get_replay_title (RtopSession *self)
{
  g_return_val_if_fail (RTOP_IS_SESSION (self), NULL);
  return self->replay_title;
}

typedef struct {
  RtopSession *session;
  char *path;
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_object_unref (data->session);
  g_free (data->path);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (LoadData, load_data_free)

static void
recording_loaded_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(LoadData) data = user_data;
  RtopSession *self = data->session;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) recording = rtop_recording_load_finish (result, &error);
  g_autofree char *base = g_path_get_basename (data->path);
  g_autofree char *title = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->loading = FALSE;
  if (recording == NULL)
    {
      report (self, _("Cannot Open Recording"), error->message);
      /* Started with a file that did not load: show live data instead of nothing. */
      if (self->replay == NULL && self->started)
        rtop_source_list_start (self->sources);
      return;
    }
  stop_recording (self);
  rtop_source_list_remove_all (self->sources);
  g_clear_object (&self->replay);
  /* Live snapshots held for the first frame would land in the recording's
   * history: the recording replaces them, as it replaces what was shown. */
  if (self->held != NULL)
    g_ptr_array_set_size (self->held, 0);
  rtop_history_reset (self->history);
  /* The graphs can scroll over the whole recording, not only its last hour. */
  rtop_history_set_min_capacity (self->history, rtop_recording_get_n_snapshots (recording) + 1);
  /* Translators: shown after a recording's name when it was cut short */
  title = rtop_recording_is_complete (recording)
          ? g_strdup (base) : g_strdup_printf (_("%s (cut short)"), base);
  self->replay = rtop_replay_source_new (recording, title);
  rtop_source_list_add (self->sources, RTOP_SOURCE (self->replay));
  rtop_source_list_start (self->sources);
  set_replay (self, title, data->path);
}

void
rtop_session_open_recording (RtopSession *self, GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  LoadData *data;

  g_return_if_fail (RTOP_IS_SESSION (self));

  if (path == NULL)
    {
      report (self, _("Cannot Open Recording"),
              _("Only recordings stored as local files can be opened. Copy it to this computer first."));
      return;
    }
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  self->loading = TRUE;
  data = g_new0 (LoadData, 1);
  data->session = g_object_ref (self);
  data->path = g_strdup (path);
  rtop_recording_load_async (path, self->cancellable, recording_loaded_cb, data);
}

void
rtop_session_go_live (RtopSession *self)
{
  g_return_if_fail (RTOP_IS_SESSION (self));

  if (self->replay == NULL)
    return;
  /* The replay is the only source while a recording is shown. */
  rtop_source_list_remove (self->sources, RTOP_SOURCE (self->replay));
  g_clear_object (&self->replay);
  rtop_history_reset (self->history);
  rtop_history_set_min_capacity (self->history, 0);
  set_replay (self, NULL, NULL);
  feed_live (self);
  rtop_source_list_start (self->sources);
}

gboolean
rtop_session_shutdown (RtopSession *self, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (RTOP_IS_SESSION (self), FALSE);

  /* What came before a first frame is recorded too. */
  rtop_session_release_snapshots (self);
  g_cancellable_cancel (self->cancellable);
  rtop_source_list_stop (self->sources);
  self->started = FALSE;
  /* At exit the file must be complete, so this close waits for the writer. */
  if (self->recorder)
    ok = rtop_recorder_close (self->recorder, error);
  set_recorder (self, NULL, FALSE);
  return ok;
}

/* ---- GObject --------------------------------------------------------------- */

static void
interval_changed_cb (RtopSession *self)
{
  apply_interval (self);
}

RtopSession *
rtop_session_new (GSettings *settings)
{
  RtopSession *self = g_object_new (RTOP_TYPE_SESSION, NULL);

  if (settings)
    {
      self->settings = g_object_ref (settings);
      g_signal_connect_object (settings, "changed::interval", G_CALLBACK (interval_changed_cb),
                               self, G_CONNECT_SWAPPED);
      g_signal_connect_object (settings, "changed::process-hosts",
                               G_CALLBACK (process_hosts_changed_cb), self, G_CONNECT_SWAPPED);
    }
  return self;
}

static void
rtop_session_dispose (GObject *object)
{
  RtopSession *self = RTOP_SESSION (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->hold_timeout, g_source_remove);
  g_clear_pointer (&self->held, g_ptr_array_unref);
  if (self->sources)
    rtop_source_list_remove_all (self->sources);
  g_clear_object (&self->sources);
  g_clear_pointer (&self->live, g_ptr_array_unref);
  g_clear_object (&self->replay);
  /* A recorder nobody closed is discarded by its own dispose. */
  if (self->recorder)
    g_signal_handlers_disconnect_by_func (self->recorder, recorder_error_cb, self);
  g_clear_object (&self->recorder);
  g_clear_object (&self->history);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (rtop_session_parent_class)->dispose (object);
}

static void
rtop_session_finalize (GObject *object)
{
  g_free (RTOP_SESSION (object)->replay_title);
  g_free (RTOP_SESSION (object)->replay_path);
  g_free (RTOP_SESSION (object)->askpass);
  g_strfreev (RTOP_SESSION (object)->askpass_env);
  g_free (RTOP_SESSION (object)->ssh_config);
  G_OBJECT_CLASS (rtop_session_parent_class)->finalize (object);
}

static void
rtop_session_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopSession *self = RTOP_SESSION (object);

  switch (prop_id)
    {
    case PROP_HISTORY:
      g_value_set_object (value, self->history);
      break;
    case PROP_SOURCES:
      g_value_set_object (value, self->sources);
      break;
    case PROP_RECORDING:
      g_value_set_boolean (value, rtop_session_get_recording (self));
      break;
    case PROP_RECORDER:
      g_value_set_object (value, self->recorder);
      break;
    case PROP_REPLAY_TITLE:
      g_value_set_string (value, self->replay_title);
      break;
    case PROP_REPLAY_PATH:
      g_value_set_string (value, self->replay_path);
      break;
    case PROP_REPLAY_COMPLETE:
      g_value_set_boolean (value, rtop_session_get_replay_complete (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_session_class_init (RtopSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = rtop_session_dispose;
  object_class->finalize = rtop_session_finalize;
  object_class->get_property = rtop_session_get_property;

  props[PROP_HISTORY] = g_param_spec_object ("history", NULL, NULL, RTOP_TYPE_HISTORY, ro);
  props[PROP_SOURCES] = g_param_spec_object ("sources", NULL, NULL, G_TYPE_LIST_MODEL, ro);
  props[PROP_RECORDING] = g_param_spec_boolean ("recording", NULL, NULL, FALSE, ro);
  props[PROP_RECORDER] = g_param_spec_object ("recorder", NULL, NULL, RTOP_TYPE_RECORDER, ro);
  props[PROP_REPLAY_TITLE] = g_param_spec_string ("replay-title", NULL, NULL, NULL, ro);
  props[PROP_REPLAY_PATH] = g_param_spec_string ("replay-path", NULL, NULL, NULL, ro);
  props[PROP_REPLAY_COMPLETE] = g_param_spec_boolean ("replay-complete", NULL, NULL, TRUE, ro);
  g_object_class_install_properties (object_class, N_PROPS, props);

  signals[SIGNAL_ERROR] =
    g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_RECORDING_FAILED] =
    g_signal_new ("recording-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_RECORDING_SAVED] =
    g_signal_new ("recording-saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
}

static void
rtop_session_init (RtopSession *self)
{
  self->history = rtop_history_new ();
  self->sources = rtop_source_list_new ();
  self->live = g_ptr_array_new_with_free_func (g_object_unref);
  self->replay_complete = TRUE;
  g_signal_connect (self->sources, "snapshot", G_CALLBACK (snapshot_cb), self);
}

char *
rtop_session_get_recordings_folder (GSettings *settings)
{
  g_autofree char *folder = settings ? g_settings_get_string (settings, "recordings-folder") : NULL;
  const char *documents;

  if (folder && *folder)
    return g_steal_pointer (&folder);
  documents = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);
  return g_build_filename (documents ? documents : g_get_home_dir (), "rdmatop", NULL);
}
