/* rtop-startup.c: start-up phases for tests/bench (see the header). */
#include "config.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rtop-startup.h"

gboolean
rtop_startup_reporting (void)
{
  static int reporting = -1;

  if (reporting < 0)
    reporting = g_strcmp0 (g_getenv ("RDMATOP_REPORT_STARTUP"), "1") == 0;
  return reporting;
}

/* Milliseconds since boot at which this process started, or -1: read once. */
static double
process_start_ms (void)
{
  static double start_ms = -2;
  g_autofree char *stat = NULL;
  const char *p;
  guint64 start = 0;

  if (start_ms > -2)
    return start_ms;
  start_ms = -1;
  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL) ||
      (p = strrchr (stat, ')')) == NULL)
    return start_ms;
  p++;
  /* Fields after comm's last ')' start at 3; the start time is field 22. */
  for (int field = 3; field <= 22 && p != NULL; field++)
    {
      while (*p == ' ')
        p++;
      if (field == 22)
        start = g_ascii_strtoull (p, NULL, 10);
      p = strchr (p, ' ');
    }
  start_ms = start * 1000.0 / sysconf (_SC_CLK_TCK);
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
