/* test-snapshot.c: snapshot building, ordering, lookups and JSON. */
#include "config.h"

#include "rtop-json.h"
#include "rtop-snapshot-private.h"

static void
test_natural_order (void)
{
  static const struct { const char *a, *b; int sign; } cases[] = {
    { "rxe2", "rxe10", -1 },
    { "rxe10", "rxe2", 1 },
    { "mlx5_2", "mlx5_10", -1 },
    { "mlx5_1", "mlx5_1", 0 },
    { "rxe02", "rxe2", 0 },
    { "efa_0", "mlx5_0", -1 },
    { "rxe", "rxe0", -1 },
    { "a99999999999999999999999", "a100000000000000000000000", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      int c = rtop_natural_compare (cases[i].a, cases[i].b);
      g_assert_cmpint ((c > 0) - (c < 0), ==, cases[i].sign);
    }
}

static RtopSnapshot *
sample_snapshot (void)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  const char *names[] = { "rxe10", "rxe2", "rxe1" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      RtopDevice *dev = rtop_device_new (i, names[i]);
      RtopPort *port = rtop_port_new (1);
      RtopCounter *c;

      g_ptr_array_add (port->counters, rtop_counter_new ("sent_pkts", 10 * i, RTOP_COUNTER_SOURCE_NETLINK));
      c = rtop_counter_new ("rcvd_pkts", 7, RTOP_COUNTER_SOURCE_NETLINK);
      c->has_rate = TRUE;
      c->rate = 2.5;
      g_ptr_array_add (port->counters, c);
      g_ptr_array_add (port->counters, rtop_counter_new ("tx_bytes", 99, RTOP_COUNTER_SOURCE_NETDEV));
      port->metrics[RTOP_METRIC_TX_PACKETS].present = TRUE;
      port->metrics[RTOP_METRIC_TX_PACKETS].value = 10 * i;
      port->metrics[RTOP_METRIC_TX_PACKETS].source = g_strdup ("netlink sent_pkts");
      port->state = 4;
      port->phys_state = 5;
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
    }
  rtop_snapshot_seal (snap);
  return snap;
}

static void
test_seal_and_find (void)
{
  g_autoptr(RtopSnapshot) snap = sample_snapshot ();
  RtopDevice *dev;
  RtopPort *port;

  g_assert_cmpstr (((RtopDevice *) g_ptr_array_index (snap->devices, 0))->name, ==, "rxe1");
  g_assert_cmpstr (((RtopDevice *) g_ptr_array_index (snap->devices, 1))->name, ==, "rxe2");
  g_assert_cmpstr (((RtopDevice *) g_ptr_array_index (snap->devices, 2))->name, ==, "rxe10");
  dev = rtop_snapshot_find_device (snap, "rxe2");
  g_assert_nonnull (dev);
  g_assert_null (rtop_snapshot_find_device (snap, "rxe3"));
  port = rtop_device_find_port (dev, 1);
  g_assert_nonnull (port);
  g_assert_null (rtop_device_find_port (dev, 2));
  g_assert_cmpstr (((RtopCounter *) g_ptr_array_index (port->counters, 0))->name, ==, "rcvd_pkts");
  g_assert_cmpuint (rtop_counters_find (port->counters, "sent_pkts")->value, ==, 10);
  g_assert_null (rtop_counters_find (port->counters, "nope"));
  g_assert_cmpuint (rtop_snapshot_get_n_ports (snap), ==, 3);
}

static gpointer
unref_in_thread (gpointer data)
{
  rtop_snapshot_unref (data);
  return NULL;
}

static void
test_shared_across_threads (void)
{
  RtopSnapshot *snap = sample_snapshot ();
  GThread *threads[4];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("unref", unref_in_thread, rtop_snapshot_ref (snap));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (snap->devices->len, ==, 3);
  rtop_snapshot_unref (snap);
}

