/* test-gui-graph.c: the series ring buffer and its min/max pyramid, number
 * formatting, and the RtopGraph widget drawn through GtkSnapshot. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <gtk/gtk.h>

#include "support/gui-test-util.h"
#include "rtop-format.h"
#include "rtop-graph-private.h"
#include "rtop-series-private.h"

static double
value_at (guint64 i)
{
  /* Deterministic, varied, with some gaps (NAN) like first samples. */
  if (i % 97 == 13)
    return NAN;
  return (double) ((i * 2654435761u) % 1000) + (i % 7) * 0.25;
}

static RtopSeries *
filled_series (guint capacity, guint n, gint64 step_us)
{
  RtopSeries *s = rtop_series_new (2, capacity);

  for (guint i = 0; i < n; i++)
    {
      double v[2] = { value_at (i), 2 * value_at (i + 5) };

      rtop_series_append (s, (gint64) i * step_us, 1000 + (gint64) i * step_us, v);
    }
  return s;
}

static void
test_ring_bounded (void)
{
  g_autoptr(RtopSeries) s = filled_series (100, 550, 1000);
  gint64 first, last;
  double v;
  gint64 t;

  g_assert_cmpuint (rtop_series_get_length (s), ==, 100);
  g_assert_true (rtop_series_get_time_range (s, &first, &last));
  g_assert_cmpint (first, ==, 450 * 1000);
  g_assert_cmpint (last, ==, 549 * 1000);
  g_assert_cmpfloat (rtop_series_get_last (s, 0), ==, (float) value_at (549));
  g_assert_true (rtop_series_sample_at (s, 0, 500 * 1000 + 400, &t, &v));
  g_assert_cmpint (t, ==, 500 * 1000);
  g_assert_true (rtop_series_sample_at (s, 0, 500 * 1000 + 600, &t, &v));
  g_assert_cmpint (t, ==, 501 * 1000);
  g_assert_cmpint (rtop_series_to_realtime (s, 500), ==, 1500);
  /* Over empty history, before the first sample or after the last, no
   * sample is "at" that time. */
  g_assert_false (rtop_series_sample_at (s, 0, 100 * 1000, &t, &v));
  g_assert_false (rtop_series_sample_at (s, 0, 600 * 1000, &t, &v));
  g_assert_true (rtop_series_sample_at (s, 0, 449 * 1000 + 200, &t, &v));
  g_assert_cmpint (t, ==, 450 * 1000);
}

/* A gap in the history (sampling paused) is empty too. */
static void
test_sample_at_gap (void)
{
  g_autoptr(RtopSeries) s = rtop_series_new (1, 100);
  double v = 1;
  gint64 t;

  for (gint64 i = 0; i < 5; i++)
    rtop_series_append (s, i * 1000, i * 1000, &v);
  for (gint64 i = 0; i < 5; i++)
    rtop_series_append (s, 60000 + i * 1000, 60000 + i * 1000, &v);
  g_assert_true (rtop_series_sample_at (s, 0, 4400, &t, &v));
  g_assert_cmpint (t, ==, 4000);
  g_assert_false (rtop_series_sample_at (s, 0, 30000, &t, &v));
  g_assert_true (rtop_series_sample_at (s, 0, 59500, &t, &v));
  g_assert_cmpint (t, ==, 60000);
}

/* Brute force over the retained samples, for comparison. */
static void
brute_force (RtopSeries *s, guint capacity, guint n, gint64 step_us, guint channel,
             gint64 start, gint64 end, guint columns, double *mins, double *maxs)
{
  guint first = n > capacity ? n - capacity : 0;
  double span = (double) (end - start);

  for (guint c = 0; c < columns; c++)
    mins[c] = maxs[c] = NAN;
  for (guint i = first; i < n; i++)
    {
      gint64 t = (gint64) i * step_us;
      double v = (float) (channel == 0 ? value_at (i) : 2 * value_at (i + 5));
      guint c;

      if (t < start || t >= end || isnan (v))
        continue;
      c = 0;
      while (c + 1 < columns && t >= start + (gint64) (span * (c + 1) / columns))
        c++;
      mins[c] = isnan (mins[c]) ? v : MIN (mins[c], v);
      maxs[c] = isnan (maxs[c]) ? v : MAX (maxs[c], v);
    }
}

static void
assert_same_columns (const double *a, const double *b, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      if (isnan (a[i]) || isnan (b[i]))
        g_assert_true (isnan (a[i]) && isnan (b[i]));
      else
        g_assert_cmpfloat_with_epsilon (a[i], b[i], 1e-3);
    }
}

