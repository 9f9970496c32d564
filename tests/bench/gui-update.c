/* gui-update: the whole window fed as the app is fed, for profiling.
 *
 *   gui-update [--ports N] [--updates N] [--interval-ms MS] [--history N]
 *              [--view overview|processes|events] [--memory-every N]
 *              [--churn N] [--node-stats 1]
 *
 * An RtopWindow with N ports (16) receives one fixture snapshot every
 * interval (1000 ms), the rates of every port changing each time, and the
 * main loop runs as in the app: GTK paints only what was queued.  Before
 * the measured updates, --history snapshots (300: five minutes at 1 s) are
 * ingested at once so the sparklines are full.  Prints the main thread's
 * CPU per update (and within frames: layout and paint) and how many frames
 * were painted; with --node-stats, the window's render nodes and what
 * snapshotting and drawing them costs; with --memory-every,
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
#include <time.h>
#include <adwaita.h>

#include "../support/gui-fixtures.h"
#include "../support/gui-test-util.h"
#include "proc-status.h"
#include "rtop-graph.h"
#include "rtop-history.h"
#include "rtop-window.h"

static double
thread_cpu_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
print_memory (guint update)
{
  g_print ("memory update=%u rss_kb=%" G_GUINT64_FORMAT " heap_kb=%zu\n", update, bench_status_kb ("VmRSS:"),
           mallinfo2 ().uordblks / 1024);
}

/* Main-thread CPU of the frame clock's phases, each measured from the end
 * of GTK's own handler of one phase (connected before ours) to the end of
 * its handler of the next: layout is the allocation of what was queued,
 * paint the snapshot, diff and render of what was damaged. */
typedef struct
{
  guint frames;
  double mark, layout, paint, other;
} FramePhases;

static void
phase_mark_cb (GdkFrameClock *clock, FramePhases *p)
{
  p->mark = thread_cpu_seconds ();
}

static void
layout_cb (GdkFrameClock *clock, FramePhases *p)
{
  double now = thread_cpu_seconds ();

  p->layout += now - p->mark;
  p->mark = now;
}

static void
paint_cb (GdkFrameClock *clock, FramePhases *p)
{
  double now = thread_cpu_seconds ();

  p->paint += now - p->mark;
  p->mark = now;
}

static void
after_paint_cb (GdkFrameClock *clock, FramePhases *p)
{
  p->other += thread_cpu_seconds () - p->mark;
  p->frames++;
}

/* --node-stats: the window's render node tree by node type, and the CPU
 * of drawing all of it with cairo, once clipped to a 64 px square (what
 * every repaint walks, whatever it damaged) and once whole. */
/* The one child of a node that wraps one (transform, clip, opacity, ...),
 * or NULL. */
static GskRenderNode *
only_child (GskRenderNode *node)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_TRANSFORM_NODE: return gsk_transform_node_get_child (node);
    case GSK_CLIP_NODE: return gsk_clip_node_get_child (node);
    case GSK_ROUNDED_CLIP_NODE: return gsk_rounded_clip_node_get_child (node);
    case GSK_OPACITY_NODE: return gsk_opacity_node_get_child (node);
    case GSK_COLOR_MATRIX_NODE: return gsk_color_matrix_node_get_child (node);
    case GSK_SHADOW_NODE: return gsk_shadow_node_get_child (node);
    case GSK_DEBUG_NODE: return gsk_debug_node_get_child (node);
    default: return NULL;
    }
}

static void
count_nodes (GskRenderNode *node, guint *by_type, guint depth, guint *max_depth)
{
  GskRenderNodeType type;

  if (node == NULL)
    return;
  type = gsk_render_node_get_node_type (node);
  if ((guint) type < 64)
    by_type[type]++;
  *max_depth = MAX (*max_depth, depth);
  if (type == GSK_CONTAINER_NODE)
    for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
      count_nodes (gsk_container_node_get_child (node, i), by_type, depth + 1, max_depth);
  else
    count_nodes (only_child (node), by_type, depth + 1, max_depth);
}