static void
test_json (void)
{
  g_autoptr(RtopSnapshot) snap = sample_snapshot ();
  g_autofree char *text = rtop_json_snapshot_to_string (snap, FALSE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *dev, *port, *counters, *metric;
  JsonArray *devices;

  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "status"), ==, "ok");
  devices = json_object_get_array_member (root, "devices");
  g_assert_cmpuint (json_array_get_length (devices), ==, 3);
  dev = json_array_get_object_element (devices, 2);
  g_assert_cmpstr (json_object_get_string_member (dev, "name"), ==, "rxe10");
  port = json_array_get_object_element (json_object_get_array_member (dev, "ports"), 0);
  g_assert_cmpstr (json_object_get_string_member (port, "state"), ==, "ACTIVE");
  g_assert_cmpstr (json_object_get_string_member (port, "physical_state"), ==, "LINK_UP");
  /* Netlink counters under the kernel's names; netdev ones kept apart. */
  counters = json_object_get_object_member (port, "counters");
  g_assert_cmpint (json_object_get_int_member (counters, "sent_pkts"), ==, 0);
  g_assert_false (json_object_has_member (counters, "tx_bytes"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (port, "netdev_counters"), "tx_bytes"), ==, 99);
  /* Only counters past their baseline have a rate. */
  g_assert_true (json_object_has_member (json_object_get_object_member (port, "rates"), "rcvd_pkts"));
  g_assert_false (json_object_has_member (json_object_get_object_member (port, "rates"), "sent_pkts"));
  metric = json_object_get_object_member (json_object_get_object_member (port, "metrics"), "tx_packets");
  g_assert_true (json_object_get_null_member (metric, "rate"));
  g_assert_cmpstr (json_object_get_string_member (metric, "source"), ==, "netlink sent_pkts");
}

/* The verdict, episodes and a process's QPs reach the JSON. */
static void
test_json_health_episodes_qps (void)
{
  g_autoptr(RtopSnapshot) snap = sample_snapshot ();
  RtopPort *port = rtop_device_find_port (rtop_snapshot_find_device (snap, "rxe2"), 1);
  RtopProcess *proc = rtop_process_new (77);
  RtopProcessDevice pd = { g_strdup ("rxe2"), 2, 1, 0, 0 };
  RtopQp qps[2] = { { "rxe2", 1, 17, 33, TRUE, 2, 6 }, { "rxe2", 1, 18, 0, FALSE, 4, 3 } };
  RtopEvent *ev = rtop_event_new (RTOP_EVENT_COUNTER_SETTLED, RTOP_SEVERITY_WARNING, "rxe2", 1,
                                  "Packet loss on rxe2/1 for 4 s");
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *jport, *jproc, *jqp, *jev;

  port->state = 1;
  port->health = RTOP_PORT_HEALTH_ERROR;
  port->health_reason = "The port is not active";
  proc->comm = g_strdup ("qp-holder");
  g_array_append_val (proc->devices, pd);
  proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
  g_array_append_vals (proc->qp_list, qps, 2);
  proc->qps_not_listed = 5;
  proc->qps_in_error = 1;
  g_ptr_array_add (snap->processes, proc);
  ev->episode = 12;
  ev->ongoing = FALSE;
  ev->duration_us = 4000000;
  ev->total = 9;
  ev->peak_rate = 3.5;
  g_ptr_array_add (snap->events, ev);

  text = rtop_json_snapshot_to_string (snap, FALSE);
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  jport = json_array_get_object_element (
    json_object_get_array_member (json_array_get_object_element (json_object_get_array_member (root, "devices"), 1), "ports"), 0);
  g_assert_cmpstr (json_object_get_string_member (jport, "health"), ==, "error");
  g_assert_cmpstr (json_object_get_string_member (jport, "health_reason"), ==, "The port is not active");
  g_assert_false (json_object_get_boolean_member (jport, "link_up"));

  jproc = json_array_get_object_element (json_object_get_array_member (root, "processes"), 0);
  g_assert_cmpint (json_object_get_int_member (jproc, "qps_not_listed"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (jproc, "qps_in_error"), ==, 1);
  jqp = json_array_get_object_element (json_object_get_array_member (jproc, "qp_list"), 0);
  g_assert_cmpint (json_object_get_int_member (jqp, "qpn"), ==, 17);
  g_assert_cmpint (json_object_get_int_member (jqp, "peer_qpn"), ==, 33);
  g_assert_cmpstr (json_object_get_string_member (jqp, "type"), ==, "RC");
  g_assert_cmpstr (json_object_get_string_member (jqp, "state"), ==, "ERR");
  jqp = json_array_get_object_element (json_object_get_array_member (jproc, "qp_list"), 1);
  g_assert_true (json_object_get_null_member (jqp, "peer_qpn"));
  g_assert_cmpstr (json_object_get_string_member (jqp, "type"), ==, "UD");

  jev = json_array_get_object_element (json_object_get_array_member (root, "events"), 0);
  g_assert_cmpint (json_object_get_int_member (jev, "episode"), ==, 12);
  g_assert_false (json_object_get_boolean_member (jev, "ongoing"));
  g_assert_cmpint (json_object_get_int_member (jev, "duration_us"), ==, 4000000);
  g_assert_cmpint (json_object_get_int_member (jev, "total"), ==, 9);
  g_assert_cmpfloat (json_object_get_double_member (jev, "peak_rate"), ==, 3.5);
}

/* A process's job reaches the JSON as kind, id, detail and name; a
 * process without one says null. */
static void
test_json_job (void)
{
  g_autoptr(RtopSnapshot) snap = sample_snapshot ();
  RtopProcess *with = rtop_process_new (77);
  RtopProcess *without = rtop_process_new (78);
  g_autofree char *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *procs;
  JsonObject *job;

  rtop_job_set (&with->job, RTOP_JOB_SLURM, "1234", "0");
  g_ptr_array_add (snap->processes, with);
  g_ptr_array_add (snap->processes, without);
  text = rtop_json_snapshot_to_string (snap, FALSE);
  g_assert_true (json_parser_load_from_data (parser, text, -1, NULL));
  procs = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "processes");
  job = json_object_get_object_member (json_array_get_object_element (procs, 0), "job");
  g_assert_cmpstr (json_object_get_string_member (job, "kind"), ==, "slurm");
  g_assert_cmpstr (json_object_get_string_member (job, "id"), ==, "1234");
  g_assert_cmpstr (json_object_get_string_member (job, "detail"), ==, "0");
  g_assert_cmpstr (json_object_get_string_member (job, "name"), ==, "slurm 1234.0");
  g_assert_true (json_object_get_null_member (json_array_get_object_element (procs, 1), "job"));
}

