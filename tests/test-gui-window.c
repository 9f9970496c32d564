/* test-gui-window.c: the main window driven through its actions, with
 * GSettings (memory backend), remote-display detection, screenshots of the
 * overview and a port detail (written to the build directory), and no
 * leaks when the window goes away. */
#include "config.h"

#include <math.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-compare-section-private.h"
#include "rtop-graph-private.h"
#include "rtop-record-sink.h"
#include "rtop-history-private.h"
#include "rtop-port-section.h"
#include "rtop-preferences.h"
#include "rtop-process-item.h"
#include "rtop-remote.h"
#include "rtop-series-private.h"
#include "rtop-sampler-private.h"
#include "rtop-text.h"
#include "rtop-window-private.h"

static const GuiPortSpec ports[] = {
  { "mlx5_0", 1, "mlx5", "ib", 4, 200, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "mlx5_1", 1, "mlx5", "roce", 4, 100, 0, 0, 0, 0, 0, 0, 0, TRUE },
  { "rxe0", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, FALSE },
  { "rxe1", 1, "rxe", "roce", 1, 10, 0, 0, 0, 0, 0, 0, 0, FALSE },
};

/* A few minutes of plausible traffic: waves, a burst, errors on one port. */
static void
feed (RtopHistory *history, guint n)
{
  for (guint seq = 1; seq <= n; seq++)
    {
      GuiPortSpec p[G_N_ELEMENTS (ports)];
      RtopSnapshot *s;
      double t = seq;

      memcpy (p, ports, sizeof p);
      p[0].tx_bps = 120e9 + 60e9 * sin (t / 20);
      p[0].rx_bps = 90e9 + 40e9 * cos (t / 27);
      p[0].tx_pps = p[0].tx_bps / 8 / 4096;
      p[0].rx_pps = p[0].rx_bps / 8 / 4096;
      p[1].tx_bps = (seq % 90 < 30) ? 80e9 : 5e9;
      p[1].rx_bps = 20e9 + 10e9 * sin (t / 7);
      p[1].tx_pps = p[1].tx_bps / 8 / 1024;
      p[1].rx_pps = p[1].rx_bps / 8 / 1024;
      p[2].tx_bps = 3e9 + 1e9 * sin (t / 5);
      p[2].rx_bps = 2.5e9 + 1e9 * cos (t / 5);
      p[2].tx_pps = 250000;
      p[2].rx_pps = 230000;
      p[2].retrans = seq > n - 40 ? 12 + (seq % 5) : 0;
      p[2].errors = seq > n - 20 ? 3 : 0;
      s = gui_fixture_snapshot (seq, 1.0, p, G_N_ELEMENTS (p));
      if (seq == n)
        {
          rtop_job_set (&gui_fixture_add_process (s, 4242, "ib_write_bw", "alice", "mlx5_0", 8, 4,
                                                  8ull << 30)->job, RTOP_JOB_SLURM, "1234", "0");
          {
            RtopProcess *pp = gui_fixture_add_process (s, 4300, "ibv_rc_pingpong", "bob", "rxe0", 3, 1, 4096);
            RtopDevice *rxe0 = rtop_snapshot_find_device (s, "rxe0");
            RtopQp qps[3] = {
              { rxe0->name, 1, 17, 18, TRUE, 2, 3, "192.0.2.2:40001" },   /* RC, RTS, peer 18, rdma_cm */
              { rxe0->name, 1, 19, 20, TRUE, 2, RTOP_QP_STATE_ERR },
              { rxe0->name, 1, 21, 0, FALSE, 4, 3 },   /* UD: no peer */
            };

            pp->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
            g_array_append_vals (pp->qp_list, qps, 3);
            pp->qps_in_error = 1;
            rtop_job_set (&pp->job, RTOP_JOB_KUBERNETES, "0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21",
                          "3d2ae0c5b6d4e5f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718");
          }
          gui_fixture_add_process (s, 0, "nccl-tests", "?", "mlx5_1", 64, 16, 2ull << 30);
          s->pids_hidden = TRUE;
          gui_fixture_add_event (s, RTOP_SEVERITY_INFO, "mlx5_1", 0, "Device mlx5_1 added.");
          gui_fixture_add_event (s, RTOP_SEVERITY_ERROR, "rxe1", 1, "Port rxe1/1 went DOWN (was ACTIVE).");
          gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, "rxe0", 1, "Retransmits are rising on rxe0/1 (completer_retry_err).");
        }
      rtop_snapshot_seal (s);
      rtop_history_ingest (history, s);
      rtop_snapshot_unref (s);
    }
}

static void
wait_mapped (GtkWidget *widget)
{
  gui_test_wait_mapped (widget);
  gui_test_spin ();
}

static void
collect_graphs (GtkWidget *widget, GPtrArray *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      if (RTOP_IS_GRAPH (child) && gtk_widget_get_mapped (child))
        g_ptr_array_add (out, child);
      collect_graphs (child, out);
    }
}

/* The first mapped widget of type under widget. */
static GtkWidget *
find_mapped (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && gtk_widget_get_mapped (widget))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_mapped (c, type);
      if (found)
        return found;
    }
  return NULL;
}

/* The pixel rectangle of graph's plot in a picture of root. */
static cairo_rectangle_int_t
plot_area (GuiTestPixels *pixels, GtkWidget *root, RtopGraph *graph)
{
  graphene_rect_t bounds;
  cairo_rectangle_int_t plot;

  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (graph), root, &bounds));
  plot.x = (int) ((bounds.origin.x + graph->plot.origin.x) * pixels->scale);
  plot.y = (int) ((bounds.origin.y + graph->plot.origin.y) * pixels->scale);
  plot.width = (int) (graph->plot.size.width * pixels->scale);
  plot.height = (int) (graph->plot.size.height * pixels->scale);
  g_assert_cmpint (plot.width, >, 0);
  g_assert_cmpint (plot.height, >, 0);
  g_assert_cmpint (plot.x, >=, 0);
  g_assert_cmpint (plot.y, >=, 0);
  g_assert_cmpint (plot.x + plot.width, <=, pixels->width);
  g_assert_cmpint (plot.y + plot.height, <=, pixels->height);
  return plot;
}

/* The plot's pixel columns where channel c (or, c < 0, any channel) has
 * a pixel of its colour: a line drawn across the plot has one in each.
 * The tolerance lets an antialiased line's core count, not its fill. */
