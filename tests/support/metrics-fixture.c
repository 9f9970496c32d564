/* metrics-fixture.c: the exporter's real formatter and HTTP server over
 * synthetic mlx5-like ports, for tests that need no RDMA hardware.
 *
 *   metrics-fixture dump om|prom [PORTS]     two passes, the exposition on stdout
 *   metrics-fixture bench [PORTS] [N]        CPU time of one update and of one
 *                                            format, the mean over N passes
 *   metrics-fixture serve [PORTS] [MAX_CONNECTIONS IDLE_S LIFETIME_S]
 *       serves on 127.0.0.1 (a free port, printed as the first line on
 *       stdout), a new pass every 0.5 s, until SIGTERM or SIGINT. */
#include "config.h"

#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "metrics-synth.h"
#include "rtop-metrics-server.h"

typedef struct {
  MetricsSynth *synth;
  RtopMetricsServer *server;
  guint ports;
  guint pass;
} Fixture;

static guint
arg_uint (int argc, char **argv, int i, guint fallback)
{
  return argc > i ? (guint) strtoul (argv[i], NULL, 10) : fallback;
}

static int
dump (RtopExposition format, guint ports)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  RtopOpenMetricsOptions options = { .host = "fixture", .version = PACKAGE_VERSION };
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (&options);
  g_autoptr(GBytes) text = NULL;
  gsize len;
  const char *data;

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, ports, pass, pass + 1.0);
      rtop_openmetrics_update (om, snap, 0.002);
    }
  text = rtop_openmetrics_format (om, format, NULL);
  data = g_bytes_get_data (text, &len);
  return fwrite (data, 1, len, stdout) == len ? 0 : 1;
}

static double
cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What a scrape of a new pass costs the exporter beyond HTTP: the totals'
 * update (once per pass) and the formatting (once per pass and format). */
static int
bench (guint ports, guint n)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  double update = 0, format = 0;
  gsize bytes = 0;

  for (guint pass = 0; pass < n + 1; pass++)
    {
      g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, ports, pass, pass + 1.0);
      g_autoptr(GBytes) text = NULL;
      double t0 = cpu_s (), t1, t2;

      rtop_openmetrics_update (om, snap, 0.002);
      t1 = cpu_s ();
      text = rtop_openmetrics_format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
      t2 = cpu_s ();
      if (pass == 0)
        continue;   /* the first pass builds the state */
      update += t1 - t0;
      format += t2 - t1;
      bytes = g_bytes_get_size (text);
    }
  printf ("ports=%u passes=%u update_us=%.1f format_us=%.1f bytes=%" G_GSIZE_FORMAT "\n",
          ports, n, update / n * 1e6, format / n * 1e6, bytes);
  return 0;
}

static gboolean
tick_cb (gpointer data)
{
  Fixture *f = data;
  g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (f->synth, f->ports, f->pass,
                                                   g_get_monotonic_time () / 1e6);

  f->pass++;
  rtop_metrics_server_push (f->server, snap);
  return G_SOURCE_CONTINUE;
}

static gboolean
quit_cb (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

static int
serve (int argc, char **argv)
{
  RtopMetricsServerLimits limits = {
    arg_uint (argc, argv, 3, 0), arg_uint (argc, argv, 4, 0), arg_uint (argc, argv, 5, 0),
  };
  Fixture f = { metrics_synth_new (), rtop_metrics_server_new (NULL, &limits),
                arg_uint (argc, argv, 2, 16), 0 };
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;

  if (!rtop_metrics_server_listen (f.server, "127.0.0.1:0", &error))
    {
      g_printerr ("metrics-fixture: %s\n", error->message);
      return 1;
    }
  printf ("%u\n", rtop_metrics_server_get_port (f.server));
  fflush (stdout);
  tick_cb (&f);
  g_timeout_add (500, tick_cb, &f);
  g_unix_signal_add (SIGTERM, quit_cb, loop);
  g_unix_signal_add (SIGINT, quit_cb, loop);
  g_main_loop_run (loop);
  g_object_unref (f.server);
  metrics_synth_free (f.synth);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 3 && g_str_equal (argv[1], "dump"))
    return dump (g_str_equal (argv[2], "prom") ? RTOP_EXPOSITION_PROMETHEUS
                                               : RTOP_EXPOSITION_OPENMETRICS,
                 arg_uint (argc, argv, 3, 16));
  if (argc >= 2 && g_str_equal (argv[1], "bench"))
    return bench (arg_uint (argc, argv, 2, 16), MAX (arg_uint (argc, argv, 3, 1000), 1));
  if (argc >= 2 && g_str_equal (argv[1], "serve"))
    return serve (argc, argv);
  g_printerr ("usage: metrics-fixture dump om|prom [PORTS] | serve [PORTS] [MAXCONN IDLE LIFETIME]\n");
  return 2;
}
