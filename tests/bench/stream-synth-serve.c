/* stream-synth-serve: a stand-in for `rdmatop-cli serve --stdio` on a
 * machine without RDMA: the same encoder, fed with 16 busy synthetic ports
 * (tests/support/stream-synth.c, the collector's own rate code), one frame per
 * second of wall time.  It ends when its stdin does.  For measuring what
 * the stream costs on an ssh connection (ssh-stream-bytes.sh).
 * Usage: stream-synth-serve [ARGS...]  (of the arguments of serve --stdio,
 * only --processes is taken: the processes' names and ids are sent;
 * RDMATOP_SYNTH_DEVICES sets the number of devices, 16) */
#include "config.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtop-stream.h"
#include "../support/stream-synth.h"

static gboolean
write_all (const GByteArray *b)
{
  for (gsize off = 0; off < b->len;)
    {
      ssize_t n = write (STDOUT_FILENO, b->data + off, b->len - off);

      if (n <= 0)
        return FALSE;
      off += n;
    }
  return TRUE;
}

int
main (int argc, char **argv)
{
  const char *n = g_getenv ("RDMATOP_SYNTH_DEVICES");
  StreamSynthOptions o = { .n_devices = n != NULL ? atoi (n) : 16, .ports_per_device = 1,
                           .busy = TRUE, .processes = TRUE, .seed = 42 };
  g_autoptr(StreamSynth) synth = stream_synth_new (&o);
  g_autoptr(RtopStreamEncoder) enc = NULL;
  g_autoptr(GByteArray) out = g_byte_array_new ();
  gboolean share = FALSE;

  for (int i = 1; i < argc; i++)
    share |= strcmp (argv[i], "--processes") == 0;
  enc = rtop_stream_encoder_new (share, 60);

  rtop_stream_encoder_hello (enc, out);
  for (;;)
    {
      g_autoptr(RtopSnapshot) snap = stream_synth_next (synth);
      struct pollfd in = { STDIN_FILENO, POLLIN, 0 };
      char buf[256];

      rtop_stream_encoder_add (enc, snap, out);
      if (!write_all (out))
        return 1;
      g_byte_array_set_size (out, 0);
      /* A second, or the end of stdin (commands are read and ignored). */
      if (poll (&in, 1, 1000) > 0 && read (STDIN_FILENO, buf, sizeof buf) <= 0)
        return 0;
    }
}
