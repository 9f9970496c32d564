/* rtop-startup.c: start-up phases for tests/bench (see the header). */
#include "config.h"

#include <time.h>
#include <unistd.h>

#include "rtop-procfs.h"
#include "rtop-startup.h"

gboolean
rtop_startup_reporting (void)
{
  static int reporting = -1;

  if (reporting < 0)
    reporting = g_strcmp0 (g_getenv ("RDMATOP_REPORT_STARTUP"), "1") == 0;
  return reporting;
}

/* Milliseconds since boot at which this process started, or -1: read once,
 * by the collector's /proc reader (stat field 22, in clock ticks). */
static double
process_start_ms (void)
{
  static double start_ms = -2;
  g_autoptr(RtopProcCache) cache = NULL;
  const RtopProcInfo *self;

  if (start_ms > -2)
    return start_ms;
  cache = rtop_proc_cache_new ("/proc");
  self = rtop_proc_cache_lookup (cache, getpid ());
  start_ms = self != NULL ? self->start_time * 1000.0 / sysconf (_SC_CLK_TCK) : -1;
  return start_ms;
}

double
rtop_startup_elapsed_ms (void)
{
  struct timespec ts;
  double start = process_start_ms ();

  if (start < 0)
    return -1;
  clock_gettime (CLOCK_BOOTTIME, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6 - start;
}

void
rtop_startup_mark (const char *phase)
{
  if (rtop_startup_reporting ())
    g_printerr ("rdmatop: startup-phase %s ms=%.0f\n", phase, rtop_startup_elapsed_ms ());
}
