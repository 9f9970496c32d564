/* recorded-replies.h: reads the replies nl-floor --record wrote in the
 * guest (records of cmd, dev, port, len as u32, then the datagram), so
 * the seed generators can start the fuzzers from a real kernel's bytes. */
#pragma once

#include <glib.h>

/* Calls func for each recorded datagram; FALSE with a message on stderr
 * when the file does not read as a recording. */
typedef void (*RecordedFunc) (guint32 cmd, const guint8 *datagram, gsize len, guint n,
                              gpointer user_data);

static inline gboolean
recorded_replies_foreach (const char *path, RecordedFunc func, gpointer user_data)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize size, off = 0;
  guint n = 0;

  if (!g_file_get_contents (path, &data, &size, &error))
    {
      g_printerr ("%s\n", error->message);
      return FALSE;
    }
  while (off + 16 <= size)
    {
      guint32 hdr[4];

      memcpy (hdr, data + off, sizeof hdr);
      off += sizeof hdr;
      if (hdr[3] > size - off)
        {
          g_printerr ("%s: cut or garbled record\n", path);
          return FALSE;
        }
      func (hdr[0], (const guint8 *) data + off, hdr[3], n++, user_data);
      off += hdr[3];
    }
  return n > 0;
}
