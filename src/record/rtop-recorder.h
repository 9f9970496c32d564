/* rtop-recorder.h: records snapshots to a file without blocking the caller.
 *
 * The caller (the GTK app, the CLI) hands each snapshot it receives from the
 * sampler to rtop_recorder_add(), which only takes a reference and queues
 * it; a writer thread turns it into trace/CSV text, compresses it for
 * .json.gz, and writes it.  Each interval is written whole and flushed (for
 * gzip with Z_SYNC_FLUSH), so a crash leaves a file loadable up to the last
 * complete interval (see rtop-recording.h for recovery).
 *
 * Files: the recording is written to "<path>.partial", created with O_EXCL,
 * and renamed to <path> by rtop_recorder_close() without replacing anything
 * (renameat2 RENAME_NOREPLACE, or link+unlink).  An existing <path> or
 * <path>.partial is never overwritten: rtop_recorder_new() fails instead.
 *
 * Errors: when the file cannot be written (disk full, the folder removed or
 * made unwritable, the final rename refused) the recorder sets an error that
 * names the path and the reason, emits "error", and keeps recording: samples
 * go to a bounded spool in memory (RTOP_RECORDER_SPOOL_MAX bytes; when it is
 * full new samples are counted in "dropped" instead).  Writing is retried
 * every interval, so a disk that gets space again clears the error.  At any
 * time rtop_recorder_save_as() moves everything captured so far to another
 * file and the recording continues there.
 *
 * Threads: create, use and close a recorder on one thread (the app's main
 * thread).  Property notifications and "error" are emitted on the
 * thread-default GMainContext of the thread that called rtop_recorder_new().
 * Nothing here blocks on file I/O except the synchronous close and save_as
 * (for the CLI); the app closes with the _async variant.
 *
 * Properties (read-only, G_PARAM_EXPLICIT_NOTIFY):
 *   "path"          char*    final file name (changes after save_as)
 *   "format"        int      RtopRecordFormat
 *   "samples"       guint64  snapshots accepted
 *   "dropped"       guint64  snapshots dropped (queue or spool full)
 *   "bytes-written" guint64  bytes in the file so far (compressed for .json.gz)
 *   "elapsed-us"    gint64   recorded time: last - first snapshot's monotonic_us
 *   "state"         int      RtopRecorderState
 * Signal:
 *   void error (RtopRecorder *self, const GError *error, gpointer user_data)
 *     the file could not be written; samples are kept (see above). */
#pragma once

#include <gio/gio.h>
#include "rtop-snapshot.h"
#include "rtop-recording.h"

G_BEGIN_DECLS

/* Snapshots waiting for the writer thread beyond this are dropped (counted). */
#define RTOP_RECORDER_QUEUE_MAX 1024
/* Encoded bytes kept in memory while the file cannot be written. */
#define RTOP_RECORDER_SPOOL_MAX (64u * 1024u * 1024u)

typedef enum {
  RTOP_RECORDER_STATE_RECORDING,  /* accepting samples (check rtop_recorder_get_error()) */
  RTOP_RECORDER_STATE_CLOSED,     /* the file is complete at "path" */
  RTOP_RECORDER_STATE_DISCARDED,  /* stopped, the partial file removed */
} RtopRecorderState;

#define RTOP_TYPE_RECORDER (rtop_recorder_get_type ())
G_DECLARE_FINAL_TYPE (RtopRecorder, rtop_recorder, RTOP, RECORDER, GObject)

/* Creates <path>.partial (O_EXCL); the file header is written with the
 * first snapshot (it holds that snapshot's clocks).  Fails with
 * G_IO_ERROR_EXISTS when <path> or <path>.partial exists, and with an I/O
 * error naming the folder when it cannot be created there. */
RtopRecorder *rtop_recorder_new (const char *path, RtopRecordFormat format,
                                 GError **error);

/* Queues the snapshot (takes a reference); never blocks.  Ignored after
 * close/discard.  The first snapshot added is time zero of the trace. */
void rtop_recorder_add (RtopRecorder *self, RtopSnapshot *snapshot);

/* Ends the recording: writes every queued snapshot, closes the JSON (ends
 * open process slices), flushes, and renames <path>.partial to <path>.
 * On failure the error names the path and the reason, the state stays
 * RECORDING with the data kept, and the caller may rtop_recorder_save_as()
 * elsewhere (which then completes the file there) or discard. */
gboolean rtop_recorder_close (RtopRecorder *self, GError **error);
void rtop_recorder_close_async (RtopRecorder *self,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data);
gboolean rtop_recorder_close_finish (RtopRecorder *self, GAsyncResult *result,
                                     GError **error);

/* Writes everything captured so far to new_path (same format; created with
 * O_EXCL as <new_path>.partial), removes the old partial file, clears the
 * error and continues recording there.  If a close failed before, the file
 * at new_path is completed and the state becomes CLOSED. */
gboolean rtop_recorder_save_as (RtopRecorder *self, const char *new_path,
                                GError **error);
void rtop_recorder_save_as_async (RtopRecorder *self, const char *new_path,
                                  GCancellable *cancellable,
                                  GAsyncReadyCallback callback,
                                  gpointer user_data);
gboolean rtop_recorder_save_as_finish (RtopRecorder *self, GAsyncResult *result,
                                       GError **error);

/* Stops and removes the partial file.  Also what dispose does with a
 * recorder that was neither closed nor discarded. */
void rtop_recorder_discard (RtopRecorder *self);

const char *rtop_recorder_get_path (RtopRecorder *self);
RtopRecorderState rtop_recorder_get_state (RtopRecorder *self);
guint64 rtop_recorder_get_samples (RtopRecorder *self);
guint64 rtop_recorder_get_bytes_written (RtopRecorder *self);
gint64 rtop_recorder_get_elapsed_us (RtopRecorder *self);

G_END_DECLS
