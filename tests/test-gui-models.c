/* test-gui-models.c: the model layer (RtopHistory and its items) and the
 * tables built on it: order, sorting, search, filters, and what happens
 * when a device disappears and comes back. */
#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-format.h"
#include "rtop-a11y-private.h"
#include "rtop-columns-private.h"
#include "rtop-counter-item-private.h"
#include "rtop-event-item-private.h"
#include "rtop-events-section-private.h"
#include "rtop-held-model.h"
#include "rtop-history-private.h"
#include "rtop-port-text.h"
#include "rtop-process-item.h"
#include "rtop-qp-item.h"
#include "rtop-overview-section-private.h"
#include "rtop-port-section-private.h"
#include "rtop-process-item.h"
#include "rtop-processes-section-private.h"
#include "rtop-port-item-private.h"
#include "rtop-sampler.h"
#include "rtop-series-private.h"

static const GuiPortSpec three_devices[] = {
  { "rxe10", 1, "rxe", "roce", 4, 10, 1e9, 2e9, 1000, 2000, 0, 0, 0, FALSE },
  { "rxe2", 1, "rxe", "roce", 4, 10, 5e9, 1e9, 5000, 1000, 0, 3, 0, FALSE },
  { "mlx5_0", 1, "mlx5", "ib", 4, 100, 40e9, 30e9, 4e6, 3e6, 0, 0, 0, TRUE },
  { "mlx5_0", 2, "mlx5", "ib", 1, 100, 0, 0, 0, 0, 0, 0, 0, TRUE },
};

static void
ingest (RtopHistory *history, RtopSnapshot *snapshot)
{
  rtop_snapshot_seal (snapshot);
  rtop_history_ingest (history, snapshot);
  rtop_snapshot_unref (snapshot);
}

static char *
port_keys (GListModel *model)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (model, i);
      g_string_append_printf (out, "%s%s", i ? " " : "", rtop_port_item_get_key (item));
    }
  return g_string_free (out, FALSE);
}

static void
count_changes (GListModel *model, guint position, guint removed, guint added, guint *n)
{
  n[0]++;
  n[1] += added;
}

static void
count_signal (gpointer instance, guint *n)
{
  (*n)++;
}

/* The first snapshot's ports reach the list in one change (the overview
 * builds its rows once, not once per port), and however many devices a
 * snapshot brings, devices-changed comes once; a device plugged in later
 * still lands in its place. */
static void
test_ports_arrive_at_once (void)
{
  g_autoptr(RtopHistory) history = rtop_history_new ();
  GListModel *ports = rtop_history_get_ports (history);
  static const GuiPortSpec plugged[] = {
    { "rxe10", 1, "rxe", "roce", 4, 10, 1e9, 2e9, 1000, 2000, 0, 0, 0, FALSE },
    { "rxe2", 1, "rxe", "roce", 4, 10, 5e9, 1e9, 5000, 1000, 0, 3, 0, FALSE },
    { "rxe3", 1, "rxe", "roce", 4, 10, 1e9, 1e9, 1000, 1000, 0, 0, 0, FALSE },
    { "mlx5_0", 1, "mlx5", "ib", 4, 100, 40e9, 30e9, 4e6, 3e6, 0, 0, 0, TRUE },
    { "mlx5_0", 2, "mlx5", "ib", 1, 100, 0, 0, 0, 0, 0, 0, 0, TRUE },
  };
  guint changes[2] = { 0, 0 }, devices_changed = 0;
  g_autofree char *keys = NULL, *names = NULL;

  g_signal_connect (ports, "items-changed", G_CALLBACK (count_changes), changes);
  g_signal_connect (history, "devices-changed", G_CALLBACK (count_signal), &devices_changed);
  ingest (history, gui_fixture_snapshot (1, 1.0, three_devices, G_N_ELEMENTS (three_devices)));
  g_assert_cmpuint (changes[0], ==, 1);
  g_assert_cmpuint (changes[1], ==, 4);
  g_assert_cmpuint (devices_changed, ==, 1);
  keys = port_keys (ports);
  g_assert_cmpstr (keys, ==, "mlx5_0/1 mlx5_0/2 rxe2/1 rxe10/1");
  names = g_strjoinv (" ", (char **) rtop_history_get_device_names (history));
  g_assert_cmpstr (names, ==, "mlx5_0 rxe2 rxe10");

  /* The same devices again: nothing changes in the list. */
  ingest (history, gui_fixture_snapshot (2, 1.0, three_devices, G_N_ELEMENTS (three_devices)));
  g_assert_cmpuint (changes[0], ==, 1);
  g_assert_cmpuint (devices_changed, ==, 1);

  ingest (history, gui_fixture_snapshot (3, 1.0, plugged, G_N_ELEMENTS (plugged)));
  g_assert_cmpuint (changes[0], ==, 2);
  g_assert_cmpuint (changes[1], ==, 5);
  g_assert_cmpuint (devices_changed, ==, 2);
  g_clear_pointer (&keys, g_free);
  keys = port_keys (ports);
  g_assert_cmpstr (keys, ==, "mlx5_0/1 mlx5_0/2 rxe2/1 rxe3/1 rxe10/1");
  g_clear_pointer (&names, g_free);
  names = g_strjoinv (" ", (char **) rtop_history_get_device_names (history));
  g_assert_cmpstr (names, ==, "mlx5_0 rxe2 rxe3 rxe10");
  g_signal_handlers_disconnect_by_func (ports, count_changes, changes);
}

static void
test_ports_natural_order (void)
{
  RtopHistory *history = rtop_history_new ();
  g_autofree char *keys = NULL;
  RtopTotals t;

  for (guint64 seq = 1; seq <= 3; seq++)
    ingest (history, gui_fixture_snapshot (seq, 1.0, three_devices, G_N_ELEMENTS (three_devices)));
  keys = port_keys (rtop_history_get_ports (history));
  g_assert_cmpstr (keys, ==, "mlx5_0/1 mlx5_0/2 rxe2/1 rxe10/1");

  rtop_history_get_totals (history, &t);
  g_assert_cmpuint (t.n_devices, ==, 3);
  g_assert_cmpuint (t.n_ports, ==, 4);
  g_assert_cmpuint (t.n_active, ==, 3);
  /* In trouble: rxe2/1 (retransmits) and mlx5_0/2 (Down), named with the
   * Error first, not summed as rates. */
  g_assert_cmpuint (t.n_problem_ports, ==, 2);
  g_assert_cmpuint (t.n_error_ports, ==, 1);
  g_assert_cmpuint (t.n_warning_ports, ==, 1);
  {
    g_autofree char *problems = rtop_history_dup_problems_text (history);
    GPtrArray *ports = rtop_history_get_problem_ports (history);

    g_assert_cmpstr (problems, ==, "2 ports in trouble: mlx5_0/2 (Port not active), rxe2/1 (Packet loss)");
    g_assert_cmpuint (ports->len, ==, 2);
    g_assert_cmpstr (rtop_port_item_get_key (g_ptr_array_index (ports, 0)), ==, "mlx5_0/2");
  }
  {
    RtopPortItem *down = rtop_history_find_port (history, "mlx5_0", 2);
    g_autofree char *link = rtop_port_item_link_text (down);
    g_autofree char *health = rtop_port_item_health_text (down);

    /* A Down port's rate is not live. */
    g_assert_false (rtop_port_item_get_link_up (down));
    g_assert_cmpfloat (rtop_port_item_get_link_gbps (down), ==, 0);
    g_assert_cmpstr (link, ==, "Down");
    g_assert_cmpstr (health, ==, "✖ Port not active");
    g_assert_cmpstr (rtop_port_item_health_class (down), ==, "state-bad");
  }
  g_assert_cmpfloat_with_epsilon (t.tx_bps, 46e9, 1);
  g_assert_cmpfloat_with_epsilon (t.errors_ps, 3, 1e-9);
  {
    RtopPortItem *rxe2 = rtop_history_find_port (history, "rxe2", 1);
    g_assert_nonnull (rxe2);
    g_assert_true (rtop_port_item_get_has_problems (rxe2));
    g_assert_cmpuint (rtop_series_get_length (rtop_port_item_get_series (rxe2)), ==, 3);
    /* The first pass has no rate: NAN in the series, not a fake zero. */
    g_assert_true (isnan (rtop_port_item_get_rate (rxe2, RTOP_PORT_CH_TX_BPS)) == FALSE);
    g_assert_cmpfloat_with_epsilon (rtop_port_item_get_utilisation (rxe2), 0.5, 1e-9);
  }
  g_assert_finalize_object (history);
}