static guint
columns_drawn (GuiTestPixels *pixels, const cairo_rectangle_int_t *plot, RtopGraph *graph, int c)
{
  guint32 colours[RTOP_GRAPH_MAX_CHANNELS];
  guint n = 0;

  for (guint i = 0; i < graph->n_channels; i++)
    {
      GdkRGBA rgba;

      rtop_graph_lookup_color (GTK_WIDGET (graph), graph->channels[i].color_name, &rgba);
      colours[i] = gui_test_colour_from_rgba (&rgba);
    }
  for (int x = plot->x; x < plot->x + plot->width; x++)
    {
      cairo_rectangle_int_t column = { x, plot->y, 1, plot->height };
      gboolean found = FALSE;

      for (guint i = 0; i < graph->n_channels && !found; i++)
        found = (c < 0 || (guint) c == i) && gui_test_pixels_count_near (pixels, &column, colours[i], 96) > 0;
      n += found;
    }
  return n;
}

/* The share of graph's window that its samples span. */
static double
data_share (RtopGraph *graph)
{
  RtopSeries *series = graph->series ? graph->series : graph->channels[0].series;
  gint64 first, last;

  if (series == NULL || !rtop_series_get_time_range (series, &first, &last))
    return 0;
  return MIN ((last - first) / 1e6 / graph->window_s, 1);
}

/* Every graph shown with data in a picture of root draws its lines: in
 * nearly every pixel column its samples span, a channel's colour.  A
 * graph whose peak is under a twentieth of its axis (on a shared scale)
 * draws on its baseline and is left out.  Returns how many it checked. */
static guint
assert_graphs_drawn (GuiTestPixels *pixels, GtkWidget *root)
{
  g_autoptr(GPtrArray) graphs = g_ptr_array_new ();
  guint checked = 0;

  collect_graphs (root, graphs);
  for (guint i = 0; i < graphs->len; i++)
    {
      RtopGraph *graph = g_ptr_array_index (graphs, i);
      RtopGraphFrameStats st;
      cairo_rectangle_int_t plot;
      guint drawn, want;

      rtop_graph_get_frame_stats (graph, &st);
      if (st.data_max <= st.axis_max / 20 || graph->n_channels == 0)
        continue;
      plot = plot_area (pixels, root, graph);
      drawn = columns_drawn (pixels, &plot, graph, -1);
      want = (guint) (0.8 * plot.width * data_share (graph));
      g_test_message ("graph at %d,%d %dx%d: a line in %u columns, samples span %.0f%%",
                      plot.x, plot.y, plot.width, plot.height, drawn, 100 * data_share (graph));
      g_assert_cmpuint (want, >, 0);
      g_assert_cmpuint (drawn, >=, want);
      checked++;
    }
  return checked;
}

/* Takes the screenshot and checks it against the window's dump: the dump
 * has each of want, the picture is a page in the theme's colours, and at
 * least min_graphs graphs with data draw their lines in it.  Returns the
 * pixels for the caller's own checks. */
static GuiTestPixels *
screenshot_page (RtopWindow *window, const char *name, const char * const *want, guint min_graphs)
{
  g_autoptr(GdkTexture) texture = gui_test_screenshot (GTK_WIDGET (window), name);
  g_autofree char *dump = rtop_window_dump (window);
  GuiTestPixels *pixels = gui_test_pixels_new (texture, GTK_WIDGET (window));

  for (guint i = 0; want != NULL && want[i] != NULL; i++)
    {
      if (strstr (dump, want[i]) == NULL)
        g_test_message ("%s: no “%s” in the dump:\n%s", name, want[i], dump);
      g_assert_nonnull (strstr (dump, want[i]));
    }
  gui_test_assert_page (pixels);
  g_assert_cmpuint (assert_graphs_drawn (pixels, GTK_WIDGET (window)), >=, min_graphs);
  return pixels;
}

typedef struct {
  RtopSession *session;
  RtopHistory *history;
  GSettings *settings;
  RtopWindow *window;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "time-window");
  g_settings_reset (f->settings, "last-view");
  g_settings_reset (f->settings, "interval");
  g_settings_reset (f->settings, "sparkline-scale");
  f->session = rtop_session_new (f->settings);
  f->history = g_object_ref (rtop_session_get_history (f->session));
  f->window = rtop_window_new (NULL, f->session, f->settings);
  g_object_add_weak_pointer (G_OBJECT (f->session), (gpointer *) &f->session);
  g_object_add_weak_pointer (G_OBJECT (f->history), (gpointer *) &f->history);
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1400, 860);
  gtk_window_present (GTK_WINDOW (f->window));
  wait_mapped (GTK_WIDGET (f->window));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  gui_test_spin ();
  g_assert_null (f->window);
  g_assert_finalize_object (f->session);
  g_test_message ("history refs %u", G_OBJECT (f->history)->ref_count);
  g_object_unref (f->history);
  g_assert_null (f->history);
  g_test_message ("settings refs %u", G_OBJECT (f->settings)->ref_count);
  g_assert_finalize_object (f->settings);
}

/* Window actions are installed on the class: activate them as a widget's. */
static void
activate (Fixture *f, const char *action, GVariant *param)
{
  g_autofree char *name = g_strconcat ("win.", action, NULL);

  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (f->window), name, param));
  gui_test_spin ();
}

