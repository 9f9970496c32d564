/* test-recording.c: the reader round-trips what the writers wrote, loads
 * files cut short, merges long recordings to its budget, refuses anything
 * else with a clear error, and recovery closes a cut-short trace. */
#include "config.h"

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "support/rec-synth.h"
#include "rtop-csv-writer-private.h"
#include "rtop-error.h"
#include "rtop-recording-private.h"
#include "rtop-trace-writer-private.h"

typedef struct {
  GPtrArray *written;          /* RtopSnapshot* handed to the writer */
  GString *text;
  GArray *commit_ends;         /* gsize: text length after each interval */
} Fixture;

static void
fixture_write (Fixture *f, const RecSynthOptions *options, guint n, gboolean end)
{
  g_autoptr(RecSynth) synth = rec_synth_new (options);
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();

  for (guint i = 0; i < n; i++)
    {
      RtopSnapshot *snap = rec_synth_next (synth);

      rtop_trace_writer_add (writer, snap, f->text);
      g_ptr_array_add (f->written, snap);
      g_array_append_val (f->commit_ends, f->text->len);
    }
  if (end)
    rtop_trace_writer_end (writer, f->text);
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->written = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  f->text = g_string_new (NULL);
  f->commit_ends = g_array_new (FALSE, FALSE, sizeof (gsize));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_ptr_array_unref (f->written);
  g_string_free (f->text, TRUE);
  g_array_unref (f->commit_ends);
}

static RtopRecording *
load_text (const char *text, gsize len, guint budget, GError **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (text, len);

  return rtop_recording_load_bytes (bytes, budget, error);
}

static void
assert_close (double a, double b)
{
  /* The trace keeps 6 significant digits. */
  g_assert_cmpfloat (fabs (a - b), <=, 1e-5 * MAX (fabs (a), fabs (b)) + 1e-9);
}

/* Same devices and ports with the same names, metric rates within rounding. */
static void
assert_same_ports (const RtopSnapshot *want, const RtopSnapshot *got)
{
  g_assert_cmpuint (got->devices->len, ==, want->devices->len);
  for (guint d = 0; d < want->devices->len; d++)
    {
      const RtopDevice *wd = g_ptr_array_index (want->devices, d);
      const RtopDevice *gd = g_ptr_array_index (got->devices, d);

      g_assert_cmpstr (gd->name, ==, wd->name);
      g_assert_cmpstr (gd->provider, ==, wd->provider);
      g_assert_cmpuint (gd->ports->len, ==, wd->ports->len);
      for (guint p = 0; p < wd->ports->len; p++)
        {
          const RtopPort *wp = g_ptr_array_index (wd->ports, p);
          const RtopPort *gp = g_ptr_array_index (gd->ports, p);

          g_assert_cmpuint (gp->index, ==, wp->index);
          g_assert_cmpuint (gp->state, ==, wp->state);
          g_assert_cmpstr (gp->netdev, ==, wp->netdev);
          assert_close (gp->rate_gbps, wp->rate_gbps);
          for (guint m = 0; m < RTOP_METRIC_N; m++)
            {
              const RtopMetric *wm = &wp->metrics[m];
              const RtopMetric *gm = &gp->metrics[m];
              guint n;
              const RtopTraceCounter *table = rtop_trace_counters (&n);
              gboolean recorded = FALSE;

              for (guint i = 0; i < n; i++)
                recorded |= table[i].metric == m;
              if (!recorded || !wm->has_rate)
                continue;
              g_assert_true (gm->present);
              g_assert_true (gm->has_rate);
              assert_close (gm->rate, wm->rate);
            }
        }
    }
}

