/* test-record-format.c: the format table, row by row.  Nothing here names a
 * format: every row is written through its sink (by the recorder into a real
 * file, and by the shared file writer into a file cut short), read back by
 * its own reader and compared in everything the row says the format holds;
 * a cut-short file is recovered where the format needs it.  A new row is
 * tested the moment it is added. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "support/rec-synth.h"
#include "rtop-error.h"
#include "rtop-record-file.h"
#include "rtop-record-format.h"
#include "rtop-record-reader.h"
#include "rtop-record-sink.h"
#include "rtop-recorder.h"
#include "rtop-recording-private.h"

#define N_SNAPSHOTS 12

static const RecSynthOptions synth_options = {
  .n_devices = 3, .ports_per_device = 2, .interval_s = 0.5, .busy_all = TRUE,
  .processes = TRUE, .events = TRUE, .seed = 31,
};

/* The written snapshots, sealed. */
static GPtrArray *
make_snapshots (void)
{
  g_autoptr(RecSynth) synth = rec_synth_new (&synth_options);
  GPtrArray *snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);

  for (guint i = 0; i < N_SNAPSHOTS; i++)
    g_ptr_array_add (snapshots, rec_synth_next (synth));
  return snapshots;
}

static void
assert_close (double a, double b)
{
  /* Text formats keep 6 significant digits. */
  g_assert_cmpfloat (fabs (a - b), <=, 1e-5 * MAX (fabs (a), fabs (b)) + 1e-9);
}

static void
assert_same_metrics (RtopRecordHolds holds, const RtopPort *want, const RtopPort *got)
{
  if ((holds & RTOP_RECORD_HOLDS_RATES) && want->metrics[RTOP_METRIC_TX_BYTES].has_rate)
    g_assert_true (got->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const RtopMetric *wm = &want->metrics[m];
      const RtopMetric *gm = &got->metrics[m];

      /* A format holds what the snapshot has, never more. */
      if (!wm->present)
        g_assert_false (gm->present);
      if ((holds & RTOP_RECORD_HOLDS_RATES) && gm->present && wm->has_rate)
        {
          g_assert_true (gm->has_rate);
          assert_close (gm->rate, wm->rate);
        }
      if (holds & RTOP_RECORD_HOLDS_COUNTERS)
        {
          g_assert_cmpint (gm->present, ==, wm->present);
          g_assert_cmpuint (gm->value, ==, wm->value);
        }
    }
}

static void
assert_same_ports (RtopRecordHolds holds, const RtopSnapshot *want, const RtopSnapshot *got)
{
  g_assert_cmpuint (got->devices->len, ==, want->devices->len);
  for (guint d = 0; d < want->devices->len; d++)
    {
      const RtopDevice *wd = g_ptr_array_index (want->devices, d);
      const RtopDevice *gd = g_ptr_array_index (got->devices, d);

      g_assert_cmpstr (gd->name, ==, wd->name);
      g_assert_cmpuint (gd->ports->len, ==, wd->ports->len);
      if (holds & RTOP_RECORD_HOLDS_PORT_INFO)
        g_assert_cmpstr (gd->provider, ==, wd->provider);
      for (guint p = 0; p < wd->ports->len; p++)
        {
          const RtopPort *wp = g_ptr_array_index (wd->ports, p);
          const RtopPort *gp = g_ptr_array_index (gd->ports, p);

          g_assert_cmpuint (gp->index, ==, wp->index);
          if (holds & RTOP_RECORD_HOLDS_PORT_INFO)
            {
              g_assert_cmpuint (gp->state, ==, wp->state);
              g_assert_cmpstr (gp->netdev, ==, wp->netdev);
              assert_close (gp->rate_gbps, wp->rate_gbps);
            }
          assert_same_metrics (holds, wp, gp);
        }
    }
}

static void
assert_same_events (const RtopSnapshot *want, const RtopSnapshot *got)
{
  g_assert_cmpuint (got->events->len, ==, want->events->len);
  for (guint i = 0; i < want->events->len; i++)
    {
      const RtopEvent *we = g_ptr_array_index (want->events, i);
      const RtopEvent *ge = g_ptr_array_index (got->events, i);

      g_assert_cmpint (ge->kind, ==, we->kind);
      g_assert_cmpint (ge->severity, ==, we->severity);
      g_assert_cmpstr (ge->device, ==, we->device);
      g_assert_cmpstr (ge->message, ==, we->message);
    }
}

