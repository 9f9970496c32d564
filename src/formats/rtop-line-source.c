/* rtop-line-source.c: bounded lines from a recording, gzip or plain
 * (contract in the header). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtop-error.h"
#include "rtop-line-source.h"

#define READ_CHUNK (64 * 1024)

void
rtop_line_source_clear (RtopLineSource *src)
{
  if (src->fd >= 0)
    close (src->fd);
  src->fd = -1;
  g_clear_pointer (&src->bytes, g_bytes_unref);
  if (src->zs_ready)
    inflateEnd (&src->zs);
  src->zs_ready = FALSE;
  g_clear_pointer (&src->in, g_free);
  g_clear_pointer (&src->out, g_free);
  if (src->line != NULL)
    g_string_free (src->line, TRUE);
  src->line = NULL;
}

static gssize
read_raw (RtopLineSource *src, guint8 *buf, gsize cap, GError **error)
{
  if (src->fd < 0)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (src->bytes, &len);
      gsize n = MIN (cap, len - src->mem_pos);

      if (n == 0)
        return 0;   /* (empty GBytes have no data pointer) */
      memcpy (buf, data + src->mem_pos, n);
      src->mem_pos += n;
      return (gssize) n;
    }
  for (;;)
    {
      ssize_t n = read (src->fd, buf, cap);

      if (n >= 0)
        return n;
      if (errno == EINTR)
        continue;
      {
        int errsv = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                     _("Cannot read the recording: %s."), g_strerror (errsv));
      }
      return -1;
    }
}

static gboolean
source_start (RtopLineSource *src, GError **error)
{
  gssize n;

  src->in = g_malloc (READ_CHUNK);
  src->out = g_malloc (READ_CHUNK);
  src->line = g_string_new (NULL);
  n = read_raw (src, src->in, READ_CHUNK, error);
  if (n < 0)
    return FALSE;
  src->in_len = (gsize) n;
  src->raw_eof = n == 0;
  src->gz = n >= 2 && src->in[0] == 0x1f && src->in[1] == 0x8b;
  if (src->gz)
    {
      /* 15 + 32: zlib or gzip header, detected. */
      if (inflateInit2 (&src->zs, 15 + 32) != Z_OK)
        {
          g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_FAILED, _("Out of memory."));
          return FALSE;
        }
      src->zs_ready = TRUE;
    }
  return TRUE;
}

gboolean
rtop_line_source_rewind (RtopLineSource *src, GError **error)
{
  if (src->fd >= 0 && lseek (src->fd, 0, SEEK_SET) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot read the recording: %s."), g_strerror (errsv));
      return FALSE;
    }
  src->mem_pos = 0;
  if (src->zs_ready)
    inflateEnd (&src->zs);
  src->zs_ready = FALSE;
  g_clear_pointer (&src->in, g_free);
  g_clear_pointer (&src->out, g_free);
  g_string_free (src->line, TRUE);
  src->line = NULL;
  src->in_len = src->in_pos = src->out_len = src->out_pos = 0;
  src->raw_eof = src->eof = src->damaged = FALSE;
  src->total = src->line_no = 0;
  return source_start (src, error);
}

static gboolean
fill_input (RtopLineSource *src, GError **error)
{
  gssize n;

  if (src->in_pos < src->in_len || src->raw_eof)
    return TRUE;
  n = read_raw (src, src->in, READ_CHUNK, error);
  if (n < 0)
    return FALSE;
  src->in_len = (gsize) n;
  src->in_pos = 0;
  src->raw_eof = n == 0;
  return TRUE;
}

/* Inflates the next piece.  A stream cut short or corrupt ends the text
 * (what came before stays usable) and marks the source damaged. */
static gboolean
fill_gz (RtopLineSource *src, GError **error)
{
  int ret;

  if (!fill_input (src, error))
    return FALSE;
  if (src->in_pos == src->in_len && src->raw_eof)
    {
      src->eof = TRUE;
      return TRUE;
    }
  src->zs.next_in = src->in + src->in_pos;
  src->zs.avail_in = (uInt) (src->in_len - src->in_pos);
  src->zs.next_out = src->out;
  src->zs.avail_out = READ_CHUNK;
  ret = inflate (&src->zs, Z_NO_FLUSH);
  src->in_pos = src->in_len - src->zs.avail_in;
  src->out_len = READ_CHUNK - src->zs.avail_out;
  if (ret == Z_STREAM_END)
    {
      /* Concatenated gzip members are one stream. */
      if (inflateReset (&src->zs) != Z_OK)
        src->eof = TRUE;
    }
  else if (ret != Z_OK && !(ret == Z_BUF_ERROR && src->out_len > 0))
    {
      src->damaged = TRUE;
      src->eof = src->out_len == 0;
      src->raw_eof = TRUE;
      src->in_pos = src->in_len;
    }
  return TRUE;
}

