/* rtop-recorder.c: snapshots -> file on a writer thread (contract in the
 * header).
 *
 * The caller's thread only queues snapshot references.  The writer thread
 * (rtop-recorder-writer.c) owns the file (rtop-record-file.h) and the
 * format's sink.  Both sides share a small refcounted block (counters, the
 * current error, the state) under a mutex; the writer thread tells the
 * caller's main context about changes with an idle source, which finds the
 * recorder through a pointer that dispose clears (dispose and the idle both
 * run on the caller's thread). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-error.h"
#include "rtop-record-file.h"
#include "rtop-recorder-private.h"
#include "rtop-recorder-writer-private.h"

struct _RtopRecorder {
  GObject parent_instance;

  Shared *shared;
  GAsyncQueue *queue;
  GThread *thread;
  RtopRecordFormat format;
  gboolean stopping;           /* close or discard requested: add() ignores */
  gboolean thread_done;        /* the writer thread has exited or will */
  gboolean discarded;
  guint64 samples;
  guint64 queue_dropped;
  gboolean have_first;
  gint64 first_monotonic_us;
  gint64 elapsed_us;
  /* last values notified, to notify only on change */
  guint64 notified_bytes;
  guint64 notified_dropped;
  guint notified_error_serial;
  RtopRecorderState notified_state;
  char *notified_path;
  GError *error_copy;          /* for rtop_recorder_get_error() */
  char *path_cache;
  char *partial_cache;
};

G_DEFINE_FINAL_TYPE (RtopRecorder, rtop_recorder, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_PATH,
  PROP_FORMAT,
  PROP_SAMPLES,
  PROP_DROPPED,
  PROP_BYTES_WRITTEN,
  PROP_ELAPSED_US,
  PROP_STATE,
  N_PROPS
};

enum {
  SIGNAL_ERROR,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The object -------------------------------------------------------------- */

/* FALSE when the writer thread has finished and takes nothing more. */
static gboolean
push_item (RtopRecorder *self, ItemKind kind, RtopSnapshot *snapshot,
           const char *path, GTask *task)
{
  Item *item;

  g_mutex_lock (&self->shared->lock);
  if (self->shared->writer_exited)
    {
      g_mutex_unlock (&self->shared->lock);
      return FALSE;
    }
  item = g_new0 (Item, 1);
  item->kind = kind;
  item->snapshot = snapshot != NULL ? rtop_snapshot_ref (snapshot) : NULL;
  item->path = g_strdup (path);
  item->task = task != NULL ? g_object_ref (task) : NULL;
  g_async_queue_push (self->queue, item);
  g_mutex_unlock (&self->shared->lock);
  return TRUE;
}

/* Caller's thread: compare the shared block with what was notified last
 * (the writer thread's changes arrive here through an idle). */
static void
publish (RtopRecorder *self)
{
  Shared *shared = self->shared;
  guint64 bytes, dropped;
  guint serial;
  RtopRecorderState state;
  g_autofree char *path = NULL;
  GError *new_error = NULL;

  g_mutex_lock (&shared->lock);
  bytes = shared->bytes_written;
  dropped = shared->dropped + self->queue_dropped;
  serial = shared->error_serial;
  state = shared->state;
  path = g_strdup (shared->path);
  g_clear_error (&self->error_copy);
  if (shared->error != NULL)
    self->error_copy = g_error_copy (shared->error);
  if (serial != self->notified_error_serial && shared->error != NULL)
    new_error = g_error_copy (shared->error);
  g_mutex_unlock (&shared->lock);

  g_object_freeze_notify (G_OBJECT (self));
  if (bytes != self->notified_bytes)
    {
      self->notified_bytes = bytes;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BYTES_WRITTEN]);
    }
  if (dropped != self->notified_dropped)
    {
      self->notified_dropped = dropped;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DROPPED]);
    }
  if (state != self->notified_state)
    {
      self->notified_state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
    }
  if (g_strcmp0 (path, self->notified_path) != 0)
    {
      g_free (self->notified_path);
      self->notified_path = g_steal_pointer (&path);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PATH]);
    }
  self->notified_error_serial = serial;
  g_object_thaw_notify (G_OBJECT (self));
  if (new_error != NULL)
    {
      g_signal_emit (self, signals[SIGNAL_ERROR], 0, new_error);
      g_error_free (new_error);
    }
}

