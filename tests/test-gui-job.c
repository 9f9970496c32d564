/* test-gui-job.c: a job's page, in the real window: four hosts run a Slurm
 * job (a rank on each of four rails and a monitor on two of them, every
 * host), node1 also a Kubernetes pod on two rails.  The page's heading
 * sums the job up; its processes and its devices are listed with the
 * queue pairs and memory regions of this job only, and the ports its
 * queue pairs use; a process opens its page (which links back to the
 * job), a port its page; Show Rails narrows the rails view; the rails
 * view's Job choice opens the page; a job that has ended says so; nothing
 * is read while the page is not shown.  Screenshots light and dark. */
#include "config.h"

#include <string.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-format.h"
#include "rtop-history-private.h"
#include "rtop-job-section-private.h"
#include "rtop-rails-section-private.h"
#include "rtop-window-private.h"

#define N_HOSTS 4
#define N_RAILS 4
#define SLURM "slurm/4242"
#define POD_UID "7c1d2e3f-0a1b-4c5d-8e9f-a0b1c2d3e4f5"
#define POD "kubernetes/" POD_UID
#define GIB (G_GUINT64_CONSTANT (1) << 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)

static const char *
host_name (guint h)
{
  static char names[N_HOSTS][16];

  g_snprintf (names[h], sizeof names[h], "node%u", h + 1);
  return names[h];
}

static void
add_qp (RtopProcess *proc, RtopSnapshot *s, const char *device, guint32 lqpn)
{
  RtopDevice *dev = rtop_snapshot_find_device (s, device);
  RtopQp qp = { dev->name, 1, lqpn, lqpn + 100, TRUE, 2, 3, NULL };

  if (proc->qp_list == NULL)
    proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
  g_array_append_val (proc->qp_list, qp);
}

/* One pass of host h.  The Slurm job's ranks (step 0): one per rail, 4 QPs,
 * 2 MRs, 1 GiB each; its monitor (step batch) on mlx5_0 and mlx5_1, 1 QP
 * and 3 MRs of 1 MiB on each.  On node1 (with_pod) a pod's two workers on
 * mlx5_0 and mlx5_1, 1 QP and 1 MR of 1 MiB each. */
static RtopSnapshot *
make_pass (guint h, guint seq, gboolean with_pod)
{
  static char devs[N_RAILS][16];
  GuiPortSpec p[N_RAILS];
  RtopSnapshot *s;
  RtopProcess *mon;

  for (guint r = 0; r < N_RAILS; r++)
    {
      double bps = 100e9 * (0.5 + 0.1 * r);

      g_snprintf (devs[r], sizeof devs[r], "mlx5_%u", r);
      p[r] = (GuiPortSpec) { devs[r], 1, "mlx5", "ib", 4, 200, bps, bps, bps / 8 / 4096,
                             bps / 8 / 4096, 0, 0, 0, TRUE };
    }
  s = gui_fixture_snapshot (seq, 1.0, p, N_RAILS);
  s->host = g_strdup (host_name (h));
  for (guint r = 0; r < N_RAILS; r++)
    {
      RtopProcess *proc = gui_fixture_add_process (s, 1000 + r, "all_reduce_perf", "alice", devs[r], 4, 2, GIB);

      for (guint q = 0; q < 4; q++)
        add_qp (proc, s, devs[r], 100 + 10 * r + q);
      rtop_job_set (&proc->job, RTOP_JOB_SLURM, "4242", "0");
    }
  mon = gui_fixture_add_process (s, 1100, "nccl_monitor", "alice", devs[0], 1, 3, MIB);
  {
    RtopProcessDevice d = { g_strdup (devs[1]), 1, 1, 3, MIB };

    g_array_append_val (mon->devices, d);
    mon->qps = 2;
    mon->mrs = 6;
    mon->mr_bytes = 2 * MIB;
  }
  add_qp (mon, s, devs[0], 900);
  add_qp (mon, s, devs[1], 901);
  rtop_job_set (&mon->job, RTOP_JOB_SLURM, "4242", "batch");
  if (h == 0 && with_pod)
    for (guint r = 0; r < 2; r++)
      {
        RtopProcess *proc = gui_fixture_add_process (s, 2000 + r, "nixl_worker", "bob", devs[r], 1, 1, MIB);

        add_qp (proc, s, devs[r], 500 + r);
        rtop_job_set (&proc->job, RTOP_JOB_KUBERNETES, POD_UID, "c0ffee1234567890abcdef");
      }
  rtop_snapshot_seal (s);
  return s;
}

