/* test-gui-rails.c: rails side by side, in the real window: eight hosts of
 * eight ports (the job's all-reduce on every rail, one rail slow) as 64
 * heatmap rows by host and device; the slow rail is the pale row; a cell
 * says host, port, time and value; a row opens its port from a click or
 * the keyboard; the view narrows to one job's ports; the colours switch to
 * a counter.  Screenshots light and dark (docs/screenshots). */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-history-private.h"
#include "rtop-jobs.h"
#include "rtop-heat-strip-private.h"
#include "rtop-heat-value.h"
#include "rtop-rails-section-private.h"
#include "rtop-window-private.h"

#define N_HOSTS 8
#define N_RAILS 8
#define N_PASSES 240
/* From pass SLOW_FROM, node4's rail mlx5_5 carries a fifth of its peers'
 * traffic. */
#define SLOW_FROM 150
#define SLOW_HOST 3
#define SLOW_RAIL 5
/* node7's mlx5_2 retransmits. */
#define LOSSY_HOST 6
#define LOSSY_RAIL 2
/* The health rule says so 10 s after SLOW_FROM, and the episode lasts;
 * node2's mlx5_1 had one from pass 100 to 120, ended. */
#define SLOW_SAID (SLOW_FROM + 10)
#define ENDED_HOST 1
#define ENDED_RAIL 1
#define ENDED_FROM 100
#define ENDED_TO 120

/* A rail imbalance episode's event, as the health rule raises and ends it. */
static void
add_imbalance (RtopSnapshot *s, const char *device, guint64 episode, guint seq, guint from, gboolean ongoing)
{
  RtopEvent *e = gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, device, 1, "Rail carries 20 % of its peers' median.");

  e->kind = RTOP_EVENT_RAIL_IMBALANCE;
  e->episode = episode;
  e->ongoing = ongoing;
  e->started_us = s->monotonic_us - (gint64) (seq - from) * G_USEC_PER_SEC;
  e->duration_us = (gint64) (seq - from) * G_USEC_PER_SEC;
  e->new_value = g_strdup ("20 %");
}

static const char *
host_name (guint h)
{
  static char names[N_HOSTS][16];

  g_snprintf (names[h], sizeof names[h], "node%u", h + 1);
  return names[h];
}

/* One pass of host h: eight 200 Gb/s rails at some 70 % (each its own
 * wobble), the slow one at a fifth of that; the job's ranks on every rail;
 * on node1 a second job (a Kubernetes pod) on rails 0 and 1. */