static double
draw_cpu_ms (GskRenderNode *node, int w, int h, int clip, guint rounds)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  double t0 = thread_cpu_seconds ();

  for (guint r = 0; r < rounds; r++)
    {
      cairo_t *cr = cairo_create (surface);

      if (clip > 0)
        {
          cairo_rectangle (cr, w / 2, h / 2, clip, clip);
          cairo_clip (cr);
        }
      gsk_render_node_draw (node, cr);
      cairo_destroy (cr);
    }
  cairo_surface_destroy (surface);
  return (thread_cpu_seconds () - t0) * 1e3 / rounds;
}

static guint
queue_draw_all (GtkWidget *w, GType only)
{
  guint n = 0;

  if (only == G_TYPE_NONE || G_TYPE_CHECK_INSTANCE_TYPE (w, only))
    {
      gtk_widget_queue_draw (w);
      n++;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (w); c; c = gtk_widget_get_next_sibling (c))
    n += queue_draw_all (c, only);
  return n;
}

static double
snapshot_cpu_ms (GtkWidget *window, GType only, guint rounds, guint *n_widgets)
{
  double total = 0;

  for (guint r = 0; r < rounds; r++)
    {
      g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
      g_autoptr(GskRenderNode) node = NULL;
      double t0;

      *n_widgets = queue_draw_all (window, only);
      t0 = thread_cpu_seconds ();
      GTK_WIDGET_GET_CLASS (window)->snapshot (window, snapshot);
      node = gtk_snapshot_to_node (snapshot);
      total += thread_cpu_seconds () - t0;
    }
  return total * 1e3 / rounds;
}

/* Draws the leaves of node one by one, under their transforms and clips
 * (opacity, colour matrices and rounded corners left out), adding each
 * leaf's CPU to its type's sum. */
static void
draw_leaves (GskRenderNode *node, cairo_t *cr, double *ms_by_type)
{
  GskRenderNodeType type = gsk_render_node_get_node_type (node);
  GskRenderNode *child = only_child (node);

  if (type == GSK_CONTAINER_NODE)
    {
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        draw_leaves (gsk_container_node_get_child (node, i), cr, ms_by_type);
      return;
    }
  if (child == NULL)
    {
      double t0 = thread_cpu_seconds ();

      gsk_render_node_draw (node, cr);
      if ((guint) type < 64)
        ms_by_type[type] += (thread_cpu_seconds () - t0) * 1e3;
      return;
    }
  cairo_save (cr);
  if (type == GSK_TRANSFORM_NODE)
    {
      float sx = 1, sy = 1, dx = 0, dy = 0;

      gsk_transform_to_affine (gsk_transform_node_get_transform (node), &sx, &sy, &dx, &dy);
      cairo_translate (cr, dx, dy);
      cairo_scale (cr, sx, sy);
    }
  else if (type == GSK_CLIP_NODE || type == GSK_ROUNDED_CLIP_NODE)
    {
      const graphene_rect_t *r = type == GSK_CLIP_NODE ? gsk_clip_node_get_clip (node)
                                 : &gsk_rounded_clip_node_get_clip (node)->bounds;

      cairo_rectangle (cr, r->origin.x, r->origin.y, r->size.width, r->size.height);
      cairo_clip (cr);
    }
  draw_leaves (child, cr, ms_by_type);
  cairo_restore (cr);
}

static void
print_leaf_costs (GskRenderNode *node, int w, int h, guint rounds)
{
  cairo_surface_t *surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, w, h);
  double ms[64] = { 0 };
  GEnumClass *types = g_type_class_ref (GSK_TYPE_RENDER_NODE_TYPE);

  for (guint r = 0; r < rounds; r++)
    {
      cairo_t *cr = cairo_create (surface);

      draw_leaves (node, cr, ms);
      cairo_destroy (cr);
    }
  g_print ("leaf_draw_ms");
  for (guint t = 0; t < 64; t++)
    if (ms[t] > 0)
      {
        GEnumValue *v = g_enum_get_value (types, (int) t);

        g_print (" %s=%.2f", v ? v->value_nick : "?", ms[t] / rounds);
      }
  g_print ("\n");
  g_type_class_unref (types);
  cairo_surface_destroy (surface);
}