static void
test_roundtrip_json (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 5, .ports_per_device = 2, .interval_s = 0.5,
                              .processes = TRUE, .events = TRUE, .busy_all = TRUE, .seed = 11 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  RtopSnapshot *got;

  fixture_write (f, &options, 12, TRUE);
  rec = load_text (f->text->str, f->text->len, 0, &error);
  g_assert_no_error (error);
  g_assert_true (rtop_recording_is_complete (rec));
  g_assert_cmpuint (rtop_recording_get_merge_factor (rec), ==, 1);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 12);
  g_assert_cmpint (rtop_recording_get_duration_us (rec), ==, 11 * 500000);
  g_assert_cmpfloat (rtop_recording_get_interval (rec), ==, 0.5);
  g_assert_cmpstr (rtop_recording_get_producer (rec), ==, PACKAGE_VERSION);
  g_assert_cmpint (rtop_recording_get_format (rec), ==, RTOP_RECORD_FORMAT_JSON);

  for (guint i = 0; i < 12; i++)
    {
      const RtopSnapshot *want = g_ptr_array_index (f->written, i);

      got = rtop_recording_get_snapshot (rec, i);
      g_assert_cmpint (got->monotonic_us, ==, want->monotonic_us);
      g_assert_cmpint (got->realtime_us, ==, want->realtime_us);
      assert_same_ports (want, got);
      /* Processes: seen in samples 3..8. */
      g_assert_cmpuint (got->processes->len, ==, i + 1 >= 3 && i + 1 <= 8 ? 1 : 0);
    }

  got = rtop_recording_get_snapshot (rec, 4);
  {
    RtopProcess *proc = g_ptr_array_index (got->processes, 0);
    RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, 0);

    g_assert_cmpint (proc->pid, ==, 4242);
    g_assert_cmpstr (proc->comm, ==, "ib_write_bw");
    g_assert_cmpstr (proc->user, ==, "alice");
    /* The job crosses the recording whole. */
    g_assert_cmpint (proc->job.kind, ==, RTOP_JOB_KUBERNETES);
    g_assert_cmpstr (proc->job.id, ==, "0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21");
    g_assert_cmpstr (proc->job.name, ==, "pod 0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21/3d2ae0c5b6d4");
    g_assert_cmpstr (pd->device, ==, "mlx5_0");
    g_assert_cmpuint (pd->qps, ==, 2);
  }
  /* Events come back on the snapshot they were raised in. */
  got = rtop_recording_get_snapshot (rec, 0);
  g_assert_cmpuint (got->events->len, ==, 1);
  g_assert_cmpint (((RtopEvent *) g_ptr_array_index (got->events, 0))->kind, ==,
                   RTOP_EVENT_DEVICE_ADDED);
  got = rtop_recording_get_snapshot (rec, 4);
  g_assert_cmpuint (got->events->len, ==, 1);
  {
    RtopEvent *ev = g_ptr_array_index (got->events, 0);
    g_assert_cmpint (ev->kind, ==, RTOP_EVENT_PORT_STATE);
    g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_WARNING);
    g_assert_cmpstr (ev->device, ==, "efa_1");
    g_assert_cmpuint (ev->port, ==, 1);
    g_assert_cmpstr (ev->new_value, ==, "DOWN");
    g_assert_cmpstr (ev->message, ==, "Port efa_1/1 went from ACTIVE to \"DOWN\".");
    g_assert_cmpuint (ev->episode, ==, 7);
    g_assert_true (ev->ongoing);
  }
}

static guint
count_down_events (const RtopSnapshot *snap, const char *device, guint32 port)
{
  guint n = 0;

  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if (ev->kind == RTOP_EVENT_PORT_DOWN && ev->port == port && g_strcmp0 (ev->device, device) == 0)
        {
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
          g_assert_cmpstr (ev->new_value, ==, "DOWN");
          g_assert_nonnull (strstr (ev->message, "already down when the recording started"));
          g_assert_cmpint (ev->monotonic_us, ==, snap->monotonic_us);
          n++;
        }
    }
  return n;
}

/* A port already down when the recording starts has no Down event in the
 * file; the replay gives it one, on its first snapshot only, in both
 * formats, and none to the ports that are up. */
