/* rtop-record-file.c: a recording's file, partial until completed
 * (contract in the header). */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rtop-record-file.h"
#include "rtop-format-info.h"

#define COPY_BUFFER_SIZE (64 * 1024)

struct _RtopRecordFile {
  int fd;
  char *path;
  char *partial_path;
  guint64 committed;           /* bytes through the last whole chunk */
  gboolean gone;               /* the partial file lost its last link */
  gboolean gz;
  z_stream zs;
};

static GError *io_error (int errsv, const char *format, ...) G_GNUC_PRINTF (2, 3);

static GError *
io_error (int errsv, const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  return g_error_new_literal (G_IO_ERROR, g_io_error_from_errno (errsv), message);
}

char *
rtop_record_file_partial_path (const char *path)
{
  return g_strconcat (path, RTOP_RECORD_PARTIAL_SUFFIX, NULL);
}

/* Creates partial next to path, failing when either exists. */
static int
create_partial (const char *path, const char *partial, GError **error)
{
  int fd;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *display = g_filename_display_name (path);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("“%s” already exists and rdmatop never overwrites a file: choose another name."),
                   display);
      return -1;
    }
  fd = open (partial, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int errsv = errno;
      g_autofree char *dir = g_path_get_dirname (partial);
      g_autofree char *display = g_filename_display_name (errsv == EEXIST ? partial : dir);

      if (errsv == EEXIST)
        g_propagate_error (error, io_error (errsv, _("Cannot start a recording at “%s”: %s (a recording with that name is in progress or was cut short; recover or remove it)."),
        display, g_strerror (errsv)));
      else
        g_propagate_error (error, io_error (errsv, _("Cannot create a recording in the folder “%s”: %s. Choose another folder."),
        display, g_strerror (errsv)));
    }
  return fd;
}

RtopRecordFile *
rtop_record_file_create (const char *path, const char *partial, gboolean gzip, GError **error)
{
  g_autofree char *own_partial = partial == NULL ? rtop_record_file_partial_path (path) : NULL;
  RtopRecordFile *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = create_partial (path, partial != NULL ? partial : own_partial, error);
  if (fd < 0)
    return NULL;
  self = g_new0 (RtopRecordFile, 1);
  self->fd = fd;
  self->path = g_strdup (path);
  self->partial_path = partial != NULL ? g_strdup (partial) : g_steal_pointer (&own_partial);
  self->gz = gzip;
  /* windowBits 15 + 16: a gzip wrapper, so the file is a .gz that Perfetto
   * and gunzip open. */
  if (gzip && deflateInit2 (&self->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                            Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("zlib deflateInit2 failed: out of memory");
  return self;
}

void
rtop_record_file_free (RtopRecordFile *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  if (self->gz)
    deflateEnd (&self->zs);
  g_free (self->path);
  g_free (self->partial_path);
  g_free (self);
}

const char *
rtop_record_file_get_path (RtopRecordFile *self)
{
  return self->path;
}

const char *
rtop_record_file_get_partial_path (RtopRecordFile *self)
{
  return self->partial_path;
}

guint64
rtop_record_file_get_committed (RtopRecordFile *self)
{
  return self->committed;
}

/* Writing ----------------------------------------------------------------- */

static const int zlib_flush[] = {
  [RTOP_RECORD_FLUSH_NONE] = Z_NO_FLUSH,
  [RTOP_RECORD_FLUSH_SYNC] = Z_SYNC_FLUSH,
  [RTOP_RECORD_FLUSH_FINISH] = Z_FINISH,
};

GBytes *
rtop_record_file_encode (RtopRecordFile *self, const char *text, gsize len,
                         RtopRecordFlush flush)
{
  int zflush = zlib_flush[flush];
  GByteArray *out;
  int ret;

  if (!self->gz)
    return g_bytes_new (text, len);

  out = g_byte_array_sized_new (len / 4 + 64);
  self->zs.next_in = (Bytef *) text;
  self->zs.avail_in = (uInt) len;
  do
    {
      guint8 buf[16384];

      self->zs.next_out = buf;
      self->zs.avail_out = sizeof buf;
      ret = deflate (&self->zs, zflush);
      g_byte_array_append (out, buf, sizeof buf - self->zs.avail_out);
    }
  while (self->zs.avail_out == 0 || (zflush == Z_FINISH && ret == Z_OK));
  return g_byte_array_free_to_bytes (out);
}

static gboolean
pwrite_all (int fd, const guint8 *data, gsize len, guint64 offset, int *errsv)
{
  while (len > 0)
    {
      ssize_t n = pwrite (fd, data, len, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          *errsv = n < 0 ? errno : ENOSPC;
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
      offset += (guint64) n;
    }
  return TRUE;
}

gboolean
rtop_record_file_write (RtopRecordFile *self, GBytes *chunk, int *errsv)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (chunk, &len);

  if (!pwrite_all (self->fd, data, len, self->committed, errsv))
    {
      if (ftruncate (self->fd, (off_t) self->committed) != 0)
        { /* best effort: the reader ignores a cut-off last line anyway */ }
      return FALSE;
    }
  self->committed += len;
  return TRUE;
}

gboolean
rtop_record_file_append (RtopRecordFile *self, const char *text, gsize len,
                         RtopRecordFlush flush, GError **error)
{
  g_autoptr(GBytes) chunk = rtop_record_file_encode (self, text, len, flush);
  int errsv = 0;

  if (rtop_record_file_write (self, chunk, &errsv))
    return TRUE;
  {
    g_autofree char *display = g_filename_display_name (self->partial_path);
    g_propagate_error (error, io_error (errsv, _("Cannot write “%s”: %s."),
                                        display, g_strerror (errsv)));
  }
  return FALSE;
}

gboolean
rtop_record_file_is_gone (RtopRecordFile *self)
{
  struct stat st;

  if (!self->gone && self->fd >= 0 && fstat (self->fd, &st) == 0 && st.st_nlink == 0)
    self->gone = TRUE;
  return self->gone;
}

/* Moving ------------------------------------------------------------------ */

/* Copies what is in the file, then the pending chunks, to fd. */
static gboolean
copy_to (RtopRecordFile *self, int fd, const char *partial, GQueue *pending, GError **error)
{
  g_autofree guint8 *buf = g_malloc (COPY_BUFFER_SIZE);
  g_autofree char *display = NULL;
  guint64 offset = 0;
  int errsv = 0;

  while (offset < self->committed)
    {
      gsize want = MIN (COPY_BUFFER_SIZE, self->committed - offset);
      ssize_t n = pread (self->fd, buf, want, (off_t) offset);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          errsv = n < 0 ? errno : EIO;
          display = g_filename_display_name (self->partial_path);
          g_propagate_error (error, io_error (errsv,
            _("Cannot read back the recording “%s”: %s."), display, g_strerror (errsv)));
          return FALSE;
        }
      if (!pwrite_all (fd, buf, (gsize) n, offset, &errsv))
        goto write_failed;
      offset += (guint64) n;
    }
  for (GList *l = pending != NULL ? pending->head : NULL; l != NULL; l = l->next)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (l->data, &len);

      if (!pwrite_all (fd, data, len, offset, &errsv))
        goto write_failed;
      offset += len;
    }
  return TRUE;

write_failed:
  display = g_filename_display_name (partial);
  g_propagate_error (error, io_error (errsv,
    _("Cannot write the recording “%s”: %s. Choose another place."),
    display, g_strerror (errsv)));
  return FALSE;
}