static RtopSnapshot *
make_pass (guint h, guint seq)
{
  static char devs[N_RAILS][16];
  GuiPortSpec p[N_RAILS];
  RtopSnapshot *s;

  for (guint r = 0; r < N_RAILS; r++)
    {
      double bps = 200e9 * (0.68 + 0.05 * sin (seq / 4.0 + h + r));

      if (h == SLOW_HOST && r == SLOW_RAIL && seq >= SLOW_FROM)
        bps *= 0.2;
      g_snprintf (devs[r], sizeof devs[r], "mlx5_%u", r);
      p[r] = (GuiPortSpec) { devs[r], 1, "mlx5", "ib", 4, 200, bps, bps * 0.97, bps / 8 / 4096,
                             bps / 8 / 4096, 0, 0, 0, TRUE };
    }
  if (h == LOSSY_HOST)
    p[LOSSY_RAIL].retrans = 250;
  s = gui_fixture_snapshot (seq, 1.0, p, N_RAILS);
  s->host = g_strdup (host_name (h));
  if (h == SLOW_HOST && seq == SLOW_SAID)
    add_imbalance (s, devs[SLOW_RAIL], 7, seq, SLOW_FROM, TRUE);
  if (h == ENDED_HOST && (seq == ENDED_FROM + 5 || seq == ENDED_TO))
    add_imbalance (s, devs[ENDED_RAIL], 8, seq, ENDED_FROM, seq != ENDED_TO);
  for (guint r = 0; r < N_RAILS; r++)
    {
      RtopProcess *proc = gui_fixture_add_process (s, 1000 + r, "all_reduce_perf", "alice", devs[r], 4, 2, 1 << 30);
      RtopDevice *dev = rtop_snapshot_find_device (s, devs[r]);
      RtopQp qps[2] = {
        { dev->name, 1, 100 + r, 200 + r, TRUE, 2, 3, NULL },
        { dev->name, 1, 300 + r, 400 + r, TRUE, 2, 3, NULL },
      };

      proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      g_array_append_vals (proc->qp_list, qps, 2);
      rtop_job_set (&proc->job, RTOP_JOB_SLURM, "4242", "0");
    }
  if (h == 0)
    for (guint r = 0; r < 2; r++)
      {
        RtopProcess *proc = gui_fixture_add_process (s, 2000 + r, "nixl_worker", "bob", devs[r], 1, 1, 1 << 20);
        RtopDevice *dev = rtop_snapshot_find_device (s, devs[r]);
        RtopQp qp = { dev->name, 1, 500 + r, 600 + r, TRUE, 2, 3, NULL };

        proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
        g_array_append_val (proc->qp_list, qp);
        rtop_job_set (&proc->job, RTOP_JOB_KUBERNETES, "7c1d2e3f-0a1b-4c5d-8e9f-a0b1c2d3e4f5", NULL);
      }
  rtop_snapshot_seal (s);
  return s;
}

static void
feed (RtopHistory *history, guint passes)
{
  for (guint seq = 1; seq <= passes; seq++)
    for (guint h = 0; h < N_HOSTS; h++)
      {
        RtopSnapshot *s = make_pass (h, seq);

        rtop_history_ingest (history, s);
        rtop_snapshot_unref (s);
      }
}

typedef struct {
  RtopSession *session;
  RtopHistory *history;
  GSettings *settings;
  RtopWindow *window;
  RtopRailsSection *rails;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "last-view");
  g_settings_reset (f->settings, "time-window");
  f->session = rtop_session_new (f->settings);
  f->history = g_object_ref (rtop_session_get_history (f->session));
  f->window = rtop_window_new (NULL, f->session, f->settings);
  f->rails = f->window->rails;
  g_object_add_weak_pointer (G_OBJECT (f->window), (gpointer *) &f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1600, 1000);
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
  g_settings_reset (f->settings, "last-view");
  g_assert_finalize_object (f->settings);
}

static void
activate (Fixture *f, const char *action, GVariant *param)
{
  g_autofree char *name = g_strconcat ("win.", action, NULL);

  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (f->window), name, param));
  gui_test_spin ();
}

static void
show_rails (Fixture *f)
{
  activate (f, "show-view", g_variant_new_string ("rails"));
  gui_test_wait_mapped (GTK_WIDGET (f->rails));
  gui_test_wait_painted (GTK_WIDGET (f->window));
}

static const char *
row_key (GtkWidget *row)
{
  return rtop_port_item_get_key (rtop_heat_strip_get_port (rtop_rails_section_row_strip (row)));
}

/* The mean level of a row's newest cells (its right tenth) that have a
 * value. */
static double
row_level (GtkWidget *row, guint *n_valued)
{
  guint n = 0, valued = 0;
  g_autofree double *levels = rtop_heat_strip_get_levels (rtop_rails_section_row_strip (row), &n);
  double sum = 0;

  for (guint i = n - n / 10; i < n; i++)
    if (levels[i] >= 0)
      {
        sum += levels[i];
        valued++;
      }
  if (n_valued != NULL)
    *n_valued = valued;
  return valued > 0 ? sum / valued : -1;
}

static guint
find_row (GPtrArray *rows, const char *key)
{
  for (guint i = 0; i < rows->len; i++)
    if (g_strcmp0 (row_key (g_ptr_array_index (rows, i)), key) == 0)
      return i;
  g_error ("no row for %s", key);
  return 0;
}