static void
test_decimate_matches_brute_force (void)
{
  const guint capacity = 1000, n = 2345;
  const gint64 step = 100000;
  g_autoptr(RtopSeries) s = filled_series (capacity, n, step);
  const guint column_counts[] = { 1, 3, 7, 64, 333, 1000, 2500 };
  const gint64 starts[] = { 0, 1345 * step, 1345 * step + 50000, 2000 * step };

  for (guint c = 0; c < G_N_ELEMENTS (column_counts); c++)
    for (guint s0 = 0; s0 < G_N_ELEMENTS (starts); s0++)
      for (guint ch = 0; ch < 2; ch++)
        {
          guint cols = column_counts[c];
          g_autofree double *mins = g_new (double, cols), *maxs = g_new (double, cols);
          g_autofree double *bmins = g_new (double, cols), *bmaxs = g_new (double, cols);
          gint64 end = (gint64) n * step;

          rtop_series_decimate (s, ch, starts[s0], end, cols, mins, maxs);
          brute_force (s, capacity, n, step, ch, starts[s0], end, cols, bmins, bmaxs);
          assert_same_columns (mins, bmins, cols);
          assert_same_columns (maxs, bmaxs, cols);
        }
}

/* The cost of reducing a window to N columns must not grow with the number
 * of samples in it: 60 minutes at 10 samples/s against 1 minute. */
static void
test_decimate_cost_independent_of_history (void)
{
  const guint capacity = rtop_series_capacity_for_interval (0.1);
  const gint64 step = G_USEC_PER_SEC / 10;
  g_autoptr(RtopSeries) s = filled_series (capacity, capacity + 123, step);
  const guint columns = 800;
  g_autofree double *mins = g_new (double, columns), *maxs = g_new (double, columns);
  gint64 last;
  guint reads_60, reads_1;

  g_assert_cmpuint (capacity, ==, 36001);
  g_assert_true (rtop_series_get_time_range (s, NULL, &last));
  reads_60 = rtop_series_decimate (s, 0, last - (gint64) 3600 * G_USEC_PER_SEC, last + 1, columns, mins, maxs);
  reads_1 = rtop_series_decimate (s, 0, last - (gint64) 60 * G_USEC_PER_SEC, last + 1, columns, mins, maxs);
  g_test_message ("cells read: 60 min %u, 1 min %u", reads_60, reads_1);
  /* 36000 samples in 800 columns, ~45 per column: each column reads at most
   * 2 log2(45) + 2 cells of the pyramid, never the samples themselves. */
  g_assert_cmpuint (reads_1, <=, columns * 2);
  g_assert_cmpuint (reads_60, <=, columns * 14);
  g_assert_cmpuint (reads_60, <, 36000 / 3);
}

static void
test_resize_keeps_newest (void)
{
  g_autoptr(RtopSeries) s = filled_series (1000, 1500, 1000);
  double mins[4], maxs[4], bmins[4], bmaxs[4];

  rtop_series_set_capacity (s, 300);
  g_assert_cmpuint (rtop_series_get_capacity (s), ==, 300);
  g_assert_cmpuint (rtop_series_get_length (s), ==, 300);
  g_assert_cmpfloat (rtop_series_get_last (s, 1), ==, (float) (2 * value_at (1504)));
  rtop_series_decimate (s, 0, 0, 1500 * 1000, 4, mins, maxs);
  brute_force (s, 300, 1500, 1000, 0, 0, 1500 * 1000, 4, bmins, bmaxs);
  assert_same_columns (mins, bmins, 4);
  assert_same_columns (maxs, bmaxs, 4);

  rtop_series_set_capacity (s, 5000);
  g_assert_cmpuint (rtop_series_get_length (s), ==, 300);
  rtop_series_decimate (s, 0, 0, 1500 * 1000, 4, mins, maxs);
  assert_same_columns (mins, bmins, 4);
  assert_same_columns (maxs, bmaxs, 4);
  g_assert_cmpuint (rtop_series_capacity_for_interval (1.0), ==, 3601);
  g_assert_cmpuint (rtop_series_capacity_for_interval (60.0), ==, 61);
}