static void
test_views_and_settings (Fixture *f, gconstpointer data)
{
  feed (f->history, 30);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "overview");

  activate (f, "show-view", g_variant_new_string ("processes"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "processes");
  {
    g_autofree char *last = g_settings_get_string (f->settings, "last-view");
    g_assert_cmpstr (last, ==, "processes");
  }
  activate (f, "show-view", g_variant_new_string ("no-such-view"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "processes");

  activate (f, "show-port", g_variant_new_string ("rxe0/1"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  activate (f, "show-port", g_variant_new_string ("nope/9"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  activate (f, "back", NULL);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "processes");

  /* The time window is a setting and an action. */
  activate (f, "time-window", g_variant_new_int32 (15));
  g_assert_cmpint (g_settings_get_int (f->settings, "time-window"), ==, 15);

  /* The interval menu follows the setting, also for values not in it. */
  g_settings_set_double (f->settings, "interval", 3.0);
  gui_test_spin ();
  activate (f, "interval-faster", NULL);
  g_assert_cmpfloat (g_settings_get_double (f->settings, "interval"), ==, 2.0);
  activate (f, "interval-slower", NULL);
  activate (f, "interval-slower", NULL);
  g_assert_cmpfloat (g_settings_get_double (f->settings, "interval"), ==, 5.0);

  {
    g_autofree char *dump = rtop_window_dump (f->window);
    g_assert_nonnull (strstr (dump, "view=processes"));
    g_assert_nonnull (strstr (dump, "row\tport=rxe0/1"));
    g_assert_nonnull (strstr (dump, "process\tpid=4242"));
    g_assert_nonnull (strstr (dump, "pid=—"));
  }
}

/* Asserts the window's mapped table (of the page shown) has rows drawn:
 * text on its background. */
static void
assert_table_drawn (GuiTestPixels *pixels, RtopWindow *window)
{
  GtkWidget *table = find_mapped (GTK_WIDGET (window), GTK_TYPE_COLUMN_VIEW);

  g_assert_nonnull (table);
  gui_test_assert_drawn (pixels, GTK_WIDGET (window), table, 500);
}

/* Each page as it shows the fixture's traffic: the dump names the page and
 * the fixture's ports, processes or events; the picture is a page in the
 * theme's colours whose graphs draw their lines and whose table has rows. */
static void
test_screenshots (Fixture *f, gconstpointer data)
{
  const char *overview[] = { "view=overview\n", "totals\tports=4\t", "row\tport=mlx5_0/1\t",
                             "row\tport=mlx5_1/1\t", "row\tport=rxe0/1\t", "row\tport=rxe1/1\t", NULL };
  const char *rxe0[] = { "view=detail\n", "detail\trxe0 port 1\n", "completer_retry_err", NULL };
  const char *mlx5[] = { "view=detail\n", "detail\tmlx5_0 port 1\n", NULL };
  const char *processes[] = { "view=processes\n", "process\tpid=4242\t", "process\tpid=4300\t", NULL };
  const char *events[] = { "view=events\n", "events=3\n", NULL };
  GuiTestPixels *pixels;

  feed (f->history, 300);
  activate (f, "show-view", g_variant_new_string ("overview"));
  /* Three ports have traffic: three sparklines draw a line. */
  pixels = screenshot_page (f->window, "gui-overview.png", overview, 3);
  assert_table_drawn (pixels, f->window);
  gui_test_pixels_free (pixels);

  /* Throughput, packets and the retransmits with errors. */
  activate (f, "show-port", g_variant_new_string ("rxe0/1"));
  pixels = screenshot_page (f->window, "gui-port-detail.png", rxe0, 3);
  g_assert_cmpstr (gtk_label_get_label (f->window->detail_title), ==, "rxe0 port 1");
  gui_test_assert_drawn (pixels, GTK_WIDGET (f->window), GTK_WIDGET (f->window->detail_title), 50);
  assert_table_drawn (pixels, f->window);
  gui_test_pixels_free (pixels);

  activate (f, "show-port", g_variant_new_string ("mlx5_0/1"));
  pixels = screenshot_page (f->window, "gui-port-detail-mlx5.png", mlx5, 2);
  g_assert_cmpstr (gtk_label_get_label (f->window->detail_title), ==, "mlx5_0 port 1");
  gui_test_pixels_free (pixels);

  activate (f, "show-view", g_variant_new_string ("processes"));
  pixels = screenshot_page (f->window, "gui-processes.png", processes, 0);
  assert_table_drawn (pixels, f->window);
  gui_test_pixels_free (pixels);

  activate (f, "show-view", g_variant_new_string ("events"));
  pixels = screenshot_page (f->window, "gui-events.png", events, 0);
  assert_table_drawn (pixels, f->window);
  gui_test_pixels_free (pixels);
}

/* The dialogs the app opens build from their resources without warnings,
 * the preferences follow the settings, and nothing outlives them. */
static void
test_dialogs (Fixture *f, gconstpointer data)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/rdmatop/Rdmatop/ui/rtop-shortcuts.ui");
  GtkWidget *shortcuts = GTK_WIDGET (gtk_builder_get_object (builder, "shortcuts_window"));
  GtkWidget *prefs = rtop_preferences_new (GTK_WINDOW (f->window), f->settings);
  g_autofree char *folder = NULL;

  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (shortcuts));
  gtk_window_present (GTK_WINDOW (shortcuts));
  gtk_window_present (GTK_WINDOW (prefs));
  gui_test_spin ();
  g_settings_set_string (f->settings, "recordings-folder", "/srv/traces");
  folder = rtop_session_get_recordings_folder (f->settings);
  g_assert_cmpstr (folder, ==, "/srv/traces");
  g_settings_reset (f->settings, "recordings-folder");
  g_free (folder);
  folder = rtop_session_get_recordings_folder (f->settings);
  g_assert_true (g_str_has_suffix (folder, G_DIR_SEPARATOR_S "rdmatop"));
  g_object_add_weak_pointer (G_OBJECT (prefs), (gpointer *) &prefs);
  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (shortcuts));
  gui_test_spin ();
  g_assert_null (prefs);
}

/* The line of a window's dump that starts with prefix (without it). */
static char *
dump_line (RtopWindow *window, const char *prefix)
{
  g_autofree char *dump = rtop_window_dump (window);
  g_auto(GStrv) lines = g_strsplit (dump, "\n", -1);

  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i] + strlen (prefix));
  return NULL;
}