/* 64 rows by host, then device; the slow rail is the palest; screenshots. */
static void
test_heatmap (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GdkTexture) shot = NULL;
  g_autoptr(GuiTestPixels) pixels = NULL;
  g_autofree char *slow_key = g_strdup_printf ("node%u:mlx5_%u/1", SLOW_HOST + 1, SLOW_RAIL);
  guint slow, valued = 0;
  double slow_level, others_min = 1;
  const char *label;
  g_autofree char *dump = NULL;

  feed (f->history, N_PASSES);
  show_rails (f);
  rows = rtop_rails_section_get_rows (f->rails);
  g_assert_cmpuint (rows->len, ==, N_HOSTS * N_RAILS);
  for (guint h = 0; h < N_HOSTS; h++)
    for (guint r = 0; r < N_RAILS; r++)
      {
        g_autofree char *key = g_strdup_printf ("node%u:mlx5_%u/1", h + 1, r);

        g_assert_cmpstr (row_key (g_ptr_array_index (rows, h * N_RAILS + r)), ==, key);
      }

  slow = find_row (rows, slow_key);
  slow_level = row_level (g_ptr_array_index (rows, slow), &valued);
  /* The newest cells are all coloured: a band, not stripes. */
  {
    guint n = 0;
    g_autofree double *levels = rtop_heat_strip_get_levels (rtop_rails_section_row_strip (g_ptr_array_index (rows, slow)), &n);

    g_assert_cmpuint (valued, ==, n / 10);
    /* Before it slowed down, it was as busy as the others. */
    g_assert_cmpfloat (levels[n - (N_PASSES - SLOW_FROM + 40) * n / 300], >, 0.6);
    /* 300 s shown, 240 passes: the first minute is empty. */
    g_assert_cmpfloat (levels[0], <, 0);
  }
  for (guint i = 0; i < rows->len; i++)
    if (i != slow)
      others_min = MIN (others_min, row_level (g_ptr_array_index (rows, i), NULL));
  g_test_message ("slow rail at %.2f of its link, the others at least %.2f", slow_level, others_min);
  g_assert_cmpfloat (slow_level, <, 0.2);
  g_assert_cmpfloat (others_min, >, 0.6);

  /* Rows are named for a screen reader: host, port, what and how much. */
  label = rtop_heat_value_get_text (g_object_get_data (G_OBJECT (g_ptr_array_index (rows, slow)), "rtop-value"));
  g_assert_nonnull (label);
  dump = rtop_window_dump (f->window);
  g_assert_nonnull (strstr (dump, "rails: 64 ports on 8 hosts; show throughput; job all"));
  {
    g_autofree char *line = g_strdup_printf ("rails row: %s %s imbalance\n", slow_key, label);

    g_assert_nonnull (strstr (dump, line));
  }
  /* The imbalance episodes underline their stretch: the slow rail's from
   * when it slowed to now, node2's mlx5_1's in the past; only a lasting one
   * marks the row (its sign, its name). */
  {
    RtopHeatStrip *strip = rtop_rails_section_row_strip (g_ptr_array_index (rows, slow));
    g_autofree char *ended_key = g_strdup_printf ("node%u:mlx5_%u/1", ENDED_HOST + 1, ENDED_RAIL);
    GtkWidget *ended_row = g_ptr_array_index (rows, find_row (rows, ended_key));
    RtopHeatStrip *ended = rtop_rails_section_row_strip (ended_row);
    double w = gtk_widget_get_width (GTK_WIDGET (strip));
    /* x of pass k in a strip w wide showing 300 s that ends at pass N_PASSES. */
#define PASS_X(k) (w * (1 - (N_PASSES - (double) (k)) / 300))
    g_autofree char *tip = rtop_heat_strip_describe_at (strip, PASS_X (N_PASSES - 2));
    g_autofree char *plain = rtop_heat_strip_describe_at (strip, PASS_X (SLOW_FROM - 20));
    g_autofree char *ended_line = NULL;

    g_assert_true (rtop_heat_strip_mark_at (strip, PASS_X (N_PASSES - 1)));
    g_assert_true (rtop_heat_strip_mark_at (strip, PASS_X (SLOW_FROM + 2)));
    g_assert_false (rtop_heat_strip_mark_at (strip, PASS_X (SLOW_FROM - 5)));
    g_assert_nonnull (strstr (tip, "rail imbalance"));
    g_assert_null (strstr (plain, "rail imbalance"));
    g_assert_true (rtop_heat_strip_mark_at (ended, PASS_X ((ENDED_FROM + ENDED_TO) / 2)));
    g_assert_false (rtop_heat_strip_mark_at (ended, PASS_X (ENDED_TO + 5)));
    g_assert_false (rtop_heat_strip_mark_at (ended, PASS_X (ENDED_FROM - 5)));
    g_assert_false (rtop_heat_strip_mark_at (ended, PASS_X (N_PASSES - 1)));
    ended_line = g_strdup_printf ("rails row: %s %s\n", ended_key,
                                  rtop_heat_value_get_text (g_object_get_data (G_OBJECT (ended_row), "rtop-value")));
    g_assert_nonnull (strstr (dump, ended_line));
#undef PASS_X
  }

  shot = gui_test_screenshot (GTK_WIDGET (f->window), "rails-64-ports-1600x1000.png");
  pixels = gui_test_pixels_new (shot, GTK_WIDGET (f->window));
  gui_test_assert_page (pixels);
  {
    /* The slow row is lighter (light theme) or darker (dark) than a busy
     * one: its strip's dominant colour differs clearly in luminance. */
    GtkWidget *slow_strip = GTK_WIDGET (rtop_rails_section_row_strip (g_ptr_array_index (rows, slow)));
    GtkWidget *busy_strip = GTK_WIDGET (rtop_rails_section_row_strip (g_ptr_array_index (rows, slow - 1)));
    cairo_rectangle_int_t a = gui_test_pixels_area (pixels, GTK_WIDGET (f->window), slow_strip);
    cairo_rectangle_int_t b = gui_test_pixels_area (pixels, GTK_WIDGET (f->window), busy_strip);

    /* The newest tenth of each, above the foot (where marks go). */
    a.x += a.width - a.width / 10;
    a.width /= 10;
    b.x += b.width - b.width / 10;
    b.width /= 10;
    cairo_rectangle_int_t a_top = { a.x, a.y, a.width, a.height / 2 };
    cairo_rectangle_int_t b_top = { b.x, b.y, b.width, b.height / 2 };
    double ls = gui_test_colour_luminance (gui_test_pixels_dominant (pixels, &a_top));
    double lb = gui_test_colour_luminance (gui_test_pixels_dominant (pixels, &b_top));

    g_test_message ("luminance: slow rail %.3f, busy rail %.3f", ls, lb);
    g_assert_cmpfloat (fabs (ls - lb), >, 0.25);
    /* The lasting episode's bar along the slow strip's foot, in the mark
     * colour; none under the busy one. */
    {
      GdkRGBA mark;
      guint32 want, foot_slow, foot_busy;

      g_assert_true (gtk_style_context_lookup_color (gtk_widget_get_style_context (slow_strip), "rtop_heat_mark", &mark));
      want = 0xff000000u | ((guint32) (mark.red * 255 + 0.5) << 16) | ((guint32) (mark.green * 255 + 0.5) << 8)
             | (guint32) (mark.blue * 255 + 0.5);
      a.y += a.height - 2;
      a.height = 2;
      b.y += b.height - 2;
      b.height = 2;
      foot_slow = gui_test_pixels_dominant (pixels, &a);
      foot_busy = gui_test_pixels_dominant (pixels, &b);
      g_test_message ("strip feet: slow %08x, busy %08x, mark %08x", foot_slow, foot_busy, want);
      g_assert_cmphex (foot_slow, ==, want);
      g_assert_cmphex (foot_busy, !=, want);
    }
    /* All 64 rows fit the window: the last row's strip is on screen. */
    gui_test_assert_drawn (pixels, GTK_WIDGET (f->window),
                           GTK_WIDGET (rtop_rails_section_row_strip (g_ptr_array_index (rows, rows->len - 1))), 100);
  }
}