/* Soft-RoCE has no drop counter: the model says so, not just "—". */
static void
test_absent_channel_reason (void)
{
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  RtopDevice *dev = rtop_device_new (1, "rxe0");
  RtopPort *port = rtop_port_new (1);
  g_autoptr(RtopPortItem) item = rtop_port_item_new (NULL, "rxe0", 1, 16);

  dev->provider = g_strdup ("rxe");
  port->state = 4;
  port->phys_state = 5;
  port->metrics[RTOP_METRIC_TX_PACKETS].present = TRUE;
  g_ptr_array_add (dev->ports, port);
  g_ptr_array_add (snap->devices, dev);
  rtop_snapshot_seal (snap);
  rtop_port_item_update (item, snap, dev, port);
  g_assert_cmpstr (rtop_port_item_get_channel_absent_reason (item, RTOP_PORT_CH_DROPS), ==,
                   "Soft-RoCE reports no drop counter");
  g_assert_null (rtop_port_item_get_channel_absent_reason (item, RTOP_PORT_CH_TX_PPS));
  g_assert_nonnull (rtop_port_item_get_channel_absent_reason (item, RTOP_PORT_CH_ERRORS));
}

/* A process page's QPs: number, type, state, peer; in-error marked; rows
 * that did not change stay. */
static void
test_process_qps (void)
{
  g_autoptr(RtopSnapshot) owner = rtop_snapshot_new ();
  RtopProcess *proc = rtop_process_new (4242);
  RtopProcessDevice pd = { g_strdup ("rxe0"), 2, 1, 0, 0 };
  RtopQp qps[2] = { { NULL, 1, 17, 33, TRUE, 2, 3 }, { NULL, 0, 18, 0, FALSE, 4, 3 } };
  g_autoptr(RtopProcessItem) item = NULL;
  g_autoptr(RtopQpItem) first = NULL;
  g_autoptr(RtopQpItem) again = NULL;
  g_autoptr(RtopQpItem) second = NULL;
  GListModel *list;
  guint32 peer = 0;

  g_ptr_array_add (owner->processes, proc);
  proc->comm = g_strdup ("qp-holder");
  g_array_append_val (proc->devices, pd);
  qps[0].device = qps[1].device = g_array_index (proc->devices, RtopProcessDevice, 0).device;
  proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
  g_array_append_vals (proc->qp_list, qps, 2);
  proc->qps = 7;
  proc->qps_not_listed = 5;
  item = rtop_process_item_new (proc, NULL);
  list = rtop_process_item_get_qp_list (item);
  g_assert_cmpuint (g_list_model_get_n_items (list), ==, 2);
  first = g_list_model_get_item (list, 0);
  g_assert_cmpuint (rtop_qp_item_get_qpn (first), ==, 17);
  g_assert_cmpstr (rtop_qp_item_get_location (first), ==, "rxe0/1");
  g_assert_cmpstr (rtop_qp_item_get_type_name (first), ==, "RC");
  g_assert_cmpstr (rtop_qp_item_get_state_name (first), ==, "RTS");
  g_assert_true (rtop_qp_item_get_peer_qpn (first, &peer));
  g_assert_cmpuint (peer, ==, 33);
  g_assert_false (rtop_qp_item_get_in_error (first));
  g_assert_cmpuint (rtop_process_item_get_qps_not_listed (item), ==, 5);
  g_assert_cmpuint (rtop_process_item_get_qps_on (item, "rxe0"), ==, 2);
  g_assert_cmpuint (rtop_process_item_get_qps_on (item, "rxe1"), ==, 0);

  /* The second QP fails: the first row stays, the second is new. */
  g_array_index (proc->qp_list, RtopQp, 1).state = RTOP_QP_STATE_ERR;
  proc->qps_in_error = 1;
  rtop_process_item_update (item, proc);
  again = g_list_model_get_item (list, 0);
  g_assert_true (again == first);
  second = g_list_model_get_item (list, 1);
  g_assert_true (rtop_qp_item_get_in_error (second));
  g_assert_cmpstr (rtop_qp_item_get_state_name (second), ==, "ERR");
  g_assert_cmpstr (rtop_qp_item_get_type_name (second), ==, "UD");
  g_assert_false (rtop_qp_item_get_peer_qpn (second, NULL));
  g_assert_cmpstr (rtop_qp_item_get_location (second), ==, "rxe0");
  g_assert_cmpuint (rtop_process_item_get_qps_in_error (item), ==, 1);
}

/* The kernel is one owner over all devices: a port's Processes tab counts
 * only its device's QPs of it. */
static void
test_kernel_qps_per_device (void)
{
  g_autoptr(RtopSnapshot) owner = rtop_snapshot_new ();
  RtopProcess *kernel = rtop_process_new (0);
  RtopProcessDevice on_rxe0 = { g_strdup ("rxe0"), 1, 0, 0, 0 };
  RtopProcessDevice on_rxe1 = { g_strdup ("rxe1"), 3, 0, 0, 0 };
  g_autoptr(RtopProcessItem) item = NULL;

  g_ptr_array_add (owner->processes, kernel);
  kernel->kernel = TRUE;
  kernel->comm = g_strdup ("ib_core");
  kernel->qps = 4;
  g_array_append_val (kernel->devices, on_rxe0);
  g_array_append_val (kernel->devices, on_rxe1);
  item = rtop_process_item_new (kernel, NULL);
  g_assert_cmpuint (rtop_process_item_get_qps (item), ==, 4);
  g_assert_cmpuint (rtop_process_item_get_qps_on (item, "rxe0"), ==, 1);
  g_assert_cmpuint (rtop_process_item_get_qps_on (item, "rxe1"), ==, 3);
}

static void
test_device_vanishes_and_returns (void)
{
  RtopHistory *history = rtop_history_new ();
  RtopPortItem *rxe10;
  RtopTotals t;
  g_autofree char *keys = NULL;
  guint64 last_value;

  ingest (history, gui_fixture_snapshot (1, 1.0, three_devices, 4));
  ingest (history, gui_fixture_snapshot (2, 1.0, three_devices, 4));
  rxe10 = rtop_history_find_port (history, "rxe10", 1);
  g_object_add_weak_pointer (G_OBJECT (rxe10), (gpointer *) &rxe10);
  {
    g_autoptr(RtopCounterItem) c = g_list_model_get_item (rtop_port_item_get_counters (rxe10), 0);

    last_value = rtop_counter_item_get_value (c);
  }

  /* rxe10 is gone from the next pass (three_devices + 1 skips it). */
  ingest (history, gui_fixture_snapshot (3, 1.0, three_devices + 1, 3));
  g_assert_nonnull (rxe10);
  g_assert_true (rtop_port_item_get_vanished (rxe10));
  g_assert_true (isnan (rtop_port_item_get_rate (rxe10, RTOP_PORT_CH_TX_BPS)));
  keys = port_keys (rtop_history_get_ports (history));
  g_assert_cmpstr (keys, ==, "mlx5_0/1 mlx5_0/2 rxe2/1 rxe10/1");
  rtop_history_get_totals (history, &t);
  g_assert_cmpuint (t.n_ports, ==, 3);
  g_assert_cmpuint (t.n_vanished, ==, 1);
  /* Its counters keep the last values read, with no rate. */
  {
    g_autoptr(RtopCounterItem) c = g_list_model_get_item (rtop_port_item_get_counters (rxe10), 0);
    g_assert_true (rtop_counter_item_get_present (c));
    g_assert_true (rtop_counter_item_get_frozen (c));
    g_assert_cmpuint (rtop_counter_item_get_value (c), ==, last_value);
    g_assert_true (isnan (rtop_counter_item_get_rate (c)));
  }

  /* Back again: the same row, live again, history kept. */
  ingest (history, gui_fixture_snapshot (4, 1.0, three_devices, 4));
  g_assert_true (rtop_history_find_port (history, "rxe10", 1) == rxe10);
  g_assert_false (rtop_port_item_get_vanished (rxe10));
  g_assert_cmpuint (rtop_series_get_length (rtop_port_item_get_series (rxe10)), ==, 3);

  /* A failed pass (status not OK) does not mark everything vanished. */
  {
    RtopSnapshot *failed = gui_fixture_snapshot (5, 1.0, NULL, 0);
    failed->status = RTOP_STATUS_ERROR;
    ingest (history, failed);
    g_assert_false (rtop_port_item_get_vanished (rxe10));
  }

  rtop_history_reset (history);
  g_assert_null (rxe10);
  g_assert_cmpuint (g_list_model_get_n_items (rtop_history_get_ports (history)), ==, 0);
  g_assert_finalize_object (history);
}