static void
print_node_stats (GtkWidget *window)
{
  guint n_all = 0, n_graphs = 0, n_none = 0;
  double s_none = snapshot_cpu_ms (window, G_TYPE_INVALID, 5, &n_none);
  double s_graphs = snapshot_cpu_ms (window, RTOP_TYPE_GRAPH, 5, &n_graphs);
  double s_all = snapshot_cpu_ms (window, G_TYPE_NONE, 5, &n_all);

  g_print ("snapshot_ms none=%.2f graphs=%.2f (%u) all=%.2f (%u widgets)\n", s_none, s_graphs,
           n_graphs, s_all, n_all);

  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  guint by_type[64] = { 0 }, total = 0, max_depth = 0;
  int w = gtk_widget_get_width (window), h = gtk_widget_get_height (window);
  GEnumClass *types = g_type_class_ref (GSK_TYPE_RENDER_NODE_TYPE);

  GTK_WIDGET_GET_CLASS (window)->snapshot (window, snapshot);
  node = gtk_snapshot_to_node (snapshot);
  count_nodes (node, by_type, 0, &max_depth);
  g_print ("nodes");
  for (guint t = 0; t < 64; t++)
    if (by_type[t] > 0)
      {
        GEnumValue *v = g_enum_get_value (types, (int) t);

        total += by_type[t];
        g_print (" %s=%u", v ? v->value_nick : "?", by_type[t]);
      }
  g_print (" total=%u depth=%u\n", total, max_depth);
  g_print ("draw_ms clip64=%.2f whole=%.2f (%dx%d)\n", draw_cpu_ms (node, w, h, 64, 20),
           draw_cpu_ms (node, w, h, 0, 5), w, h);
  print_leaf_costs (node, w, h, 5);
  g_type_class_unref (types);
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
  guint n_ports = 16, updates = 30, interval_ms = 1000, history_len = 300, memory_every = 0;
  FramePhases phases = { 0 };
  GdkFrameClock *clock;
  const char *view = NULL;
  gboolean node_stats = FALSE;
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
      else if (g_str_equal (argv[i], "--node-stats"))
        node_stats = v != 0;
      else if (g_str_equal (argv[i], "--churn"))
        churn = MIN (v, 1000);
    }
  g_setenv ("GTK_A11Y", "none", FALSE);
  gtk_init ();
  adw_init ();   /* as the app: libadwaita's styles */
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
  gui_test_wait_painted (GTK_WIDGET (window));
  if (view)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", view);
  for (guint seq = 1; seq <= history_len; seq++)
    {
      RtopSnapshot *s = next_snapshot (ports, n_ports, seq);

      rtop_history_ingest (rtop_session_get_history (session), s);
      rtop_snapshot_unref (s);
    }
  gui_test_run_for (interval_ms);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_signal_connect (clock, "update", G_CALLBACK (phase_mark_cb), &phases);
  g_signal_connect (clock, "layout", G_CALLBACK (layout_cb), &phases);
  g_signal_connect (clock, "paint", G_CALLBACK (paint_cb), &phases);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &phases);
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
  if (node_stats)
    print_node_stats (GTK_WIDGET (window));
  g_print ("ports=%u updates=%u interval_ms=%u main_thread_ms_per_update=%.2f frames=%u "
           "layout_ms=%.2f paint_ms=%.2f outside_frames_ms=%.2f\n",
           n_ports, updates, interval_ms, updates ? cpu * 1e3 / updates : 0, phases.frames,
           updates ? phases.layout * 1e3 / updates : 0, updates ? phases.paint * 1e3 / updates : 0,
           updates ? (cpu - phases.layout - phases.paint - phases.other) * 1e3 / updates : 0);
  gtk_window_destroy (GTK_WINDOW (window));
  g_strfreev (names);
  g_free (ports);
  return 0;
}