static gboolean
fill_output (RtopLineSource *src, GError **error)
{
  src->out_pos = 0;
  src->out_len = 0;
  while (src->out_len == 0 && !src->eof)
    {
      if (src->gz)
        {
          if (!fill_gz (src, error))
            return FALSE;
          continue;
        }
      if (!fill_input (src, error))
        return FALSE;
      if (src->in_pos == src->in_len)
        {
          src->eof = TRUE;
          break;
        }
      memcpy (src->out, src->in + src->in_pos, src->in_len - src->in_pos);
      src->out_len = src->in_len - src->in_pos;
      src->in_pos = src->in_len;
    }
  src->total += src->out_len;
  if (src->total > RTOP_LINE_SOURCE_MAX_TEXT_BYTES)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("The recording is larger than rdmatop reads (%s)."), "8 GiB");
      return FALSE;
    }
  return TRUE;
}

/* The next line, without its newline (and without a trailing \r).
 * *complete is FALSE for a last line that has no newline (cut off).
 * Returns FALSE at the end of the text or on error (error set). */
gboolean
rtop_line_source_next_line (RtopLineSource *src, const char **line, gsize *len,
                            gboolean *complete, GError **error)
{
  g_string_truncate (src->line, 0);
  for (;;)
    {
      const guint8 *start, *nl;
      gsize avail;

      if (src->out_pos == src->out_len)
        {
          if (src->eof)
            break;
          if (!fill_output (src, error))
            return FALSE;
          continue;
        }
      start = src->out + src->out_pos;
      avail = src->out_len - src->out_pos;
      nl = memchr (start, '\n', avail);
      g_string_append_len (src->line, (const char *) start,
                           nl != NULL ? nl - start : (gssize) avail);
      src->out_pos += nl != NULL ? (gsize) (nl - start) + 1 : avail;
      if (src->line->len > RTOP_LINE_SOURCE_MAX_LINE_BYTES)
        {
          char line_text[32];

          /* A format macro inside _() cannot be translated: pass a string. */
          g_snprintf (line_text, sizeof line_text, "%" G_GUINT64_FORMAT, src->line_no + 1);
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                       _("Line %s of the recording is too long: this is not a recording made by rdmatop."),
                       line_text);
          return FALSE;
        }
      if (nl != NULL)
        {
          *complete = TRUE;
          goto found;
        }
    }
  if (src->line->len == 0)
    return FALSE;
  *complete = FALSE;

found:
  src->line_no++;
  if (src->line->len > 0 && src->line->str[src->line->len - 1] == '\r')
    g_string_truncate (src->line, src->line->len - 1);
  *line = src->line->str;
  *len = src->line->len;
  return TRUE;
}

gboolean
rtop_line_source_open_file (RtopLineSource *src, const char *path, GError **error)
{
  g_autofree char *display = g_filename_display_name (path);
  struct stat st;
  int errsv;

  src->fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (src->fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot open “%s”: %s."), display, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (src->fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("“%s” is not a regular file, so it is not a recording."), display);
      return FALSE;
    }
  if ((guint64) st.st_size > RTOP_LINE_SOURCE_MAX_FILE_BYTES)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("“%s” is larger than any recording rdmatop reads (%s)."), display, "2 GiB");
      return FALSE;
    }
  return source_start (src, error);
}

void
rtop_line_source_init (RtopLineSource *src)
{
  memset (src, 0, sizeof *src);
  src->fd = -1;
}

gboolean
rtop_line_source_open_bytes (RtopLineSource *src, GBytes *bytes, GError **error)
{
  src->bytes = g_bytes_ref (bytes);
  if (g_bytes_get_size (bytes) > RTOP_LINE_SOURCE_MAX_FILE_BYTES)
    {
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                           _("The data is larger than any recording rdmatop reads."));
      return FALSE;
    }
  return source_start (src, error);
}