static void
test_processes_update_in_place (void)
{
  RtopHistory *history = rtop_history_new ();
  RtopSnapshot *s;
  GListModel *model = rtop_history_get_processes (history);
  RtopProcessItem *first;

  s = gui_fixture_snapshot (1, 1.0, three_devices, 4);
  gui_fixture_add_process (s, 100, "ib_write_bw", "alice", "mlx5_0", 4, 2, 1 << 20);
  gui_fixture_add_process (s, 200, "ibv_rc_pingpong", "bob", "rxe2", 1, 1, 4096);
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  first = g_list_model_get_item (model, 0);
  g_object_unref (first);

  s = gui_fixture_snapshot (2, 1.0, three_devices, 4);
  gui_fixture_add_process (s, 100, "ib_write_bw", "alice", "mlx5_0", 8, 2, 1 << 20);
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  {
    g_autoptr(RtopProcessItem) p = g_list_model_get_item (model, 0);
    g_assert_true (p == first);
    g_assert_cmpuint (rtop_process_item_get_qps (p), ==, 8);
    g_assert_true (rtop_process_item_uses_device (p, "mlx5_0"));
    g_assert_false (rtop_process_item_uses_device (p, "rxe2"));
  }
  g_assert_finalize_object (history);
}

static void
test_events_bounded (void)
{
  RtopHistory *history = rtop_history_new ();
  GListModel *events = rtop_history_get_events (history);
  guint total = RTOP_HISTORY_MAX_EVENTS + 50;

  for (guint batch = 0; batch < total / 1010 + 1; batch++)
    {
      RtopSnapshot *s = gui_fixture_snapshot (batch + 1, 1.0, three_devices, 1);

      for (guint i = batch * 1010; i < MIN ((batch + 1) * 1010, total); i++)
        {
          g_autofree char *msg = g_strdup_printf ("event %u", i);
          gui_fixture_add_event (s, i % 3, "rxe10", 1, msg);
        }
      ingest (history, s);
    }
  g_assert_cmpuint (g_list_model_get_n_items (events), ==, RTOP_HISTORY_MAX_EVENTS);
  g_assert_cmpuint (rtop_history_get_events_dropped (history), ==, 50);
  {
    g_autoptr(RtopEventItem) newest = g_list_model_get_item (events, 0);
    g_autoptr(RtopEventItem) oldest = g_list_model_get_item (events, RTOP_HISTORY_MAX_EVENTS - 1);
    g_autofree char *want_new = g_strdup_printf ("event %u", total - 1);
    g_assert_cmpstr (rtop_event_item_get_event (newest)->message, ==, want_new);
    g_assert_cmpstr (rtop_event_item_get_event (oldest)->message, ==, "event 50");
    g_assert_cmpstr (rtop_event_item_get_location (newest), ==, "rxe10/1");
  }
  g_assert_finalize_object (history);
}

static RtopEvent *
add_episode_event (RtopSnapshot *s, RtopEventKind kind, RtopSeverity severity, guint64 episode,
                   gboolean ongoing, gint64 t_us, const char *message)
{
  RtopEvent *ev = rtop_event_new (kind, severity, "rxe0", 1, message);

  ev->episode = episode;
  ev->ongoing = ongoing;
  ev->monotonic_us = t_us;
  g_ptr_array_add (s->events, ev);
  return ev;
}

static RtopSnapshot *
host_snapshot (const char *host, guint64 seq, const GuiPortSpec *ports, guint n)
{
  RtopSnapshot *s = gui_fixture_snapshot (seq, 1.0, ports, n);

  s->host = g_strdup (host);
  return s;
}

/* Two hosts with the same device names: their ports, processes and
 * episodes stay apart, one host's snapshot never marks the other's ports
 * vanished, totals are per host and over all, and a host out of reach
 * shows no rates until it answers again. */
static void
test_two_hosts (void)
{
  static const GuiPortSpec one_rxe[] = {
    { "rxe0", 1, "rxe", "roce", 4, 10, 1e9, 2e9, 1000, 2000, 0, 0, 0, FALSE },
  };
  g_autoptr(RtopHistory) history = rtop_history_new ();
  GListModel *ports = rtop_history_get_ports (history);
  GListModel *processes = rtop_history_get_processes (history);
  GListModel *events = rtop_history_get_events (history);
  g_autofree char *keys = NULL;
  RtopPortItem *here, *there;
  RtopTotals t;

  for (guint64 seq = 1; seq <= 2; seq++)
    {
      RtopSnapshot *a = host_snapshot (NULL, seq, one_rxe, 1);
      RtopSnapshot *b = host_snapshot ("node1", seq, one_rxe, 1);
      RtopEvent *ev;

      gui_fixture_add_process (a, 100, "ib_write_bw", "alice", "rxe0", 1, 1, 4096);
      gui_fixture_add_process (b, 100, "ib_write_bw", "bob", "rxe0", 1, 1, 4096);
      ev = add_episode_event (a, RTOP_EVENT_COUNTER_RISING, RTOP_SEVERITY_WARNING, 5, TRUE, 1000,
                              "Packet loss here.");
      (void) ev;
      add_episode_event (b, RTOP_EVENT_COUNTER_RISING, RTOP_SEVERITY_WARNING, 5, TRUE, 1000,
                         "Packet loss there.");
      ingest (history, a);
      ingest (history, b);
    }
  keys = port_keys (ports);
  g_assert_cmpstr (keys, ==, "rxe0/1 node1:rxe0/1");
  g_assert_cmpuint (rtop_history_get_n_hosts (history), ==, 2);
  here = rtop_history_find_port_by_key (history, "rxe0/1");
  there = rtop_history_find_port_by_key (history, "node1:rxe0/1");
  g_assert_nonnull (here);
  g_assert_nonnull (there);
  g_assert_false (rtop_port_item_get_vanished (here));
  g_assert_cmpstr (rtop_port_item_get_host (there), ==, "node1");
  g_assert_cmpfloat (rtop_port_item_get_rate (there, RTOP_PORT_CH_TX_BPS), ==, 1e9);
  /* The same pid on two hosts is two processes. */
  g_assert_cmpuint (g_list_model_get_n_items (processes), ==, 2);
  /* Episode 5 of each host is its own row, each updated in place. */
  g_assert_cmpuint (g_list_model_get_n_items (events), ==, 2);
  {
    g_autoptr(RtopEventItem) newest = g_list_model_get_item (events, 0);

    g_assert_cmpstr (rtop_event_item_get_location (newest), ==, "node1:rxe0/1");
  }
  rtop_history_get_totals (history, &t);
  g_assert_cmpuint (t.n_devices, ==, 2);
  g_assert_cmpuint (t.n_ports, ==, 2);
  g_assert_cmpfloat (t.tx_bps, ==, 2e9);
  g_assert_true (rtop_history_get_host_totals (history, "node1", &t));
  g_assert_cmpuint (t.n_ports, ==, 1);
  g_assert_cmpfloat (t.tx_bps, ==, 1e9);
  g_assert_false (rtop_history_get_host_totals (history, "node2", &t));

  /* node1 is lost: no rate from before, its processes are not listed. */
  rtop_history_set_host_offline (history, "node1");
  g_assert_true (isnan (rtop_port_item_get_rate (there, RTOP_PORT_CH_TX_BPS)));
  g_assert_cmpfloat (rtop_port_item_get_rate (here, RTOP_PORT_CH_TX_BPS), ==, 1e9);
  g_assert_cmpuint (g_list_model_get_n_items (processes), ==, 1);
  g_assert_true (rtop_history_get_host_totals (history, "node1", &t));
  g_assert_cmpfloat (t.tx_bps, ==, 0);

  /* Back: the first snapshot of a new connection has no rates yet. */
  ingest (history, host_snapshot ("node1", 1, one_rxe, 1));
  g_assert_true (isnan (rtop_port_item_get_rate (there, RTOP_PORT_CH_TX_BPS)));
  ingest (history, host_snapshot ("node1", 2, one_rxe, 1));
  g_assert_cmpfloat (rtop_port_item_get_rate (there, RTOP_PORT_CH_TX_BPS), ==, 1e9);

  /* Removed: its ports go, this computer's stay. */
  rtop_history_forget_host (history, "node1");
  g_free (keys);
  keys = port_keys (ports);
  g_assert_cmpstr (keys, ==, "rxe0/1");
  g_assert_cmpuint (rtop_history_get_n_hosts (history), ==, 1);
}