static void
test_down_at_start (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .busy_all = TRUE, .last_down = TRUE, .seed = 21 };
  g_autofree char *down = rec_synth_device_name (2);
  g_autoptr(GString) csv = g_string_new (NULL);
  g_autoptr(RtopCsvWriter) csv_writer = rtop_csv_writer_new ();

  fixture_write (f, &options, 5, TRUE);
  for (guint i = 0; i < f->written->len; i++)
    rtop_csv_writer_add (csv_writer, g_ptr_array_index (f->written, i), csv);
  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GError) error = NULL;
      GString *text = k == 0 ? f->text : csv;
      g_autoptr(RtopRecording) rec = load_text (text->str, text->len, 0, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 5);
      for (guint i = 0; i < 5; i++)
        {
          const RtopSnapshot *got = rtop_recording_get_snapshot (rec, i);

          g_assert_cmpuint (count_down_events (got, down, 1), ==, i == 0 ? 1 : 0);
          for (guint d = 0; d < 2; d++)
            {
              g_autofree char *up = rec_synth_device_name (d);
              g_assert_cmpuint (count_down_events (got, up, 1), ==, 0);
            }
        }
    }
}

/* Lines spelled differently from the writer (spaces, other key order) go
 * through the general JSON path and read the same. */
static void
test_other_spelling (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .busy_all = TRUE, .seed = 18 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_auto(GStrv) parts = NULL;
  g_autofree char *respelled = NULL;

  fixture_write (f, &options, 6, TRUE);
  parts = g_strsplit (f->text->str, "{\"ph\":\"C\",\"pid\":", -1);
  respelled = g_strjoinv ("{ \"ph\" : \"C\", \"pid\" :", parts);
  g_assert_cmpuint (g_strv_length (parts), >, 20);
  rec = load_text (respelled, strlen (respelled), 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 6);
  for (guint i = 0; i < 6; i++)
    assert_same_ports (g_ptr_array_index (f->written, i), rtop_recording_get_snapshot (rec, i));

  /* The first pass cannot count commits spelled this way, so the budget is
   * held by stopping: 3 ports a snapshot, at most twice a budget of 4. */
  g_clear_object (&rec);
  rec = load_text (respelled, strlen (respelled), 4, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 3);
  g_assert_false (rtop_recording_is_complete (rec));
}