static void
rtop_recorder_dispose (GObject *object)
{
  RtopRecorder *self = RTOP_RECORDER (object);

  if (self->thread != NULL)
    {
      if (!self->thread_done)
        push_item (self, ITEM_DISCARD, NULL, NULL, NULL);
      g_thread_join (self->thread);
      self->thread = NULL;
      self->thread_done = TRUE;
    }
  if (self->queue != NULL)
    {
      Item *item;

      while ((item = g_async_queue_try_pop (self->queue)) != NULL)
        rtop_recorder_item_free (item);
      g_clear_pointer (&self->queue, g_async_queue_unref);
    }
  if (self->shared != NULL)
    {
      self->shared->owner = NULL;
      g_clear_pointer (&self->shared, rtop_recorder_shared_unref);
    }
  G_OBJECT_CLASS (rtop_recorder_parent_class)->dispose (object);
}

static void
rtop_recorder_finalize (GObject *object)
{
  RtopRecorder *self = RTOP_RECORDER (object);

  g_free (self->notified_path);
  g_free (self->path_cache);
  g_free (self->partial_cache);
  g_clear_error (&self->error_copy);
  G_OBJECT_CLASS (rtop_recorder_parent_class)->finalize (object);
}

static void
rtop_recorder_get_property (GObject *object, guint prop_id, GValue *value,
                            GParamSpec *pspec)
{
  RtopRecorder *self = RTOP_RECORDER (object);

  switch (prop_id)
    {
    case PROP_PATH:
      g_value_set_string (value, rtop_recorder_get_path (self));
      break;
    case PROP_FORMAT:
      g_value_set_int (value, self->format);
      break;
    case PROP_SAMPLES:
      g_value_set_uint64 (value, self->samples);
      break;
    case PROP_DROPPED:
      g_value_set_uint64 (value, rtop_recorder_get_dropped (self));
      break;
    case PROP_BYTES_WRITTEN:
      g_value_set_uint64 (value, rtop_recorder_get_bytes_written (self));
      break;
    case PROP_ELAPSED_US:
      g_value_set_int64 (value, self->elapsed_us);
      break;
    case PROP_STATE:
      g_value_set_int (value, rtop_recorder_get_state (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_recorder_class_init (RtopRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = rtop_recorder_dispose;
  object_class->finalize = rtop_recorder_finalize;
  object_class->get_property = rtop_recorder_get_property;

  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  properties[PROP_FORMAT] = g_param_spec_int ("format", NULL, NULL, 0, G_MAXINT, 0, flags);
  properties[PROP_SAMPLES] = g_param_spec_uint64 ("samples", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_DROPPED] = g_param_spec_uint64 ("dropped", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_BYTES_WRITTEN] = g_param_spec_uint64 ("bytes-written", NULL, NULL, 0,
                                                        G_MAXUINT64, 0, flags);
  properties[PROP_ELAPSED_US] = g_param_spec_int64 ("elapsed-us", NULL, NULL, 0, G_MAXINT64,
                                                    0, flags);
  properties[PROP_STATE] = g_param_spec_int ("state", NULL, NULL, 0,
                                             RTOP_RECORDER_STATE_DISCARDED, 0, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                        G_TYPE_ERROR | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
rtop_recorder_init (RtopRecorder *self)
{
}

RtopRecorder *
rtop_recorder_new (const char *path, RtopRecordFormat format, GError **error)
{
  const RtopRecordFormatInfo *info = rtop_record_format_get_info (format);
  RtopRecordFile *file;
  RtopRecorder *self;
  Writer *w;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (info != NULL && info->sink != NULL, NULL);

  file = rtop_record_file_create (path, NULL, (info->flags & RTOP_RECORD_FORMAT_COMPRESSED) != 0,
                                  error);
  if (file == NULL)
    return NULL;

  self = g_object_new (RTOP_TYPE_RECORDER, NULL);
  self->format = format;
  self->shared = rtop_recorder_shared_new (g_main_context_ref_thread_default ());
  g_main_context_unref (self->shared->context);   /* rtop_recorder_shared_new took its own */
  self->shared->changed = publish;
  self->shared->owner = self;
  self->shared->path = g_strdup (path);
  self->shared->partial_path = g_strdup (rtop_record_file_get_partial_path (file));
  self->notified_path = g_strdup (path);
  self->queue = g_async_queue_new ();
  w = rtop_recorder_writer_new (self->shared, self->queue, format, file);
  self->thread = g_thread_new ("rdmatop-recorder", rtop_recorder_writer_thread, w);
  return self;
}

void
rtop_recorder_add (RtopRecorder *self, RtopSnapshot *snapshot)
{
  g_return_if_fail (RTOP_IS_RECORDER (self));
  g_return_if_fail (snapshot != NULL);

  if (self->stopping)
    return;
  if (g_async_queue_length (self->queue) >= RTOP_RECORDER_QUEUE_MAX)
    {
      self->queue_dropped++;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DROPPED]);
      return;
    }
  if (!push_item (self, ITEM_SNAPSHOT, snapshot, NULL, NULL))
    return;
  self->samples++;
  if (!self->have_first)
    {
      self->have_first = TRUE;
      self->first_monotonic_us = snapshot->monotonic_us;
    }
  self->elapsed_us = MAX (0, snapshot->monotonic_us - self->first_monotonic_us);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SAMPLES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ELAPSED_US]);
}

/* Async plumbing ---------------------------------------------------------- */

static GTask *
new_task (RtopRecorder *self, GCancellable *cancellable, GAsyncReadyCallback callback,
          gpointer user_data, gpointer tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, tag);
  g_task_set_check_cancellable (task, FALSE);
  return task;
}

void
rtop_recorder_close_async (RtopRecorder *self, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RTOP_IS_RECORDER (self));

  task = new_task (self, cancellable, callback, user_data, rtop_recorder_close_async);
  if (self->thread_done)
    {
      if (rtop_recorder_get_state (self) == RTOP_RECORDER_STATE_CLOSED)
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_new_error (task, RTOP_ERROR, RTOP_ERROR_FAILED,
                                 _("The recording was discarded."));
      return;
    }
  self->stopping = TRUE;
  if (!push_item (self, ITEM_CLOSE, NULL, NULL, task))
    {
      if (rtop_recorder_get_state (self) == RTOP_RECORDER_STATE_CLOSED)
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_new_error (task, RTOP_ERROR, RTOP_ERROR_FAILED,
                                 _("The recording has already ended."));
    }
}

