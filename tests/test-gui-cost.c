/* test-gui-cost.c: what the window does not do for new data.
 *
 * Every repaint of a GTK 4 window on X11 costs its area in bytes and CPU,
 * so the window changes only what changed and holds what is not seen.
 * These tests check the mechanisms (a label not set again, a hidden
 * overview holding its cells and sparklines, a remote display's refresh
 * period, the remote-display banner), never a time. */
#include "config.h"

#include <string.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-columns-private.h"
#include "rtop-format.h"
#include "rtop-graph-private.h"
#include "rtop-history.h"
#include "rtop-host-strip.h"
#include "rtop-overview-section-private.h"
#include "rtop-remote.h"
#include "rtop-series.h"
#include "rtop-source.h"
#include "rtop-window-private.h"

/* A source that is only there, running: this computer's card above the
 * table, its totals from what the tests ingest. */
#define TEST_TYPE_SOURCE (test_source_get_type ())
G_DECLARE_FINAL_TYPE (TestSource, test_source, TEST, SOURCE, GObject)

struct _TestSource {
  GObject parent_instance;
  RtopSourceProps props;
};

static RtopSourceProps *
test_source_get_props (RtopSource *source)
{
  return &TEST_SOURCE (source)->props;
}

static void
test_source_nothing (RtopSource *source)
{
}

static void
test_source_iface_init (RtopSourceInterface *iface)
{
  iface->get_props = test_source_get_props;
  iface->start = test_source_nothing;
  iface->stop = test_source_nothing;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (TestSource, test_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RTOP_TYPE_SOURCE, test_source_iface_init))

static void
test_source_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (!rtop_source_get_common_property (RTOP_SOURCE (object), 1, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
test_source_finalize (GObject *object)
{
  rtop_source_props_clear (&TEST_SOURCE (object)->props);
  G_OBJECT_CLASS (test_source_parent_class)->finalize (object);
}

static void
test_source_class_init (TestSourceClass *klass)
{
  G_OBJECT_CLASS (klass)->get_property = test_source_get_property;
  G_OBJECT_CLASS (klass)->finalize = test_source_finalize;
  rtop_source_install_properties (G_OBJECT_CLASS (klass), 1);
}

static void
test_source_init (TestSource *self)
{
  self->props.name = g_strdup ("This computer");
  self->props.state = RTOP_SOURCE_STATE_RUNNING;
  self->props.live = TRUE;
}

typedef struct {
  RtopSession *session;
  RtopHistory *history;
  RtopWindow *window;
  RtopOverviewSection *overview;
  guint64 seq;
} Fixture;

/* The host card's details, as the dump gives them. */
static char *
host_detail (Fixture *f)
{
  g_autoptr(GString) out = g_string_new (NULL);
  const char *detail;

  rtop_host_strip_dump (f->overview->host_strip, out);
  detail = strstr (out->str, "detail=");
  g_assert_nonnull (detail);
  return g_strndup (detail + strlen ("detail="), strcspn (detail + strlen ("detail="), "\n"));
}

/* The card gives this transmit rate. */
static void
assert_host_tx (Fixture *f, double tx_bps)
{
  g_autofree char *detail = host_detail (f);
  g_autofree char *rate = rtop_format_rate (tx_bps, RTOP_UNIT_BITS_PER_S);
  g_autofree char *want = g_strdup_printf ("TX %s ·", rate);

  if (strstr (detail, want) == NULL)
    g_error ("the host card says \"%s\", not \"%s\"", detail, want);
}

static GtkWidget *
find_widget (GtkWidget *root, gboolean (*match) (GtkWidget *, gconstpointer), gconstpointer data)
{
  if (match (root, data))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, match, data);

      if (found)
        return found;
    }
  return NULL;
}

static gboolean
is_overview (GtkWidget *widget, gconstpointer data)
{
  return RTOP_IS_OVERVIEW_SECTION (widget);
}

static gboolean
is_graph (GtkWidget *widget, gconstpointer data)
{
  return RTOP_IS_GRAPH (widget);
}

/* The first table cell of the column with this id. */
static gboolean
is_cell_of (GtkWidget *widget, gconstpointer id)
{
  const RtopColumnDef *def = g_object_get_data (G_OBJECT (widget), "rtop-def");

  return GTK_IS_LABEL (widget) && def && g_str_equal (def->id, id);
}

