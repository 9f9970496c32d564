/* rtop-memory-report.c: RDMATOP_REPORT_MEMORY (see the header). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if HAVE_MALLINFO2
#include <malloc.h>
#endif

#include "rtop-memory-report.h"

/* Resident kB from /proc/self/statm (its second field, in pages), or 0. */
static guint64
resident_kb (void)
{
  char buf[128];
  ssize_t n;
  int fd;
  guint64 pages;
  char *end;
  const char *p;

  fd = open ("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  do
    n = read (fd, buf, sizeof buf - 1);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  p = strchr (buf, ' ');
  if (p == NULL)
    return 0;
  errno = 0;
  pages = g_ascii_strtoull (p + 1, &end, 10);
  if (errno != 0 || end == p + 1)
    return 0;
  return pages * (guint64) sysconf (_SC_PAGESIZE) / 1024;
}

static gpointer
report_thread (gpointer data)
{
  gulong period_us = GPOINTER_TO_SIZE (data);
  gint64 start = g_get_monotonic_time ();

  for (;;)
    {
      double s = (g_get_monotonic_time () - start) / 1e6;
      guint64 rss = resident_kb ();
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