static void
assert_same_processes (const RtopSnapshot *want, const RtopSnapshot *got)
{
  g_assert_cmpuint (got->processes->len, ==, want->processes->len);
  for (guint i = 0; i < want->processes->len; i++)
    {
      const RtopProcess *wp = g_ptr_array_index (want->processes, i);
      const RtopProcess *gp = g_ptr_array_index (got->processes, i);

      g_assert_cmpint (gp->pid, ==, wp->pid);
      g_assert_cmpstr (gp->comm, ==, wp->comm);
      g_assert_cmpuint (gp->qps, ==, wp->qps);
      g_assert_cmpuint (gp->devices->len, ==, wp->devices->len);
    }
}

/* rec holds the first n of written, as far as the format holds them. */
static void
assert_holds (const RtopRecordFormatInfo *info, RtopRecording *rec, GPtrArray *written, guint n)
{
  g_assert_cmpint (rtop_recording_get_format (rec), ==, info->id);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, n);
  for (guint i = 0; i < n; i++)
    {
      const RtopSnapshot *want = g_ptr_array_index (written, i);
      const RtopSnapshot *got = rtop_recording_get_snapshot (rec, i);

      g_assert_cmpint (got->monotonic_us, ==, want->monotonic_us);
      g_assert_cmpint (got->realtime_us, ==, want->realtime_us);
      assert_same_ports (info->holds, want, got);
      if (info->holds & RTOP_RECORD_HOLDS_EVENTS)
        assert_same_events (want, got);
      if (info->holds & RTOP_RECORD_HOLDS_PROCESSES)
        assert_same_processes (want, got);
    }
}

static char *
file_name (const char *dir, const char *stem, const RtopRecordFormatInfo *info)
{
  g_autofree char *name = g_strconcat (stem, info->extension, NULL);

  return g_build_filename (dir, name, NULL);
}

/* The table itself ------------------------------------------------------- */

static void
test_table (void)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) extensions = g_hash_table_new (g_str_hash, g_str_equal);
  const RtopRecordFormatInfo *formats;
  guint n, recordable = 0;

  formats = rtop_record_formats (&n);
  g_assert_cmpuint (n, >, 0);
  for (guint i = 0; i < n; i++)
    {
      const RtopRecordFormatInfo *info = &formats[i];
      g_autofree char *with_name = g_strconcat ("/x/Rec", info->extension, NULL);
      g_autofree char *cut_short = g_strconcat ("rec", info->extension, RTOP_RECORD_PARTIAL_SUFFIX, NULL);
      g_autofree char *upper = g_ascii_strup (with_name, -1);
      RtopRecordFormat id;

      g_assert_true (rtop_record_format_get_info (info->id) == info);
      g_assert_true (g_hash_table_add (names, (gpointer) info->name));
      g_assert_true (g_hash_table_add (extensions, (gpointer) info->extension));
      g_assert_true (info->extension[0] == '.');
      g_assert_cmpuint (strlen (info->display_name), >, 0);
      g_assert_cmpuint (info->version, >=, 1);
      g_assert_nonnull (info->reader);
      g_assert_nonnull (info->reader->probe);
      g_assert_nonnull (info->reader->load);
      if (info->sink != NULL)
        {
          g_assert_true (info->sink->create != NULL && info->sink->destroy != NULL
                         && info->sink->begin != NULL && info->sink->add != NULL
                         && info->sink->end != NULL);
          recordable++;
        }
      else
        g_assert_false (info->flags & RTOP_RECORD_FORMAT_RECORDABLE);

      g_assert_true (rtop_record_format_from_string (info->name, &id));
      g_assert_cmpint (id, ==, info->id);
      g_assert_cmpstr (rtop_record_format_to_string (info->id), ==, info->name);
      g_assert_cmpstr (rtop_record_format_get_extension (info->id), ==, info->extension);
      g_assert_true (rtop_record_format_from_path (upper, &id));
      g_assert_cmpint (id, ==, info->id);
      g_assert_true (rtop_record_format_from_path (cut_short, &id));
      g_assert_cmpint (id, ==, info->id);

      /* The Open dialog's patterns: the file and the file cut short. */
      g_assert_nonnull (info->patterns[0]);
      g_assert_true (g_pattern_match_simple (info->patterns[0], with_name + 3));
      g_assert_nonnull (info->patterns[1]);
      g_assert_true (g_pattern_match_simple (info->patterns[1], cut_short));
      g_assert_null (info->patterns[2]);
    }
  g_assert_cmpuint (recordable, >, 0);
  g_assert_null (rtop_record_format_get_info ((RtopRecordFormat) n));
  g_assert_null (rtop_record_format_new_sink ((RtopRecordFormat) n));
}

