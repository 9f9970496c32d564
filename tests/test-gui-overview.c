/* test-gui-overview.c: the overview at a glance, driven in the real window:
 * a layout that holds still while two hosts take turns, one failure said
 * once, sparklines on a scale ports compare on, the ports in trouble first
 * on a click of their card, a filter by name, and severities told by a
 * sign as well as a colour. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-event-item.h"
#include "rtop-format.h"
#include "rtop-graph-private.h"
#include "rtop-history-private.h"
#include "rtop-overview-section-private.h"
#include "rtop-window-private.h"

/* Sixteen ports of three speeds; two in trouble (a Warning, an Error). */
#define N_PORTS 16

static void
make_ports (GuiPortSpec *p, guint seq)
{
  static char names[N_PORTS][16];

  for (guint i = 0; i < N_PORTS; i++)
    {
      double link = i < 4 ? 400 : i < 10 ? 100 : 25;

      g_snprintf (names[i], sizeof names[i], "mlx5_%u", i);
      p[i] = (GuiPortSpec) { names[i], 1, "mlx5", "roce", 4, link,
                             link * 1e9 * (0.02 + 0.04 * (i % 5)) * (1 + 0.2 * sin (seq / 5.0 + i)),
                             link * 1e9 * 0.03, 1e5, 1e5, 0, 0, 0, TRUE };
    }
  /* A port with loss: a Warning; one down: an Error. */
  p[5].retrans = seq > 2 ? 3.01 : 0;
  if (seq > 2)
    {
      p[12].state = 1;
      p[12].tx_bps = p[12].rx_bps = p[12].tx_pps = p[12].rx_pps = 0;
    }
}

static void
ingest (RtopHistory *history, RtopSnapshot *s)
{
  rtop_snapshot_seal (s);
  rtop_history_ingest (history, s);
  rtop_snapshot_unref (s);
}

/* A pass of the sixteen ports, from host (NULL: this computer). */
static void
feed_ports (RtopHistory *history, const char *host, guint seq)
{
  GuiPortSpec p[N_PORTS];
  RtopSnapshot *s;

  make_ports (p, seq);
  s = gui_fixture_snapshot (seq, 1.0, p, N_PORTS);
  s->host = g_strdup (host);
  ingest (history, s);
}

/* A pass of this computer's sixteen ports, with or without the two in
 * trouble. */
static void
feed_local (RtopHistory *history, guint seq, gboolean trouble)
{
  GuiPortSpec p[N_PORTS];

  make_ports (p, seq);
  if (!trouble)
    {
      p[5].retrans = 0;
      p[12].state = 4;
      p[12].tx_bps = p[12].rx_bps = 2.5e9;
      p[12].tx_pps = p[12].rx_pps = 1e5;
    }
  ingest (history, gui_fixture_snapshot (seq, 1.0, p, N_PORTS));
}

/* A pass of a host whose kernel has no RDMA: a failed read, no ports, and
 * on the first pass the collection error a health check raises. */
static void
feed_no_rdma (RtopHistory *history, const char *host, guint seq)
{
  RtopSnapshot *s = gui_fixture_snapshot (seq, 1.0, NULL, 0);

  s->host = g_strdup (host);
  s->status = RTOP_STATUS_NO_NETLINK;
  s->status_message = g_strdup ("Could not open the RDMA netlink socket.");
  if (seq == 1)
    {
      RtopEvent *e = rtop_event_new (RTOP_EVENT_COLLECTION_ERROR, RTOP_SEVERITY_ERROR, NULL, 0,
                                     s->status_message);

      e->monotonic_us = s->monotonic_us;
      e->realtime_us = s->realtime_us;
      g_ptr_array_add (s->events, e);
    }
  ingest (history, s);
}