/* An episode is one row, completed in place; the ranked list keeps an
 * Error first while Info and Warning come and go. */
static void
test_episodes_and_ranking (void)
{
  RtopHistory *history = rtop_history_new ();
  GListModel *events = rtop_history_get_events (history);
  GListModel *recent = rtop_history_get_recent_events (history);
  RtopSnapshot *s = gui_fixture_snapshot (1, 1.0, three_devices, 1);

  add_episode_event (s, RTOP_EVENT_COUNTER_RISING, RTOP_SEVERITY_WARNING, 5, TRUE, 1000,
                     "Packet loss on rxe0/1: Retransmits 2 so far.");
  add_episode_event (s, RTOP_EVENT_PORT_DOWN, RTOP_SEVERITY_ERROR, 6, TRUE, 2000,
                     "Port rxe0/1 went down.");
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (events), ==, 2);

  /* 60 passes of Info events and lone Warnings after it. */
  for (guint i = 0; i < 60; i++)
    {
      s = gui_fixture_snapshot (2 + i, 1.0, three_devices, 1);
      add_episode_event (s, RTOP_EVENT_NETDEV_CHANGED, i % 2 ? RTOP_SEVERITY_INFO : RTOP_SEVERITY_WARNING,
                         0, FALSE, 10000 + i * 1000, "Something minor.");
      ingest (history, s);
    }
  g_assert_cmpuint (g_list_model_get_n_items (recent), ==, RTOP_HISTORY_RECENT_MAX);
  {
    g_autoptr(RtopEventItem) top = g_list_model_get_item (recent, 0);
    g_autoptr(RtopEventItem) second = g_list_model_get_item (recent, 1);

    g_assert_cmpint (rtop_event_item_get_event (top)->kind, ==, RTOP_EVENT_PORT_DOWN);
    g_assert_cmpint (rtop_event_item_get_event (second)->severity, ==, RTOP_SEVERITY_WARNING);
  }

  /* The loss episode completes: its row is updated, not a new one. */
  s = gui_fixture_snapshot (100, 1.0, three_devices, 1);
  add_episode_event (s, RTOP_EVENT_COUNTER_SETTLED, RTOP_SEVERITY_WARNING, 5, FALSE, 90000,
                     "Packet loss on rxe0/1 for 12 s: 40 in all.");
  {
    RtopEventItem *row;
    guint pos;

    for (pos = 0; pos < g_list_model_get_n_items (events); pos++)
      {
        g_autoptr(RtopEventItem) item = g_list_model_get_item (events, pos);

        if (rtop_event_item_get_event (item)->episode == 5)
          break;
      }
    row = g_list_model_get_item (events, pos);
    ingest (history, s);
    g_assert_cmpuint (g_list_model_get_n_items (events), ==, 62);
    g_assert_false (rtop_event_item_get_event (row)->ongoing);
    g_assert_cmpstr (rtop_event_item_get_event (row)->message, ==, "Packet loss on rxe0/1 for 12 s: 40 in all.");
    /* It stays where it began. */
    g_assert_cmpint (rtop_event_item_get_event (row)->monotonic_us, ==, 1000);
    g_assert_cmpint (rtop_event_item_get_last_us (row), ==, 90000);
    {
      g_autoptr(RtopEventItem) again = g_list_model_get_item (events, pos);

      g_assert_true (again == row);
    }
    /* Ranked: the Error, then the Warning just completed. */
    {
      g_autoptr(RtopEventItem) top = g_list_model_get_item (recent, 0);
      g_autoptr(RtopEventItem) second = g_list_model_get_item (recent, 1);

      g_assert_cmpint (rtop_event_item_get_event (top)->kind, ==, RTOP_EVENT_PORT_DOWN);
      g_assert_true (second == row);
    }
    g_object_unref (row);
  }
  rtop_history_reset (history);
  g_assert_cmpuint (g_list_model_get_n_items (recent), ==, 0);
  g_assert_finalize_object (history);
}

static void
test_capacity_follows_interval (void)
{
  RtopHistory *history = rtop_history_new ();
  RtopPortItem *item;

  ingest (history, gui_fixture_snapshot (1, 0.1, three_devices, 1));
  item = rtop_history_find_port (history, "rxe10", 1);
  g_assert_cmpuint (rtop_series_get_capacity (rtop_port_item_get_series (item)), ==, 36001);
  ingest (history, gui_fixture_snapshot (2, 5.0, three_devices, 1));
  g_assert_cmpuint (rtop_series_get_capacity (rtop_port_item_get_series (item)), ==, 721);
  g_assert_cmpuint (rtop_series_get_length (rtop_port_item_get_series (item)), ==, 2);
  g_assert_finalize_object (history);
}

/* Throughput is in bits per second everywhere, RDMA read and write bytes
 * too; the preference shows all of them in bytes. */
static void
test_throughput_units (void)
{
  g_autofree char *read_bits = rtop_format_rate (1.5e9, RTOP_UNIT_BYTES_PER_S);
  g_autofree char *port_bits = rtop_format_gbps (12e9);
  g_autofree char *pkts = rtop_format_rate (2e6, RTOP_UNIT_PACKETS_PER_S);
  g_autofree char *read_bytes = NULL, *port_bytes = NULL, *pkts_bytes = NULL;

  g_assert_cmpstr (read_bits, ==, "12.0 Gb/s");
  g_assert_cmpstr (port_bits, ==, "12.0 Gb/s");
  rtop_format_set_throughput_bytes (TRUE);
  read_bytes = rtop_format_rate (1.5e9, RTOP_UNIT_BYTES_PER_S);
  port_bytes = rtop_format_gbps (12e9);
  pkts_bytes = rtop_format_rate (2e6, RTOP_UNIT_PACKETS_PER_S);
  rtop_format_set_throughput_bytes (FALSE);
  g_assert_cmpstr (read_bytes, ==, "1.50 GB/s");
  g_assert_cmpstr (port_bytes, ==, "1.50 GB/s");
  /* Packets are packets. */
  g_assert_cmpstr (pkts_bytes, ==, pkts);
}

/* Rising is the delta shown: a counter is never marked beside a delta of 0. */
static void
test_counter_rising_is_the_delta (void)
{
  RtopCounterItem *item = rtop_counter_item_new ("rcvd_seq_err", FALSE);
  RtopCounter c = { .name = (char *) "rcvd_seq_err", .value = 10, .delta = 2, .rate = 2,
                    .has_rate = TRUE, .klass = RTOP_COUNTER_CLASS_TRANSPORT_ERROR };

  rtop_counter_item_update (item, &c);
  g_assert_true (rtop_counter_item_get_rising (item));
  c.delta = 0;
  c.rate = 0;
  rtop_counter_item_update (item, &c);
  g_assert_cmpuint (rtop_counter_item_get_delta (item), ==, 0);
  g_assert_false (rtop_counter_item_get_rising (item));
  c.delta = 1;
  rtop_counter_item_update (item, &c);
  g_assert_true (rtop_counter_item_get_rising (item));
  /* Data counters never count as rising. */
  c.klass = RTOP_COUNTER_CLASS_DATA;
  c.delta = 100;
  rtop_counter_item_update (item, &c);
  g_assert_false (rtop_counter_item_get_rising (item));
  g_assert_finalize_object (item);
}

/* ---- tables --------------------------------------------------------------- */

static GtkWidget *
in_window (GtkWidget *child)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_set_child (GTK_WINDOW (window), child);
  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  return window;
}

static GtkColumnView *
find_column_view (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnView *found;

      if (GTK_IS_COLUMN_VIEW (child) && gtk_widget_get_mapped (child))
        return GTK_COLUMN_VIEW (child);
      if ((found = find_column_view (child)))
        return found;
    }
  return NULL;
}

/* Views are sections bound to a session; the tests feed its history. */
static RtopSession *
new_session (RtopHistory **history)
{
  RtopSession *session = rtop_session_new (NULL);

  *history = g_object_ref (rtop_session_get_history (session));
  return session;
}