#define spin_until(done, session) \
  G_STMT_START { \
    gui_test_wait_until ((GuiTestCondition) (done), (session), "the session: " #done); \
    gui_test_spin (); \
  } G_STMT_END

static gboolean
has_samples (RtopSession *session)
{
  RtopRecorder *recorder = rtop_session_get_recorder (session);

  return recorder && rtop_recorder_get_samples (recorder) >= 2;
}

static gboolean
not_recording (RtopSession *session)
{
  return !rtop_session_get_recording (session);
}

static gboolean
replaying (RtopSession *session)
{
  return rtop_session_get_replay_title (session) != NULL;
}

/* Two windows on one session show the same recording state: the Record
 * button's progress while recording, its plain label after, and the
 * replayed recording's name, without either window being told. */
static void
test_two_windows (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *folder = g_dir_make_tmp ("rdmatop-two-windows-XXXXXX", NULL);
  RtopSession *session = rtop_session_new (settings);
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  RtopWindow *w[2];
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  g_settings_set_string (settings, "recordings-folder", folder);
  g_settings_set_string (settings, "recording-format", "json");
  g_settings_set_double (settings, "interval", 0.1);
  for (guint i = 0; i < 2; i++)
    {
      w[i] = rtop_window_new (NULL, session, settings);
      g_object_add_weak_pointer (G_OBJECT (w[i]), (gpointer *) &w[i]);
      gtk_window_present (GTK_WINDOW (w[i]));
      wait_mapped (GTK_WIDGET (w[i]));
    }
  g_object_add_weak_pointer (G_OBJECT (session), (gpointer *) &session);
  rtop_session_add_live_source (session, RTOP_SOURCE (sampler));
  rtop_session_start (session);

  g_assert_true (rtop_session_set_recording (session, TRUE, &error));
  g_assert_no_error (error);
  spin_until (has_samples, session);
  /* The window says what feeds it, by the source's name and state only. */
  {
    g_autofree char *source = dump_line (w[0], "source\t");
    g_assert_true (g_str_has_prefix (source, "name=This computer\tstate=running\tlabel=Live\terror="));
  }
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *record = dump_line (w[i], "record\t");
      g_autofree char *other = dump_line (w[1 - i], "record\t");

      g_test_message ("record button: %s", record);
      g_assert_true (g_str_has_prefix (record, "Stop · 0:"));
      g_assert_nonnull (strstr (record, " samples"));
      g_assert_cmpstr (record, ==, other);
    }
  path = g_strdup (rtop_recorder_get_path (rtop_session_get_recorder (session)));

  g_assert_true (rtop_session_set_recording (session, FALSE, &error));
  spin_until (not_recording, session);
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *record = dump_line (w[i], "record\t");
      g_autofree char *mode = dump_line (w[i], "mode\t");
      g_autofree char *toast = dump_line (w[i], "toast\t");
      g_autofree char *message = dump_line (w[i], "message\t");
      g_autofree char *want = g_strdup_printf ("Recording saved to %s.", path);

      g_assert_cmpstr (record, ==, "Record");
      g_assert_null (mode);
      /* Where the trace went, in both windows, as a toast: no bar stays. */
      g_assert_cmpstr (toast, ==, want);
      g_assert_null (message);
    }
  {
    const char *want[] = { "toast\tRecording saved to ", NULL };
    g_autoptr(GuiTestPixels) pixels = screenshot_page (w[0], "gui-recording-saved.png", want, 0);
    /* libadwaita's private toast widget, registered once a toast shows. */
    GType toast_type = g_type_from_name ("AdwToastWidget");
    GtkWidget *toast = toast_type != 0 ? find_mapped (GTK_WIDGET (w[0]), toast_type) : NULL;
    GtkWidget *button;
    GVariant *target;

    /* Drawn, with Open Folder aimed at the file's folder. */
    g_assert_nonnull (toast);
    gui_test_assert_drawn (pixels, GTK_WIDGET (w[0]), toast, 100);
    button = find_mapped (toast, GTK_TYPE_BUTTON);
    g_assert_nonnull (button);
    g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.open-folder");
    target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
    g_assert_nonnull (target);
    g_assert_cmpstr (g_variant_get_string (target, NULL), ==, path);
    g_assert_true (gtk_widget_is_sensitive (button));
  }
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  /* Open what was recorded: both windows say what they show. */
  file = g_file_new_for_path (path);
  rtop_session_open_recording (session, file);
  spin_until (replaying, session);
  g_assert_false (rtop_sampler_is_running (sampler));
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *mode = dump_line (w[i], "mode\t");
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *want = g_strconcat ("Replaying ", base, NULL);

      /* A replay, named, with its length once read; nothing to record,
       * refresh or sample faster. */
      g_assert_true (g_str_has_prefix (mode, want));
      g_assert_false (gtk_widget_get_visible (GTK_WIDGET (w[i]->record_button)));
      g_assert_false (gtk_widget_get_visible (w[i]->refresh_button));
      g_assert_false (gtk_widget_get_visible (GTK_WIDGET (w[i]->interval_dropdown)));
    }
  /* Recording is refused while a recording is shown. */
  g_assert_false (rtop_session_set_recording (session, TRUE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);

  rtop_session_go_live (session);
  gui_test_spin ();
  g_assert_true (rtop_sampler_is_running (sampler));
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *mode = dump_line (w[i], "mode\t");
      g_assert_null (mode);
      g_assert_true (gtk_widget_get_visible (GTK_WIDGET (w[i]->record_button)));
      g_assert_true (gtk_widget_get_visible (w[i]->refresh_button));
      g_assert_true (gtk_widget_get_visible (GTK_WIDGET (w[i]->interval_dropdown)));
    }

  /* A window closes; the other still shows the session. */
  gtk_window_destroy (GTK_WINDOW (w[0]));
  gui_test_spin ();
  g_assert_null (w[0]);
  g_assert_true (rtop_window_get_session (w[1]) == session);
  gtk_window_destroy (GTK_WINDOW (w[1]));
  g_assert_true (rtop_session_shutdown (session, NULL));
  g_object_unref (session);
  gui_test_spin ();
  g_assert_null (w[1]);
  g_assert_null (session);
  g_unlink (path);
  g_rmdir (folder);
  g_settings_reset (settings, "recordings-folder");
  g_settings_reset (settings, "recording-format");
  g_settings_reset (settings, "interval");
}

/* The window's modal question, if it shows one. */
static GtkDialog *
find_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* transfer none */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (GTK_IS_MESSAGE_DIALOG (w) && gtk_window_get_transient_for (w) == parent)
        return GTK_DIALOG (w);
    }
  return NULL;
}

static gboolean
recording_running (RtopSession *session)
{
  RtopRecorder *recorder = rtop_session_get_recorder (session);

  return recorder && rtop_recorder_get_samples (recorder) >= 1;
}

/* Closing the last window while recording asks; Cancel keeps both the
 * window and the recording, Save and Close completes the file first. */
static void
test_close_while_recording (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *folder = g_dir_make_tmp ("rdmatop-close-XXXXXX", NULL);
  RtopSession *session = rtop_session_new (settings);
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  RtopWindow *window;
  GtkDialog *dialog;
  g_autofree char *path = NULL;

  g_settings_set_string (settings, "recordings-folder", folder);
  g_settings_set_string (settings, "recording-format", "json");
  g_settings_set_double (settings, "interval", 0.1);
  window = rtop_window_new (NULL, session, settings);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  gtk_window_present (GTK_WINDOW (window));
  wait_mapped (GTK_WIDGET (window));
  rtop_session_add_live_source (session, RTOP_SOURCE (sampler));
  rtop_session_start (session);
  g_assert_true (rtop_session_set_recording (session, TRUE, NULL));
  spin_until (recording_running, session);
  path = g_strdup (rtop_recorder_get_path (rtop_session_get_recorder (session)));

  gtk_window_close (GTK_WINDOW (window));
  gui_test_spin ();
  g_assert_nonnull (window);
  dialog = find_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  {
    /* The dump says the question is asked (the guest scenario reads it). */
    g_autofree char *question = dump_line (window, "question\t");
    g_assert_nonnull (question);
    g_assert_true (g_str_has_prefix (question, "Save the Recording Before Closing?\t"));
    g_assert_nonnull (strstr (question, path));
  }
  gtk_dialog_response (dialog, GTK_RESPONSE_CANCEL);
  gui_test_spin ();
  g_assert_nonnull (window);
  g_assert_null (find_dialog (GTK_WINDOW (window)));
  g_assert_true (rtop_session_get_recording (session));
  {
    g_autofree char *question = dump_line (window, "question\t");
    g_assert_null (question);
  }

  gtk_window_close (GTK_WINDOW (window));
  gui_test_spin ();
  dialog = find_dialog (GTK_WINDOW (window));
  g_assert_nonnull (dialog);
  gtk_dialog_response (dialog, 3 /* Save and Close */);
  spin_until (not_recording, session);
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  {
    g_autofree char *partial = g_strconcat (path, ".partial", NULL);
    g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  }
  g_assert_true (rtop_session_shutdown (session, NULL));
  g_object_add_weak_pointer (G_OBJECT (session), (gpointer *) &session);
  g_object_unref (session);
  g_assert_null (session);
  g_unlink (path);
  g_rmdir (folder);
  g_settings_reset (settings, "recordings-folder");
  g_settings_reset (settings, "recording-format");
  g_settings_reset (settings, "interval");
}

