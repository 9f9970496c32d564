/* sample-cost: the CPU time of one rdmatop sampling pass.
 *
 * Runs rtop_collector_sample() (the pass the app, the CLI and the recorder
 * all run) N times back to back on the live kernel and prints the CPU time
 * of each pass: the median, the spread and the mean.  CPU time is this
 * process's user + system time (CLOCK_PROCESS_CPUTIME_ID); netlink dumps are
 * built by the kernel in the context of the process that reads them, so the
 * system part includes the kernel's work for the replies.  Releasing the
 * snapshot is part of the pass: the app does it when the next one arrives.
 *
 * The number means something only beside a baseline measured on the same
 * machine in the same run (tests/bench/nl-floor, `rdma -j ...`):
 * tests/bench/run-benchmarks.sh prints the ratios.
 *
 * Usage: sample-cost [--passes N] [--warmup N] [--no-processes]
 *                    [--sysfs-root DIR] [--proc-root DIR]
 *
 * The last line is machine-readable (key=value, microseconds).  Exit status
 * 0, 1 when the collector cannot be opened or a pass fails as a whole,
 * 2 on bad arguments.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "config.h"

#include <dirent.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "rtop-collector.h"
#include "rtop-error.h"
#include "rtop-snapshot.h"

#define MAX_PASSES 1000000

typedef struct {
  guint devices;
  guint ports;
  guint counters;            /* over all ports and devices */
  guint min_port_counters;   /* the port with the fewest counters */
  guint max_port_counters;
  guint port_errors;
  guint processes;
  guint64 qps;
} SnapshotSize;

static double
cpu_now_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
timeval_us (const struct timeval *tv)
{
  return tv->tv_sec * 1e6 + tv->tv_usec;
}

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static double
percentile (const double *sorted, guint n, double p)
{
  guint rank = (guint) (p / 100.0 * n + 0.5);

  return sorted[CLAMP (rank, 1u, n) - 1];
}

static guint
count_open_fds (void)
{
  DIR *dir = opendir ("/proc/self/fd");
  struct dirent *e;
  guint n = 0;

  if (dir == NULL)
    return 0;
  while ((e = readdir (dir)) != NULL)
    if (e->d_name[0] != '.')
      n++;
  closedir (dir);
  return n > 0 ? n - 1 : 0;   /* not the one opendir holds */
}

static void
measure_snapshot (const RtopSnapshot *snap, SnapshotSize *size)
{
  *size = (SnapshotSize) { .devices = snap->devices->len, .min_port_counters = G_MAXUINT };
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      size->counters += dev->counters->len;
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);

          size->ports++;
          size->counters += port->counters->len;
          size->min_port_counters = MIN (size->min_port_counters, port->counters->len);
          size->max_port_counters = MAX (size->max_port_counters, port->counters->len);
          if (port->error != NULL)
            size->port_errors++;
        }
    }
  if (size->ports == 0)
    size->min_port_counters = 0;
  size->processes = snap->processes->len;
  for (guint i = 0; i < snap->processes->len; i++)
    size->qps += ((const RtopProcess *) g_ptr_array_index (snap->processes, i))->qps;
}

/* One pass, timed from before the pass to after its snapshot is released. */
static double
timed_pass (RtopCollector *collector, SnapshotSize *size, RtopStatus *status,
            char **status_message)
{
  double t0 = cpu_now_us ();
  RtopSnapshot *snap = rtop_collector_sample (collector, 1.0);
  double t1;

  if (size != NULL)
    {
      /* Counting is not part of the pass: keep it out of the timing. */
      t1 = cpu_now_us ();
      measure_snapshot (snap, size);
      t0 += cpu_now_us () - t1;
    }
  *status = snap->status;
  if (snap->status != RTOP_STATUS_OK && *status_message == NULL)
    *status_message = g_strdup (snap->status_message);
  rtop_snapshot_unref (snap);
  return cpu_now_us () - t0;
}