static void
emit_fixture (RtopSource *source, guint64 sequence)
{
  RtopSnapshot *snapshot = gui_fixture_snapshot (sequence, 1.0, three_devices, G_N_ELEMENTS (three_devices));

  rtop_snapshot_seal (snapshot);
  rtop_source_emit_snapshot (source, snapshot);
  rtop_snapshot_unref (snapshot);
}

static guint64
latest_sequence (RtopHistory *history)
{
  RtopSnapshot *latest = rtop_history_get_latest (history);

  return latest != NULL ? latest->sequence : 0;
}

static gboolean
no_latest (gpointer history)
{
  return rtop_history_get_latest (history) == NULL;
}

/* Until the window's first frame, snapshots wait; then every one is taken,
 * in order; at most 16 wait, and none longer than 2 s. */
static void
test_session_holds_until_first_frame (void)
{
  RtopHistory *history;
  g_autoptr(RtopSession) session = new_session (&history);
  g_autoptr(RtopSampler) source = rtop_sampler_new (NULL);
  guint ingests = 0;
  gint64 deadline;

  g_signal_connect (history, "updated", G_CALLBACK (count_signal), &ingests);
  rtop_session_add_live_source (session, RTOP_SOURCE (source));
  rtop_session_hold_snapshots (session);
  emit_fixture (RTOP_SOURCE (source), 1);
  emit_fixture (RTOP_SOURCE (source), 2);
  g_assert_true (no_latest (history));
  g_assert_cmpuint (ingests, ==, 0);
  rtop_session_release_snapshots (session);
  g_assert_cmpuint (ingests, ==, 2);
  g_assert_cmpuint (latest_sequence (history), ==, 2);
  g_assert_cmpuint (g_list_model_get_n_items (rtop_history_get_ports (history)), ==, 4);
  /* Not holding: taken at once. */
  emit_fixture (RTOP_SOURCE (source), 3);
  g_assert_cmpuint (latest_sequence (history), ==, 3);

  /* The 17th to come takes the 16 before it along. */
  rtop_session_hold_snapshots (session);
  for (guint64 seq = 4; seq < 4 + 16; seq++)
    emit_fixture (RTOP_SOURCE (source), seq);
  g_assert_cmpuint (latest_sequence (history), ==, 3);
  emit_fixture (RTOP_SOURCE (source), 20);
  g_assert_cmpuint (ingests, ==, 3 + 17);
  g_assert_cmpuint (latest_sequence (history), ==, 20);

  /* A first frame that never comes keeps nothing for long. */
  rtop_session_hold_snapshots (session);
  emit_fixture (RTOP_SOURCE (source), 21);
  g_assert_cmpuint (latest_sequence (history), ==, 20);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (latest_sequence (history) != 21 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (latest_sequence (history), ==, 21);
  g_signal_handlers_disconnect_by_func (history, count_signal, &ingests);
  g_object_unref (history);
}

static void
count_snapshot (RtopSource *source, RtopSnapshot *snapshot, guint *n)
{
  (*n)++;
}

/* A pass done while the window was built is taken before it is shown,
 * without the main loop; once held, a ready snapshot waits like any. */
static void
test_session_takes_ready_snapshots (void)
{
  RtopHistory *history;
  g_autoptr(RtopSession) session = new_session (&history);
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  guint64 taken;
  guint delivered = 0, before;

  g_signal_connect (sampler, "snapshot", G_CALLBACK (count_snapshot), &delivered);
  rtop_session_add_live_source (session, RTOP_SOURCE (sampler));
  rtop_session_start (session);
  /* The main context is not iterated: only the take can bring one.  (The
   * bound only prevents a hang.) */
  for (guint tries = 0; no_latest (history) && tries < 3000; tries++)
    {
      g_usleep (10 * 1000);
      rtop_session_take_ready_snapshots (session);
    }
  g_assert_false (no_latest (history));
  taken = latest_sequence (history);
  rtop_session_hold_snapshots (session);
  before = delivered;
  for (guint tries = 0; delivered == before && tries < 3000; tries++)
    {
      g_usleep (10 * 1000);
      rtop_session_take_ready_snapshots (session);
    }
  g_assert_cmpuint (delivered, >, before);
  g_assert_cmpuint (latest_sequence (history), ==, taken);
  rtop_session_release_snapshots (session);
  g_assert_cmpuint (latest_sequence (history), >, taken);
  g_signal_handlers_disconnect_by_func (sampler, count_snapshot, &delivered);
  g_object_unref (history);
}

/* An overview not yet shown (a window that opens on another view) holds:
 * snapshots change nothing it shows, and once shown it shows the newest. */
static void
test_overview_held_until_shown (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *overview = g_object_ref_sink (rtop_overview_section_new ());
  GtkWidget *window;
  g_autofree char *before = NULL, *after = NULL;

  rtop_section_set_session (RTOP_SECTION (overview), session);
  g_assert_true (rtop_overview_section_get_held (RTOP_OVERVIEW_SECTION (overview)));
  ingest (history, gui_fixture_snapshot (1, 1.0, three_devices, 4));
  ingest (history, gui_fixture_snapshot (2, 1.0, three_devices, 4));
  before = rtop_section_dump (RTOP_SECTION (overview));
  g_assert_nonnull (strstr (before, "state=waiting"));
  g_assert_null (strstr (before, "totals\tports=4"));
  /* Its waiting page is not seen: its spinner does not tick the clock. */
  g_assert_false (gtk_spinner_get_spinning (RTOP_OVERVIEW_SECTION (overview)->waiting_spinner));

  window = in_window (overview);
  g_assert_false (rtop_overview_section_get_held (RTOP_OVERVIEW_SECTION (overview)));
  after = rtop_section_dump (RTOP_SECTION (overview));
  g_assert_nonnull (strstr (after, "state=ports"));
  g_assert_nonnull (strstr (after, "totals\tports=4"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (overview);
  g_object_unref (session);
}

static void
test_overview_sort_and_states (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *overview = rtop_overview_section_new ();
  GtkWidget *window = in_window (overview);
  GListModel *model = rtop_overview_section_get_model (RTOP_OVERVIEW_SECTION (overview));
  GtkColumnView *view;
  g_autofree char *natural = NULL, *by_tx = NULL, *dump = NULL;
  RtopSnapshot *s;

  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  rtop_section_set_session (RTOP_SECTION (overview), session);
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "waiting");

  s = gui_fixture_snapshot (1, 1.0, NULL, 0);
  ingest (history, s);
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "empty");

  /* No RDMA in the kernel is no devices too (with the Soft-RoCE recipe);
   * a refusal is another page. */
  s = gui_fixture_snapshot (2, 1.0, NULL, 0);
  s->status = RTOP_STATUS_NO_NETLINK;
  s->status_message = g_strdup ("No RDMA netlink here.");
  ingest (history, s);
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "empty");
  s = gui_fixture_snapshot (2, 1.0, NULL, 0);
  s->status = RTOP_STATUS_PERMISSION;
  s->status_message = g_strdup ("Not allowed here.");
  ingest (history, s);
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "unavailable");

  ingest (history, gui_fixture_snapshot (3, 1.0, three_devices, 4));
  ingest (history, gui_fixture_snapshot (4, 1.0, three_devices, 4));
  g_assert_cmpstr (rtop_overview_section_get_state (RTOP_OVERVIEW_SECTION (overview)), ==, "ports");
  natural = port_keys (model);
  g_assert_cmpstr (natural, ==, "mlx5_0/1 mlx5_0/2 rxe2/1 rxe10/1");

  view = find_column_view (overview);
  g_assert_nonnull (view);
  rtop_column_view_sort_by (view, "tx", GTK_SORT_DESCENDING);
  by_tx = port_keys (model);
  g_assert_cmpstr (by_tx, ==, "mlx5_0/1 rxe2/1 rxe10/1 mlx5_0/2");

  /* Values change in place: the order follows them. */
  {
    GuiPortSpec changed[4];
    g_autofree char *resorted = NULL;

    memcpy (changed, three_devices, sizeof changed);
    changed[0].tx_bps = 90e9;   /* rxe10 now leads */
    ingest (history, gui_fixture_snapshot (5, 1.0, changed, 4));
    resorted = port_keys (model);
    g_assert_cmpstr (resorted, ==, "rxe10/1 mlx5_0/1 rxe2/1 mlx5_0/2");
  }

  /* The dump shows what the cells show, including the problem marking. */
  dump = rtop_section_dump (RTOP_SECTION (overview));
  g_assert_nonnull (strstr (dump, "state=ports"));
  g_assert_nonnull (strstr (dump, "port=rxe2/1\tprotocol=RoCE\tstate=● Active"));
  g_assert_nonnull (strstr (dump, "health=⚠ Packet loss"));
  g_assert_nonnull (strstr (dump, "port=mlx5_0/2\tprotocol=InfiniBand\tstate=● Down"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

static void
test_processes_search_and_sort (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *view = rtop_processes_section_new ();
  GtkWidget *window = in_window (view);
  GListModel *model = rtop_processes_section_get_model (RTOP_PROCESSES_SECTION (view));
  RtopSnapshot *s = gui_fixture_snapshot (1, 1.0, three_devices, 4);

  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  gui_fixture_add_process (s, 100, "ib_write_bw", "alice", "mlx5_0", 4, 2, 1 << 20);
  rtop_job_set (&gui_fixture_add_process (s, 200, "ibv_rc_pingpong", "bob", "rxe2", 16, 1, 4096)->job,
                RTOP_JOB_SLURM, "7", "batch");
  rtop_job_set (&gui_fixture_add_process (s, 300, "python3", "carol", "rxe10", 2, 8, 1 << 30)->job,
                RTOP_JOB_CONTAINER, "3d2ae0c5b6d4e5f0a1b2", "docker");
  ingest (history, s);
  rtop_section_set_session (RTOP_SECTION (view), session);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);
  {
    g_autoptr(RtopProcessItem) first = g_list_model_get_item (model, 0);
    g_autoptr(RtopProcessItem) last = g_list_model_get_item (model, 2);

    g_assert_null (rtop_process_item_get_job_text (first));
    g_assert_cmpstr (rtop_process_item_get_job_text (last), ==, "docker container 3d2ae0c5b6d4");
  }

  /* The job is searched and sorted by its words. */
  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "slurm job 7, step batch");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "");
  rtop_column_view_sort_by (find_column_view (view), "job", GTK_SORT_DESCENDING);
  {
    g_autoptr(RtopProcessItem) top = g_list_model_get_item (model, 0);
    g_autoptr(RtopProcessItem) next = g_list_model_get_item (model, 1);

    g_assert_cmpint (rtop_process_item_get_pid (top), ==, 300);
    g_assert_cmpint (rtop_process_item_get_pid (next), ==, 200);
  }

  /* Grouped by job (the action the toolbar's toggle uses), the view's
   * sort holds within a job and processes without one come last. */
  rtop_column_view_sort_by (find_column_view (view), "qps", GTK_SORT_DESCENDING);
  {
    g_autoptr(RtopProcessItem) top = g_list_model_get_item (model, 0);
    g_assert_cmpint (rtop_process_item_get_pid (top), ==, 200);
  }
  g_assert_true (gtk_widget_activate_action (view, "processes.group-by-job", NULL));
  g_assert_true (rtop_processes_section_get_group_by_job (RTOP_PROCESSES_SECTION (view)));
  {
    g_autoptr(RtopProcessItem) last = g_list_model_get_item (model, 2);
    g_assert_cmpint (rtop_process_item_get_pid (last), ==, 100);
  }
  rtop_processes_section_set_group_by_job (RTOP_PROCESSES_SECTION (view), FALSE);
  {
    g_autoptr(RtopProcessItem) middle = g_list_model_get_item (model, 1);
    g_assert_cmpint (rtop_process_item_get_pid (middle), ==, 100);
  }

  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "PINGPONG");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "rxe");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "alice");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  rtop_processes_section_set_search (RTOP_PROCESSES_SECTION (view), "");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);

  rtop_column_view_sort_by (find_column_view (view), "qps", GTK_SORT_DESCENDING);
  {
    g_autoptr(RtopProcessItem) top = g_list_model_get_item (model, 0);
    g_assert_cmpint (rtop_process_item_get_pid (top), ==, 200);
  }
  rtop_column_view_sort_by (find_column_view (view), "mr_bytes", GTK_SORT_DESCENDING);
  {
    g_autoptr(RtopProcessItem) top = g_list_model_get_item (model, 0);
    g_assert_cmpint (rtop_process_item_get_pid (top), ==, 300);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

/* ---- the held list model -------------------------------------------------- */

/* A copy of a list model kept only through its "items-changed": at any
 * time it must equal the model, or a change was misreported. */
typedef struct {
  GPtrArray *items;
  guint changes;
} Mirror;

static void
mirror_changed_cb (GListModel *model, guint position, guint removed, guint added, Mirror *m)
{
  g_assert_cmpuint (position + removed, <=, m->items->len);
  g_ptr_array_remove_range (m->items, position, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (m->items, position + i, g_list_model_get_item (model, position + i));
  m->changes++;
}

static void
mirror_init (Mirror *m, GListModel *model)
{
  m->items = g_ptr_array_new_with_free_func (g_object_unref);
  m->changes = 0;
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    g_ptr_array_add (m->items, g_list_model_get_item (model, i));
  g_signal_connect (model, "items-changed", G_CALLBACK (mirror_changed_cb), m);
}

static void
assert_same_items (GListModel *model, GPtrArray *items)
{
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, items->len);
  for (guint i = 0; i < items->len; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      g_assert_true (item == g_ptr_array_index (items, i));
    }
  g_assert_null (g_list_model_get_item (model, items->len));
}

static GPtrArray *
items_of_store (GListStore *store)
{
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (store)); i++)
    g_ptr_array_add (items, g_list_model_get_item (G_LIST_MODEL (store), i));
  return items;
}