static gboolean
finish_task (RtopRecorder *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  publish (self);
  if (rtop_recorder_get_state (self) != RTOP_RECORDER_STATE_RECORDING)
    self->thread_done = TRUE;
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
rtop_recorder_close_finish (RtopRecorder *self, GAsyncResult *result, GError **error)
{
  return finish_task (self, result, error);
}

void
rtop_recorder_save_as_async (RtopRecorder *self, const char *new_path, GCancellable *cancellable,
               GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (RTOP_IS_RECORDER (self));
  g_return_if_fail (new_path != NULL);

  task = new_task (self, cancellable, callback, user_data, rtop_recorder_save_as_async);
  if (self->thread_done)
    {
      g_task_return_new_error (task, RTOP_ERROR, RTOP_ERROR_FAILED,
                               _("The recording has already ended."));
      return;
    }
  if (!push_item (self, ITEM_SAVE_AS, NULL, new_path, task))
    g_task_return_new_error (task, RTOP_ERROR, RTOP_ERROR_FAILED,
                             _("The recording has already ended."));
}

gboolean
rtop_recorder_save_as_finish (RtopRecorder *self, GAsyncResult *result, GError **error)
{
  return finish_task (self, result, error);
}

/* The synchronous variants run the async ones on a private context. */
typedef struct {
  GAsyncResult *result;
} SyncData;

static void
sync_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SyncData *data = user_data;

  data->result = g_object_ref (result);
}

static GMainContext *
sync_begin (void)
{
  GMainContext *context = g_main_context_new ();

  g_main_context_push_thread_default (context);
  return context;
}