static GtkColumnView *
find_mapped_column_view (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnView *found;

      if (GTK_IS_COLUMN_VIEW (child) && gtk_widget_get_mapped (child))
        return GTK_COLUMN_VIEW (child);
      if ((found = find_mapped_column_view (child)))
        return found;
    }
  return NULL;
}

typedef struct {
  RtopWindow *window;
  const char *want;
} ColumnsWanted;

static gboolean
columns_are (gpointer data)
{
  ColumnsWanted *w = data;
  g_autofree char *columns = dump_line (w->window, "columns\t");

  return g_strcmp0 (columns, w->want) == 0;
}

/* The overview's visible columns once the window has settled at its size
 * (the resize and the idle that narrows the table follow it). */
static char *
wait_for_columns (Fixture *f, const char *want)
{
  ColumnsWanted w = { f->window, want };
  g_autofree char *description = g_strdup_printf ("the overview's columns to be %s", want);

  gui_test_wait_until (columns_are, &w, description);
  return dump_line (f->window, "columns\t");
}

static gboolean
fits_sideways (gpointer adjustment)
{
  return gtk_adjustment_get_upper (adjustment) <= gtk_adjustment_get_page_size (adjustment) + 1;
}

/* At 800x600 the window fits, and the overview keeps port, state, rates and
 * health on screen without scrolling sideways; wide again, it shows all. */
static void
test_small_window (Fixture *f, gconstpointer data)
{
  GtkColumnView *table;
  GtkAdjustment *h;
  g_autofree char *columns = NULL;

  feed (f->history, 30);
  activate (f, "show-view", g_variant_new_string ("overview"));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 800, 600);
  g_free (wait_for_columns (f, "port,state,graph,tx,rx,health"));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (f->window)), <=, 800);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (f->window)), <=, 600);
  columns = dump_line (f->window, "columns\t");
  g_assert_cmpstr (columns, ==, "port,state,graph,tx,rx,health");
  table = find_mapped_column_view (GTK_WIDGET (f->window));
  g_assert_nonnull (table);
  h = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (table));
  /* The table's width follows its columns a frame or so later. */
  gui_test_wait_until (fits_sideways, h, "the table to fit the window's width");
  g_test_message ("800x600: columns %s, table %.0f px in %.0f px", columns,
                  gtk_adjustment_get_upper (h), gtk_adjustment_get_page_size (h));
  g_assert_cmpfloat (gtk_adjustment_get_upper (h), <=, gtk_adjustment_get_page_size (h) + 1);
  {
    const char *want[] = { "view=overview\n", "columns\tport,state,graph,tx,rx,health\n", NULL };
    g_autoptr(GuiTestPixels) pixels = screenshot_page (f->window, "gui-overview-800x600.png", want, 3);

    g_assert_cmpint (pixels->width, <=, 800 * pixels->scale);
    g_assert_cmpint (pixels->height, <=, 600 * pixels->scale);
    assert_table_drawn (pixels, f->window);
  }

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1400, 860);
  g_free (columns);
  columns = wait_for_columns (f, "port,protocol,state,link,graph,tx,rx,pps,util,drops,retrans,errors,health");
  g_assert_cmpstr (columns, ==, "port,protocol,state,link,graph,tx,rx,pps,util,drops,retrans,errors,health");
}

static GtkWidget *
find_of_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_of_type (c, type);
      if (found)
        return found;
    }
  return NULL;
}

/* A recording of two hours at 1 s: replayed, the port page can show all
 * of it and scroll back through it, not only its last hour. */