static guint seq_next = 1;

static void
feed (RtopHistory *history, guint passes, gboolean with_pod)
{
  for (guint i = 0; i < passes; i++, seq_next++)
    for (guint h = 0; h < N_HOSTS; h++)
      {
        RtopSnapshot *s = make_pass (h, seq_next, with_pod);

        rtop_history_ingest (history, s);
        rtop_snapshot_unref (s);
      }
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
  seq_next = 1;
  f->settings = g_settings_new (APP_ID);
  g_settings_reset (f->settings, "last-view");
  g_settings_reset (f->settings, "time-window");
  f->session = rtop_session_new (f->settings);
  f->history = g_object_ref (rtop_session_get_history (f->session));
  f->window = rtop_window_new (NULL, f->session, f->settings);
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

static RtopJobSection *
show_job (Fixture *f, const char *key)
{
  activate (f, "show-job", g_variant_new_string (key));
  g_assert_nonnull (f->window->job_page);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "job");
  gui_test_wait_mapped (GTK_WIDGET (f->window->job_page));
  gui_test_wait_painted (GTK_WIDGET (f->window));
  return f->window->job_page;
}

/* A device row's expected texts: bytes as the page formats them. */
static char *
device_text (const char *host, const char *device, guint qps, guint mrs, guint64 bytes)
{
  g_autofree char *memory = rtop_format_bytes (bytes);

  return g_strdup_printf ("%s\t%s\t%u\t%u\t%s", host, device, qps, mrs, memory);
}

/* A row's cell texts, tab-separated. */
static char *
row_text (GtkWidget *row)
{
  GPtrArray *labels = g_object_get_data (G_OBJECT (row), "rtop-labels");
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < labels->len; i++)
    if (g_ptr_array_index (labels, i) != NULL)
      g_string_append_printf (out, "%s%s", out->len > 0 ? "\t" : "",
                              gtk_label_get_text (g_ptr_array_index (labels, i)));
  return g_string_free (out, FALSE);
}

static char *
row_ports (GtkWidget *row)
{
  g_autoptr(GPtrArray) buttons = rtop_job_section_row_ports (row);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < buttons->len; i++)
    g_string_append_printf (out, "%s%s", i > 0 ? "," : "", gtk_button_get_label (g_ptr_array_index (buttons, i)));
  return g_string_free (out, FALSE);
}

static GtkWidget *
find_row (GPtrArray *rows, const char *text)
{
  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *t = row_text (g_ptr_array_index (rows, i));

      if (g_str_equal (t, text))
        return g_ptr_array_index (rows, i);
    }
  for (guint i = 0; i < rows->len; i++)
    {
      g_autofree char *t = row_text (g_ptr_array_index (rows, i));

      g_printerr ("row %u: %s\n", i, t);
    }
  g_error ("no row \"%s\"", text);
  return NULL;
}

/* A button's click (gtk_widget_activate() clicks a button only after a
 * quarter second). */
static void
click (GtkWidget *button)
{
  g_assert_true (GTK_IS_BUTTON (button));
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
  gui_test_spin ();
}

/* The first button under widget whose action is action. */
static GtkWidget *
find_action_button (GtkWidget *widget, const char *action)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0
      && gtk_widget_get_visible (widget))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_action_button (c, action);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The Slurm job: heading, processes, devices, exact sums; screenshot. */