static void
test_format_units (void)
{
  const struct {
    double value;
    RtopUnit unit;
    const char *text;
  } cases[] = {
    { 12.34e9, RTOP_UNIT_BITS_PER_S, "12.3 Gb/s" },
    { 950e6, RTOP_UNIT_BITS_PER_S, "950 Mb/s" },
    { 1.5e3, RTOP_UNIT_BITS_PER_S, "1.50 kb/s" },
    { 4.2e3, RTOP_UNIT_PACKETS_PER_S, "4.20 kpkt/s" },
    { 0, RTOP_UNIT_BITS_PER_S, "0 b/s" },
    { 2.5e6, RTOP_UNIT_PACKETS_PER_S, "2.50 Mpkt/s" },
    /* Bytes are shown as bits (the preference shows bytes). */
    { 3e3, RTOP_UNIT_BYTES_PER_S, "24.0 kb/s" },
    { 7, RTOP_UNIT_EVENTS_PER_S, "7.00 /s" },
    { NAN, RTOP_UNIT_EVENTS_PER_S, "—" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = rtop_format_rate (cases[i].value, cases[i].unit);
      g_assert_cmpstr (text, ==, cases[i].text);
    }
  g_assert_cmpfloat (rtop_nice_step (7.3e9, 4), ==, 2e9);
  g_assert_cmpfloat (rtop_nice_step (100, 4), ==, 50);
  g_assert_cmpfloat (rtop_nice_step (0.9, 2), ==, 0.5);
  {
    g_autofree char *count = rtop_format_count (1234567);
    g_autofree char *big = rtop_format_gbps (159.024e9);
    g_autofree char *small = rtop_format_gbps (30.7e6);
    g_autofree char *zero = rtop_format_gbps (0);
    g_autofree char *trickle = rtop_format_gbps (167e3);
    g_assert_cmpstr (count, ==, "1\u2009234\u2009567");
    /* One scaling everywhere: the overview's throughput reads like the
     * cards' and the graphs'. */
    g_assert_cmpstr (big, ==, "159 Gb/s");
    g_assert_cmpstr (small, ==, "30.7 Mb/s");
    g_assert_cmpstr (trickle, ==, "167 kb/s");
    g_assert_cmpstr (zero, ==, "0 b/s");
  }
}

/* ---- the widget ------------------------------------------------------------ */

static void
wait_for_draw (GtkWidget *widget)
{
  for (guint i = 0; i < 200 && !gtk_widget_get_mapped (widget); i++)
    g_main_context_iteration (NULL, TRUE);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

/* Runs the widget's own snapshot (what a frame runs when it is dirty) and
 * returns the render node. */
static GskRenderNode *
render (GtkWidget *widget)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  return gtk_snapshot_free_to_node (snapshot);
}

/* Keeps what the test drew, as an artifact to look at. */
static void
save_png (GtkWidget *widget, const char *name)
{
  GskRenderNode *node = render (widget);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  g_autofree char *path = g_test_build_filename (G_TEST_BUILT, name, NULL);
  g_autoptr(GdkTexture) texture = NULL;

  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  gsk_render_node_unref (node);
  g_assert_true (gdk_texture_save_to_png (texture, path));
}

static void
test_graph_draws_and_scales (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *graph = rtop_graph_new ();
  RtopSeries *series = rtop_series_new (2, rtop_series_capacity_for_interval (0.1));
  RtopGraphFrameStats stats;
  GskRenderNode *node;
  g_autofree char *hover = NULL;
  int scale;
  guint reads_60, reads_1;

  g_object_add_weak_pointer (G_OBJECT (series), (gpointer *) &series);
  rtop_graph_set_series (RTOP_GRAPH (graph), series);
  rtop_graph_add_channel (RTOP_GRAPH (graph), 0, "TX", "rtop_tx_color");
  rtop_graph_add_channel (RTOP_GRAPH (graph), 1, "RX", "rtop_rx_color");
  rtop_graph_set_unit (RTOP_GRAPH (graph), RTOP_UNIT_BITS_PER_S);
  gtk_window_set_default_size (GTK_WINDOW (window), 700, 240);
  gtk_window_set_child (GTK_WINDOW (window), graph);
  gtk_window_present (GTK_WINDOW (window));
  wait_for_draw (graph);

  /* Before data: the graph says so and reads nothing. */
  node = render (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.cells_read, ==, 0);
  g_clear_pointer (&node, gsk_render_node_unref);

  /* 60 minutes at 10 samples/s, peaking at 7.3 Gb/s. */
  for (guint i = 0; i < 36000; i++)
    {
      double v[2] = { (i % 600 == 0) ? 7.3e9 : 1e9 + (i % 50) * 1e7, 2e9 };
      rtop_series_append (series, (gint64) i * 100000, (gint64) i * 100000, v);
    }
  rtop_graph_set_window (RTOP_GRAPH (graph), 3600);
  node = render (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_clear_pointer (&node, gsk_render_node_unref);
  scale = gtk_widget_get_scale_factor (graph);
  g_test_message ("graph %dx%d, %u columns, max %g", gtk_widget_get_width (graph),
                  gtk_widget_get_height (graph), stats.columns, stats.data_max);
  g_assert_cmpint (scale, ==, g_getenv ("GDK_SCALE") ? atoi (g_getenv ("GDK_SCALE")) : scale);
  g_assert_cmpfloat_with_epsilon (stats.data_max, 7.3e9, 1e3 * 7.3e9 * 1e-6);
  /* A nice axis just above the peak: steps of 2 G, so 8 Gb/s. */
  g_assert_cmpfloat (stats.axis_max, ==, 8e9);
  g_assert_cmpuint (stats.columns, >=, (guint) (600 * scale));
  g_assert_cmpuint (stats.columns, <=, (guint) (700 * scale));
  reads_60 = stats.cells_read;
  {
    g_autofree char *png = g_strdup_printf ("gui-graph-60min@%dx.png", scale);
    save_png (graph, png);
  }

  rtop_graph_set_window (RTOP_GRAPH (graph), 60);
  node = render (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_clear_pointer (&node, gsk_render_node_unref);
  reads_1 = stats.cells_read;
  g_test_message ("frame cells read: 60 min %u, 1 min %u", reads_60, reads_1);
  /* Two channels; per column O(log(samples per column)), far below 2 x 36000. */
  g_assert_cmpuint (reads_60, <=, 2 * 14 * stats.columns);
  g_assert_cmpuint (reads_60, <, 36000 / 2);

  /* Hovering shows the exact value and the time. */
  hover = rtop_graph_describe_at (RTOP_GRAPH (graph), 600);
  g_assert_nonnull (hover);
  g_assert_nonnull (strstr (hover, "TX: "));
  g_assert_nonnull (strstr (hover, "Gb/s"));
  g_assert_nonnull (strchr (hover, ':'));
  g_assert_null (rtop_graph_describe_at (RTOP_GRAPH (graph), 2));

  /* Over the part of the window before the first sample, the readout says
   * there is no data at that time rather than the first sample's time. */
  {
    g_autofree char *empty = NULL;
    g_autofree char *full = NULL;

    g_autoptr(RtopSeries) recent = rtop_series_new (2, 600);

    /* 100 s of samples in a 300 s window: the left two thirds are empty. */
    for (guint i = 0; i < 100; i++)
      {
        double v[2] = { 1e9, 2e9 };
        rtop_series_append (recent, (gint64) i * G_USEC_PER_SEC, (gint64) i * G_USEC_PER_SEC, v);
      }
    rtop_graph_set_series (RTOP_GRAPH (graph), recent);
    rtop_graph_set_window (RTOP_GRAPH (graph), 300);
    g_clear_pointer (&node, gsk_render_node_unref);
    node = render (graph);
    g_clear_pointer (&node, gsk_render_node_unref);
    rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
    empty = rtop_graph_describe_at (RTOP_GRAPH (graph), 100);
    full = rtop_graph_describe_at (RTOP_GRAPH (graph), 600);
    g_test_message ("hover over empty history: %s", empty);
    g_assert_nonnull (empty);
    g_assert_nonnull (strstr (empty, "No data"));
    g_assert_null (strstr (empty, "TX: "));
    g_assert_nonnull (full);
    g_assert_nonnull (strstr (full, "TX: "));
    rtop_graph_set_series (RTOP_GRAPH (graph), NULL);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (series);
  g_assert_null (series);
}

/* Off the live edge (scrolled back, or a replay) the axis reads clock
 * times and the legend the values at the right edge, not "now" and the
 * newest values. */
static void
test_graph_off_live_edge (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *graph = rtop_graph_new ();
  RtopSeries *series = rtop_series_new (1, 700);
  const gint64 epoch = G_GINT64_CONSTANT (1700000000) * G_USEC_PER_SEC;
  g_autofree char *live_label = NULL, *back_label = NULL, *want = NULL;
  GskRenderNode *node;

  rtop_graph_set_series (RTOP_GRAPH (graph), series);
  rtop_graph_add_channel (RTOP_GRAPH (graph), 0, "TX", "rtop_tx_color");
  rtop_graph_set_window (RTOP_GRAPH (graph), 60);
  gtk_window_set_default_size (GTK_WINDOW (window), 700, 240);
  gtk_window_set_child (GTK_WINDOW (window), graph);
  gtk_window_present (GTK_WINDOW (window));
  wait_for_draw (graph);
  /* Ten minutes, one sample a second, whose value is its second. */
  for (guint i = 0; i < 600; i++)
    {
      double v[1] = { i };
      rtop_series_append (series, (gint64) i * G_USEC_PER_SEC, epoch + (gint64) i * G_USEC_PER_SEC, v);
    }

  node = render (graph);
  g_clear_pointer (&node, gsk_render_node_unref);
  live_label = rtop_graph_dup_time_label (RTOP_GRAPH (graph), 0);
  g_assert_cmpstr (live_label, ==, "now");
  g_assert_cmpfloat (rtop_graph_get_legend_value (RTOP_GRAPH (graph), 0), ==, 599);

  /* Scrolled back to second 300. */
  rtop_graph_set_view_end (RTOP_GRAPH (graph), 300 * G_USEC_PER_SEC);
  node = render (graph);
  g_clear_pointer (&node, gsk_render_node_unref);
  back_label = rtop_graph_dup_time_label (RTOP_GRAPH (graph), 0);
  {
    g_autoptr(GDateTime) t = g_date_time_new_from_unix_local (epoch / G_USEC_PER_SEC + 300);

    want = g_date_time_format (t, "%H:%M:%S");
  }
  g_test_message ("right edge: %s", back_label);
  g_assert_cmpstr (back_label, ==, want);
  g_assert_cmpfloat (rtop_graph_get_legend_value (RTOP_GRAPH (graph), 0), ==, 300);
  save_png (graph, "gui-graph-off-live-edge.png");

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (series);
}

static void
test_graph_compact_sparkline (void)
{
  GtkWidget *graph = g_object_ref_sink (rtop_graph_new ());
  int min_h, nat_h;

  rtop_graph_set_compact (RTOP_GRAPH (graph), TRUE);
  gtk_widget_measure (graph, GTK_ORIENTATION_VERTICAL, -1, &min_h, &nat_h, NULL, NULL);
  g_assert_cmpint (nat_h, <=, 32);
  g_assert_true (gtk_widget_has_css_class (graph, "compact"));
  g_assert_finalize_object (graph);
}

/* Runs of at most `bridge` empty columns between two samples are filled
 * along the line joining them; longer runs and the ends stay empty. */
static void
test_bridge_columns (void)
{
  const double src[] = { NAN, 1, NAN, NAN, 4, NAN, NAN, NAN, NAN, NAN, 10, NAN };
  double dst[G_N_ELEMENTS (src)];

  rtop_graph_bridge_columns (src, dst, G_N_ELEMENTS (src), 2);
  g_assert_true (isnan (dst[0]));
  g_assert_cmpfloat (dst[1], ==, 1);
  g_assert_cmpfloat_with_epsilon (dst[2], 2, 1e-9);
  g_assert_cmpfloat_with_epsilon (dst[3], 3, 1e-9);
  g_assert_cmpfloat (dst[4], ==, 4);
  for (guint i = 5; i < 10; i++)
    g_assert_true (isnan (dst[i]));  /* five empty columns: a gap */
  g_assert_cmpfloat (dst[10], ==, 10);
  g_assert_true (isnan (dst[11]));

  rtop_graph_bridge_columns (src, dst, G_N_ELEMENTS (src), 5);
  for (guint i = 5; i < 10; i++)
    g_assert_cmpfloat_with_epsilon (dst[i], 4 + (i - 4), 1e-9);
}

/* A sparkline of sparse samples (fewer than its columns) is drawn as boxes,
 * no anti-aliased path for cairo to tessellate at each repaint, and its
 * trace still runs through every column between the first sample and the
 * last; the full-size graph keeps its smooth line. */
static void
test_sparse_sparkline_boxes (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *graph = rtop_graph_new ();
  g_autoptr(RtopSeries) series = rtop_series_new (1, 600);
  RtopGraphFrameStats stats;
  GskRenderNode *node;
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderer *renderer;
  int width, height, stride, scale, plot_x0, plot_x1;
  g_autofree guchar *pixels = NULL;
  guint traced = 0, columns = 0;

  /* 100 samples, 2 s apart, in a 300 s window some 350 columns wide. */
  for (guint i = 0; i < 100; i++)
    {
      double v = 5e9 + 4e9 * sin (i / 5.0);

      rtop_series_append (series, (gint64) (2 * i + 100) * G_USEC_PER_SEC,
                          (gint64) (2 * i + 100) * G_USEC_PER_SEC, &v);
    }
  rtop_graph_set_series (RTOP_GRAPH (graph), series);
  rtop_graph_add_channel (RTOP_GRAPH (graph), 0, "TX", "rtop_tx_color");
  rtop_graph_set_unit (RTOP_GRAPH (graph), RTOP_UNIT_BITS_PER_S);
  rtop_graph_set_window (RTOP_GRAPH (graph), 300);
  rtop_graph_set_compact (RTOP_GRAPH (graph), TRUE);
  gtk_widget_set_size_request (graph, 360, 28);
  gtk_window_set_child (GTK_WINDOW (window), graph);
  gtk_window_present (GTK_WINDOW (window));
  wait_for_draw (graph);

  node = render (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_test_message ("sparkline: %u columns, %u anti-aliased paths", stats.columns, stats.paths);
  g_assert_cmpuint (stats.columns, >, 100);
  g_assert_cmpuint (stats.paths, ==, 0);
  /* Its boxes were written as pixels and painted as one image. */
  g_assert_cmpuint (stats.canvas_frames, ==, 1);

  /* The trace (the channel's full colour: blue well above red) in every
   * column of the two thirds of the window that have samples. */
  width = gtk_widget_get_width (graph);
  height = gtk_widget_get_height (graph);
  scale = gtk_widget_get_scale_factor (graph);
  renderer = gtk_native_get_renderer (gtk_widget_get_native (graph));
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  gsk_render_node_unref (node);
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  stride = width * 4;
  pixels = g_malloc ((gsize) stride * height);
  gdk_texture_download (texture, pixels, stride);
  /* Samples cover the right two thirds of the plot (the peak text has
   * the room right of it); leave a few columns at either end. */
  plot_x0 = (int) (RTOP_GRAPH (graph)->plot.origin.x * width / gtk_widget_get_width (graph));
  plot_x1 = (int) ((RTOP_GRAPH (graph)->plot.origin.x + RTOP_GRAPH (graph)->plot.size.width) *
                   width / gtk_widget_get_width (graph));
  g_assert_cmpint (plot_x1, <, width);
  for (int x = plot_x0 + (plot_x1 - plot_x0) / 3 + 4 * scale; x < plot_x1 - 4 * scale; x++)
    {
      gboolean hit = FALSE;

      for (int y = 0; y < height && !hit; y++)
        {
          const guchar *p = pixels + (gsize) y * stride + x * 4;   /* B G R A */

          hit = p[3] > 200 && p[0] > p[2] + 80;
        }
      columns++;
      traced += hit;
    }
  g_test_message ("trace in %u of %u columns", traced, columns);
  g_assert_cmpuint (columns, >, 50);
  g_assert_cmpuint (traced, ==, columns);

  /* The full-size graph of the same samples draws its line as a path. */
  rtop_graph_set_compact (RTOP_GRAPH (graph), FALSE);
  gtk_widget_set_size_request (graph, 360, 160);
  wait_for_draw (graph);
  node = render (graph);
  gsk_render_node_unref (node);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.paths, >, 0);
  g_assert_cmpuint (stats.canvas_frames, ==, 0);

  rtop_graph_set_series (RTOP_GRAPH (graph), NULL);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);

  g_test_add_func ("/gui/series/ring-bounded", test_ring_bounded);
  g_test_add_func ("/gui/series/sample-at-gap", test_sample_at_gap);
  g_test_add_func ("/gui/series/decimate-matches-brute-force", test_decimate_matches_brute_force);
  g_test_add_func ("/gui/series/decimate-cost-independent-of-history", test_decimate_cost_independent_of_history);
  g_test_add_func ("/gui/series/resize-keeps-newest", test_resize_keeps_newest);
  g_test_add_func ("/gui/format/units", test_format_units);
  g_test_add_func ("/gui/graph/draws-and-scales", test_graph_draws_and_scales);
  g_test_add_func ("/gui/graph/compact-sparkline", test_graph_compact_sparkline);
  g_test_add_func ("/gui/graph/off-live-edge", test_graph_off_live_edge);
  g_test_add_func ("/gui/graph/bridge-columns", test_bridge_columns);
  g_test_add_func ("/gui/graph/sparse-sparkline-boxes", test_sparse_sparkline_boxes);
  return g_test_run ();
}
