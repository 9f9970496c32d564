/* rtop-recorder.c: snapshots -> file on a writer thread (contract in the
 * header).
 *
 * The caller's thread only queues snapshot references.  The writer thread
 * owns the file (rtop-record-file.h) and the format's sink.  Both sides share
 * a small refcounted block (counters, the current error, the state) under a
 * mutex; the writer thread tells the caller's main context about changes
 * with an idle source, which finds the recorder through a pointer that
 * dispose clears (dispose and the idle both run on the caller's thread). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-error.h"
#include "rtop-record-file.h"
#include "rtop-record-sink.h"
#include "rtop-recorder-private.h"

typedef enum {
  ITEM_SNAPSHOT,
  ITEM_CLOSE,
  ITEM_SAVE_AS,
  ITEM_DISCARD,
} ItemKind;

typedef struct {
  ItemKind kind;
  RtopSnapshot *snapshot;
  char *path;
  GTask *task;
} Item;

/* Shared between the caller's thread and the writer thread. */
typedef struct {
  GMutex lock;
  GMainContext *context;       /* the creator's; notifications go there */
  RtopRecorder *owner;         /* caller's thread only; NULL after dispose */
  gboolean notify_pending;
  /* under lock: */
  gboolean writer_exited;      /* nothing pushed from now on is taken */
  guint64 bytes_written;
  guint64 dropped;
  GError *error;
  guint error_serial;          /* bumped when a new error is set */
  RtopRecorderState state;
  char *path;
  char *partial_path;
} Shared;

/* The writer thread's own state. */
typedef struct {
  Shared *shared;
  GAsyncQueue *queue;
  RtopRecordFile *file;        /* NULL once complete or discarded */
  RtopRecordSink *sink;
  GString *text;
  GQueue spool;                /* GBytes*: encoded chunks not yet in the file */
  gsize spool_bytes;
  gboolean ended;              /* the trailer has been encoded */
  gboolean file_gone;          /* our partial file lost its last link */
} Writer;

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

/* Shared block ------------------------------------------------------------ */

static Shared *
shared_new (GMainContext *context)
{
  Shared *shared = g_atomic_rc_box_new0 (Shared);

  g_mutex_init (&shared->lock);
  shared->context = g_main_context_ref (context);
  return shared;
}

static void
shared_clear (gpointer data)
{
  Shared *shared = data;

  g_mutex_clear (&shared->lock);
  g_main_context_unref (shared->context);
  g_clear_error (&shared->error);
  g_free (shared->path);
  g_free (shared->partial_path);
}

static void
shared_unref (Shared *shared)
{
  g_atomic_rc_box_release_full (shared, shared_clear);
}

static void publish (RtopRecorder *self);

static gboolean
notify_idle_cb (gpointer data)
{
  Shared *shared = data;

  g_mutex_lock (&shared->lock);
  shared->notify_pending = FALSE;
  g_mutex_unlock (&shared->lock);
  if (shared->owner != NULL)
    publish (shared->owner);
  return G_SOURCE_REMOVE;
}

/* Writer thread: something changed; let the caller's context know (once per
 * main-loop iteration at most). */
static void
shared_changed (Shared *shared)
{
  g_autoptr(GSource) source = NULL;

  g_mutex_lock (&shared->lock);
  if (shared->notify_pending)
    {
      g_mutex_unlock (&shared->lock);
      return;
    }
  shared->notify_pending = TRUE;
  g_mutex_unlock (&shared->lock);

  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, notify_idle_cb, g_atomic_rc_box_acquire (shared),
                         (GDestroyNotify) shared_unref);
  g_source_set_static_name (source, "[rdmatop] recorder notify");
  g_source_attach (source, shared->context);
}

static void
shared_set_error (Shared *shared, GError *error)
{
  g_mutex_lock (&shared->lock);
  g_clear_error (&shared->error);
  shared->error = error;
  shared->error_serial++;
  g_mutex_unlock (&shared->lock);
  shared_changed (shared);
}

static void
shared_clear_error (Shared *shared)
{
  gboolean had;

  g_mutex_lock (&shared->lock);
  had = shared->error != NULL;
  g_clear_error (&shared->error);
  g_mutex_unlock (&shared->lock);
  if (had)
    shared_changed (shared);
}

/* Writer: output ---------------------------------------------------------- */

static char *
partial_display_name (Writer *w)
{
  return g_filename_display_name (rtop_record_file_get_partial_path (w->file));
}

static void
writer_account (Writer *w, gsize n)
{
  g_mutex_lock (&w->shared->lock);
  w->shared->bytes_written = rtop_record_file_get_committed (w->file);
  g_mutex_unlock (&w->shared->lock);
  if (n > 0)
    shared_changed (w->shared);
}

static gboolean
flush_spool (Writer *w, int *errsv)
{
  GBytes *chunk;
  gsize written = 0;

  while ((chunk = g_queue_peek_head (&w->spool)) != NULL)
    {
      if (!rtop_record_file_write (w->file, chunk, errsv))
        {
          writer_account (w, written);
          return FALSE;
        }
      written += g_bytes_get_size (chunk);
      w->spool_bytes -= g_bytes_get_size (chunk);
      g_bytes_unref (g_queue_pop_head (&w->spool));
    }
  writer_account (w, written);
  return TRUE;
}