static gboolean
is_column_view (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_COLUMN_VIEW (widget);
}

static gboolean
no_cell_pending (gpointer view)
{
  return rtop_column_view_get_n_pending (view) == 0;
}

/* Runs frames until the table has shown every change it noted (a few
 * cells a frame). */
static void
show_cells (Fixture *f)
{
  GtkColumnView *view = GTK_COLUMN_VIEW (find_widget (GTK_WIDGET (f->overview), is_column_view, NULL));

  gui_test_wait_until (no_cell_pending, view, "the table to show every change it noted");
}

static void
ingest_state (Fixture *f, double tx_bps, int state)
{
  GuiPortSpec port = { "mlx5_0", 1, "mlx5", "roce", state, 100, tx_bps, 1e9, 1000, 1000, 0, 0, 0, TRUE };
  RtopSnapshot *s = gui_fixture_snapshot (++f->seq, 1.0, &port, 1);

  rtop_history_ingest (f->history, s);
  rtop_snapshot_unref (s);
}

static void
ingest (Fixture *f, double tx_bps)
{
  ingest_state (f, tx_bps, 4);
}

static guint graph_frames (RtopGraph *graph);

/* The port's row is laid out: its TX cell is there and its sparkline
 * has drawn. */
static gboolean
row_shown (gpointer data)
{
  Fixture *f = data;
  GtkWidget *graph = find_widget (GTK_WIDGET (f->overview), is_graph, NULL);

  return find_widget (GTK_WIDGET (f->overview), is_cell_of, "tx") != NULL &&
         graph != NULL && graph_frames (RTOP_GRAPH (graph)) > 0;
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSource) source = g_object_new (TEST_TYPE_SOURCE, NULL);

  f->session = rtop_session_new (NULL);
  f->history = rtop_session_get_history (f->session);
  rtop_session_add_live_source (f->session, source);
  f->window = rtop_window_new (NULL, f->session, NULL);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1400, 860);
  gtk_window_present (GTK_WINDOW (f->window));
  gui_test_wait_mapped (GTK_WIDGET (f->window));
  f->overview = RTOP_OVERVIEW_SECTION (find_widget (GTK_WIDGET (f->window), is_overview, NULL));
  g_assert_nonnull (f->overview);
  ingest (f, 10e9);
  ingest (f, 10e9);
  gui_test_wait_until (row_shown, f, "the port's row and sparkline to be shown");
  show_cells (f);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_destroy (GTK_WINDOW (f->window));
  gui_test_spin ();
  g_assert_null (f->window);
  g_assert_finalize_object (f->session);
}

static gboolean
is_unmapped (gpointer widget)
{
  return !gtk_widget_get_mapped (widget);
}

typedef struct {
  RtopGraph *graph;
  guint frames;
} FrameAfter;

static gboolean
drew_after (gpointer data)
{
  FrameAfter *a = data;

  return graph_frames (a->graph) > a->frames;
}

static GtkLabel *
tx_cell (Fixture *f)
{
  GtkWidget *cell = find_widget (GTK_WIDGET (f->overview), is_cell_of, "tx");

  g_assert_nonnull (cell);
  return GTK_LABEL (cell);
}

static RtopGraph *
sparkline (Fixture *f)
{
  GtkWidget *graph = find_widget (GTK_WIDGET (f->overview), is_graph, NULL);

  g_assert_nonnull (graph);
  return RTOP_GRAPH (graph);
}

static guint
graph_frames (RtopGraph *graph)
{
  RtopGraphFrameStats stats;

  rtop_graph_get_frame_stats (graph, &stats);
  return stats.frames;
}

static void
count_notify_cb (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

/* A value that shows the same text sets nothing: no notify, no relayout. */
static void
test_label_not_set_again (Fixture *f, gconstpointer data)
{
  GtkLabel *cell = tx_cell (f);
  guint sets = 0;
  g_autofree char *shown = rtop_format_gbps (10e9);

  g_assert_cmpstr (gtk_label_get_label (cell), ==, shown);
  g_signal_connect (cell, "notify::label", G_CALLBACK (count_notify_cb), &sets);
  ingest (f, 10e9);
  ingest (f, 10e9 + 1);   /* below what the text shows */
  show_cells (f);
  g_assert_cmpuint (sets, ==, 0);
  ingest (f, 20e9);
  show_cells (f);
  g_assert_cmpuint (sets, ==, 1);
  g_signal_handlers_disconnect_by_data (cell, &sets);
}

static gboolean
is_card_with_text (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "card-value") &&
         g_strcmp0 (gtk_label_get_label (GTK_LABEL (widget)), text) == 0;
}

