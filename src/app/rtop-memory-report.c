/* rtop-memory-report.c: RDMATOP_REPORT_MEMORY (see the header). */
#include "config.h"

#include <errno.h>
#include <unistd.h>
#if HAVE_MALLINFO2
#include <malloc.h>
#endif

#include "rtop-memory-report.h"
#include "rtop-procfs.h"

static gpointer
report_thread (gpointer data)
{
  gulong period_us = GPOINTER_TO_SIZE (data);
  gint64 start = g_get_monotonic_time ();
  /* The collector's /proc reader: it keeps this process's stat open and
   * reads its resident pages at each lookup. */
  RtopProcCache *procs = rtop_proc_cache_new ("/proc");

  for (;;)
    {
      double s = (g_get_monotonic_time () - start) / 1e6;
      const RtopProcInfo *self;
      guint64 rss;

      rtop_proc_cache_begin_pass (procs);
      self = rtop_proc_cache_lookup (procs, getpid ());
      rss = self != NULL ? self->rss_bytes / 1024 : 0;
#if HAVE_MALLINFO2
      struct mallinfo2 mi = mallinfo2 ();

      g_printerr ("rdmatop: memory s=%.1f rss-kb=%" G_GUINT64_FORMAT
                  " heap-used-kb=%zu heap-free-kb=%zu\n",
                  s, rss, (mi.uordblks + mi.hblkhd) / 1024, mi.fordblks / 1024);
#else
      g_printerr ("rdmatop: memory s=%.1f rss-kb=%" G_GUINT64_FORMAT "\n", s, rss);
#endif
      g_usleep (period_us);
    }
  return NULL;
}

void
rtop_memory_report_start (void)
{
  static gsize started = 0;
  const char *value;
  char *end = NULL;
  double seconds;

  if (!g_once_init_enter (&started))
    return;
  value = g_getenv ("RDMATOP_REPORT_MEMORY");
  if (value != NULL && *value != '\0')
    {
      errno = 0;
      seconds = g_ascii_strtod (value, &end);
      if (errno != 0 || end == value || *end != '\0' || !(seconds >= 0.1 && seconds <= 3600))
        g_printerr ("rdmatop: RDMATOP_REPORT_MEMORY must be a number of seconds "
                    "from 0.1 to 3600, not “%s”; no memory report\n", value);
      else
        g_thread_unref (g_thread_new ("memory-report", report_thread,
                                      GSIZE_TO_POINTER ((gsize) (seconds * 1e6))));
    }
  g_once_init_leave (&started, 1);
}