static void
print_result (const double *sorted, guint n, const SnapshotSize *size,
              double user_us, double sys_us, guint fds)
{
  double sum = 0;

  for (guint i = 0; i < n; i++)
    sum += sorted[i];
  g_print ("sample-cost: %u passes, %u devices, %u ports, %u counters "
           "(%u to %u per port), %u port errors, %u processes, %" G_GUINT64_FORMAT " QPs, "
           "%u open fds\n",
           n, size->devices, size->ports, size->counters, size->min_port_counters,
           size->max_port_counters, size->port_errors, size->processes, size->qps, fds);
  g_print ("cpu_us_median=%.1f cpu_us_p10=%.1f cpu_us_p90=%.1f cpu_us_min=%.1f cpu_us_max=%.1f "
           "cpu_us_per_pass=%.1f user_us_per_pass=%.1f sys_us_per_pass=%.1f "
           "devices=%u ports=%u counters=%u qps=%" G_GUINT64_FORMAT " processes=%u fds=%u\n",
           percentile (sorted, n, 50), percentile (sorted, n, 10), percentile (sorted, n, 90),
           sorted[0], sorted[n - 1], sum / n, user_us / n, sys_us / n,
           size->devices, size->ports, size->counters, size->qps, size->processes, fds);
}

int
main (int argc, char **argv)
{
  int passes = 200, warmup = 3;
  gboolean no_processes = FALSE;
  g_autofree char *sysfs_root = NULL, *proc_root = NULL;
  GOptionEntry entries[] = {
    { "passes", 'n', 0, G_OPTION_ARG_INT, &passes, "Timed passes (default 200)", "N" },
    { "warmup", 'w', 0, G_OPTION_ARG_INT, &warmup, "Untimed passes first (default 3)", "N" },
    { "no-processes", 0, 0, G_OPTION_ARG_NONE, &no_processes, "Skip the RES_* dumps and /proc", NULL },
    { "sysfs-root", 0, 0, G_OPTION_ARG_FILENAME, &sysfs_root, "sysfs root (default /sys)", "DIR" },
    { "proc-root", 0, 0, G_OPTION_ARG_FILENAME, &proc_root, "proc root (default /proc)", "DIR" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- CPU time of one rdmatop sampling pass");
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopCollector) collector = NULL;
  g_autofree double *times = NULL;
  RtopCollectorOptions options = { 0 };
  SnapshotSize size = { 0 };
  RtopStatus status = RTOP_STATUS_OK;
  g_autofree char *status_message = NULL;
  struct rusage before, after;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 1)
    {
      g_printerr ("sample-cost: %s\n", error ? error->message : "unexpected argument");
      return 2;
    }
  if (passes < 1 || passes > MAX_PASSES || warmup < 0 || warmup > MAX_PASSES)
    {
      g_printerr ("sample-cost: --passes needs 1 to %d, --warmup 0 to %d\n", MAX_PASSES, MAX_PASSES);
      return 2;
    }

  options.sysfs_root = sysfs_root;
  options.proc_root = proc_root;
  options.no_processes = no_processes;
  collector = rtop_collector_new (&options, &error);
  if (collector == NULL)
    {
      g_printerr ("sample-cost: %s\n", error->message);
      return 1;
    }

  /* The first passes open the sysfs counter files and fill the caches. */
  for (int i = 0; i < warmup; i++)
    timed_pass (collector, NULL, &status, &status_message);

  times = g_new (double, passes);
  getrusage (RUSAGE_SELF, &before);
  for (int i = 0; i < passes; i++)
    {
      times[i] = timed_pass (collector, i == passes - 1 ? &size : NULL, &status,
                             &status_message);
      if (status != RTOP_STATUS_OK)
        {
          g_printerr ("sample-cost: pass %d failed: %s\n", i + 1,
                      status_message ? status_message : "no message");
          return 1;
        }
    }
  getrusage (RUSAGE_SELF, &after);

  qsort (times, passes, sizeof *times, compare_doubles);
  print_result (times, passes, &size,
                timeval_us (&after.ru_utime) - timeval_us (&before.ru_utime),
                timeval_us (&after.ru_stime) - timeval_us (&before.ru_stime),
                count_open_fds ());
  return 0;
}