/* A cell says host, port, time and value; the keyboard and a click open
 * the port. */
static void
test_hover_and_open (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;
  RtopHeatStrip *strip;
  g_autofree char *text = NULL;
  g_autofree char *key = g_strdup_printf ("node%u:mlx5_%u/1", SLOW_HOST + 1, SLOW_RAIL);
  GtkWidget *row, *focus;
  int width;

  feed (f->history, N_PASSES);
  show_rails (f);
  rows = rtop_rails_section_get_rows (f->rails);
  row = g_ptr_array_index (rows, find_row (rows, key));
  strip = rtop_rails_section_row_strip (row);
  width = gtk_widget_get_width (GTK_WIDGET (strip));
  g_assert_cmpint (width, >, 300);
  text = rtop_heat_strip_describe_at (strip, width - 1);
  g_test_message ("%s", text);
  g_assert_nonnull (text);
  g_assert_true (g_str_has_prefix (text, "node4 · mlx5_5/1 · "));
  /* Its value: a fifth of some 70 % of 200 Gb/s. */
  g_assert_nonnull (strstr (text, " of 200 Gb/s"));
  g_assert_nonnull (strstr (text, "Gb/s, 1"));
  /* Left of the history: nothing to say. */
  g_clear_pointer (&text, g_free);
  g_assert_null (rtop_heat_strip_describe_at (strip, 1));

  /* The keyboard: the view's focus goes to its first row; the arrow keys
   * move among rows; Enter opens the port. */
  rtop_section_focus (RTOP_SECTION (f->rails));
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_true (focus == g_ptr_array_index (rows, 0));
  /* Down, as its key binding does. */
  g_signal_emit_by_name (f->rails->list, "move-cursor", GTK_MOVEMENT_DISPLAY_LINES, 1, FALSE, FALSE);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == g_ptr_array_index (rows, 1));
  gtk_widget_grab_focus (row);
  g_assert_true (gtk_widget_activate (row));
  gui_test_spin ();
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  {
    g_autofree char *dump = rtop_section_dump (RTOP_SECTION (f->window->port_detail));

    g_test_message ("%s", dump);
    g_assert_nonnull (strstr (dump, "detail\tmlx5_5 port 1 on node4\n"));
  }
}