static void
test_slurm (Fixture *f, gconstpointer data)
{
  RtopJobSection *page;
  g_autofree char *memory = rtop_format_bytes (N_HOSTS * (N_RAILS * GIB + 2 * MIB));
  g_autofree char *totals = NULL;
  g_autofree char *dump = NULL;
  g_autoptr(GdkTexture) shot = NULL;
  g_autoptr(GuiTestPixels) pixels = NULL;
  GtkWidget *row;
  g_autofree char *ports = NULL;

  feed (f->history, 3, TRUE);
  page = show_job (f, SLURM);
  g_assert_cmpstr (rtop_job_section_get_job (page), ==, SLURM);
  g_assert_cmpstr (gtk_label_get_label (f->window->detail_title), ==, "Slurm job 4242");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page->stack), ==, "job");
  g_assert_cmpstr (gtk_label_get_text (page->title), ==, "Slurm job 4242");
  g_assert_cmpstr (gtk_label_get_text (page->subtitle), ==, "Slurm job on node1, node2, node3, node4");
  /* 4 hosts: 5 processes, 4 × 4 + 2 QPs, 4 × 2 + 6 MRs each; not the pod's. */
  totals = g_strdup_printf ("20 processes · 72 queue pairs · 56 memory regions · %s registered", memory);
  g_assert_cmpstr (gtk_label_get_text (page->totals), ==, totals);

  /* Processes by host, then pid; the pod's are not among them. */
  g_assert_cmpuint (page->process_rows->len, ==, N_HOSTS * (N_RAILS + 1));
  {
    g_autofree char *first = row_text (g_ptr_array_index (page->process_rows, 0));
    g_autofree char *mon = row_text (g_ptr_array_index (page->process_rows, N_RAILS));
    g_autofree char *last = row_text (g_ptr_array_index (page->process_rows, page->process_rows->len - 1));

    g_assert_cmpstr (first, ==, "node1\t1000\tall_reduce_perf -d mlx5_0\talice\tstep 0\tmlx5_0\t4\t2");
    g_assert_cmpstr (mon, ==, "node1\t1100\tnccl_monitor -d mlx5_0\talice\tstep batch\tmlx5_0, mlx5_1\t2\t6");
    g_assert_cmpstr (last, ==, "node4\t1100\tnccl_monitor -d mlx5_0\talice\tstep batch\tmlx5_0, mlx5_1\t2\t6");
  }
  for (guint i = 0; i < page->process_rows->len; i++)
    {
      g_autofree char *text = row_text (g_ptr_array_index (page->process_rows, i));

      g_assert_null (strstr (text, "nixl_worker"));
    }

  /* Per host and device: the ranks' and the monitor's, summed. */
  g_assert_cmpuint (page->device_rows->len, ==, N_HOSTS * N_RAILS);
  {
    g_autofree char *a = device_text ("node1", "mlx5_0", 5, 5, GIB + MIB);
    g_autofree char *b = device_text ("node3", "mlx5_1", 5, 5, GIB + MIB);

    row = find_row (page->device_rows, a);
    ports = row_ports (row);
    g_assert_cmpstr (ports, ==, "mlx5_0/1");
    g_assert_true (row == g_ptr_array_index (page->device_rows, 0));
    find_row (page->device_rows, b);
  }
  {
    g_autofree char *c = device_text ("node4", "mlx5_3", 4, 2, GIB);

    row = find_row (page->device_rows, c);
  }
  g_assert_true (row == g_ptr_array_index (page->device_rows, page->device_rows->len - 1));

  dump = rtop_window_dump (f->window);
  g_test_message ("%s", dump);
  {
    g_autofree char *line = g_strdup_printf ("job: Slurm job 4242; Slurm job on node1, node2, node3, node4; %s\n", totals);

    g_assert_nonnull (strstr (dump, line));
  }
  g_assert_nonnull (strstr (dump, "job process: node2\t1003\tall_reduce_perf -d mlx5_3\talice\tstep 0\tmlx5_3\t4\t2\n"));
  {
    g_autofree char *gib_mib = rtop_format_bytes (GIB + MIB);
    g_autofree char *gib = rtop_format_bytes (GIB);
    g_autofree char *a = g_strdup_printf ("job device: node1 mlx5_1 qps=5 mrs=5 registered=%s ports=mlx5_1/1\n", gib_mib);
    g_autofree char *b = g_strdup_printf ("job device: node2 mlx5_2 qps=4 mrs=2 registered=%s ports=mlx5_2/1\n", gib);

    g_assert_nonnull (strstr (dump, a));
    g_assert_nonnull (strstr (dump, b));
  }

  /* The keyboard starts on the first process. */
  g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == g_ptr_array_index (page->process_rows, 0));

  shot = gui_test_screenshot (GTK_WIDGET (f->window), "job-page-1600x1000.png");
  pixels = gui_test_pixels_new (shot, GTK_WIDGET (f->window));
  gui_test_assert_page (pixels);
  gui_test_assert_drawn (pixels, GTK_WIDGET (f->window), g_ptr_array_index (page->process_rows, 0), 100);
}