static gboolean
is_shown_caption (GtkWidget *widget, gconstpointer data)
{
  /* The shown caption of the card marked as in trouble. */
  GtkWidget *card = gtk_widget_get_ancestor (widget, GTK_TYPE_TOGGLE_BUTTON);

  return gtk_widget_has_css_class (widget, "card-caption") && gtk_widget_get_visible (widget) &&
         card != NULL && gtk_widget_has_css_class (card, "problem");
}

static gboolean
is_trouble_card (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_TOGGLE_BUTTON (widget) && gtk_widget_has_css_class (widget, "trouble-card");
}

/* A toggle button that counts its own repaints: its snapshots, which a
 * change of its style (or a fade) asks for, and which the window's other
 * frames (another test's window mapped over it on the shared display) do
 * not. */
#define TEST_TYPE_CARD (test_card_get_type ())
G_DECLARE_FINAL_TYPE (TestCard, test_card, TEST, CARD, GtkToggleButton)

struct _TestCard {
  GtkToggleButton parent_instance;
  guint snapshots;
};

G_DEFINE_FINAL_TYPE (TestCard, test_card, GTK_TYPE_TOGGLE_BUTTON)

static void
test_card_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  TEST_CARD (widget)->snapshots++;
  GTK_WIDGET_CLASS (test_card_parent_class)->snapshot (widget, snapshot);
}

static void
test_card_class_init (TestCardClass *klass)
{
  GTK_WIDGET_CLASS (klass)->snapshot = test_card_snapshot;
}

static void
test_card_init (TestCard *self)
{
}

/* The trouble card's colours follow the trouble, which may change every
 * pass: a change is one repaint, not libadwaita's 200 ms fade of a dozen
 * frames (15 against 8 ms of CPU a second with 16 busy ports).  The card
 * as the overview styles it, alone in a window of its own (the table's
 * cells would repaint too). */
static void
test_trouble_card_no_fade (Fixture *f, gconstpointer data)
{
  GtkWidget *overview_card = find_widget (GTK_WIDGET (f->overview), is_trouble_card, NULL);
  GtkWidget *window = gtk_window_new ();
  TestCard *card = g_object_new (TEST_TYPE_CARD, "label", "2", NULL);
  guint paints[2] = { 0, 0 };

  g_assert_nonnull (overview_card);
  gtk_widget_set_css_classes (GTK_WIDGET (card), (const char *[]) { "card", "trouble-card", NULL });
  gtk_window_set_child (GTK_WINDOW (window), GTK_WIDGET (card));
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_painted (GTK_WIDGET (card));
  /* Until the card is still (its first frames animate): 300 ms with no
   * repaint, within GUI_TEST_WAIT_S. */
  for (guint tries = 0;; tries++)
    {
      guint before = card->snapshots;

      gui_test_run_for (300);
      if (card->snapshots == before)
        break;
      g_assert_cmpuint (tries, <, GUI_TEST_WAIT_S * 1000 / 300);
    }
  for (guint i = 0; i < 2; i++)
    {
      guint before = card->snapshots;

      /* Warnings, then an Error: the card's colour changes. */
      gtk_widget_add_css_class (GTK_WIDGET (card), i == 0 ? "problem" : "warn-only");
      gui_test_run_for (500);
      paints[i] = card->snapshots - before;
      g_test_message ("paints after change %u: %u", i, paints[i]);
      g_assert_cmpuint (paints[i], >=, 1);
      g_assert_cmpuint (paints[i], <=, 3);
    }
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A card's value that gets shorter keeps its width (the cards' row is not
 * shared out anew at every pass); the problems caption names the ports in
 * trouble, with each one's trouble in its tooltip. */
