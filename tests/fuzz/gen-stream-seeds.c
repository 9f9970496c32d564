/* gen-stream-seeds.c: the stream fuzzer's seed corpus, written by the
 * encoder serve --stdio uses: short runs with and without processes,
 * devices that come and go, a keyframe asked for, an error frame.  Each
 * seed starts with the byte that picks the fuzzer's chunk size.
 * Usage: gen-stream-seeds OUTDIR */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "rtop-stream.h"
#include "../support/stream-synth.h"

static void
write_seed (const char *dir, const char *name, GByteArray *bytes)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, (const char *) bytes->data, bytes->len, &error))
    g_error ("%s", error->message);
}

static GByteArray *
run (const StreamSynthOptions *o, guint n, gboolean shared, guint8 chunk_byte)
{
  g_autoptr(StreamSynth) synth = stream_synth_new (o);
  g_autoptr(RtopStreamEncoder) enc = rtop_stream_encoder_new (shared, 4);
  GByteArray *out = g_byte_array_new ();

  g_byte_array_append (out, &chunk_byte, 1);
  rtop_stream_encoder_hello (enc, out);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = stream_synth_next (synth);

      if (i == n / 2)
        rtop_stream_encoder_request_keyframe (enc);
      rtop_stream_encoder_add (enc, snap, out);
    }
  return out;
}

int
main (int argc, char **argv)
{
  StreamSynthOptions small = { .n_devices = 2, .ports_per_device = 1, .busy = TRUE,
                               .processes = TRUE, .events = TRUE, .seed = 1 };
  StreamSynthOptions churn = { .n_devices = 3, .ports_per_device = 2, .busy = TRUE,
                               .churn = TRUE, .processes = TRUE, .events = TRUE, .seed = 2 };
  g_autoptr(GByteArray) a = NULL, b = NULL, c = NULL, err = g_byte_array_new ();
  g_autoptr(RtopStreamEncoder) enc = rtop_stream_encoder_new (FALSE, 0);
  guint8 whole = 63;

  if (argc != 2)
    {
      g_printerr ("usage: %s OUTDIR\n", argv[0]);
      return 2;
    }
  if (g_mkdir_with_parents (argv[1], 0755) != 0)
    g_error ("%s: %s", argv[1], g_strerror (errno));
  a = run (&small, 6, TRUE, 63);
  b = run (&churn, 12, TRUE, 5);
  c = run (&small, 6, FALSE, 0);
  write_seed (argv[1], "small-shared", a);
  write_seed (argv[1], "churn", b);
  write_seed (argv[1], "hidden-bytewise", c);
  g_byte_array_append (err, &whole, 1);
  rtop_stream_encoder_hello (enc, err);
  rtop_stream_encode_error (err, "No RDMA device named “mlx5_9”.");
  write_seed (argv[1], "error-frame", err);
  return 0;
}