static GBytes *
gzip_text (const char *text, gsize len, gboolean finish)
{
  z_stream zs = { 0 };
  GByteArray *out = g_byte_array_new ();
  guint8 buf[16384];
  int ret;

  g_assert_cmpint (deflateInit2 (&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  zs.next_in = (Bytef *) text;
  zs.avail_in = (uInt) len;
  do
    {
      zs.next_out = buf;
      zs.avail_out = sizeof buf;
      ret = deflate (&zs, finish ? Z_FINISH : Z_SYNC_FLUSH);
      g_byte_array_append (out, buf, sizeof buf - zs.avail_out);
    }
  while (zs.avail_out == 0 || (finish && ret == Z_OK));
  deflateEnd (&zs);
  return g_byte_array_free_to_bytes (out);
}

static void
test_roundtrip_gz (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .seed = 12 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_autoptr(RtopRecording) cut = NULL;
  g_autoptr(GBytes) gz = NULL;
  g_autoptr(GBytes) partial = NULL;

  fixture_write (f, &options, 8, TRUE);
  gz = gzip_text (f->text->str, f->text->len, TRUE);
  rec = rtop_recording_load_bytes (gz, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rtop_recording_get_format (rec), ==, RTOP_RECORD_FORMAT_JSON_GZ);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 8);
  g_assert_true (rtop_recording_is_complete (rec));
  assert_same_ports (g_ptr_array_index (f->written, 7), rtop_recording_get_snapshot (rec, 7));

  /* A gzip stream that was only sync-flushed (no trailer, as after a kill)
   * reads up to its last interval. */
  partial = gzip_text (f->text->str, g_array_index (f->commit_ends, gsize, 4), FALSE);
  cut = rtop_recording_load_bytes (partial, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (cut), ==, 5);
  g_assert_false (rtop_recording_is_complete (cut));
}

static void
test_roundtrip_csv (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 4, .ports_per_device = 2, .interval_s = 1,
                              .busy_all = TRUE, .seed = 13 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(RtopCsvWriter) writer = rtop_csv_writer_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;

  for (guint i = 0; i < 6; i++)
    {
      RtopSnapshot *snap = rec_synth_next (synth);
      rtop_csv_writer_add (writer, snap, f->text);
      g_ptr_array_add (f->written, snap);
    }
  rec = load_text (f->text->str, f->text->len, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rtop_recording_get_format (rec), ==, RTOP_RECORD_FORMAT_CSV);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 6);
  for (guint i = 1; i < 6; i++)
    {
      const RtopSnapshot *want = g_ptr_array_index (f->written, i);
      const RtopSnapshot *got = rtop_recording_get_snapshot (rec, i);
      const RtopPort *wp = g_ptr_array_index (((RtopDevice *) g_ptr_array_index (want->devices, 1))->ports, 1);
      const RtopPort *gp = g_ptr_array_index (((RtopDevice *) g_ptr_array_index (got->devices, 1))->ports, 1);

      g_assert_cmpint (got->monotonic_us, ==, want->monotonic_us);
      g_assert_cmpint (got->realtime_us, ==, want->realtime_us);
      assert_same_ports (want, got);
      /* CSV keeps the cumulative counters exactly. */
      g_assert_cmpuint (gp->metrics[RTOP_METRIC_TX_BYTES].value, ==, wp->metrics[RTOP_METRIC_TX_BYTES].value);
      g_assert_false (gp->metrics[RTOP_METRIC_RDMA_READ_BYTES].present
                      != wp->metrics[RTOP_METRIC_RDMA_READ_BYTES].present);
    }
}

/* Cut anywhere, the file loads up to the last interval completed before
 * the cut (or is refused when not even the header is there). */
static void
test_truncated (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .processes = TRUE,
                              .events = TRUE, .seed = 14 };
  gsize header_len;

  fixture_write (f, &options, 10, TRUE);
  header_len = strchr (f->text->str, '\n') - f->text->str + 1;
  for (gsize cut = 0; cut <= f->text->len; cut += 7)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(RtopRecording) rec = load_text (f->text->str, cut, 0, &error);
      guint expect = 0;

      for (guint i = 0; i < f->commit_ends->len; i++)
        if (g_array_index (f->commit_ends, gsize, i) <= cut)
          expect = i + 1;
      if (expect == 0)
        {
          g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING);
          g_assert_null (rec);
          continue;
        }
      g_assert_no_error (error);
      g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, expect);
      g_assert_true (cut > header_len);
    }
}

static void
test_merge (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 4, .interval_s = 0.1, .busy_all = TRUE, .seed = 15 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  const RtopSnapshot *got;
  double mean = 0;

  fixture_write (f, &options, 1000, TRUE);
  /* 1000 intervals x 4 ports in a budget of 400 port-samples: 10 per snapshot. */
  rec = load_text (f->text->str, f->text->len, 400, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_merge_factor (rec), ==, 10);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 100);
  g_assert_cmpfloat_with_epsilon (rtop_recording_get_interval (rec), 1.0, 1e-9);

  /* Snapshot 5 holds intervals 51..60: its rate is their mean. */
  for (guint i = 50; i < 60; i++)
    {
      const RtopSnapshot *want = g_ptr_array_index (f->written, i);
      const RtopDevice *dev = g_ptr_array_index (want->devices, 0);
      mean += ((RtopPort *) g_ptr_array_index (dev->ports, 0))->metrics[RTOP_METRIC_TX_BYTES].rate / 10;
    }
  got = rtop_recording_get_snapshot (rec, 5);
  g_assert_cmpint (got->monotonic_us, ==, ((RtopSnapshot *) g_ptr_array_index (f->written, 59))->monotonic_us);
  assert_close (((RtopPort *) g_ptr_array_index (((RtopDevice *) g_ptr_array_index (got->devices, 0))->ports, 0))
                  ->metrics[RTOP_METRIC_TX_BYTES].rate, mean);
}