static void
test_list_names (void)
{
  g_autofree char *list = rtop_record_format_list_names ("|");
  g_auto(GStrv) names = g_strsplit (list, "|", -1);
  const RtopRecordFormatInfo *formats;
  guint n, k = 0;

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    if (formats[i].flags & RTOP_RECORD_FORMAT_RECORDABLE)
      g_assert_cmpstr (names[k++], ==, formats[i].name);
  g_assert_null (names[k]);
}

/* Each row ---------------------------------------------------------------- */

/* Through the recorder into a real file, back through the row's reader. */
static void
test_recorder_roundtrip (gconstpointer data)
{
  const RtopRecordFormatInfo *info = data;
  g_autoptr(GPtrArray) written = make_snapshots ();
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-format-XXXXXX", NULL);
  g_autofree char *path = file_name (dir, "recording", info);
  g_autoptr(RtopRecorder) recorder = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_autoptr(GError) error = NULL;

  recorder = rtop_recorder_new (path, info->id, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < written->len; i++)
    rtop_recorder_add (recorder, g_ptr_array_index (written, i));
  g_assert_true (rtop_recorder_close (recorder, &error));
  g_assert_no_error (error);

  rec = rtop_recording_load (path, &error);
  g_assert_no_error (error);
  g_assert_true (rtop_recording_is_complete (rec));
  assert_holds (info, rec, written, N_SNAPSHOTS);

  g_clear_object (&recorder);
  g_unlink (path);
  g_rmdir (dir);
}

/* Two hosts with the same device names and clocks days apart, as the
 * session hands them to the recorder: the file loads back with both
 * hosts' ports apart ("node1:" before a remote host's devices), on one
 * time line that spans what was recorded. */