static void
sync_wait (GMainContext *context, SyncData *data)
{
  while (data->result == NULL)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

gboolean
rtop_recorder_close (RtopRecorder *self, GError **error)
{
  SyncData data = { NULL };
  GMainContext *context;
  gboolean ok;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), FALSE);

  context = sync_begin ();
  rtop_recorder_close_async (self, NULL, sync_cb, &data);
  sync_wait (context, &data);
  ok = rtop_recorder_close_finish (self, data.result, error);
  g_object_unref (data.result);
  return ok;
}

gboolean
rtop_recorder_save_as (RtopRecorder *self, const char *new_path, GError **error)
{
  SyncData data = { NULL };
  GMainContext *context;
  gboolean ok;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), FALSE);

  context = sync_begin ();
  rtop_recorder_save_as_async (self, new_path, NULL, sync_cb, &data);
  sync_wait (context, &data);
  ok = rtop_recorder_save_as_finish (self, data.result, error);
  g_object_unref (data.result);
  return ok;
}

void
rtop_recorder_discard (RtopRecorder *self)
{
  g_return_if_fail (RTOP_IS_RECORDER (self));

  if (self->thread_done)
    return;
  self->stopping = TRUE;
  self->thread_done = TRUE;
  self->discarded = TRUE;
  /* The file goes on the writer thread, after what it is writing now. */
  push_item (self, ITEM_DISCARD, NULL, NULL, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* Getters ----------------------------------------------------------------- */

/* Copies a shared string into a cache the caller can hold until the next
 * call (the writer thread replaces the shared one on save_as). */
static const char *
cached_string (RtopRecorder *self, char **cache, char * const *shared_field)
{
  g_mutex_lock (&self->shared->lock);
  if (g_strcmp0 (*cache, *shared_field) != 0)
    {
      g_free (*cache);
      *cache = g_strdup (*shared_field);
    }
  g_mutex_unlock (&self->shared->lock);
  return *cache;
}

const char *
rtop_recorder_get_path (RtopRecorder *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDER (self), NULL);
  return cached_string (self, &self->path_cache, &self->shared->path);
}

const char *
rtop_recorder_get_partial_path (RtopRecorder *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDER (self), NULL);
  return cached_string (self, &self->partial_cache, &self->shared->partial_path);
}

RtopRecorderState
rtop_recorder_get_state (RtopRecorder *self)
{
  RtopRecorderState state;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), RTOP_RECORDER_STATE_DISCARDED);
  if (self->discarded)
    return RTOP_RECORDER_STATE_DISCARDED;
  g_mutex_lock (&self->shared->lock);
  state = self->shared->state;
  g_mutex_unlock (&self->shared->lock);
  return state;
}

guint64
rtop_recorder_get_samples (RtopRecorder *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDER (self), 0);
  return self->samples;
}

guint64
rtop_recorder_get_dropped (RtopRecorder *self)
{
  guint64 dropped;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), 0);
  g_mutex_lock (&self->shared->lock);
  dropped = self->shared->dropped;
  g_mutex_unlock (&self->shared->lock);
  return dropped + self->queue_dropped;
}

guint
rtop_recorder_get_queued (RtopRecorder *self)
{
  gint n;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), 0);
  n = self->queue != NULL ? g_async_queue_length (self->queue) : 0;
  return n > 0 ? (guint) n : 0;
}

guint64
rtop_recorder_get_bytes_written (RtopRecorder *self)
{
  guint64 bytes;

  g_return_val_if_fail (RTOP_IS_RECORDER (self), 0);
  g_mutex_lock (&self->shared->lock);
  bytes = self->shared->bytes_written;
  g_mutex_unlock (&self->shared->lock);
  return bytes;
}

gint64
rtop_recorder_get_elapsed_us (RtopRecorder *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDER (self), 0);
  return self->elapsed_us;
}

const GError *
rtop_recorder_get_error (RtopRecorder *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDER (self), NULL);
  g_mutex_lock (&self->shared->lock);
  g_clear_error (&self->error_copy);
  if (self->shared->error != NULL)
    self->error_copy = g_error_copy (self->shared->error);
  g_mutex_unlock (&self->shared->lock);
  return self->error_copy;
}