static void
assert_refused (const char *what, const char *text, gssize len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = load_text (text, len < 0 ? strlen (text) : (gsize) len, 0, &error);

  if (g_test_verbose ())
    g_test_message ("%s: %s", what, error != NULL ? error->message : "(loaded)");
  g_assert_null (rec);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING);
  g_assert_cmpuint (strlen (error->message), >, 20);
}

static void
test_garbage (void)
{
  g_autofree char *deep = NULL;
  g_autofree char *long_line = NULL;
  g_autofree char *other_header = NULL;
  g_autoptr(GBytes) bomb = NULL;
  GString *s;
  guint8 random[4096];

  assert_refused ("empty", "", 0);
  assert_refused ("text", "hello world\n", -1);
  assert_refused ("array", "[]\n", -1);
  assert_refused ("perfetto from elsewhere",
                  "{\"traceEvents\":[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"x\"}}]}\n", -1);
  assert_refused ("other producer",
                  "{\"otherData\":{\"producer\":\"chrome\"},\"traceEvents\":[\n]}\n", -1);
  assert_refused ("newer format",
                  "{\"otherData\":{\"producer\":\"rdmatop\",\"rdmatop_format\":99,\"start_monotonic_us\":0,"
                  "\"start_realtime_us\":0,\"interval_s\":1},\"traceEvents\":[\n]}\n", -1);
  assert_refused ("no intervals",
                  "{\"otherData\":{\"producer\":\"rdmatop\",\"rdmatop_format\":1,\"start_monotonic_us\":0,"
                  "\"start_realtime_us\":0,\"interval_s\":1},\"traceEvents\":[\n]}\n", -1);
  assert_refused ("header types",
                  "{\"otherData\":{\"producer\":\"rdmatop\",\"rdmatop_format\":1,\"start_monotonic_us\":\"x\","
                  "\"start_realtime_us\":[],\"interval_s\":{}},\"traceEvents\":[\n]}\n", -1);
  assert_refused ("nul bytes", "\0\0\0\0\n\0", 6);
  assert_refused ("gzip header only", "\x1f\x8b\x08\x00", 4);

  /* A nested line deeper than json-glib should ever recurse into. */
  s = g_string_new ("{\"otherData\":{\"producer\":\"rdmatop\",\"rdmatop_format\":1,\"start_monotonic_us\":0,"
                    "\"start_realtime_us\":0,\"interval_s\":1},\"traceEvents\":[\n");
  for (int i = 0; i < 30000; i++)
    g_string_append_c (s, '[');
  g_string_append_c (s, '\n');
  deep = g_string_free (s, FALSE);
  assert_refused ("deep nesting", deep, -1);

  long_line = g_malloc (1 << 20);
  memset (long_line, 'a', (1 << 20) - 1);
  long_line[(1 << 20) - 1] = '\0';
  assert_refused ("long line", long_line, -1);

  other_header = g_strconcat (rtop_csv_header (), ",extra\r\n1,2\r\n", NULL);
  assert_refused ("other csv", other_header, -1);

  /* 64 MiB of zeros in a small gzip: refused at the line limit, not inflated
   * into memory. */
  {
    g_autofree char *zeros = g_malloc0 (64 << 20);
    bomb = gzip_text (zeros, 64 << 20, TRUE);
    g_assert_cmpuint (g_bytes_get_size (bomb), <, 1 << 20);
    assert_refused ("gzip bomb", g_bytes_get_data (bomb, NULL), g_bytes_get_size (bomb));
  }

  for (int round = 0; round < 50; round++)
    {
      for (guint i = 0; i < sizeof random; i++)
        random[i] = (guint8) g_test_rand_int_range (0, 256);
      assert_refused ("random", (const char *) random, sizeof random);
    }
}

