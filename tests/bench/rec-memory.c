/* rec-memory.c: memory and size of a long recording (issue 5).
 *
 * Records 16 busy ports at 10 samples/s for one simulated hour (36,000
 * snapshots fed as fast as the writer takes them, timestamps advanced
 * synthetically, realistic metrics from rec-synth) as JSON and as JSON.gz,
 * and prints resident memory (VmRSS, VmHWM from /proc/self/status) before
 * and after, the file size per port-hour, and what loading the hour back
 * costs.  Usage: rec-memory [SNAPSHOTS] [DIR] */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "proc-status.h"
#include "../support/rec-synth.h"
#include "rtop-recorder-private.h"
#include "rtop-recording-private.h"

#define N_PORTS 16

static void
record (const char *dir, RtopRecordFormat format, gboolean busy_all, guint n, char **path_out)
{
  RecSynthOptions options = { .n_devices = N_PORTS, .interval_s = 0.1, .busy_all = busy_all,
                              .processes = TRUE, .events = TRUE, .seed = 42 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *name = g_strconcat ("hour", rtop_record_format_get_extension (format), NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  guint64 rss_start, rss_end, rss_closed;
  GStatBuf st;
  gint64 t0;

  g_unlink (path);
  rss_start = bench_status_kb ("VmRSS:");
  t0 = g_get_monotonic_time ();
  recorder = rtop_recorder_new (path, format, &error);
  if (recorder == NULL)
    g_error ("%s", error->message);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);

      /* As fast as the writer goes, without overrunning its queue. */
      while (rtop_recorder_get_queued (recorder) > 8)
        g_usleep (200);
      rtop_recorder_add (recorder, snap);
      if (i % 64 == 0)
        while (g_main_context_iteration (NULL, FALSE))
          ;
    }
  while (rtop_recorder_get_queued (recorder) > 0)
    g_usleep (1000);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  rss_end = bench_status_kb ("VmRSS:");
  if (!rtop_recorder_close (recorder, &error))
    g_error ("%s", error->message);
  rss_closed = bench_status_kb ("VmRSS:");
  g_assert (g_stat (path, &st) == 0);

  printf ("%-8s snapshots %u (%u ports, %s, %.1f simulated hours) in %.1f s, dropped %" G_GUINT64_FORMAT "\n",
          rtop_record_format_to_string (format), n, N_PORTS,
          busy_all ? "all busy" : "1 busy + 15 idle", n / 36000.0,
          (g_get_monotonic_time () - t0) / 1e6, rtop_recorder_get_dropped (recorder));
  printf ("         VmRSS start %" G_GUINT64_FORMAT " kB, after recording %" G_GUINT64_FORMAT
          " kB (growth %+.2f MiB), after close %" G_GUINT64_FORMAT " kB\n",
          rss_start, rss_end, ((double) rss_end - rss_start) / 1024.0, rss_closed);
  printf ("         file %.1f MB = %.2f MB per port-hour (%.0f bytes per port-sample)\n",
          st.st_size / 1e6, st.st_size / 1e6 / N_PORTS / (n / 36000.0),
          (double) st.st_size / N_PORTS / n);
  *path_out = g_steal_pointer (&path);
}

static void
load (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  guint64 rss_before = bench_status_kb ("VmRSS:");
  gint64 t0 = g_get_monotonic_time ();

  rec = rtop_recording_load (path, &error);
  if (rec == NULL)
    g_error ("%s", error->message);
  printf ("load     %s: %u snapshots (merge factor %u, interval %.1f s) in %.1f s, "
          "VmRSS %+.1f MiB\n", strrchr (path, '/') + 1, rtop_recording_get_n_snapshots (rec),
          rtop_recording_get_merge_factor (rec), rtop_recording_get_interval (rec),
          (g_get_monotonic_time () - t0) / 1e6,
          ((double) bench_status_kb ("VmRSS:") - rss_before) / 1024.0);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 36000;
  g_autofree char *dir = argc > 2 ? g_strdup (argv[2]) : g_dir_make_tmp ("rdmatop-bench-XXXXXX", NULL);
  g_autofree char *json = NULL;
  g_autofree char *gz = NULL;
  g_autofree char *mixed = NULL;

  printf ("rec-memory: VmRSS at start %" G_GUINT64_FORMAT " kB\n", bench_status_kb ("VmRSS:"));
  record (dir, RTOP_RECORD_FORMAT_JSON, TRUE, n, &json);
  record (dir, RTOP_RECORD_FORMAT_JSON_GZ, TRUE, n, &gz);
  /* Idle ports cost little: unchanged values are not repeated. */
  g_unlink (json);
  record (dir, RTOP_RECORD_FORMAT_JSON, FALSE, n, &mixed);
  printf ("peak     VmHWM %" G_GUINT64_FORMAT " kB\n", bench_status_kb ("VmHWM:"));
  load (gz);
  g_unlink (mixed);
  g_unlink (gz);
  if (argc <= 2)
    g_rmdir (dir);
  return 0;
}