static void
test_cards_keep_width (Fixture *f, gconstpointer data)
{
  g_autofree char *wide = rtop_format_rate (10e9, RTOP_UNIT_BITS_PER_S);
  g_autofree char *narrow = rtop_format_rate (0, RTOP_UNIT_BITS_PER_S);
  GtkWidget *tx = find_widget (GTK_WIDGET (f->overview), is_card_with_text, wide);
  GtkWidget *caption, *trouble;
  int min_before, nat_before, min_after, nat_after;
  const char *shown;

  g_assert_nonnull (tx);
  gtk_widget_measure (tx, GTK_ORIENTATION_HORIZONTAL, -1, &min_before, &nat_before, NULL, NULL);
  ingest (f, 0);
  ingest (f, 0);
  /* The cards follow each update as it comes: nothing to wait for. */
  gui_test_spin ();
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (tx)), ==, narrow);
  gtk_widget_measure (tx, GTK_ORIENTATION_HORIZONTAL, -1, &min_after, &nat_after, NULL, NULL);
  g_assert_cmpint (nat_after, ==, nat_before);
  g_assert_cmpint (min_after, ==, min_before);

  /* The port goes down: one port in trouble, named in the caption; the
   * trouble card changes its colour, not its width (a bold caption was
   * wider, and every card was laid out and drawn again). */
  trouble = find_widget (GTK_WIDGET (f->overview), is_trouble_card, NULL);
  g_assert_nonnull (trouble);
  g_assert_false (gtk_widget_has_css_class (trouble, "problem"));
  gtk_widget_measure (trouble, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &nat_before, NULL, NULL);
  ingest_state (f, 0, 1);
  ingest_state (f, 0, 1);
  gui_test_spin ();
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_true (gtk_widget_has_css_class (trouble, "problem"));
  gtk_widget_measure (trouble, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &nat_after, NULL, NULL);
  g_assert_cmpint (nat_after, ==, nat_before);
  caption = find_widget (GTK_WIDGET (f->overview), is_shown_caption, NULL);
  g_assert_nonnull (caption);
#if GTK_CHECK_VERSION (4, 8, 0)
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  g_assert_true (GTK_IS_INSCRIPTION (caption));
  shown = gtk_inscription_get_text (GTK_INSCRIPTION (caption));
  /* The tooltip has all of it: each port with its trouble. */
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (caption), "mlx5_0/1 ("));
  G_GNUC_END_IGNORE_DEPRECATIONS
#else
  shown = gtk_label_get_label (GTK_LABEL (caption));
#endif
  g_test_message ("caption: %s", shown);
  g_assert_nonnull (strstr (shown, "mlx5_0/1"));
}

/* Another view shown: the overview's cells and sparklines keep what they
 * show and draw nothing; shown again, they show the newest values. */
static void
test_hidden_overview_holds (Fixture *f, gconstpointer data)
{
  GtkLabel *cell = tx_cell (f);
  RtopGraph *graph = sparkline (f);
  g_autofree char *before = g_strdup (gtk_label_get_label (cell));
  g_autofree char *after = rtop_format_gbps (30e9);
  guint frames;

  g_assert_false (rtop_overview_section_get_held (f->overview));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-view", "s", "events"));
  /* After the stack's crossfade. */
  gui_test_wait_until (is_unmapped, f->overview, "the overview to be hidden");
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (f->overview)));
  g_assert_true (rtop_overview_section_get_held (f->overview));
  frames = graph_frames (graph);
  for (guint i = 0; i < 5; i++)
    ingest (f, 30e9);
  /* A frame of the window, in which the hidden overview could draw. */
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_cmpstr (gtk_label_get_label (cell), ==, before);
  g_assert_cmpuint (graph_frames (graph), ==, frames);
  assert_host_tx (f, 10e9);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-view", "s", "overview"));
  gui_test_spin ();
  show_cells (f);
  {
    FrameAfter a = { graph, frames };
    gui_test_wait_until (drew_after, &a, "the sparkline to draw what came while hidden");
  }
  g_assert_false (rtop_overview_section_get_held (f->overview));
  g_assert_cmpstr (gtk_label_get_label (cell), ==, after);
  g_assert_cmpuint (graph_frames (graph), >, frames);
  assert_host_tx (f, 30e9);
}

/* With a refresh period (a remote display): the first change shows at
 * once, the next ones wait for the period and then show together. */