/* Absurd but well-formed numbers (found by the fuzzer): totals clamp,
 * nothing overflows. */
static void
test_absurd_numbers (void)
{
  const char *text =
    "{\"otherData\":{\"producer\":\"rdmatop\",\"rdmatop_format\":1,\"start_monotonic_us\":0,"
    "\"start_realtime_us\":0,\"interval_s\":1},\"traceEvents\":[\n"
    "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"x/1\",\"device\":\"x\",\"port\":1}},\n"
    "{\"ph\":\"C\",\"pid\":2,\"ts\":0,\"name\":\"port\",\"args\":{\"state\":4}},\n"
    "{\"ph\":\"C\",\"pid\":2,\"ts\":0,\"name\":\"tx\",\"args\":{\"Gbps\":1e300}},\n"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":0,\"name\":\"rdmatop\",\"args\":{\"ports\":1}},\n"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":3000000000000000,\"name\":\"rdmatop\",\"args\":{\"ports\":1}},\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = load_text (text, strlen (text), 0, &error);
  RtopSnapshot *last;
  RtopPort *port;

  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 2);
  last = rtop_recording_get_snapshot (rec, 1);
  port = g_ptr_array_index (((RtopDevice *) g_ptr_array_index (last->devices, 0))->ports, 0);
  g_assert_cmpuint (port->metrics[RTOP_METRIC_TX_BYTES].value, ==, G_MAXUINT64);
  g_assert_true (isfinite (port->metrics[RTOP_METRIC_TX_BYTES].rate));
}

/* A valid header followed by damaged lines: loads what came before. */
static void
test_damaged_middle (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 2, .interval_s = 1, .seed = 16 };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  gsize at;

  fixture_write (f, &options, 6, TRUE);
  at = g_array_index (f->commit_ends, gsize, 2);
  g_string_insert (f->text, at, "{\"ph\":\"C\",\"pid\":2,\"ts\":\"garbage\n{{{{\n");
  rec = load_text (f->text->str, f->text->len, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, 3);
  g_assert_false (rtop_recording_is_complete (rec));
}

static char *
write_file (const char *dir, const char *name, const char *data, gsize len)
{
  char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
  return path;
}

static char *
read_gz_file (const char *path)
{
  gzFile gz = gzopen (path, "rb");
  GString *out = g_string_new (NULL);
  char buf[16384];
  int n;

  g_assert_nonnull (gz);
  while ((n = gzread (gz, buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  g_assert_cmpint (n, ==, 0);
  /* A complete gzip member: gzread saw the trailer without error. */
  {
    int errnum;
    gzerror (gz, &errnum);
    g_assert_cmpint (errnum, ==, Z_OK);
  }
  gzclose (gz);
  return g_string_free (out, FALSE);
}

static void
assert_strict_trace (const char *text, gsize expect_intervals)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  JsonArray *events;
  gint64 balance = 0;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  events = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)),
                                         "traceEvents");
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      const char *ph = json_object_get_string_member (json_array_get_object_element (events, i), "ph");
      balance += strcmp (ph, "B") == 0 ? 1 : strcmp (ph, "E") == 0 ? -1 : 0;
    }
  g_assert_cmpint (balance, ==, 0);
  rec = load_text (text, strlen (text), 0, &error);
  g_assert_no_error (error);
  g_assert_true (rtop_recording_is_complete (rec));
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, expect_intervals);
}

