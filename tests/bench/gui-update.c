/* gui-update: the whole window fed as the app is fed, for profiling.
 *
 *   gui-update [--ports N] [--updates N] [--interval-ms MS] [--history N]
 *              [--view overview|processes|events] [--memory-every N]
 *              [--churn N]
 *
 * An RtopWindow with N ports (16) receives one fixture snapshot every
 * interval (1000 ms), the rates of every port changing each time, and the
 * main loop runs as in the app: GTK paints only what was queued.  Before
 * the measured updates, --history snapshots (300: five minutes at 1 s) are
 * ingested at once so the sparklines are full.  Prints the main thread's
 * CPU per update and how many frames were painted; with --memory-every,
 * also resident memory and the heap in use every N updates (a soak of the
 * window alone: the same passes as an hour at 1 s, in minutes at a short
 * interval).  Meant to be run under
 * perf, callgrind, or a display that counts X11 requests
 * (tests/bench/x11-count.py); it needs a display and no RDMA.
 *
 * --churn N (0: none) churns as the vm soak does, each update: the last
 * port's device is gone for three updates in every seven (with its
 * removed/added events), N processes are replaced by new ones (new pids),
 * and one warning event is raised. */
#define _GNU_SOURCE
#include "config.h"

#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <gtk/gtk.h>

#include "gui-fixtures.h"
#include "gui-test-util.h"
#include "proc-status.h"
#include "rtop-history.h"
#include "rtop-window.h"

static double
thread_cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_THREAD, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void
print_memory (guint update)
{
  g_print ("memory update=%u rss_kb=%" G_GUINT64_FORMAT " heap_kb=%zu\n", update, bench_status_kb ("VmRSS:"),
           mallinfo2 ().uordblks / 1024);
}

static void
after_paint_cb (GdkFrameClock *clock, guint *frames)
{
  (*frames)++;
}

static guint churn = 0;

static RtopSnapshot *
next_snapshot (GuiPortSpec *ports, guint n, guint seq)
{
  RtopSnapshot *s;
  guint n_present = n;
  gboolean gone = FALSE, was_gone = FALSE;

  double k = seq;
  if (churn > 0 && n > 1)
    {
      gone = seq % 7 >= 4;
      was_gone = (seq - 1) % 7 >= 4;
      if (gone)
        n_present = n - 1;
    }
  for (guint i = 0; i < n; i++)
    {
      ports[i].tx_bps = 10e9 + 5e9 * sin (k / 7.0 + i);
      ports[i].rx_bps = 8e9 + 4e9 * cos (k / 9.0 + i);
      ports[i].tx_pps = floor (ports[i].tx_bps / 8 / 4096);
      ports[i].rx_pps = floor (ports[i].rx_bps / 8 / 4096);
    }
  s = gui_fixture_snapshot (seq, 1.0, ports, n_present);
  if (churn > 0)
    {
      if (gone != was_gone)
        {
          RtopEvent *e = gui_fixture_add_event (s, gone ? RTOP_SEVERITY_WARNING : RTOP_SEVERITY_INFO,
                                                ports[n - 1].device, 0,
                                                gone ? "device removed" : "device added");
          e->kind = gone ? RTOP_EVENT_DEVICE_REMOVED : RTOP_EVENT_DEVICE_ADDED;
        }
      gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, ports[0].device, 1, "retransmits rising");
      for (guint i = 0; i < churn; i++)
        {
          g_autofree char *comm = g_strdup_printf ("job%u", i);

          gui_fixture_add_process (s, (gint32) (100000 + seq * churn + i), comm, "user",
                                   ports[i % n_present].device, 300, 4, 1 << 20);
        }
    }
  rtop_snapshot_seal (s);
  return s;
}

int
main (int argc, char *argv[])
{
  guint n_ports = 16, updates = 30, interval_ms = 1000, history_len = 300, frames = 0, memory_every = 0;
  const char *view = NULL;
  g_autoptr(RtopSession) session = NULL;
  RtopWindow *window;
  GuiPortSpec *ports;
  char **names;
  double cpu = 0;

  for (int i = 1; i + 1 < argc; i += 2)
    {
      guint v = (guint) strtoul (argv[i + 1], NULL, 10);

      if (g_str_equal (argv[i], "--view"))
        view = argv[i + 1];
      else if (g_str_equal (argv[i], "--ports"))
        n_ports = CLAMP (v, 1, 256);
      else if (g_str_equal (argv[i], "--updates"))
        updates = v;
      else if (g_str_equal (argv[i], "--interval-ms"))
        interval_ms = CLAMP (v, 10, 60000);
      else if (g_str_equal (argv[i], "--history"))
        history_len = v;
      else if (g_str_equal (argv[i], "--memory-every"))
        memory_every = v;
      else if (g_str_equal (argv[i], "--churn"))
        churn = MIN (v, 1000);
    }
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  session = rtop_session_new (NULL);
  window = rtop_window_new (NULL, session, NULL);
  ports = g_new0 (GuiPortSpec, n_ports);
  names = g_new0 (char *, n_ports + 1);
  for (guint i = 0; i < n_ports; i++)
    {
      names[i] = g_strdup_printf ("rxe%u", i);
      ports[i] = (GuiPortSpec) { names[i], 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, FALSE };
    }
  gtk_window_present (GTK_WINDOW (window));
  gui_test_run_for (500);
  if (view)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", view);
  for (guint seq = 1; seq <= history_len; seq++)
    {
      RtopSnapshot *s = next_snapshot (ports, n_ports, seq);

      rtop_history_ingest (rtop_session_get_history (session), s);
      rtop_snapshot_unref (s);
    }
  gui_test_run_for (interval_ms);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                    G_CALLBACK (after_paint_cb), &frames);
  g_printerr ("gui-update: measuring\n");
  for (guint u = 0; u < updates; u++)
    {
      double t0 = thread_cpu_seconds ();
      RtopSnapshot *s = next_snapshot (ports, n_ports, history_len + 1 + u);

      rtop_history_ingest (rtop_session_get_history (session), s);
      rtop_snapshot_unref (s);
      gui_test_run_for (interval_ms);
      cpu += thread_cpu_seconds () - t0;
      if (memory_every > 0 && (u % memory_every == 0 || u + 1 == updates))
        print_memory (u + 1);
    }
  g_printerr ("gui-update: done\n");
  g_print ("ports=%u updates=%u interval_ms=%u main_thread_ms_per_update=%.2f frames=%u\n",
           n_ports, updates, interval_ms, updates ? cpu * 1e3 / updates : 0, frames);
  gtk_window_destroy (GTK_WINDOW (window));
  g_strfreev (names);
  g_free (ports);
  return 0;
}