/* A process row opens the process, whose page links back to the job; a
 * port opens the port; Show Rails narrows the rails view. */
static void
test_open (Fixture *f, gconstpointer data)
{
  RtopJobSection *page;
  GtkWidget *row, *link;
  g_autoptr(GPtrArray) buttons = NULL;
  g_autoptr(GPtrArray) rails_rows = NULL;

  feed (f->history, 3, TRUE);
  page = show_job (f, SLURM);
  row = find_row (page->process_rows, "node2\t1002\tall_reduce_perf -d mlx5_2\talice\tstep 0\tmlx5_2\t4\t2");
  gtk_widget_grab_focus (row);
  g_assert_true (gtk_widget_activate (row));
  gui_test_spin ();
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "process");
  {
    g_autofree char *dump = rtop_section_dump (RTOP_SECTION (f->window->process_page));

    g_test_message ("%s", dump);
    g_assert_true (g_str_has_prefix (dump, "process-page\tall_reduce_perf -d mlx5_2\t"));
    g_assert_nonnull (strstr (dump, "on mlx5_2 · 4 QPs"));
    g_assert_nonnull (strstr (dump, "process-job\tSlurm job 4242\n"));
  }
  /* The process's page links to its job. */
  link = find_action_button (GTK_WIDGET (f->window->process_page), "win.show-job");
  g_assert_nonnull (link);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (link)), ==, "Slurm job 4242");
  click (link);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "job");
  g_assert_cmpstr (rtop_job_section_get_job (page), ==, SLURM);

  /* A port. */
  {
    g_autofree char *text = device_text ("node3", "mlx5_1", 5, 5, GIB + MIB);

    row = find_row (page->device_rows, text);
  }
  buttons = rtop_job_section_row_ports (row);
  g_assert_cmpuint (buttons->len, ==, 1);
  click (g_ptr_array_index (buttons, 0));
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "detail");
  {
    g_autofree char *dump = rtop_section_dump (RTOP_SECTION (f->window->port_detail));

    g_assert_nonnull (strstr (dump, "detail\tmlx5_1 port 1 on node3\n"));
  }

  /* Back, then Show Rails: the rails view narrowed to the job. */
  activate (f, "back", NULL);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (f->window->main_stack), ==, "views");
  page = show_job (f, SLURM);
  g_assert_true (gtk_widget_get_sensitive (page->rails_button));
  click (page->rails_button);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "rails");
  g_assert_cmpstr (rtop_rails_section_get_job (f->window->rails), ==, SLURM);
  rails_rows = rtop_rails_section_get_rows (f->window->rails);
  g_assert_cmpuint (rails_rows->len, ==, N_HOSTS * N_RAILS);
}

/* The pod: only its own sums, on node1's two rails; when it ends the page
 * says so. */
