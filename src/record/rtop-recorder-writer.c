/* rtop-recorder-writer.c: the recorder's writer thread, which owns the file
 * and the format's sink and writes what the caller's thread queues, and the
 * block the two threads share (rtop-recorder.c has the whole design). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-error.h"
#include "rtop-record-sink.h"
#include "rtop-recorder-writer-private.h"

/* The writer thread's own state. */
struct _Writer {
  Shared *shared;
  GAsyncQueue *queue;
  RtopRecordFile *file;        /* NULL once complete or discarded */
  RtopRecordSink *sink;
  GString *text;
  GQueue spool;                /* GBytes*: encoded chunks not yet in the file */
  gsize spool_bytes;
  gboolean ended;              /* the trailer has been encoded */
  gboolean file_gone;          /* our partial file lost its last link */
};

/* Shared block ------------------------------------------------------------ */

Shared *
rtop_recorder_shared_new (GMainContext *context)
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

void
rtop_recorder_shared_unref (Shared *shared)
{
  g_atomic_rc_box_release_full (shared, shared_clear);
}

static gboolean
notify_idle_cb (gpointer data)
{
  Shared *shared = data;

  g_mutex_lock (&shared->lock);
  shared->notify_pending = FALSE;
  g_mutex_unlock (&shared->lock);
  if (shared->owner != NULL)
    shared->changed (shared->owner);
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
                         (GDestroyNotify) rtop_recorder_shared_unref);
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

void
rtop_recorder_item_free (Item *item)
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
  rtop_recorder_shared_unref (w->shared);
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
      rtop_recorder_item_free (item);
    }
}

gpointer
rtop_recorder_writer_thread (gpointer data)
{
  Writer *w = data;
  gboolean done = FALSE;

  while (!done)
    {
      Item *item = g_async_queue_pop (w->queue);

      done = writer_handle (w, item);
      rtop_recorder_item_free (item);
    }
  writer_drain (w);
  writer_free (w);
  return NULL;
}

/* Takes file. */
Writer *
rtop_recorder_writer_new (Shared *shared, GAsyncQueue *queue, RtopRecordFormat format,
                          RtopRecordFile *file)
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