static void
test_long_replay (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-long-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "two-hours.json", NULL);
  g_autoptr(RtopRecordSink) sink = rtop_record_format_new_sink (RTOP_RECORD_FORMAT_JSON);
  GString *text = g_string_new (NULL);
  GuiPortSpec port = { "rxe0", 1, "rxe", "roce", 4, 10, 1e8, 2e8, 1e4, 1e4, 0, 0, 0, TRUE };
  RtopSession *session;
  RtopWindow *window;
  g_autoptr(GFile) file = NULL;
  g_autofree char *view = NULL;
  GtkWidget *detail;

  for (guint i = 1; i <= 7201; i++)
    {
      g_autoptr(RtopSnapshot) snap = gui_fixture_snapshot (i, 1.0, &port, 1);
      rtop_record_sink_add (sink, snap, text);
    }
  rtop_record_sink_end (sink, text);
  g_assert_true (g_file_set_contents (path, text->str, text->len, NULL));
  g_string_free (text, TRUE);

  session = rtop_session_new (settings);
  window = rtop_window_new (NULL, session, settings);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  wait_mapped (GTK_WIDGET (window));
  file = g_file_new_for_path (path);
  rtop_session_open_recording (session, file);
  spin_until (replaying, session);
  for (guint i = 0; i < 400; i++)
    g_main_context_iteration (NULL, FALSE);
  {
    gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    RtopPortItem *item = NULL;
    gint64 first = 0, last = 0;

    /* Until the replay has handed out its last snapshot. */
    while (g_get_monotonic_time () < end)
      {
        item = rtop_history_find_port (rtop_session_get_history (session), "rxe0", 1);
        if (item && rtop_series_get_time_range (rtop_port_item_get_series (item), &first, &last) &&
            last - first >= (gint64) 7199 * G_USEC_PER_SEC)
          break;
        g_main_context_iteration (NULL, TRUE);
      }
    g_assert_nonnull (item);
    g_test_message ("history kept %.0f s", (last - first) / 1e6);
    g_assert_cmpint (last - first, >=, (gint64) 7199 * G_USEC_PER_SEC);
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-port", "s", "rxe0/1"));
  gui_test_spin ();

  /* Five minutes of it, at its end, with a scrollbar over the rest. */
  g_object_set (window, "time-window", 5, NULL);
  gui_test_spin ();
  view = dump_line (window, "view\t");
  g_assert_cmpstr (view, ==, "window=300\tend=newest\tscrollbar=shown\tlatest=hidden");
  /* Named as a replay, with its length; its axis reads clock times, not
   * "now", at the recording's end. */
  {
    g_autofree char *mode = dump_line (window, "mode\t");
    g_autofree char *edge = NULL;
    GtkWidget *graph;

    g_assert_cmpstr (mode, ==, "Replaying two-hours.json, 2 h 0 min");
    graph = find_of_type (find_of_type (GTK_WIDGET (window), RTOP_TYPE_PORT_SECTION), RTOP_TYPE_GRAPH);
    edge = rtop_graph_dup_time_label (RTOP_GRAPH (graph), 0);
    g_test_message ("replay's right edge: %s", edge);
    g_assert_cmpstr (edge, !=, "now");
    g_assert_nonnull (strchr (edge, ':'));
  }

  /* Scrolled back (Alt+Page Up's action): it stays there, with Jump to
   * Latest. */
  detail = find_of_type (GTK_WIDGET (window), RTOP_TYPE_PORT_SECTION);
  g_assert_true (gtk_widget_activate_action (detail, "detail.scroll-back", NULL));
  g_assert_true (gtk_widget_activate_action (detail, "detail.scroll-back", NULL));
  gui_test_spin ();
  g_free (view);
  view = dump_line (window, "view\t");
  g_assert_cmpstr (view, ==, "window=300\tend=-300\tscrollbar=shown\tlatest=shown");
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (window, "gui-port-detail-scrolled-back.png", NULL, 0);
  }
  g_assert_true (gtk_widget_activate_action (detail, "detail.scroll-newest", NULL));
  gui_test_spin ();
  g_free (view);
  view = dump_line (window, "view\t");
  g_assert_cmpstr (view, ==, "window=300\tend=newest\tscrollbar=shown\tlatest=hidden");

  /* All history: the whole two hours in the graphs, nothing to scroll. */
  {
    GtkDropDown *dropdown = NULL;
    GPtrArray *stack = g_ptr_array_new ();

    g_ptr_array_add (stack, window);
    while (stack->len > 0 && dropdown == NULL)
      {
        GtkWidget *w = g_ptr_array_steal_index (stack, stack->len - 1);

        if (GTK_IS_DROP_DOWN (w) && gtk_widget_get_mapped (w) &&
            g_list_model_get_n_items (gtk_drop_down_get_model (GTK_DROP_DOWN (w))) == 5)
          dropdown = GTK_DROP_DOWN (w);
        for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
          g_ptr_array_add (stack, c);
      }
    g_ptr_array_unref (stack);
    g_assert_nonnull (dropdown);
    gtk_drop_down_set_selected (dropdown, 4);
  }
  gui_test_spin ();
  g_free (view);
  view = dump_line (window, "view\t");
  g_assert_cmpstr (view, ==, "window=7200\tend=newest\tscrollbar=hidden\tlatest=hidden");
  {
    const char *want[] = { "view=detail\n", "detail\trxe0 port 1\n", "view\twindow=7200\tend=newest\tscrollbar=hidden\tlatest=hidden\n", NULL };
    g_autoptr(GuiTestPixels) pixels = screenshot_page (window, "gui-port-detail-two-hours.png", want, 2);
  }

  /* Compared, the replay's end is not "now" either. */
  {
    g_autofree char *edge = NULL;

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-with", "s", "rxe0/1"));
    gui_test_spin ();
    gtk_widget_queue_draw (GTK_WIDGET (window->compare_view));
    gui_test_spin ();
    edge = rtop_graph_dup_time_label (RTOP_GRAPH (find_of_type (GTK_WIDGET (window->compare_view), RTOP_TYPE_GRAPH)), 0);
    g_test_message ("compared replay's right edge: %s", edge);
    g_assert_cmpstr (edge, !=, "now");
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  gui_test_spin ();
  g_unlink (path);
  g_rmdir (dir);
}

/* A process row opens the process's page: its QPs with the failed one
 * marked, and links to its ports; Back returns. */
static void
test_process_page (Fixture *f, gconstpointer data)
{
  g_autofree char *dump = NULL;
  RtopProcessItem *item = NULL;
  GListModel *processes;

  feed (f->history, 30);
  processes = rtop_history_get_processes (f->history);
  for (guint i = 0; i < g_list_model_get_n_items (processes); i++)
    {
      g_autoptr(RtopProcessItem) p = g_list_model_get_item (processes, i);
      if (rtop_process_item_get_pid (p) == 4300)
        item = p;
    }
  g_assert_nonnull (item);
  activate (f, "show-view", g_variant_new_string ("processes"));
  activate (f, "show-process", g_variant_new_string (rtop_process_item_get_key (item)));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "process");
  dump = rtop_window_dump (f->window);
  g_test_message ("%s", strstr (dump, "process-page"));
  g_assert_nonnull (strstr (dump, "process-page\tibv_rc_pingpong"));
  /* The page names the process's job. */
  g_assert_nonnull (strstr (dump, "· Pod 0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21, container 3d2ae0c5b6d4\n"));
  g_assert_nonnull (strstr (dump, "process-error\t1 queue pair is in the error state"));
  g_assert_nonnull (strstr (dump, "process-port\trxe0/1"));
  g_assert_nonnull (strstr (dump, "qp\tqpn=17\ttype=RC\tstate=RTS\tport=rxe0/1\tpeer=18\tpeer-addr=192.0.2.2:40001"));
  g_assert_nonnull (strstr (dump, "qp\tqpn=19\ttype=RC\tstate=⚠ ERR\tport=rxe0/1\tpeer=20\tpeer-addr=—"));
  g_assert_nonnull (strstr (dump, "qp\tqpn=21\ttype=UD\tstate=RTS\tport=rxe0/1\tpeer=—\tpeer-addr=—"));
  {
    const char *want[] = { "view=process\n", NULL };
    g_autoptr(GuiTestPixels) pixels = screenshot_page (f->window, "gui-process-page.png", want, 0);

    assert_table_drawn (pixels, f->window);
    gui_test_assert_drawn (pixels, GTK_WIDGET (f->window),
                           find_mapped (GTK_WIDGET (f->window), RTOP_TYPE_PROCESS_SECTION), 2000);
  }

  /* Its port link opens the port. */
  activate (f, "show-port", g_variant_new_string ("rxe0/1"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  activate (f, "back", NULL);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "processes");
}

