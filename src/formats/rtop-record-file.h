/* rtop-record-file.h: the file a recording is written to, for the recorder
 * and for recovery alike.
 *
 * - Created as "<path>.partial" (or a partial name the caller gives) with
 *   O_EXCL, next to a <path> that must not exist: nothing is overwritten.
 * - Text goes in whole chunks, plain or gzip (a gzip wrapper, so Perfetto
 *   and gunzip open it); a chunk that ends an interval is sync-flushed
 *   (Z_SYNC_FLUSH), so a file cut short is readable up to its last whole
 *   chunk.  A chunk that cannot be written whole is cut off again.
 * - Completed by syncing and renaming it to <path> without replacing
 *   anything (renameat2 RENAME_NOREPLACE, or link + unlink).
 *
 * Errors name the file and say what the user can do.  Blocking I/O: the
 * recorder uses it on its writer thread.  Not thread-safe. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  RTOP_RECORD_FLUSH_NONE,      /* more of the same interval follows */
  RTOP_RECORD_FLUSH_SYNC,      /* an interval ends: readable up to here */
  RTOP_RECORD_FLUSH_FINISH,    /* the end of the file */
} RtopRecordFlush;

typedef struct _RtopRecordFile RtopRecordFile;

/* "<path>.partial" (free it). */
char *rtop_record_file_partial_path (const char *path);

/* Creates partial (NULL: "<path>.partial").  Fails with G_IO_ERROR_EXISTS
 * when path or partial exists, and with an I/O error naming the folder when
 * it cannot be created there. */
RtopRecordFile *rtop_record_file_create (const char *path, const char *partial,
                                         gboolean gzip, GError **error);
/* Closes the file; a partial file that was not completed stays. */
void rtop_record_file_free (RtopRecordFile *self);

const char *rtop_record_file_get_path (RtopRecordFile *self);
const char *rtop_record_file_get_partial_path (RtopRecordFile *self);
/* Bytes in the file: every chunk written so far. */
guint64 rtop_record_file_get_committed (RtopRecordFile *self);

/* Text as the bytes of one chunk (compressed for gzip; the compressor's
 * state moves on, so every chunk encoded must be written, in order). */
GBytes *rtop_record_file_encode (RtopRecordFile *self, const char *text, gsize len,
                                 RtopRecordFlush flush);
/* Writes a chunk after the last one; on failure the file is cut back to
 * it and *errsv holds the errno. */
gboolean rtop_record_file_write (RtopRecordFile *self, GBytes *chunk, int *errsv);
/* encode() then write(), with an error naming the file. */
gboolean rtop_record_file_append (RtopRecordFile *self, const char *text, gsize len,
                                  RtopRecordFlush flush, GError **error);
/* TRUE once the partial file has lost its last name (deleted, or its folder
 * removed): writes still succeed, into a file nobody can reach. */
gboolean rtop_record_file_is_gone (RtopRecordFile *self);

/* Goes on at new_path: a new partial file (as create() makes it) gets what
 * was written so far and then the chunks of pending (GBytes*, in order),
 * and the old partial file is removed.  On failure nothing changes. */
gboolean rtop_record_file_move (RtopRecordFile *self, const char *new_path, GQueue *pending,
                                GError **error);

/* Syncs the file, renames it to its path (never replacing a file) and
 * closes it.  On failure the partial file stays and may be moved. */
gboolean rtop_record_file_complete (RtopRecordFile *self, GError **error);
/* Closes and removes the partial file. */
void rtop_record_file_discard (RtopRecordFile *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopRecordFile, rtop_record_file_free)

G_END_DECLS