static void
test_pod_ends (Fixture *f, gconstpointer data)
{
  RtopJobSection *page;
  g_autofree char *dump = NULL;
  g_autofree char *ports = NULL;
  GtkWidget *row;

  feed (f->history, 3, TRUE);
  page = show_job (f, POD);
  g_assert_cmpstr (gtk_label_get_text (page->title), ==, "Pod " POD_UID);
  g_assert_cmpstr (gtk_label_get_text (page->subtitle), ==, "Kubernetes pod on node1");
  {
    g_autofree char *memory = rtop_format_bytes (2 * MIB);
    g_autofree char *totals = g_strdup_printf ("2 processes · 2 queue pairs · 2 memory regions · %s registered", memory);

    g_assert_cmpstr (gtk_label_get_text (page->totals), ==, totals);
  }
  g_assert_cmpuint (page->process_rows->len, ==, 2);
  find_row (page->process_rows, "node1\t2001\tnixl_worker -d mlx5_1\tbob\tcontainer c0ffee123456\tmlx5_1\t1\t1");
  g_assert_cmpuint (page->device_rows->len, ==, 2);
  /* The Slurm job's 5 QPs on node1's mlx5_0 are not the pod's. */
  {
    g_autofree char *text = device_text ("node1", "mlx5_0", 1, 1, MIB);

    row = find_row (page->device_rows, text);
  }
  ports = row_ports (row);
  g_assert_cmpstr (ports, ==, "mlx5_0/1");

  /* The pod ends: the page keeps its name and says it is gone. */
  feed (f->history, 2, FALSE);
  rtop_job_section_refresh (page);
  gui_test_spin ();
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page->stack), ==, "gone");
  g_assert_cmpuint (page->process_rows->len, ==, 0);
  g_assert_cmpuint (page->device_rows->len, ==, 0);
  g_assert_cmpstr (gtk_label_get_text (page->title), ==, "Pod " POD_UID);
  dump = rtop_section_dump (RTOP_SECTION (page));
  g_assert_cmpstr (dump, ==, "job: Pod " POD_UID "; The job has ended or is out of reach; Pod " POD_UID
                             " has no process on a host in reach now.\n");

  /* A job never seen: the same, under its key. */
  page = show_job (f, "slurm/99");
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page->stack), ==, "gone");
  g_assert_cmpstr (gtk_label_get_text (page->title), ==, "slurm/99");
}

/* From the rails view's Job choice; nothing read while not shown. */
static void
test_from_rails (Fixture *f, gconstpointer data)
{
  RtopRailsSection *rails = f->window->rails;
  RtopJobSection *page;

  feed (f->history, 3, TRUE);
  activate (f, "show-view", g_variant_new_string ("rails"));
  gui_test_wait_mapped (GTK_WIDGET (rails));
  g_assert_false (gtk_widget_get_sensitive (rails->job_page_button));
  activate (f, "show-job-rails", g_variant_new_string (POD));
  g_assert_true (gtk_widget_get_sensitive (rails->job_page_button));
  click (rails->job_page_button);
  g_assert_cmpstr (rtop_window_get_visible_view (f->window), ==, "job");
  page = f->window->job_page;
  g_assert_cmpstr (rtop_job_section_get_job (page), ==, POD);
  g_assert_cmpuint (page->process_rows->len, ==, 2);

  /* Not shown: the pod ends, and the page does not notice until shown. */
  activate (f, "back", NULL);
  gui_test_spin ();
  g_assert_false (gtk_widget_get_mapped (GTK_WIDGET (page)));
  feed (f->history, 2, FALSE);
  g_assert_true (page->stale);
  g_assert_cmpuint (page->process_rows->len, ==, 2);
  gtk_stack_set_visible_child (f->window->main_stack, GTK_WIDGET (page));
  gui_test_wait_mapped (GTK_WIDGET (page));
  g_assert_false (page->stale);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page->stack), ==, "gone");
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);
  g_test_add ("/gui/job/slurm", Fixture, NULL, fixture_setup, test_slurm, fixture_teardown);
  g_test_add ("/gui/job/open", Fixture, NULL, fixture_setup, test_open, fixture_teardown);
  g_test_add ("/gui/job/pod-ends", Fixture, NULL, fixture_setup, test_pod_ends, fixture_teardown);
  g_test_add ("/gui/job/from-rails", Fixture, NULL, fixture_setup, test_from_rails, fixture_teardown);
  return g_test_run ();
}