/* A removed folder (or file) does not make writes fail: the data goes to an
 * inode nobody can reach.  Notice it so the user can save elsewhere. */
static void
check_file_still_there (Writer *w)
{
  if (w->file_gone || !rtop_record_file_is_gone (w->file))
    return;
  w->file_gone = TRUE;
  {
    g_autofree char *display = partial_display_name (w);
    shared_set_error (w->shared, g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
      _("The recording “%s” was deleted or its folder removed. Recording continues; save it somewhere else."),
      display));
  }
}

/* Hands one encoded chunk to the file, or to the spool while the file
 * cannot be written. */
static void
output_chunk (Writer *w, GBytes *chunk)
{
  int errsv = 0;
  gboolean was_failing = !g_queue_is_empty (&w->spool);

  g_queue_push_tail (&w->spool, chunk);
  w->spool_bytes += g_bytes_get_size (chunk);
  if (flush_spool (w, &errsv))
    {
      if (was_failing && !w->file_gone)
        shared_clear_error (w->shared);
    }
  else if (!was_failing)
    {
      g_autofree char *display = partial_display_name (w);
      shared_set_error (w->shared, g_error_new (G_IO_ERROR, g_io_error_from_errno (errsv),
        _("Cannot write the recording “%s”: %s. Recording continues in memory; save it somewhere else."),
        display, g_strerror (errsv)));
    }
  check_file_still_there (w);
}

static void
writer_add_snapshot (Writer *w, RtopSnapshot *snapshot)
{
  /* While the file cannot be written, memory is the limit: beyond it a
   * sample is dropped before it is encoded, which keeps the gzip stream and
   * the text whole. */
  if (w->spool_bytes >= RTOP_RECORDER_SPOOL_MAX)
    {
      g_mutex_lock (&w->shared->lock);
      w->shared->dropped++;
      g_mutex_unlock (&w->shared->lock);
      shared_changed (w->shared);
      rtop_record_sink_mark_gap (w->sink);
      return;
    }

  g_string_truncate (w->text, 0);
  rtop_record_sink_add (w->sink, snapshot, w->text);
  output_chunk (w, rtop_record_file_encode (w->file, w->text->str, w->text->len,
                                            RTOP_RECORD_FLUSH_SYNC));
}

/* Writer: ending ---------------------------------------------------------- */

static void
writer_end_stream (Writer *w)
{
  if (w->ended)
    return;
  w->ended = TRUE;
  g_string_truncate (w->text, 0);
  rtop_record_sink_end (w->sink, w->text);
  output_chunk (w, rtop_record_file_encode (w->file, w->text->str, w->text->len,
                                            RTOP_RECORD_FLUSH_FINISH));
}

static void
set_state (Writer *w, RtopRecorderState state)
{
  g_mutex_lock (&w->shared->lock);
  w->shared->state = state;
  g_mutex_unlock (&w->shared->lock);
  shared_changed (w->shared);
}

/* Makes the file final: everything written, synced, renamed into place. */
static gboolean
writer_complete (Writer *w, GError **error)
{
  int errsv = 0;

  writer_end_stream (w);
  if (!g_queue_is_empty (&w->spool) && !flush_spool (w, &errsv))
    {
      g_autofree char *display = partial_display_name (w);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot write the recording “%s”: %s. Save it somewhere else."),
                   display, g_strerror (errsv));
      return FALSE;
    }
  check_file_still_there (w);
  if (!rtop_record_file_complete (w->file, error))
    return FALSE;
  g_clear_pointer (&w->file, rtop_record_file_free);
  shared_clear_error (w->shared);
  set_state (w, RTOP_RECORDER_STATE_CLOSED);
  return TRUE;
}

/* Tasks are completed on their own context, never here: the task holds the
 * recorder, and the last reference must not be dropped on this thread
 * (dispose joins this thread). */
typedef struct {
  GTask *task;
  GError *error;
} Completion;