typedef struct {
  RtopSession *session;
  RtopHistory *history;
  GSettings *settings;
  RtopWindow *window;
  RtopOverviewSection *overview;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "last-view");
  g_settings_reset (f->settings, "sparkline-scale");
  f->session = rtop_session_new (f->settings);
  f->history = g_object_ref (rtop_session_get_history (f->session));
  f->window = rtop_window_new (NULL, f->session, f->settings);
  f->overview = f->window->overview;
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1400, 860);
  gtk_window_present (GTK_WINDOW (f->window));
  gui_test_wait_mapped (GTK_WIDGET (f->window));
  gui_test_spin ();
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  gui_test_spin ();
  g_assert_null (f->window);
  g_assert_finalize_object (f->session);
  g_object_unref (f->history);
  g_assert_finalize_object (f->settings);
}

static void
activate (Fixture *f, const char *action, GVariant *param)
{
  g_autofree char *name = g_strconcat ("win.", action, NULL);

  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (f->window), name, param));
  gui_test_spin ();
}

/* The dump's line that starts with prefix (without it), or NULL. */
static char *
dump_line (Fixture *f, const char *prefix)
{
  g_autofree char *dump = rtop_window_dump (f->window);
  g_auto(GStrv) lines = g_strsplit (dump, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i] + strlen (prefix));
  return NULL;
}

/* Where the ports table lies in the window. */
static graphene_rect_t
table_bounds (Fixture *f)
{
  GtkWidget *scrolled = gtk_widget_get_parent (GTK_WIDGET (f->overview->ports_view));
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (scrolled, GTK_WIDGET (f->window), &bounds));
  return bounds;
}

/* Two hosts take turns, this computer without RDMA and node1 with ports:
 * the table stays where it is, and the failure is said once. */
