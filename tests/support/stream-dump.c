/* stream-dump.c: the reading end of `rdmatop-cli serve --stdio` for
 * scripts and the vm scenario: decodes the stream on stdin and writes each
 * snapshot as one JSON line (rdmatop-cli's JSON) to FILE, flushed at once.
 * Exits 0 when the stream ends cleanly, 1 with the decoder's sentence on
 * stderr otherwise.  Usage: stream-dump FILE
 * `stream-dump --hello` prints the hello line a reader of this version
 * sends first, so scripts never name the stream's version themselves. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "rtop-json.h"
#include "rtop-stream.h"

int
main (int argc, char **argv)
{
  g_autoptr(RtopStreamDecoder) dec = rtop_stream_decoder_new ();
  g_autoptr(GError) error = NULL;
  FILE *out;

  if (argc == 2 && g_str_equal (argv[1], "--hello"))
    {
      g_print ("hello %u %s\n", RTOP_STREAM_VERSION, PACKAGE_VERSION);
      return 0;
    }
  if (argc != 2)
    {
      g_printerr ("usage: %s FILE\n", argv[0]);
      return 2;
    }
  out = fopen (argv[1], "w");
  if (out == NULL)
    {
      g_printerr ("%s: %s\n", argv[1], g_strerror (errno));
      return 1;
    }
  for (;;)
    {
      guint8 buf[65536];
      ssize_t n = read (STDIN_FILENO, buf, sizeof buf);
      RtopSnapshot *snap;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      if (!rtop_stream_decoder_push (dec, buf, n, &error))
        break;
      while ((snap = rtop_stream_decoder_next (dec, &error)) != NULL)
        {
          g_autofree char *line = rtop_json_snapshot_to_string (snap, FALSE);

          fprintf (out, "%s\n", line);
          fflush (out);
          rtop_snapshot_unref (snap);
        }
      if (error != NULL)
        break;
    }
  if (error == NULL)
    rtop_stream_decoder_finish (dec, &error);
  fclose (out);
  if (error != NULL)
    {
      g_printerr ("stream-dump: %s\n", error->message);
      return 1;
    }
  return 0;
}