static void
test_names_are_stable (void)
{
  RtopMetricId id;

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      g_assert_true (rtop_metric_id_from_string (rtop_metric_id_to_string (m), &id));
      g_assert_cmpuint (id, ==, m);
    }
  g_assert_false (rtop_metric_id_from_string ("bogus", &id));
  g_assert_cmpstr (rtop_port_state_to_string (4), ==, "ACTIVE");
  g_assert_cmpstr (rtop_port_state_to_string (200), ==, "UNKNOWN");
  g_assert_cmpstr (rtop_port_phys_state_to_string (3), ==, "DISABLED");
  g_assert_cmpstr (rtop_port_phys_state_to_string (255), ==, "UNKNOWN");
  g_assert_cmpstr (rtop_event_kind_to_string (RTOP_EVENT_COUNTER_RESET), ==, "counter-reset");
  g_assert_cmpstr (rtop_event_kind_to_string (RTOP_EVENT_PORT_DOWN), ==, "port-down");
  g_assert_cmpstr (rtop_event_kind_to_string (RTOP_EVENT_QP_ERROR), ==, "qp-error");
  g_assert_cmpstr (rtop_qp_state_to_string (6), ==, "ERR");
  g_assert_cmpstr (rtop_qp_type_to_string (4), ==, "UD");
  g_assert_cmpstr (rtop_port_health_to_string (RTOP_PORT_HEALTH_WARNING), ==, "warning");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/snapshot/natural-order", test_natural_order);
  g_test_add_func ("/collector/snapshot/seal-and-find", test_seal_and_find);
  g_test_add_func ("/collector/snapshot/threads", test_shared_across_threads);
  g_test_add_func ("/collector/snapshot/json", test_json);
  g_test_add_func ("/collector/snapshot/json-health-episodes-qps", test_json_health_episodes_qps);
  g_test_add_func ("/collector/snapshot/json-job", test_json_job);
  g_test_add_func ("/collector/snapshot/stable-names", test_names_are_stable);
  return g_test_run ();
}