static void
test_two_hosts (gconstpointer data)
{
  const RtopRecordFormatInfo *info = data;
  const gint64 other_clock = G_GINT64_CONSTANT (7) * 24 * 3600 * G_USEC_PER_SEC;
  g_autoptr(RecSynth) here = rec_synth_new (&synth_options);
  g_autoptr(RecSynth) there = rec_synth_new (&synth_options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-format-XXXXXX", NULL);
  g_autofree char *path = file_name (dir, "two-hosts", info);
  g_autofree char *device = rec_synth_device_name (0);
  g_autofree char *remote_device = g_strdup_printf ("node1:%s", device);
  g_autoptr(RtopRecorder) recorder = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_autoptr(GError) error = NULL;
  gboolean saw_here = FALSE, saw_there = FALSE;
  RtopSnapshot *first, *last;
  gint64 span_written = 0;

  recorder = rtop_recorder_new (path, info->id, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < N_SNAPSHOTS; i++)
    {
      RtopSnapshot *a = rec_synth_next (here);
      RtopSnapshot *b = rec_synth_next (there);

      b->host = g_strdup ("node1");
      b->monotonic_us += other_clock;
      for (guint e = 0; e < b->events->len; e++)
        ((RtopEvent *) g_ptr_array_index (b->events, e))->monotonic_us += other_clock;
      if (i == 0)
        span_written = -a->monotonic_us;
      if (i == N_SNAPSHOTS - 1)
        span_written += a->monotonic_us;
      rtop_recorder_add (recorder, a);
      rtop_recorder_add (recorder, b);
      rtop_snapshot_unref (a);
      rtop_snapshot_unref (b);
    }
  g_assert_true (rtop_recorder_close (recorder, &error));
  g_assert_no_error (error);

  rec = rtop_recording_load (path, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < rtop_recording_get_n_snapshots (rec); i++)
    {
      RtopSnapshot *snap = rtop_recording_get_snapshot (rec, i);

      saw_here |= rtop_snapshot_find_device (snap, device) != NULL;
      saw_there |= rtop_snapshot_find_device (snap, remote_device) != NULL;
    }
  g_assert_true (saw_here);
  g_assert_true (saw_there);
  first = rtop_recording_get_snapshot (rec, 0);
  last = rtop_recording_get_snapshot (rec, rtop_recording_get_n_snapshots (rec) - 1);
  /* Not a week: the remote clock was placed by the wall clocks. */
  g_assert_cmpint (last->monotonic_us - first->monotonic_us, <=, span_written + 2 * G_USEC_PER_SEC);

  g_clear_object (&recorder);
  g_unlink (path);
  g_rmdir (dir);
}

/* A file cut short after n intervals, as a crash leaves it: written through
 * the sink and the shared file writer, never completed. */
static char *
write_cut_short (const RtopRecordFormatInfo *info, const char *dir, GPtrArray *written, guint n)
{
  g_autofree char *path = file_name (dir, "crashed", info);
  g_autoptr(RtopRecordSink) sink = rtop_record_format_new_sink (info->id);
  g_autoptr(RtopRecordFile) file = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  file = rtop_record_file_create (path, NULL, (info->flags & RTOP_RECORD_FORMAT_COMPRESSED) != 0,
                                  &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      g_string_truncate (text, 0);
      rtop_record_sink_add (sink, g_ptr_array_index (written, i), text);
      rtop_record_file_append (file, text->str, text->len, RTOP_RECORD_FLUSH_SYNC, &error);
      g_assert_no_error (error);
    }
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  return g_strdup (rtop_record_file_get_partial_path (file));
}

static void
test_cut_short (gconstpointer data)
{
  const RtopRecordFormatInfo *info = data;
  g_autoptr(GPtrArray) written = make_snapshots ();
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-format-XXXXXX", NULL);
  g_autofree char *partial = NULL;
  g_autofree char *recovered = NULL;
  g_autofree char *again = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (info->sink);
  partial = write_cut_short (info, dir, written, 7);

  /* The reader loads the file as the crash left it. */
  rec = rtop_recording_load (partial, &error);
  g_assert_no_error (error);
  assert_holds (info, rec, written, 7);
  g_clear_object (&rec);

  recovered = rtop_recording_recover (partial, NULL, &error);
  if (info->reader->recover == NULL)
    {
      g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING);
      g_assert_null (recovered);
      g_assert_cmpstr (strstr (error->message, info->name), !=, NULL);
      g_unlink (partial);
      g_rmdir (dir);
      return;
    }
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (recovered, info->extension));
  g_assert_cmpuint (strlen (recovered), ==, strlen (partial) - strlen (RTOP_RECORD_PARTIAL_SUFFIX));
  rec = rtop_recording_load (recovered, &error);
  g_assert_no_error (error);
  g_assert_true (rtop_recording_is_complete (rec));
  assert_holds (info, rec, written, 7);

  /* Never over an existing file, and nothing left behind when refused. */
  again = rtop_recording_recover (partial, NULL, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_null (again);

  g_unlink (partial);
  g_unlink (recovered);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
add_row_tests (void)
{
  const RtopRecordFormatInfo *formats;
  guint n;

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *roundtrip = g_strdup_printf ("/recording/format/%s/roundtrip", formats[i].name);
      g_autofree char *cut_short = g_strdup_printf ("/recording/format/%s/cut-short", formats[i].name);
      g_autofree char *two_hosts = g_strdup_printf ("/recording/format/%s/two-hosts", formats[i].name);

      /* A read-only format has nothing to write, cut short or recover. */
      if (formats[i].sink == NULL)
        continue;
      g_test_add_data_func (roundtrip, &formats[i], test_recorder_roundtrip);
      g_test_add_data_func (two_hosts, &formats[i], test_two_hosts);
      g_test_add_data_func (cut_short, &formats[i], test_cut_short);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/recording/format/table", test_table);
  g_test_add_func ("/recording/format/list-names", test_list_names);
  add_row_tests ();
  return g_test_run ();
}