static gboolean
complete_idle_cb (gpointer data)
{
  Completion *c = data;

  if (c->error != NULL)
    g_task_return_error (c->task, g_steal_pointer (&c->error));
  else
    g_task_return_boolean (c->task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
completion_free (gpointer data)
{
  Completion *c = data;

  g_clear_error (&c->error);
  g_object_unref (c->task);
  g_free (c);
}

/* Takes task and error (may be NULL for success). */
static void
complete_task (GTask *task, GError *error)
{
  g_autoptr(GSource) source = g_idle_source_new ();
  Completion *c = g_new0 (Completion, 1);

  c->task = task;
  c->error = error;
  g_source_set_callback (source, complete_idle_cb, c, completion_free);
  g_source_set_static_name (source, "[rdmatop] recorder task");
  g_source_attach (source, g_task_get_context (task));
}

/* Takes task. */
static gboolean
writer_close (Writer *w, GTask *task)
{
  GError *error = NULL;

  if (writer_complete (w, &error))
    {
      complete_task (task, NULL);
      return TRUE;
    }
  shared_set_error (w->shared, g_error_copy (error));
  complete_task (task, error);
  return FALSE;
}

static gboolean
writer_save_as (Writer *w, const char *new_path, GError **error)
{
  if (!rtop_record_file_move (w->file, new_path, &w->spool, error))
    return FALSE;

  /* The new file holds the spool too. */
  g_queue_clear_full (&w->spool, (GDestroyNotify) g_bytes_unref);
  w->spool_bytes = 0;
  w->file_gone = FALSE;

  g_mutex_lock (&w->shared->lock);
  g_free (w->shared->path);
  g_free (w->shared->partial_path);
  w->shared->path = g_strdup (rtop_record_file_get_path (w->file));
  w->shared->partial_path = g_strdup (rtop_record_file_get_partial_path (w->file));
  g_mutex_unlock (&w->shared->lock);
  writer_account (w, 1);
  shared_clear_error (w->shared);
  return TRUE;
}

static gboolean
writer_handle_save_as (Writer *w, Item *item)
{
  GError *error = NULL;

  GTask *task = g_steal_pointer (&item->task);

  if (!writer_save_as (w, item->path, &error))
    {
      complete_task (task, error);
      return FALSE;
    }
  /* A close that failed earlier is finished at the new place. */
  if (w->ended)
    return writer_close (w, task);
  complete_task (task, NULL);
  return FALSE;
}

static void
writer_discard (Writer *w)
{
  if (w->file != NULL)
    {
      rtop_record_file_discard (w->file);
      g_clear_pointer (&w->file, rtop_record_file_free);
    }
  set_state (w, RTOP_RECORDER_STATE_DISCARDED);
}

static void
item_free (Item *item)
{
  g_clear_pointer (&item->snapshot, rtop_snapshot_unref);
  g_free (item->path);
  g_clear_object (&item->task);
  g_free (item);
}

static void
writer_free (Writer *w)
{
  g_clear_pointer (&w->file, rtop_record_file_free);
  g_queue_clear_full (&w->spool, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&w->sink, rtop_record_sink_free);
  g_string_free (w->text, TRUE);
  g_async_queue_unref (w->queue);
  shared_unref (w->shared);
  g_free (w);
}

/* Returns TRUE when the thread is done (file complete or discarded). */
static gboolean
writer_handle (Writer *w, Item *item)
{
  switch (item->kind)
    {
    case ITEM_SNAPSHOT:
      writer_add_snapshot (w, item->snapshot);
      return FALSE;
    case ITEM_CLOSE:
      return writer_close (w, g_steal_pointer (&item->task));
    case ITEM_SAVE_AS:
      return writer_handle_save_as (w, item);
    case ITEM_DISCARD:
      writer_discard (w);
      return TRUE;
    default:
      g_assert_not_reached ();
    }
}

/* After the file is complete or discarded: answer whatever was queued
 * behind (a second close succeeds, a save_as is too late). */
static void
writer_drain (Writer *w)
{
  Item *item;

  g_mutex_lock (&w->shared->lock);
  w->shared->writer_exited = TRUE;
  g_mutex_unlock (&w->shared->lock);
  while ((item = g_async_queue_try_pop (w->queue)) != NULL)
    {
      if (item->task != NULL)
        complete_task (g_steal_pointer (&item->task),
                       item->kind == ITEM_CLOSE && w->file == NULL && w->ended ? NULL
                       : g_error_new_literal (RTOP_ERROR, RTOP_ERROR_FAILED,
                                              _("The recording has already ended.")));
      item_free (item);
    }
}

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;
  gboolean done = FALSE;

  while (!done)
    {
      Item *item = g_async_queue_pop (w->queue);

      done = writer_handle (w, item);
      item_free (item);
    }
  writer_drain (w);
  writer_free (w);
  return NULL;
}

/* Takes file. */
static Writer *
writer_new (Shared *shared, GAsyncQueue *queue, RtopRecordFormat format, RtopRecordFile *file)
{
  Writer *w = g_new0 (Writer, 1);

  w->shared = g_atomic_rc_box_acquire (shared);
  w->queue = g_async_queue_ref (queue);
  w->file = file;
  w->sink = rtop_record_format_new_sink (format);
  w->text = g_string_sized_new (64 * 1024);
  g_queue_init (&w->spool);
  return w;
}

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

/* Caller's thread: compare the shared block with what was notified last. */
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
        item_free (item);
      g_clear_pointer (&self->queue, g_async_queue_unref);
    }
  if (self->shared != NULL)
    {
      self->shared->owner = NULL;
      g_clear_pointer (&self->shared, shared_unref);
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
  self->shared = shared_new (g_main_context_ref_thread_default ());
  g_main_context_unref (self->shared->context);   /* shared_new took its own */
  self->shared->owner = self;
  self->shared->path = g_strdup (path);
  self->shared->partial_path = g_strdup (rtop_record_file_get_partial_path (file));
  self->notified_path = g_strdup (path);
  self->queue = g_async_queue_new ();
  w = writer_new (self->shared, self->queue, format, file);
  self->thread = g_thread_new ("rdmatop-recorder", writer_thread, w);
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