/* Narrowed to a job: only its ports; the pod's two ports on node1. */
static void
test_job (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) jobs = NULL;
  RtopJobSummary *pod;
  g_autofree char *dump = NULL;

  feed (f->history, 5);
  jobs = rtop_jobs_collect (f->history);
  g_assert_cmpuint (jobs->len, ==, 2);
  pod = rtop_jobs_find (jobs, "kubernetes/7c1d2e3f-0a1b-4c5d-8e9f-a0b1c2d3e4f5");
  g_assert_nonnull (pod);
  g_assert_cmpuint (pod->port_keys->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (pod->port_keys, 0), ==, "node1:mlx5_0/1");
  g_assert_cmpstr (g_ptr_array_index (pod->port_keys, 1), ==, "node1:mlx5_1/1");
  g_assert_cmpuint (pod->hosts->len, ==, 1);
  g_assert_cmpuint (pod->process_keys->len, ==, 2);
  {
    RtopJobSummary *slurm = rtop_jobs_find (jobs, "slurm/4242");

    g_assert_nonnull (slurm);
    g_assert_cmpstr (slurm->title, ==, "Slurm job 4242");
    g_assert_cmpuint (slurm->port_keys->len, ==, 64);
    g_assert_cmpuint (slurm->hosts->len, ==, 8);
    g_assert_cmpuint (slurm->qps, ==, 8 * 8 * 4);
    /* By host, then the devices' natural order. */
    g_assert_cmpstr (g_ptr_array_index (slurm->port_keys, 8), ==, "node2:mlx5_0/1");
  }

  show_rails (f);
  activate (f, "show-job-rails", g_variant_new_string (pod->key));
  gui_test_wait_painted (GTK_WIDGET (f->window));
  rows = rtop_rails_section_get_rows (f->rails);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_cmpstr (row_key (g_ptr_array_index (rows, 0)), ==, "node1:mlx5_0/1");
  g_assert_cmpstr (row_key (g_ptr_array_index (rows, 1)), ==, "node1:mlx5_1/1");
  dump = rtop_window_dump (f->window);
  g_assert_nonnull (strstr (dump, "rails: 2 ports of Pod 7c1d2e3f-0a1b-4c5d-8e9f-a0b1c2d3e4f5 on 1 host;"));
  /* The dropdown names it. */
  g_assert_cmpuint (gtk_drop_down_get_selected (f->rails->job_dropdown), >, 0);

  /* Back to every port from the dropdown. */
  gtk_drop_down_set_selected (f->rails->job_dropdown, 0);
  gui_test_spin ();
  g_assert_null (rtop_rails_section_get_job (f->rails));
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = rtop_rails_section_get_rows (f->rails);
  g_assert_cmpuint (rows->len, ==, 64);

  /* A job that is gone shows no ports, and says so. */
  activate (f, "show-job-rails", g_variant_new_string ("slurm/99"));
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = rtop_rails_section_get_rows (f->rails);
  g_assert_cmpuint (rows->len, ==, 0);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (f->rails->stack), ==, "none");
}