static void
append_new (GListStore *store)
{
  g_autoptr(GObject) o = g_object_new (G_TYPE_OBJECT, NULL);

  g_list_store_append (store, o);
}

static void
last_change_cb (GListModel *model, guint position, guint removed, guint added, guint *last)
{
  last[0] = position;
  last[1] = removed;
  last[2] = added;
}

static void
count_cb (guint *count)
{
  (*count)++;
}

static void
test_held_model (void)
{
  g_autoptr(GListStore) store = g_list_store_new (G_TYPE_OBJECT);
  g_autoptr(RtopHeldModel) held = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  gboolean is_held = FALSE;
  Mirror m;

  for (guint i = 0; i < 5; i++)
    append_new (store);
  held = rtop_held_model_new (G_LIST_MODEL (store));
  g_assert_true (g_list_model_get_item_type (G_LIST_MODEL (held)) == G_TYPE_OBJECT);
  mirror_init (&m, G_LIST_MODEL (held));

  /* Not held: every change passes at once. */
  append_new (store);
  g_list_store_remove (store, 0);
  g_assert_cmpuint (m.changes, ==, 2);
  assert_same_items (G_LIST_MODEL (held), m.items);

  /* Held: it shows what it had, and says nothing, whatever happens. */
  rtop_held_model_set_held (held, TRUE);
  before = items_of_store (store);
  append_new (store);
  append_new (store);
  g_list_store_remove (store, 1);
  g_list_store_remove (store, 0);
  g_assert_cmpuint (m.changes, ==, 2);
  assert_same_items (G_LIST_MODEL (held), before);

  /* Released: one change, covering only the run that differs (item 0 and
   * 1 gone at the start, two new at the end: the whole list here). */
  rtop_held_model_set_held (held, FALSE);
  g_assert_cmpuint (m.changes, ==, 3);
  {
    g_autoptr(GPtrArray) now = items_of_store (store);

    assert_same_items (G_LIST_MODEL (held), now);
    g_assert_cmpuint (m.items->len, ==, now->len);
  }

  /* A change in the middle is reported as that middle, not the list. */
  {
    guint last[3] = { G_MAXUINT, G_MAXUINT, G_MAXUINT };

    g_signal_connect (held, "items-changed", G_CALLBACK (last_change_cb), last);
    rtop_held_model_set_held (held, TRUE);
    g_list_store_remove (store, 2);
    append_new (store);
    g_list_store_remove (store, g_list_model_get_n_items (G_LIST_MODEL (store)) - 1);
    rtop_held_model_set_held (held, FALSE);
    g_assert_cmpuint (m.changes, ==, 4);
    g_assert_cmpuint (last[0], ==, 2);
    g_assert_cmpuint (last[1], ==, 1);
    g_assert_cmpuint (last[2], ==, 0);
    assert_same_items (G_LIST_MODEL (held), m.items);
    g_signal_handlers_disconnect_by_data (held, last);
  }

  /* Held and released with nothing changed: silent. */
  rtop_held_model_set_held (held, TRUE);
  rtop_held_model_set_held (held, FALSE);
  g_assert_cmpuint (m.changes, ==, 4);

  /* catch_up shows the model now and stays held. */
  rtop_held_model_set_held (held, TRUE);
  append_new (store);
  rtop_held_model_catch_up (held);
  g_assert_cmpuint (m.changes, ==, 5);
  assert_same_items (G_LIST_MODEL (held), m.items);
  {
    g_autoptr(GPtrArray) now = items_of_store (store);
    assert_same_items (G_LIST_MODEL (held), now);
  }
  rtop_held_model_set_held (held, FALSE);
  g_assert_cmpuint (m.changes, ==, 5);

  /* Any mix of changes, held or not, keeps the mirror equal to the store. */
  for (guint round = 0; round < 400; round++)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (store));

      switch (g_rand_int_range (rand, 0, 6))
        {
        case 0: case 1:
          {
            g_autoptr(GObject) o = g_object_new (G_TYPE_OBJECT, NULL);
            g_list_store_insert (store, g_rand_int_range (rand, 0, n + 1), o);
          }
          break;
        case 2: case 3:
          if (n > 0)
            g_list_store_remove (store, g_rand_int_range (rand, 0, n));
          break;
        case 4:
          is_held = !is_held;
          rtop_held_model_set_held (held, is_held);
          break;
        default:
          rtop_held_model_catch_up (held);
          break;
        }
      if (!is_held)
        {
          g_autoptr(GPtrArray) now = items_of_store (store);
          assert_same_items (G_LIST_MODEL (held), now);
        }
      assert_same_items (G_LIST_MODEL (held), m.items);
    }
  g_signal_handlers_disconnect_by_data (held, &m);
  g_ptr_array_unref (m.items);
}

