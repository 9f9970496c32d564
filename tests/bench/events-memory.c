/* events-memory.c: what the window's event log costs in memory, and that
 * it stops growing at its bound (RTOP_HISTORY_MAX_EVENTS).
 *
 * Feeds an RtopHistory one snapshot a second, each with one event of the
 * kinds a churning host raises (a device removed and re-added, a port
 * down), and prints the heap in use (mallinfo2) every so many events: the
 * bytes per event, and the plateau once the log holds its bound.  Read
 * beside a soak's RSS slope: events per hour times bytes per event is how
 * much of the slope the log explains, and the plateau is where it ends.
 * No display, no RDMA.  Usage: events-memory [EVENTS] */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "rtop-history.h"

static const struct {
  RtopEventKind kind;
  const char *message;
} churn[] = {
  { RTOP_EVENT_DEVICE_REMOVED, "rxe2 was removed: its ports are no longer shown" },
  { RTOP_EVENT_DEVICE_ADDED, "rxe2 appeared (provider rxe, 1 port)" },
  { RTOP_EVENT_PORT_DOWN, "rxe2 port 1 went down (ACTIVE to DOWN)" },
};

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 3 * RTOP_HISTORY_MAX_EVENTS;
  g_autoptr(RtopHistory) history = rtop_history_new ();
  size_t base = mallinfo2 ().uordblks;

  if (n == 0 || n > 10000000)
    {
      fprintf (stderr, "usage: %s [EVENTS (1 to 10000000)]\n", argv[0]);
      return 2;
    }
  printf ("%10s %12s %10s\n", "events", "heap kB", "B/event");
  for (guint i = 1; i <= n; i++)
    {
      RtopSnapshot *snap = rtop_snapshot_new ();
      size_t used;

      snap->sequence = i;
      snap->monotonic_us = snap->realtime_us = (gint64) i * G_USEC_PER_SEC;
      snap->interval_s = 1;
      g_ptr_array_add (snap->events, rtop_event_new (churn[i % G_N_ELEMENTS (churn)].kind, RTOP_SEVERITY_WARNING,
                                                     "rxe2", 1, churn[i % G_N_ELEMENTS (churn)].message));
      rtop_snapshot_seal (snap);
      rtop_history_ingest (history, snap);
      rtop_snapshot_unref (snap);
      if (i % (RTOP_HISTORY_MAX_EVENTS / 4) == 0 || i == n)
        {
          used = mallinfo2 ().uordblks - base;
          printf ("%10u %12zu %10.0f\n", i, used / 1024,
                  (double) used / MIN (i, (guint) RTOP_HISTORY_MAX_EVENTS));
        }
    }
  return 0;
}
