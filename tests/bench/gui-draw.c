/* gui-draw: what drawing costs in the GTK app.
 *
 * 1. One RtopGraph (800 x 220) over a series holding 60 minutes at 10
 *    samples/s (36,000 samples): time to draw a frame (widget snapshot plus
 *    rendering the node to pixels with the window's renderer) with a
 *    60-minute window versus a 1-minute window.  The target is a ratio
 *    within 1.5: the pyramid makes a frame O(pixel columns).
 * 2. The whole window with 16 ports at a 1 s interval: CPU time of one
 *    update (ingest a snapshot into the models, then draw the frame), given
 *    as a share of the interval, i.e. the app's own CPU use without the
 *    collector (tests/bench/sample-cost measures that part).
 *
 * Needs a display (Xvfb is fine).  Prints medians; no pass/fail. */
#include "config.h"

#include <math.h>
#include <sys/resource.h>
#include <adwaita.h>

#include "../support/gui-fixtures.h"
#include "../support/gui-test-util.h"
#include "rtop-graph-private.h"
#include "rtop-history.h"
#include "rtop-series.h"
#include "rtop-window.h"

#define FRAMES 60

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v, guint n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* One frame of a widget: its snapshot, then the node rendered to pixels. */
static double
draw_frame (GtkWidget *widget, GskRenderer *renderer)
{
  double t0 = cpu_seconds ();
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  GdkTexture *texture;
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);

  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  g_object_unref (texture);
  gsk_render_node_unref (node);
  return cpu_seconds () - t0;
}

static double
graph_frame_ms (GtkWidget *graph, GskRenderer *renderer, double window_s, guint *cells)
{
  double times[FRAMES];
  RtopGraphFrameStats stats;

  rtop_graph_set_window (RTOP_GRAPH (graph), window_s);
  draw_frame (graph, renderer);   /* warm caches */
  for (guint i = 0; i < FRAMES; i++)
    times[i] = draw_frame (graph, renderer);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  *cells = stats.cells_read;
  return median (times, FRAMES) * 1e3;
}

static void
bench_graph (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *graph = rtop_graph_new ();
  g_autoptr(RtopSeries) series = rtop_series_new (2, rtop_series_capacity_for_interval (0.1));
  double ms_60, ms_1;
  guint cells_60, cells_1;

  for (guint i = 0; i < 36000; i++)
    {
      double v[2] = { 5e9 + 4e9 * sin (i / 300.0) + (i % 17) * 1e8, 3e9 + 2e9 * cos (i / 170.0) };
      rtop_series_append (series, (gint64) i * 100000, (gint64) i * 100000, v);
    }
  rtop_graph_set_series (RTOP_GRAPH (graph), series);
  rtop_graph_add_channel (RTOP_GRAPH (graph), 0, "TX", "rtop_tx_color");
  rtop_graph_add_channel (RTOP_GRAPH (graph), 1, "RX", "rtop_rx_color");
  gtk_widget_set_size_request (graph, 800, 220);
  gtk_window_set_child (GTK_WINDOW (window), graph);
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_painted (window);

  ms_60 = graph_frame_ms (graph, gtk_native_get_renderer (GTK_NATIVE (window)), 3600, &cells_60);
  ms_1 = graph_frame_ms (graph, gtk_native_get_renderer (GTK_NATIVE (window)), 60, &cells_1);
  g_print ("graph %dx%d, 36000 samples per channel, 2 channels, renderer %s\n",
           gtk_widget_get_width (graph), gtk_widget_get_height (graph),
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))));
  g_print ("draw 60 min window: %.3f ms/frame (%u pyramid cells read)\n", ms_60, cells_60);
  g_print ("draw  1 min window: %.3f ms/frame (%u pyramid cells read)\n", ms_1, cells_1);
  g_print ("ratio 60 min / 1 min: %.2f (target <= 1.5)\n", ms_60 / ms_1);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
bench_window (void)
{
  g_autoptr(RtopSession) session = rtop_session_new (NULL);
  RtopHistory *history = rtop_session_get_history (session);
  RtopWindow *window = rtop_window_new (NULL, session, NULL);
  GuiPortSpec ports[16];
  char names[16][16];
  double times[FRAMES];

  for (guint i = 0; i < 16; i++)
    {
      g_snprintf (names[i], sizeof names[i], "mlx5_%u", i);
      ports[i] = (GuiPortSpec) { names[i], 1, "mlx5", "roce", 4, 200, 0, 0, 0, 0, 0, 0, 0, TRUE };
    }
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_painted (GTK_WIDGET (window));
  for (guint seq = 1; seq <= 300 + FRAMES; seq++)
    {
      double t0;
      RtopSnapshot *s;

      for (guint i = 0; i < 16; i++)
        {
          ports[i].tx_bps = 100e9 + 50e9 * sin (seq / 10.0 + i);
          ports[i].rx_bps = 80e9 + 40e9 * cos (seq / 13.0 + i);
          ports[i].tx_pps = ports[i].tx_bps / 8 / 4096;
          ports[i].rx_pps = ports[i].rx_bps / 8 / 4096;
        }
      s = gui_fixture_snapshot (seq, 1.0, ports, 16);
      rtop_snapshot_seal (s);
      t0 = cpu_seconds ();
      rtop_history_ingest (history, s);
      gui_test_wait_painted (GTK_WIDGET (window));   /* layout, snapshot and rendering */
      if (seq > 300)
        times[seq - 301] = cpu_seconds () - t0;
      rtop_snapshot_unref (s);
    }
  g_print ("window, 16 ports, 5 min history, renderer %s: %.2f ms CPU per update "
           "(models + layout + paint) = %.2f %% of one core at a 1 s interval\n",
           G_OBJECT_TYPE_NAME (gtk_native_get_renderer (GTK_NATIVE (window))),
           median (times, FRAMES) * 1e3, median (times, FRAMES) * 100);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  /* No accessibility bus needed to measure drawing. */
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  adw_init ();   /* as the app: libadwaita's styles */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  bench_graph ();
  bench_window ();
  return 0;
}