/* The colours switch to a counter: the lossy rail is the only coloured one. */
static void
test_counter (Fixture *f, gconstpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *key = g_strdup_printf ("node%u:mlx5_%u/1", LOSSY_HOST + 1, LOSSY_RAIL);
  guint lossy;

  feed (f->history, 10);
  show_rails (f);
  rtop_rails_section_set_metric (f->rails, RTOP_HEAT_RETRANSMITS);
  gui_test_wait_painted (GTK_WIDGET (f->window));
  rows = rtop_rails_section_get_rows (f->rails);
  lossy = find_row (rows, key);
  for (guint i = 0; i < rows->len; i++)
    {
      double level = row_level (g_ptr_array_index (rows, i), NULL);

      if (i == lossy)
        /* 250/s on a log scale that is full at 1000/s. */
        g_assert_cmpfloat_with_epsilon (level, log10 (251) / log10 (1001), 0.01);
      else
        g_assert_cmpfloat (level, ==, 0);
    }
  g_assert_cmpstr (gtk_label_get_text (f->rails->legend_high), ==, "1.00 k/s");
  if (!gui_test_theme_is_dark ())
    {
      g_autoptr(GdkTexture) shot = gui_test_screenshot (GTK_WIDGET (f->window), "rails-retransmits-1600x1000.png");
    }
}

/* No ports: the view says what would be here. */
static void
test_empty (Fixture *f, gconstpointer data)
{
  show_rails (f);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (f->rails->stack), ==, "none");
  g_assert_cmpstr (adw_status_page_get_title (f->rails->empty_page), ==, "No Ports");
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  g_test_add ("/gui/rails/heatmap", Fixture, NULL, fixture_setup, test_heatmap, fixture_teardown);
  g_test_add ("/gui/rails/hover-and-open", Fixture, NULL, fixture_setup, test_hover_and_open, fixture_teardown);
  g_test_add ("/gui/rails/job", Fixture, NULL, fixture_setup, test_job, fixture_teardown);
  g_test_add ("/gui/rails/counter", Fixture, NULL, fixture_setup, test_counter, fixture_teardown);
  g_test_add ("/gui/rails/empty", Fixture, NULL, fixture_setup, test_empty, fixture_teardown);
  return g_test_run ();
}