typedef struct {
  RtopGraph *graph;
  guint frames;
} FrameAfter;

static gboolean
drew_after (gpointer data)
{
  FrameAfter *a = data;
  RtopGraphFrameStats st;

  rtop_graph_get_frame_stats (a->graph, &st);
  return st.frames > a->frames;
}

/* The frames graph has drawn so far. */
static guint
frames_of (RtopGraph *graph)
{
  RtopGraphFrameStats st;

  rtop_graph_get_frame_stats (graph, &st);
  return st.frames;
}

/* Waits until graph has drawn a frame after its first frames. */
static void
wait_drawn_after (RtopGraph *graph, guint frames, const char *description)
{
  FrameAfter a = { graph, frames };

  gui_test_wait_until (drew_after, &a, description);
}

/* Each of graph's channels draws its line in its own colour in at least
 * half the columns its samples span (lines cross and hide each other). */
static void
assert_each_channel_drawn (GuiTestPixels *pixels, GtkWidget *root, RtopGraph *graph)
{
  cairo_rectangle_int_t plot = plot_area (pixels, root, graph);

  for (guint c = 0; c < graph->n_channels; c++)
    {
      guint n = columns_drawn (pixels, &plot, graph, c);

      g_test_message ("channel %u (%s): its colour in %u of %d columns", c, graph->channels[c].label, n, plot.width);
      g_assert_cmpuint (n, >=, (guint) (plot.width * data_share (graph) / 2));
    }
}

/* The hover readout of the compare chart at its newest column lists
 * every port with the value its item holds. */
static void
assert_readout (RtopGraph *graph, RtopHistory *history, const char * const *keys,
                RtopPortChannel channel, RtopUnit unit)
{
  g_autofree char *readout = rtop_graph_describe_at (graph, gtk_widget_get_width (GTK_WIDGET (graph)) - 11);

  g_assert_nonnull (readout);
  g_test_message ("%s", readout);
  for (guint i = 0; keys[i]; i++)
    {
      RtopPortItem *item = rtop_history_find_port_by_key (history, keys[i]);
      g_autofree char *value = rtop_format_rate (rtop_port_item_get_rate (item, channel), unit);
      g_autofree char *line = g_strdup_printf ("\n%s: %s", keys[i], value);

      g_assert_nonnull (strstr (readout, line));
    }
}

/* Several ports in one chart: one line each on one scale, a colour per
 * port that it keeps, the legend and the hover readout giving each
 * port's value; the list's keyboard path (activate) checks and unchecks. */
static void
test_compare (Fixture *f, gconstpointer data)
{
  const char *asked[] = { "mlx5_0/1", "mlx5_1/1", "rxe0/1", "nope/9", NULL };
  const char *shown[] = { "mlx5_0/1", "mlx5_1/1", "rxe0/1", NULL };
  const char *after[] = { "rxe1/1", "mlx5_1/1", "rxe0/1", NULL };
  RtopCompareSection *view;
  RtopGraph *graph;
  RtopGraphFrameStats st;
  guint frames;
  double expected_max = 0;
  g_autofree char *line = NULL;

  feed (f->history, 120);
  /* Built when first shown. */
  g_assert_null (find_of_type (GTK_WIDGET (f->window), RTOP_TYPE_COMPARE_SECTION));
  view = rtop_window_ensure_compare_view (f->window);
  graph = rtop_compare_section_get_graph (view);
  frames = frames_of (graph);
  activate (f, "compare-ports", g_variant_new_strv (asked, -1));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "compare");
  g_assert_cmpuint (rtop_graph_get_n_channels (graph), ==, 3);
  wait_drawn_after (graph, frames, "the compare chart to be drawn");

  /* One scale: the axis reaches the busiest of the three over the window. */
  rtop_graph_get_frame_stats (graph, &st);
  for (guint i = 0; shown[i]; i++)
    {
      RtopSeries *series = rtop_port_item_get_series (rtop_history_find_port_by_key (f->history, shown[i]));
      gint64 last;
      double lo, hi;

      g_assert_true (rtop_series_get_time_range (series, NULL, &last));
      g_assert_true (rtop_series_get_extremes (series, RTOP_PORT_CH_TX_BPS,
                                               last - 300 * G_USEC_PER_SEC, last + 1, &lo, &hi));
      expected_max = MAX (expected_max, hi);
    }
  g_assert_cmpfloat_with_epsilon (st.data_max, expected_max, expected_max * 1e-9);
  g_assert_cmpfloat (st.axis_max, >=, expected_max);
  assert_readout (graph, f->history, shown, RTOP_PORT_CH_TX_BPS, RTOP_UNIT_BITS_PER_S);
  {
    RtopPortItem *rxe0 = rtop_history_find_port_by_key (f->history, "rxe0/1");
    g_autofree char *want = g_strdup_printf ("compared\tport=rxe0/1\tcolour=2\trate=%.17g",
                                             rtop_port_item_get_rate (rxe0, RTOP_PORT_CH_TX_BPS));
    line = dump_line (f->window, "compare\t");
    g_assert_cmpstr (line, ==, "metric=tx-bps\tports=3");
    g_free (line);
    line = rtop_window_dump (f->window);
    g_assert_nonnull (strstr (line, want));
  }
  {
    const char *want[] = { "view=compare\n", "compare\tmetric=tx-bps\tports=3\n", NULL };
    g_autoptr(GuiTestPixels) pixels = screenshot_page (f->window, "gui-compare.png", want, 1);

    assert_each_channel_drawn (pixels, GTK_WIDGET (f->window), graph);
  }

  /* Another metric: the same ports, its unit. */
  frames = frames_of (graph);
  rtop_compare_section_set_metric (view, RTOP_PORT_CH_RETRANS);
  wait_drawn_after (graph, frames, "the compare chart to be drawn for retransmits");
  assert_readout (graph, f->history, shown, RTOP_PORT_CH_RETRANS, RTOP_UNIT_EVENTS_PER_S);
  g_clear_pointer (&line, g_free);
  line = dump_line (f->window, "compare\t");
  g_assert_cmpstr (line, ==, "metric=retransmits\tports=3");

  /* Unchecked from the keyboard (row 0 is mlx5_0/1), then rxe1/1 checked
   * (row 3): it takes the free colour, the others keep theirs. */
  frames = frames_of (graph);
  g_signal_emit_by_name (rtop_compare_section_get_port_list (view), "activate", 0);
  g_assert_cmpuint (rtop_graph_get_n_channels (graph), ==, 2);
  g_signal_emit_by_name (rtop_compare_section_get_port_list (view), "activate", 3);
  g_assert_cmpuint (rtop_graph_get_n_channels (graph), ==, 3);
  g_clear_pointer (&line, g_free);
  line = rtop_window_dump (f->window);
  g_assert_nonnull (strstr (line, "compared\tport=rxe1/1\tcolour=0"));
  g_assert_nonnull (strstr (line, "compared\tport=mlx5_1/1\tcolour=1"));
  g_assert_nonnull (strstr (line, "compared\tport=rxe0/1\tcolour=2"));
  wait_drawn_after (graph, frames, "the compare chart to be drawn for the ports checked");
  assert_readout (graph, f->history, after, RTOP_PORT_CH_RETRANS, RTOP_UNIT_EVENTS_PER_S);

  /* Clear: nothing to draw, the page says what to do. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (view), "compare.clear", NULL));
  g_assert_cmpuint (rtop_graph_get_n_channels (graph), ==, 0);
  g_clear_pointer (&line, g_free);
  line = dump_line (f->window, "compare\t");
  g_assert_cmpstr (line, ==, "metric=retransmits\tports=0");

  /* A port's page adds its port; Back leaves, Ctrl+4's action returns to
   * the same chart. */
  activate (f, "show-port", g_variant_new_string ("rxe1/1"));
  activate (f, "compare-with", g_variant_new_string ("rxe1/1"));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "compare");
  activate (f, "back", NULL);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), !=, "compare");
  activate (f, "compare", NULL);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "compare");
  g_assert_cmpuint (rtop_graph_get_n_channels (graph), ==, 1);
}