static void
test_refresh_period (Fixture *f, gconstpointer data)
{
  GtkLabel *cell = tx_cell (f);
  RtopGraph *graph = sparkline (f);
  g_autofree char *first = rtop_format_gbps (40e9);
  g_autofree char *last = rtop_format_gbps (60e9);
  guint frames;

  /* A period longer than the test: the end of the hold is the period
   * being set back to 0, which releases at once. */
  g_object_set (f->overview, "refresh-period", 60.0, NULL);
  ingest (f, 40e9);
  show_cells (f);
  g_assert_cmpstr (gtk_label_get_label (cell), ==, first);
  g_assert_true (rtop_overview_section_get_held (f->overview));
  assert_host_tx (f, 40e9);
  /* The first change drawn. */
  gui_test_wait_painted (GTK_WIDGET (f->window));
  frames = graph_frames (graph);

  ingest (f, 50e9);
  ingest (f, 60e9);
  /* A frame in which the held changes could show. */
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_cmpuint (rtop_column_view_get_n_pending (GTK_COLUMN_VIEW (find_widget (GTK_WIDGET (f->overview), is_column_view, NULL))), >, 0);
  g_assert_cmpstr (gtk_label_get_label (cell), ==, first);
  g_assert_cmpuint (graph_frames (graph), ==, frames);
  /* The host card waits with the table. */
  assert_host_tx (f, 40e9);

  g_object_set (f->overview, "refresh-period", 0.0, NULL);
  g_assert_false (rtop_overview_section_get_held (f->overview));
  show_cells (f);
  g_assert_cmpstr (gtk_label_get_label (cell), ==, last);
  assert_host_tx (f, 60e9);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  g_assert_cmpuint (graph_frames (graph), ==, frames + 1);
}

/* A budget of cells per frame (a remote display's): the changes of one
 * update show over several frames, each within it. */
static void
test_cells_per_frame (Fixture *f, gconstpointer data)
{
  GtkColumnView *view = GTK_COLUMN_VIEW (find_widget (GTK_WIDGET (f->overview), is_column_view, NULL));
  g_autofree char *shown = rtop_format_gbps (70e9);
  guint before;

  rtop_column_view_set_cells_per_frame (view, 1);
  ingest (f, 70e9);   /* TX, use and the sparkline change */
  before = rtop_column_view_get_n_pending (view);
  g_assert_cmpuint (before, >=, 3);
  gui_test_wait_painted (GTK_WIDGET (view));
  g_assert_cmpuint (rtop_column_view_get_n_pending (view), <, before);
  g_assert_cmpuint (rtop_column_view_get_n_pending (view), >, 0);
  show_cells (f);
  g_assert_cmpstr (gtk_label_get_label (tx_cell (f)), ==, shown);
  rtop_column_view_set_cells_per_frame (view, 0);
}

static void
frame_of (GtkWidget *graph)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;

  GTK_WIDGET_GET_CLASS (graph)->snapshot (graph, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  gsk_render_node_unref (node);
}

static gboolean
is_wide (gpointer graph)
{
  return gtk_widget_get_width (graph) >= 402;
}

/* A sparkline whose right edge moves in steps: a new sample redraws only
 * the tiles it falls in; the others stay the same nodes (so the diff, and
 * on X11 the bytes, cover those tiles); a step or a new scale redraws all. */