/* A hidden Processes view does nothing as processes come and go: its list
 * stays as it was (no row is made or destroyed), a dump still says what it
 * would show, and shown again it has every process, its selection kept. */
static void
test_processes_held_while_hidden (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *other = gtk_label_new ("another view");
  GtkWidget *view = rtop_processes_section_new ();
  GtkWidget *window;
  GListModel *model = rtop_processes_section_get_model (RTOP_PROCESSES_SECTION (view));
  GtkSelectionModel *selection;
  guint changes = 0;
  RtopSnapshot *s;
  g_autofree char *dump = NULL;

  gtk_stack_add_named (GTK_STACK (stack), other, "other");
  gtk_stack_add_named (GTK_STACK (stack), view, "processes");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "processes");
  window = in_window (stack);
  rtop_section_set_session (RTOP_SECTION (view), session);
  s = gui_fixture_snapshot (1, 1.0, three_devices, 4);
  gui_fixture_add_process (s, 100, "ib_write_bw", "alice", "mlx5_0", 4, 2, 1 << 20);
  gui_fixture_add_process (s, 200, "python3", "bob", "rxe2", 16, 1, 4096);
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  selection = gtk_column_view_get_model (find_column_view (view));
  gtk_selection_model_select_item (selection, 1, TRUE);
  {
    g_autoptr(RtopProcessItem) chosen = g_list_model_get_item (G_LIST_MODEL (selection), 1);
    g_assert_cmpint (rtop_process_item_get_pid (chosen), ==, 200);
  }

  /* Hidden: 100 exits, 300 and 400 start, and nothing reaches the table. */
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "other");
  g_assert_false (gtk_widget_get_mapped (view));
  g_signal_connect_swapped (model, "items-changed", G_CALLBACK (count_cb), &changes);
  for (guint64 seq = 2; seq < 6; seq++)
    {
      s = gui_fixture_snapshot (seq, 1.0, three_devices, 4);
      gui_fixture_add_process (s, 200, "python3", "bob", "rxe2", 16, 1, 4096);
      gui_fixture_add_process (s, 300 + seq % 2 * 100, "ib_read_bw", "carol", "rxe10", 2, 1, 4096);
      ingest (history, s);
    }
  g_assert_cmpuint (changes, ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);

  /* A dump of the hidden view says what it would show now. */
  dump = rtop_section_dump (RTOP_SECTION (view));
  g_assert_null (strstr (dump, "ib_write_bw"));
  g_assert_nonnull (strstr (dump, "ib_read_bw"));
  g_assert_nonnull (strstr (dump, "python3"));

  /* Shown again: the processes of now, the chosen one still chosen. */
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "processes");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  {
    guint chosen = gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (selection));
    g_autoptr(RtopProcessItem) item = g_list_model_get_item (G_LIST_MODEL (selection), chosen);

    g_assert_nonnull (item);
    g_assert_cmpint (rtop_process_item_get_pid (item), ==, 200);
  }
  s = gui_fixture_snapshot (6, 1.0, three_devices, 4);
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);

  g_signal_handlers_disconnect_by_data (model, &changes);
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
}

static void
test_events_filters (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *view = rtop_events_section_new ();
  GtkWidget *window = in_window (view);
  GListModel *model = rtop_events_section_get_model (RTOP_EVENTS_SECTION (view));
  RtopSnapshot *s = gui_fixture_snapshot (1, 1.0, three_devices, 4);

  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  gui_fixture_add_event (s, RTOP_SEVERITY_INFO, "rxe2", 0, "rxe2 added");
  gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, "rxe2", 1, "retransmits rising");
  gui_fixture_add_event (s, RTOP_SEVERITY_ERROR, "mlx5_0", 2, "port down");
  gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, NULL, 0, "collection slow");
  rtop_section_set_session (RTOP_SECTION (view), session);
  ingest (history, s);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 4);

  rtop_events_section_set_min_severity (RTOP_EVENTS_SECTION (view), RTOP_SEVERITY_WARNING);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);
  rtop_events_section_set_device (RTOP_EVENTS_SECTION (view), "rxe2");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  rtop_events_section_set_min_severity (RTOP_EVENTS_SECTION (view), RTOP_SEVERITY_INFO);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  rtop_events_section_set_device (RTOP_EVENTS_SECTION (view), NULL);
  rtop_events_section_set_min_severity (RTOP_EVENTS_SECTION (view), RTOP_SEVERITY_ERROR);
  {
    g_autoptr(RtopEventItem) e = g_list_model_get_item (model, 0);
    g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
    g_assert_cmpstr (rtop_event_item_get_location (e), ==, "mlx5_0/2");
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

static GtkScrolledWindow *
find_scroller (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkScrolledWindow *found;

      if (GTK_IS_SCROLLED_WINDOW (child) && gtk_widget_get_mapped (child))
        return GTK_SCROLLED_WINDOW (child);
      if ((found = find_scroller (child)))
        return found;
    }
  return NULL;
}

static void
settle (void)
{
  /* At least half a second, then until nothing was pending for 200 ms in
   * a row (a loaded machine or a sanitizer build lays out more slowly),
   * at most 20 s.  No time is asserted. */
  gint64 start = g_get_monotonic_time ();
  gint64 idle_since = start;

  for (;;)
    {
      gint64 now = g_get_monotonic_time ();

      if (g_main_context_iteration (NULL, FALSE))
        idle_since = now;
      else
        g_usleep (1000);
      if (now - start >= G_USEC_PER_SEC / 2 && now - idle_since >= G_USEC_PER_SEC / 5)
        break;
      if (now - start >= 20 * G_USEC_PER_SEC)
        break;
    }
}

static void
add_events (RtopHistory *history, guint64 seq, guint n)
{
  RtopSnapshot *s = gui_fixture_snapshot (seq, 1.0, three_devices, 4);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = g_strdup_printf ("event %" G_GUINT64_FORMAT ".%u", seq, i);
      RtopEvent *e = gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, "rxe2", 1, text);

      e->realtime_us += seq * 1000000 + i;
    }
  ingest (history, s);
}

static guint
count_labels (GtkWidget *widget)
{
  guint n = GTK_IS_LABEL (widget) ? 1 : 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    n += count_labels (child);
  return n;
}

static GtkColumnView *
any_column_view (GtkWidget *widget)
{
  if (GTK_IS_COLUMN_VIEW (widget))
    return GTK_COLUMN_VIEW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkColumnView *found = any_column_view (child);

      if (found)
        return found;
    }
  return NULL;
}