static void
test_recover (Fixture *f, gconstpointer data)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .processes = TRUE, .seed = 17 };
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-recover-XXXXXX", NULL);
  g_autofree char *plain = NULL;
  g_autofree char *gz_path = NULL;
  g_autofree char *out = NULL;
  g_autofree char *out_gz = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) gz = NULL;
  gsize cut;

  /* Killed during sample 6, with the process slice still open and half an
   * interval written. */
  fixture_write (f, &options, 7, FALSE);
  cut = g_array_index (f->commit_ends, gsize, 5) + 30;
  plain = write_file (dir, "rec.json.partial", f->text->str, cut);
  out = rtop_recording_recover (plain, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (out, "/rec.json"));
  g_file_get_contents (out, &text, NULL, &error);
  g_assert_no_error (error);
  assert_strict_trace (text, 6);

  /* Never overwrites: recovering again fails and leaves the file alone. */
  again = rtop_recording_recover (plain, NULL, &error);
  g_assert_null (again);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);

  gz = gzip_text (f->text->str, cut, FALSE);
  gz_path = write_file (dir, "other.json.gz", g_bytes_get_data (gz, NULL), g_bytes_get_size (gz));
  out_gz = rtop_recording_recover (gz_path, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (out_gz, "/other-recovered.json.gz"));
  g_free (text);
  text = read_gz_file (out_gz);
  assert_strict_trace (text, 6);

  g_unlink (plain);
  g_unlink (out);
  g_unlink (gz_path);
  g_unlink (out_gz);
  g_rmdir (dir);
}

static void
test_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-files-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "missing.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;

  rec = rtop_recording_load (path, &error);
  g_assert_null (rec);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "missing.json"));
  g_clear_error (&error);

  rec = rtop_recording_load (dir, &error);
  g_assert_null (rec);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING);
  g_clear_error (&error);

  rec = rtop_recording_load ("/dev/zero", &error);
  g_assert_null (rec);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING);
  g_rmdir (dir);
}

static void
test_formats (void)
{
  g_autofree char *name = rtop_recording_default_filename (RTOP_RECORD_FORMAT_JSON_GZ);
  RtopRecordFormat format;

  g_assert_true (g_regex_match_simple ("^rdmatop-[0-9]{8}T[0-9]{6}Z\\.json\\.gz$", name, 0, 0));
  g_assert_true (rtop_record_format_from_path ("/x/a.JSON.gz", &format));
  g_assert_cmpint (format, ==, RTOP_RECORD_FORMAT_JSON_GZ);
  g_assert_true (rtop_record_format_from_path ("a.json.partial", &format));
  g_assert_cmpint (format, ==, RTOP_RECORD_FORMAT_JSON);
  g_assert_true (rtop_record_format_from_path ("a.csv", &format));
  g_assert_cmpint (format, ==, RTOP_RECORD_FORMAT_CSV);
  g_assert_false (rtop_record_format_from_path ("a.txt", &format));
  g_assert_true (rtop_record_format_from_string ("json.gz", &format));
  g_assert_cmpint (format, ==, RTOP_RECORD_FORMAT_JSON_GZ);
  g_assert_false (rtop_record_format_from_string ("xml", &format));
  g_assert_cmpstr (rtop_record_format_to_string (RTOP_RECORD_FORMAT_CSV), ==, "csv");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/recording/reader/roundtrip-json", test_roundtrip_json);
  ADD ("/recording/reader/roundtrip-gz", test_roundtrip_gz);
  ADD ("/recording/reader/other-spelling", test_other_spelling);
  ADD ("/recording/reader/roundtrip-csv", test_roundtrip_csv);
  ADD ("/recording/reader/down-at-start", test_down_at_start);
  ADD ("/recording/reader/truncated", test_truncated);
  ADD ("/recording/reader/merge", test_merge);
  ADD ("/recording/reader/damaged-middle", test_damaged_middle);
  ADD ("/recording/reader/recover", test_recover);
#undef ADD
  g_test_add_func ("/recording/reader/garbage", test_garbage);
  g_test_add_func ("/recording/reader/absurd-numbers", test_absurd_numbers);
  g_test_add_func ("/recording/reader/files", test_files);
  g_test_add_func ("/recording/reader/formats", test_formats);
  return g_test_run ();
}
