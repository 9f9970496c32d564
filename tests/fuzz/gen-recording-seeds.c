/* gen-recording-seeds.c: the recording fuzzer's seed corpus, written by the
 * same writers the recorder uses: a small trace (closed and cut short),
 * its gzip form, and a CSV.  Usage: gen-recording-seeds OUTDIR */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "../support/rec-synth.h"
#include "rtop-csv-writer-private.h"
#include "rtop-trace-writer-private.h"

static void
write_seed (const char *dir, const char *name, const void *buf, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, buf, len, &error))
    g_error ("%s", error->message);
}

static GByteArray *
gzip (const char *text, gsize len)
{
  GByteArray *out = g_byte_array_new ();
  z_stream zs = { 0 };
  guint8 buf[4096];
  int ret;

  if (deflateInit2 (&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("deflateInit2");
  zs.next_in = (Bytef *) text;
  zs.avail_in = (uInt) len;
  do
    {
      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      ret = deflate (&zs, Z_FINISH);
      g_byte_array_append (out, buf, sizeof buf - zs.avail_out);
    }
  while (ret == Z_OK);
  deflateEnd (&zs);
  return out;
}

int
main (int argc, char **argv)
{
  RecSynthOptions options = { .n_devices = 2, .interval_s = 1, .processes = TRUE,
                              .events = TRUE, .seed = 7 };
  g_autoptr(RecSynth) synth = NULL;
  g_autoptr(RtopTraceWriter) trace = rtop_trace_writer_new ();
  g_autoptr(RtopCsvWriter) csv = rtop_csv_writer_new ();
  g_autoptr(GString) json = g_string_new (NULL);
  g_autoptr(GString) rows = g_string_new (NULL);
  g_autoptr(GByteArray) gz = NULL;
  gsize cut = 0;

  if (argc != 2)
    {
      g_printerr ("usage: %s OUTDIR\n", argv[0]);
      return 2;
    }
  if (g_mkdir_with_parents (argv[1], 0755) != 0)
    g_error ("%s: %s", argv[1], g_strerror (errno));

  synth = rec_synth_new (&options);
  for (guint i = 0; i < 9; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);

      rtop_trace_writer_add (trace, snap, json);
      if (i == 5)
        cut = json->len;
      if (i < 3)
        rtop_csv_writer_add (csv, snap, rows);
    }
  rtop_trace_writer_end (trace, json);
  write_seed (argv[1], "trace.json", json->str, json->len);
  write_seed (argv[1], "trace-cut.json", json->str, cut + 40);
  gz = gzip (json->str, json->len);
  write_seed (argv[1], "trace.json.gz", gz->data, gz->len);
  write_seed (argv[1], "rows.csv", rows->str, rows->len);
  return 0;
}