static void
test_sparkline_tiles (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *graph = rtop_graph_new ();
  g_autoptr(RtopSeries) series = rtop_series_new (1, rtop_series_capacity_for_interval (1.0));
  RtopGraphFrameStats stats;
  const gint64 t0 = G_GINT64_CONSTANT (6000) * G_USEC_PER_SEC;   /* a step boundary */
  guint n = 0;

  rtop_graph_set_compact (RTOP_GRAPH (graph), TRUE);
  rtop_graph_add_channel (RTOP_GRAPH (graph), 0, "TX", "rtop_tx_color");
  rtop_graph_set_window (RTOP_GRAPH (graph), 300);
  rtop_graph_set_scroll_step (RTOP_GRAPH (graph), 1.0 / 6);
  rtop_graph_set_series (RTOP_GRAPH (graph), series);
  gtk_widget_set_size_request (graph, 402, 28);
  gtk_window_set_child (GTK_WINDOW (window), graph);
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_until (is_wide, graph, "the sparkline to get its width");

  for (; n < 190; n++)
    {
      double v = 5e9 + 1e9 * (n % 7);
      rtop_series_append (series, t0 + (gint64) n * G_USEC_PER_SEC, 0, &v);
    }
  frame_of (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.tiles_kept, ==, 0);
  g_assert_cmpuint (stats.tiles_drawn, ==, (402 + 15) / 16);

  /* Five more seconds, below the peak: a few tiles at the newest end. */
  for (guint i = 0; i < 5; i++, n++)
    {
      double v = 6e9;
      rtop_series_append (series, t0 + (gint64) n * G_USEC_PER_SEC, 0, &v);
    }
  frame_of (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.tiles_drawn, >=, 1);
  g_assert_cmpuint (stats.tiles_drawn, <=, 5);
  g_assert_cmpuint (stats.tiles_kept + stats.tiles_drawn, ==, (402 + 15) / 16);

  /* No new sample: nothing drawn anew. */
  frame_of (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.tiles_drawn, ==, 0);

  /* A new peak changes the scale: every tile. */
  {
    double v = 80e9;
    rtop_series_append (series, t0 + (gint64) n++ * G_USEC_PER_SEC, 0, &v);
  }
  frame_of (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.tiles_kept, ==, 0);

  /* Past the step (50 s): the frame moves, every tile. */
  {
    double v = 80e9;
    rtop_series_append (series, t0 + (gint64) (n + 60) * G_USEC_PER_SEC, 0, &v);
  }
  frame_of (graph);
  rtop_graph_get_frame_stats (RTOP_GRAPH (graph), &stats);
  g_assert_cmpuint (stats.tiles_kept, ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_remote_banner (void)
{
  g_autoptr(RtopSession) session = rtop_session_new (NULL);
  g_autofree char *expected = rtop_remote_connect_command (g_get_user_name (), g_get_host_name ());
  const char *command = NULL;
  RtopWindow *window;

  g_setenv ("SSH_CONNECTION", "10.0.0.1 5555 10.0.0.2 22", TRUE);
  window = rtop_window_new (NULL, session, NULL);
  g_assert_true (rtop_window_get_remote_banner (window, &command));
  g_assert_cmpstr (command, ==, expected);
  g_assert_true (g_str_has_prefix (command, "rdmatop --host"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.dismiss-remote-banner", NULL));
  g_assert_false (rtop_window_get_remote_banner (window, NULL));
  gtk_window_destroy (GTK_WINDOW (window));

  g_unsetenv ("SSH_CONNECTION");
  window = rtop_window_new (NULL, session, NULL);
  g_assert_false (rtop_window_get_remote_banner (window, NULL));
  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_spin ();
}

static void
test_connect_command (void)
{
  const struct {
    const char *user, *host, *command;
  } cases[] = {
    { "alice", "node1", "rdmatop --host alice@node1" },
    { "alice", "node1.example.org", "rdmatop --host alice@node1.example.org" },
    { NULL, "node1", "rdmatop --host node1" },
    { "a b", "node1", "rdmatop --host='a b@node1'" },
    { "", "-oProxyCommand=x", "rdmatop --host='-oProxyCommand=x'" },
    { "eve", "$(reboot)", "rdmatop --host='eve@$(reboot)'" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *command = rtop_remote_connect_command (cases[i].user, cases[i].host);

      g_assert_cmpstr (command, ==, cases[i].command);
    }
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_unsetenv ("SSH_CONNECTION");
  g_test_add ("/gui/cost/label-not-set-again", Fixture, NULL, fixture_setup,
              test_label_not_set_again, fixture_teardown);
  g_test_add ("/gui/cost/hidden-overview-holds", Fixture, NULL, fixture_setup,
              test_hidden_overview_holds, fixture_teardown);
  g_test_add ("/gui/cost/refresh-period", Fixture, NULL, fixture_setup,
              test_refresh_period, fixture_teardown);
  g_test_add ("/gui/cost/cells-per-frame", Fixture, NULL, fixture_setup,
              test_cells_per_frame, fixture_teardown);
  g_test_add ("/gui/cost/cards-keep-width", Fixture, NULL, fixture_setup,
              test_cards_keep_width, fixture_teardown);
  g_test_add ("/gui/cost/trouble-card-no-fade", Fixture, NULL, fixture_setup,
              test_trouble_card_no_fade, fixture_teardown);
  g_test_add_func ("/gui/cost/sparkline-tiles", test_sparkline_tiles);
  g_test_add_func ("/gui/cost/remote-banner", test_remote_banner);
  g_test_add_func ("/gui/cost/connect-command", test_connect_command);
  return g_test_run ();
}