/* A process that chose hostile names (a terminal escape, a right-to-left
 * override, invalid UTF-8, a long command line) is shown escaped in the
 * page's own labels, whatever source handed the snapshot over. */
static void
test_hostile_names (Fixture *f, gconstpointer data)
{
  GuiPortSpec p[G_N_ELEMENTS (ports)];
  RtopSnapshot *s;
  RtopProcess *proc;
  RtopProcessItem *item = NULL;
  GListModel *processes;
  g_autofree char *dump = NULL;
  g_autofree char *big = g_strnfill (64 * 1024, 'A');
  const char *title;

  memcpy (p, ports, sizeof p);
  s = gui_fixture_snapshot (1, 1.0, p, G_N_ELEMENTS (p));
  proc = gui_fixture_add_process (s, 4400, "\x1b[2Jx\xe2\x80\xae", "ev\x07" "e", "rxe0", 1, 1, 4096);
  g_free (proc->cmdline);
  proc->cmdline = g_strconcat ("job\xe2\x80\xaehs.tpg \x1b]0;owned\x07 caf\xe9 ", big, NULL);
  rtop_snapshot_seal (s);
  rtop_history_ingest (f->history, s);
  rtop_snapshot_unref (s);

  processes = rtop_history_get_processes (f->history);
  for (guint i = 0; i < g_list_model_get_n_items (processes); i++)
    {
      g_autoptr(RtopProcessItem) it = g_list_model_get_item (processes, i);
      if (rtop_process_item_get_pid (it) == 4400)
        item = it;
    }
  g_assert_nonnull (item);
  g_assert_cmpstr (rtop_process_item_get_comm (item), ==, "\\x1b[2Jx\\u202e");
  activate (f, "show-view", g_variant_new_string ("processes"));
  activate (f, "show-process", g_variant_new_string (rtop_process_item_get_key (item)));
  dump = rtop_window_dump (f->window);
  title = strstr (dump, "process-page\t");
  g_assert_nonnull (title);
  g_test_message ("%.300s … %s", title, strchr (title + strlen ("process-page\t"), '\t'));
  g_assert_true (g_str_has_prefix (title, "process-page\tjob\\u202ehs.tpg \\x1b]0;owned\\x07 "
                                   "caf\\xe9 AAAA"));
  g_assert_nonnull (strstr (title, "ev\\x07e"));
  g_assert_null (strchr (dump, '\x1b'));
  g_assert_null (strstr (dump, "\xe2\x80\xae"));
  g_assert_true (g_utf8_validate (dump, -1, NULL));
  g_assert_cmpuint (strlen (rtop_process_item_get_command (item)), <=, RTOP_TEXT_CMDLINE_MAX);
}

static void
test_remote_detection (void)
{
  const struct {
    const char *ssh;
    const char *display;
    gboolean remote;
  } cases[] = {
    { NULL, ":0", FALSE },
    { NULL, ":1.0", FALSE },
    { NULL, "unix:0", FALSE },
    { NULL, "/tmp/launch-x/org.xquartz:0", FALSE },
    { NULL, NULL, FALSE },
    { NULL, "localhost:10.0", TRUE },
    { NULL, "build-host:0", TRUE },
    { "10.0.0.1 5555 10.0.0.2 22", ":0", TRUE },
    { "", ":0", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmpint (rtop_remote_display_is_remote (cases[i].ssh, cases[i].display), ==, cases[i].remote);
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  /* Views switch at once, as over a remote display. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  g_test_add ("/gui/window/views-and-settings", Fixture, NULL, fixture_setup,
              test_views_and_settings, fixture_teardown);
  g_test_add ("/gui/window/screenshots", Fixture, NULL, fixture_setup,
              test_screenshots, fixture_teardown);
  g_test_add ("/gui/window/dialogs", Fixture, NULL, fixture_setup,
              test_dialogs, fixture_teardown);
  g_test_add ("/gui/window/small-window", Fixture, NULL, fixture_setup,
              test_small_window, fixture_teardown);
  g_test_add ("/gui/window/compare", Fixture, NULL, fixture_setup,
              test_compare, fixture_teardown);
  g_test_add ("/gui/window/process-page", Fixture, NULL, fixture_setup,
              test_process_page, fixture_teardown);
  g_test_add ("/gui/window/hostile-names", Fixture, NULL, fixture_setup,
              test_hostile_names, fixture_teardown);
  g_test_add_func ("/gui/window/two-windows-one-session", test_two_windows);
  g_test_add_func ("/gui/window/long-replay", test_long_replay);
  g_test_add_func ("/gui/window/close-while-recording", test_close_while_recording);
  g_test_add_func ("/gui/remote/detection", test_remote_detection);
  return g_test_run ();
}