static void
test_layout_still (Fixture *f, gconstpointer data)
{
  graphene_rect_t first = { { 0, 0 }, { 0, 0 } };

  for (guint seq = 1; seq <= 8; seq++)
    {
      graphene_rect_t now;

      if (seq % 2)
        feed_no_rdma (f->history, NULL, seq);
      else
        feed_ports (f->history, "node1", seq);
      gui_test_wait_painted (GTK_WIDGET (f->window));
      if (seq < 3)
        continue;
      now = table_bounds (f);
      g_test_message ("pass %u (%s): table at y=%.0f, %.0f high", seq,
                      seq % 2 ? "this computer" : "node1", now.origin.y, now.size.height);
      if (seq == 3)
        first = now;
      g_assert_cmpfloat (now.origin.y, ==, first.origin.y);
      g_assert_cmpfloat (now.size.height, ==, first.size.height);
    }
  g_assert_cmpstr (rtop_overview_section_get_state (f->overview), ==, "ports");
  /* The error is this computer's state, not a recent health event. */
  for (guint i = 0; i < g_list_model_get_n_items (rtop_history_get_recent_events (f->history)); i++)
    {
      g_autoptr(RtopEventItem) item = g_list_model_get_item (rtop_history_get_recent_events (f->history), i);

      g_assert_cmpint (rtop_event_item_get_event (item)->kind, !=, RTOP_EVENT_COLLECTION_ERROR);
    }
  /* Still in the full log. */
  g_assert_cmpuint (g_list_model_get_n_items (rtop_history_get_events (f->history)), >=, 1);
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

static int
graph_width (Fixture *f)
{
  g_autoptr(GPtrArray) graphs = g_ptr_array_new ();

  collect_graphs (GTK_WIDGET (f->overview->ports_view), graphs);
  g_assert_cmpuint (graphs->len, >, 0);
  return gtk_widget_get_width (g_ptr_array_index (graphs, 0));
}

/* Verdicts that come and go ("OK", "✖ Port not active") and values of
 * changing widths leave the columns as wide as the widest text they have
 * shown: the expanding graph column never grows back.  (A column that
 * shrank would move every column right of it, and repaint every row.) */
static void
test_columns_still (Fixture *f, gconstpointer data)
{
  g_autofree char *dump = NULL;
  int during = 0;

  for (guint seq = 1; seq <= 14; seq++)
    {
      feed_local (f->history, seq, seq >= 3 && seq <= 6);
      gui_test_wait_painted (GTK_WIDGET (f->window));
      /* A label is measured a frame after it changed. */
      gui_test_wait_painted (GTK_WIDGET (f->window));
      g_test_message ("pass %u: graph column %d px wide", seq, graph_width (f));
      if (seq == 6)
        {
          dump = rtop_window_dump (f->window);
          g_assert_nonnull (strstr (dump, "health=" RTOP_SIGN_ERROR " Port not active\n"));
          g_clear_pointer (&dump, g_free);
          during = graph_width (f);
        }
      else if (seq > 6)
        g_assert_cmpint (graph_width (f), <=, during);
    }
  /* The trouble did end. */
  dump = rtop_window_dump (f->window);
  g_assert_null (strstr (dump, "health=" RTOP_SIGN_ERROR));
}

/* Checks each shown sparkline's top: its port's link rate, or (peak) its
 * own peak, under the link rate of a port that is never full.  Returns
 * how many it checked. */
static guint
check_scales (Fixture *f, gboolean peak)
{
  g_autoptr(GPtrArray) graphs = g_ptr_array_new ();
  guint checked = 0;

  collect_graphs (GTK_WIDGET (f->overview->ports_view), graphs);
  for (guint i = 0; i < graphs->len; i++)
    {
      RtopGraph *graph = g_ptr_array_index (graphs, i);
      RtopPortItem *item = g_object_get_data (G_OBJECT (graph), "rtop-sparkline-item");
      double link = rtop_port_item_get_link_gbps (item) * 1e9;
      RtopGraphFrameStats st;

      rtop_graph_get_frame_stats (graph, &st);
      if (st.data_max <= 0 || !rtop_port_item_get_link_up (item))
        continue;
      g_test_message ("%s: axis %.3g, peak %.3g, link %.3g", rtop_port_item_get_key (item),
                      st.axis_max, st.data_max, link);
      if (peak)
        g_assert_cmpfloat (st.axis_max, <, link / 2);
      else
        g_assert_cmpfloat (st.axis_max, ==, link);
      /* The peak text has room right of the line, never over it. */
      g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (graph)), >=, 200);
      g_assert_cmpfloat (graph->plot.origin.x + graph->plot.size.width + graph->peak_gutter, <=,
                         gtk_widget_get_width (GTK_WIDGET (graph)) + 1);
      g_assert_cmpfloat (graph->peak_gutter, >, 20);
      checked++;
    }
  return checked;
}

/* Sparklines default to their link's rate: a 400 Gb/s port at a few per
 * cent is a low line, as it is; View → Sparkline Scale → Peak gives each
 * its own. */
static void
test_scale (Fixture *f, gconstpointer data)
{
  g_autofree char *scale = NULL;

  for (guint seq = 1; seq <= 30; seq++)
    feed_ports (f->history, NULL, seq);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  scale = dump_line (f, "scale\t");
  g_assert_cmpstr (scale, ==, "link-rate");
  g_assert_cmpuint (check_scales (f, FALSE), >=, 8);

  activate (f, "sparkline-scale", g_variant_new_string ("peak"));
  {
    g_autofree char *setting = g_settings_get_string (f->settings, "sparkline-scale");
    g_assert_cmpstr (setting, ==, "peak");
  }
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_free (scale);
  scale = dump_line (f, "scale\t");
  g_assert_cmpstr (scale, ==, "peak");
  g_assert_cmpuint (check_scales (f, TRUE), >=, 8);

  /* The setting drives the window too. */
  g_settings_set_string (f->settings, "sparkline-scale", "link-rate");
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_cmpuint (check_scales (f, FALSE), >=, 8);
}