/* A list view that is not shown still makes rows for new items (GTK 4.8
 * up to 200): events that come while the events view is hidden must cost
 * no row of widgets (the soak's app grew by 9 MB of them), and the rows
 * are there once it is shown. */
static void
test_events_hidden_no_rows (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *view = rtop_events_section_new ();
  GtkWidget *window = in_window (view);
  GtkColumnView *cv = any_column_view (view);
  guint hidden;

  g_assert_nonnull (cv);

  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  rtop_section_set_session (RTOP_SECTION (view), session);
  gtk_widget_set_visible (view, FALSE);
  settle ();
  hidden = count_labels (GTK_WIDGET (cv));
  add_events (history, 1, 150);
  settle ();
  g_assert_cmpuint (count_labels (GTK_WIDGET (cv)), ==, hidden);

  gtk_widget_set_visible (view, TRUE);
  settle ();
  /* The visible rows: a few columns of labels each. */
  g_assert_cmpuint (count_labels (GTK_WIDGET (cv)), >, hidden + 20);
  g_assert_nonnull (gtk_column_view_get_model (cv));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (cv))), ==, 150);
  gtk_widget_set_visible (view, FALSE);
  settle ();
  add_events (history, 2, 150);
  settle ();
  gtk_widget_set_visible (view, TRUE);
  settle ();
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (cv))), ==, 300);

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

/* The events list opens at the newest and follows new events, unless the
 * user has scrolled back to read older ones. */
static void
test_events_follow_newest (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *view = rtop_events_section_new ();
  GtkWidget *window = in_window (view);
  GtkScrolledWindow *scroller;
  GtkAdjustment *adj;

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 400);
  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  rtop_section_set_session (RTOP_SECTION (view), session);
  add_events (history, 1, 200);
  settle ();
  scroller = find_scroller (view);
  g_assert_nonnull (scroller);
  adj = gtk_scrolled_window_get_vadjustment (scroller);
  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, gtk_adjustment_get_page_size (adj) * 2);
  g_assert_true (rtop_events_section_get_following (RTOP_EVENTS_SECTION (view)));

  add_events (history, 2, 20);
  settle ();
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, gtk_adjustment_get_lower (adj));

  /* The user scrolls back: new events do not pull the list away. */
  gtk_adjustment_set_value (adj, 600);
  settle ();
  g_assert_false (rtop_events_section_get_following (RTOP_EVENTS_SECTION (view)));
  add_events (history, 3, 20);
  settle ();
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), >, 0);
  g_assert_false (rtop_events_section_get_following (RTOP_EVENTS_SECTION (view)));

  /* Back at the top, it follows again. */
  gtk_adjustment_set_value (adj, 0);
  settle ();
  g_assert_true (rtop_events_section_get_following (RTOP_EVENTS_SECTION (view)));
  add_events (history, 4, 20);
  settle ();
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, gtk_adjustment_get_lower (adj));

  /* Hidden while scrolled back, shown again: at the newest. */
  gtk_adjustment_set_value (adj, 600);
  settle ();
  gtk_widget_set_visible (view, FALSE);
  settle ();
  gtk_widget_set_visible (view, TRUE);
  settle ();
  g_assert_true (rtop_events_section_get_following (RTOP_EVENTS_SECTION (view)));
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), ==, gtk_adjustment_get_lower (adj));

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

static void
test_detail_counters (void)
{
  RtopHistory *history;
  RtopSession *session = new_session (&history);
  GtkWidget *detail = rtop_port_section_new ();
  GtkWidget *window = in_window (detail);
  GListModel *model = rtop_port_section_get_counters_model (RTOP_PORT_SECTION (detail));
  RtopPortItem *port;
  g_autofree char *dump = NULL;

  g_object_add_weak_pointer (G_OBJECT (history), (gpointer *) &history);
  rtop_section_set_session (RTOP_SECTION (detail), session);
  ingest (history, gui_fixture_snapshot (1, 1.0, three_devices, 4));
  ingest (history, gui_fixture_snapshot (2, 1.0, three_devices, 4));
  port = rtop_history_find_port (history, "rxe2", 1);
  rtop_port_section_set_port (RTOP_PORT_SECTION (detail), port);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 6);

  rtop_port_section_set_counter_filter (RTOP_PORT_SECTION (detail), "ERR");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);  /* names with "err" + class "Link error" */
  rtop_port_section_set_counter_filter (RTOP_PORT_SECTION (detail), "pkts");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  rtop_port_section_set_counter_filter (RTOP_PORT_SECTION (detail), NULL);

  rtop_column_view_sort_by (find_column_view (detail), "rate", GTK_SORT_DESCENDING);
  {
    g_autoptr(RtopCounterItem) top = g_list_model_get_item (model, 0);
    g_assert_cmpstr (rtop_counter_item_get_name (top), ==, "sent_pkts");
  }
  /* The rising retransmit counter is marked with a sign, not colour alone. */
  dump = rtop_section_dump (RTOP_SECTION (detail));
  g_assert_nonnull (strstr (dump, "name=▲ completer_retry_err"));
  g_assert_nonnull (strstr (dump, "detail\trxe2 port 1"));

  /* The device goes away while its page is open. */
  ingest (history, gui_fixture_snapshot (3, 1.0, three_devices + 2, 2));
  g_assert_true (rtop_port_item_get_vanished (port));
  g_free (dump);
  dump = rtop_section_dump (RTOP_SECTION (detail));
  /* Its counters keep their last values: what it had when it went. */
  g_assert_null (strstr (dump, "value=not reported"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (session);
  g_object_unref (history);
  for (guint i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (history);
}

/* What a screen reader gets instead of a mnemonic label. */
static void
test_strip_mnemonic (void)
{
  static const struct { const char *in, *out; } cases[] = {
    { "_Overview", "Overview" }, { "_Events", "Events" },
    { "Save __as_ file", "Save _as file" }, { "plain", "plain" }, { "", "" },
    { "trailing_", "trailing" }, { "_\xc3\x9c" "bersicht", "\xc3\x9c" "bersicht" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = rtop_a11y_strip_mnemonic (cases[i].in);
      g_assert_cmpstr (out, ==, cases[i].out);
    }
  g_assert_null (rtop_a11y_strip_mnemonic (NULL));
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);

  g_test_add_func ("/gui/a11y/strip-mnemonic", test_strip_mnemonic);
  g_test_add_func ("/gui/history/ports-natural-order", test_ports_natural_order);
  g_test_add_func ("/gui/history/ports-arrive-at-once", test_ports_arrive_at_once);
  g_test_add_func ("/gui/history/device-vanishes-and-returns", test_device_vanishes_and_returns);
  g_test_add_func ("/gui/history/absent-channel-reason", test_absent_channel_reason);
  g_test_add_func ("/gui/history/process-qps", test_process_qps);
  g_test_add_func ("/gui/history/kernel-qps-per-device", test_kernel_qps_per_device);
  g_test_add_func ("/gui/history/processes-update-in-place", test_processes_update_in_place);
  g_test_add_func ("/gui/history/events-bounded", test_events_bounded);
  g_test_add_func ("/gui/history/episodes-and-ranking", test_episodes_and_ranking);
  g_test_add_func ("/gui/history/two-hosts", test_two_hosts);
  g_test_add_func ("/gui/history/capacity-follows-interval", test_capacity_follows_interval);
  g_test_add_func ("/gui/history/counter-rising", test_counter_rising_is_the_delta);
  g_test_add_func ("/gui/format/throughput-units", test_throughput_units);
  g_test_add_func ("/gui/session/holds-until-first-frame", test_session_holds_until_first_frame);
  g_test_add_func ("/gui/session/takes-ready-snapshots", test_session_takes_ready_snapshots);
  g_test_add_func ("/gui/overview/sort-and-states", test_overview_sort_and_states);
  g_test_add_func ("/gui/overview/held-until-shown", test_overview_held_until_shown);
  g_test_add_func ("/gui/processes/search-and-sort", test_processes_search_and_sort);
  g_test_add_func ("/gui/processes/held-while-hidden", test_processes_held_while_hidden);
  g_test_add_func ("/gui/models/held-model", test_held_model);
  g_test_add_func ("/gui/events/filters", test_events_filters);
  g_test_add_func ("/gui/events/follow-newest", test_events_follow_newest);
  g_test_add_func ("/gui/events/hidden-no-rows", test_events_hidden_no_rows);
  g_test_add_func ("/gui/detail/counters", test_detail_counters);
  return g_test_run ();
}
