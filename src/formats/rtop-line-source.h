/* rtop-line-source.h: a recording read as a stream of bounded lines, from a
 * file or from memory, plain or gzip (detected from the first bytes and
 * inflated on the fly).
 *
 * Limits: a file of at most RTOP_LINE_SOURCE_MAX_FILE_BYTES, at most
 * RTOP_LINE_SOURCE_MAX_TEXT_BYTES of text once inflated, lines of at most
 * RTOP_LINE_SOURCE_MAX_LINE_BYTES; beyond them reading fails with
 * RTOP_ERROR_INVALID_RECORDING.  A gzip stream cut short or corrupt ends
 * the text where it breaks and marks the source damaged. */
#pragma once

#include <gio/gio.h>
#include <zlib.h>

G_BEGIN_DECLS

#define RTOP_LINE_SOURCE_MAX_FILE_BYTES (G_GUINT64_CONSTANT (2) << 30)
#define RTOP_LINE_SOURCE_MAX_TEXT_BYTES (G_GUINT64_CONSTANT (8) << 30)
#define RTOP_LINE_SOURCE_MAX_LINE_BYTES (64 * 1024)

/* On the stack of its user: rtop_line_source_init(), open_file() or
 * set_bytes(), then next_line() until it returns FALSE, then clear(). */
typedef struct {
  int fd;                      /* -1 for memory */
  GBytes *bytes;
  gsize mem_pos;
  gboolean gz;
  gboolean zs_ready;
  z_stream zs;
  guint8 *in;
  gsize in_len, in_pos;
  guint8 *out;
  gsize out_len, out_pos;
  gboolean raw_eof;            /* no more input bytes */
  gboolean eof;                /* no more text */
  gboolean damaged;            /* the gzip stream was cut off or corrupt */
  guint64 total;
  guint64 line_no;
  GString *line;
} RtopLineSource;

void rtop_line_source_init (RtopLineSource *src);
void rtop_line_source_clear (RtopLineSource *src);
/* A regular file of at most the size limit; errors name the file. */
gboolean rtop_line_source_open_file (RtopLineSource *src, const char *path, GError **error);
gboolean rtop_line_source_open_bytes (RtopLineSource *src, GBytes *bytes, GError **error);
/* Back to the first line. */
gboolean rtop_line_source_rewind (RtopLineSource *src, GError **error);
/* The next line, without its newline (and without a trailing \r).
 * *complete is FALSE for a last line that has no newline (cut off).
 * Returns FALSE at the end of the text or on error (error set). */
gboolean rtop_line_source_next_line (RtopLineSource *src, const char **line, gsize *len,
                                     gboolean *complete, GError **error);

G_END_DECLS