gboolean
rtop_record_file_move (RtopRecordFile *self, const char *new_path, GQueue *pending,
                       GError **error)
{
  g_autofree char *partial = rtop_record_file_partial_path (new_path);
  int fd = create_partial (new_path, partial, error);

  if (fd < 0)
    return FALSE;
  if (!copy_to (self, fd, partial, pending, error))
    {
      close (fd);
      g_unlink (partial);
      return FALSE;
    }

  /* Switch over: the copy holds everything, the old partial file goes. */
  for (GList *l = pending != NULL ? pending->head : NULL; l != NULL; l = l->next)
    self->committed += g_bytes_get_size (l->data);
  close (self->fd);
  if (!self->gone)
    g_unlink (self->partial_path);
  self->fd = fd;
  self->gone = FALSE;
  g_free (self->path);
  g_free (self->partial_path);
  self->path = g_strdup (new_path);
  self->partial_path = g_steal_pointer (&partial);
  return TRUE;
}

/* Ending ------------------------------------------------------------------ */

static int
rename_noreplace (const char *from, const char *to)
{
  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL && errno != ENOSYS)
    return -1;
  /* A file system without RENAME_NOREPLACE: link() refuses an existing name. */
  if (link (from, to) != 0)
    return -1;
  g_unlink (from);
  return 0;
}

gboolean
rtop_record_file_complete (RtopRecordFile *self, GError **error)
{
  g_autofree char *display_final = g_filename_display_name (self->path);
  int errsv;

  if (fdatasync (self->fd) != 0 && errno != EINVAL)
    {
      g_autofree char *display = g_filename_display_name (self->partial_path);

      errsv = errno;
      g_propagate_error (error, io_error (errsv,
        _("Cannot write the recording “%s”: %s. Save it somewhere else."),
        display, g_strerror (errsv)));
      return FALSE;
    }
  if (rtop_record_file_is_gone (self))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Cannot save the recording as “%s”: its folder was removed. Save it somewhere else."),
                   display_final);
      return FALSE;
    }
  if (rename_noreplace (self->partial_path, self->path) != 0)
    {
      errsv = errno;
      g_propagate_error (error, io_error (errsv,
        _("Cannot save the recording as “%s”: %s. Save it somewhere else."),
        display_final, g_strerror (errsv)));
      return FALSE;
    }
  close (self->fd);
  self->fd = -1;
  return TRUE;
}

void
rtop_record_file_discard (RtopRecordFile *self)
{
  if (self->fd < 0)
    return;
  close (self->fd);
  self->fd = -1;
  if (!self->gone)
    g_unlink (self->partial_path);
}