/* The ports in the order shown. */
static char *
shown_order (Fixture *f)
{
  GListModel *model = rtop_overview_section_get_model (f->overview);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (model, i);

      g_string_append_printf (out, "%s%s", i ? " " : "", rtop_port_item_get_key (item));
    }
  return g_string_free (out, FALSE);
}

/* A click on the trouble card puts the Error first, then the Warning,
 * then the rest in their order; a second click gives the order back. */
static void
test_trouble_first (Fixture *f, gconstpointer data)
{
  g_autofree char *before = NULL, *after = NULL, *again = NULL;
  GtkWidget *card = f->overview->problems_card;

  for (guint seq = 1; seq <= 6; seq++)
    feed_ports (f->history, NULL, seq);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  before = shown_order (f);
  g_assert_true (g_str_has_prefix (before, "mlx5_0/1 mlx5_1/1 mlx5_2/1"));
  /* A button, named for screen readers, that says both, never cut. */
  g_assert_true (GTK_IS_TOGGLE_BUTTON (card));
  g_assert_true (gtk_widget_get_focusable (card) || gtk_widget_get_focus_on_click (card));
  g_assert_true (g_str_has_prefix (gtk_label_get_label (f->overview->total_problems_caption),
                                   "✖ Ports in trouble\n"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (f->overview->problems_caption), "mlx5_5/1 ("));

  /* The click, as a pointer or Space would. */
  g_signal_emit_by_name (card, "clicked");
  gui_test_spin ();
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (card)));
  after = shown_order (f);
  g_test_message ("trouble first: %s", after);
  g_assert_true (g_str_has_prefix (after, "mlx5_12/1 mlx5_5/1 mlx5_0/1 mlx5_1/1"));
  g_free (dump_line (f, "trouble-first\tyes"));
  /* It holds as passes come. */
  feed_ports (f->history, NULL, 7);
  gui_test_spin ();
  g_free (after);
  after = shown_order (f);
  g_assert_true (g_str_has_prefix (after, "mlx5_12/1 mlx5_5/1 mlx5_0/1"));

  g_signal_emit_by_name (card, "clicked");
  gui_test_spin ();
  again = shown_order (f);
  g_assert_cmpstr (again, ==, before);
}

/* Ctrl+F opens a filter bar whose text keeps the ports whose name holds
 * it; Escape (the bar closed) shows them all again. */
static void
test_filter (Fixture *f, gconstpointer data)
{
  g_autofree char *order = NULL;
  GtkWidget *focus;

  for (guint seq = 1; seq <= 3; seq++)
    feed_ports (f->history, NULL, seq);
  gui_test_spin ();
  g_assert_false (gtk_search_bar_get_search_mode (f->overview->filter_bar));
  activate (f, "find", NULL);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_true (gtk_search_bar_get_search_mode (f->overview->filter_bar));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_nonnull (focus);
  g_assert_true (focus == GTK_WIDGET (f->overview->filter_entry) ||
                 gtk_widget_is_ancestor (focus, GTK_WIDGET (f->overview->filter_entry)));

  gtk_editable_set_text (GTK_EDITABLE (f->overview->filter_entry), "MLX5_1");
  /* The entry waits a little before it says the text changed. */
  g_signal_emit_by_name (f->overview->filter_entry, "search-changed");
  gui_test_spin ();
  order = shown_order (f);
  g_assert_cmpstr (order, ==, "mlx5_1/1 mlx5_10/1 mlx5_11/1 mlx5_12/1 mlx5_13/1 mlx5_14/1 mlx5_15/1");
  g_free (dump_line (f, "filter\tMLX5_1"));
  /* New passes keep to it. */
  feed_ports (f->history, NULL, 4);
  gui_test_spin ();
  g_assert_cmpuint (g_list_model_get_n_items (rtop_overview_section_get_model (f->overview)), ==, 7);

  gtk_search_bar_set_search_mode (f->overview->filter_bar, FALSE);
  gui_test_spin ();
  g_assert_cmpuint (g_list_model_get_n_items (rtop_overview_section_get_model (f->overview)), ==, N_PORTS);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (f->overview->filter_entry)), ==, "");
}

static GtkWidget *
find_label (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
      g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_label (c, text);

      if (found)
        return found;
    }
  return NULL;
}

/* An Error and a Warning have signs of their own, and a rising count
 * takes its row's verdict colour: amber on a Warning's row, not red. */
static void
test_signs (Fixture *f, gconstpointer data)
{
  g_autofree char *dump = NULL;
  g_autofree char *loss = rtop_format_rate (3.01, RTOP_UNIT_EVENTS_PER_S);
  GtkWidget *cell;

  for (guint seq = 1; seq <= 6; seq++)
    feed_ports (f->history, NULL, seq);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  dump = rtop_window_dump (f->window);
  g_assert_nonnull (strstr (dump, "row\tport=mlx5_12/1\t"));
  g_assert_nonnull (strstr (dump, "health=" RTOP_SIGN_ERROR " Port not active\n"));
  g_assert_nonnull (strstr (dump, "health=" RTOP_SIGN_WARNING " "));
  g_assert_cmpstr (RTOP_SIGN_ERROR, !=, RTOP_SIGN_WARNING);
  g_assert_cmpstr (rtop_severity_sign (RTOP_SEVERITY_ERROR), ==, RTOP_SIGN_ERROR);
  g_assert_cmpstr (rtop_severity_sign (RTOP_SEVERITY_WARNING), ==, RTOP_SIGN_WARNING);

  cell = find_label (GTK_WIDGET (f->overview->ports_view), loss);
  g_assert_nonnull (cell);
  g_assert_true (gtk_widget_has_css_class (cell, "state-warn"));
  g_assert_false (gtk_widget_has_css_class (cell, "state-bad"));
  g_assert_false (gtk_widget_has_css_class (cell, "problem"));
}

/* The port, process and compare pages are built when first shown, and
 * then follow the session and settings like the rest. */
static void
test_lazy_pages (Fixture *f, gconstpointer data)
{
  g_autofree char *dump = NULL;

  g_assert_null (f->window->port_detail);
  g_assert_null (f->window->process_page);
  g_assert_null (f->window->compare_view);
  for (guint seq = 1; seq <= 3; seq++)
    feed_ports (f->history, NULL, seq);
  gui_test_spin ();
  g_assert_null (f->window->port_detail);
  activate (f, "show-port", g_variant_new_string ("mlx5_3/1"));
  g_assert_nonnull (f->window->port_detail);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  g_assert_true (rtop_section_get_history (RTOP_SECTION (f->window->port_detail)) == f->history);
  dump = rtop_window_dump (f->window);
  g_assert_nonnull (strstr (dump, "mlx5_3"));
  g_assert_null (f->window->compare_view);
  activate (f, "compare", NULL);
  g_assert_nonnull (f->window->compare_view);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "compare");
  g_assert_null (f->window->process_page);
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  g_test_add ("/gui/overview/layout-still", Fixture, NULL, fixture_setup,
              test_layout_still, fixture_teardown);
  g_test_add ("/gui/overview/columns-still", Fixture, NULL, fixture_setup,
              test_columns_still, fixture_teardown);
  g_test_add ("/gui/overview/scale", Fixture, NULL, fixture_setup,
              test_scale, fixture_teardown);
  g_test_add ("/gui/overview/trouble-first", Fixture, NULL, fixture_setup,
              test_trouble_first, fixture_teardown);
  g_test_add ("/gui/overview/filter", Fixture, NULL, fixture_setup,
              test_filter, fixture_teardown);
  g_test_add ("/gui/overview/signs", Fixture, NULL, fixture_setup,
              test_signs, fixture_teardown);
  g_test_add ("/gui/overview/lazy-pages", Fixture, NULL, fixture_setup,
              test_lazy_pages, fixture_teardown);
  return g_test_run ();
}
