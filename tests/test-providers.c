/* test-providers.c: the provider counter table.  Every row is fed a counter
 * and checked; whole ports are read from the fixture trees through the real
 * RtopCounterDir code and mapped; sums, scales, rates, tiers, unknown
 * counters and detection are checked on counter sequences. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "rtop-providers-private.h"
#include "rtop-sysfs-private.h"
#include "rtop-snapshot-private.h"

static RtopCounter *
make_counter (const char *name, RtopCounterSource source, guint64 value,
              double rate, gboolean has_rate)
{
  RtopCounter *counter = rtop_counter_new (name, value, source);

  counter->rate = has_rate ? rate : 0;
  counter->has_rate = has_rate;
  return counter;
}

static void
add (RtopPort *port, const char *name, RtopCounterSource source, guint64 value,
     double rate, gboolean has_rate)
{
  g_ptr_array_add (port->counters, make_counter (name, source, value, rate, has_rate));
}

static int
compare_counters (gconstpointer a, gconstpointer b)
{
  const RtopCounter *ca = *(RtopCounter * const *) a;
  const RtopCounter *cb = *(RtopCounter * const *) b;

  return strcmp (ca->name, cb->name);
}

static RtopCounter *
find (RtopPort *port, const char *name)
{
  for (guint i = 0; i < port->counters->len; i++)
    {
      RtopCounter *counter = g_ptr_array_index (port->counters, i);

      if (strcmp (counter->name, name) == 0)
        return counter;
    }
  g_assert_not_reached ();
  return NULL;
}

static const char *
fixture_root (void)
{
  return g_test_get_filename (G_TEST_DIST, "fixtures", "sys", NULL);
}

/* Reads a fixture directory through RtopCounterDir into the port. */
static void
read_into (RtopPort *port, char *path, RtopCounterSource source)
{
  g_autofree char *owned = path;
  g_autoptr(RtopCounterDir) dir = rtop_counter_dir_open (owned, source, NULL);
  guint n_failed = 99;

  g_assert_nonnull (dir);
  rtop_counter_dir_read (dir, port->counters, &n_failed);
  g_assert_cmpuint (n_failed, ==, 0);
}

/* What the rate engine would do: every counter has a rate of value / 10. */
static void
give_rates (RtopPort *port)
{
  for (guint i = 0; i < port->counters->len; i++)
    {
      RtopCounter *counter = g_ptr_array_index (port->counters, i);

      counter->rate = counter->value / 10.0;
      counter->has_rate = TRUE;
    }
}

static void
assert_metric (RtopPort *port, RtopMetricId id, guint64 value, const char *source)
{
  RtopMetric *metric = &port->metrics[id];

  g_test_message ("metric %s", rtop_metric_id_to_string (id));
  g_assert_true (metric->present);
  g_assert_cmpuint (metric->value, ==, value);
  if (source != NULL)
    g_assert_cmpstr (metric->source, ==, source);
}

static gboolean
is_error_metric (RtopMetricId id)
{
  return id == RTOP_METRIC_LINK_ERRORS || id == RTOP_METRIC_TRANSPORT_ERRORS ||
         id == RTOP_METRIC_OPERATION_ERRORS;
}

/* The class a metric's parts must have. */
static RtopCounterClass
class_of_metric (RtopMetricId id)
{
  switch (id)
    {
    case RTOP_METRIC_DROPS:
      return RTOP_COUNTER_CLASS_DROP;
    case RTOP_METRIC_RETRANSMITS:
      return RTOP_COUNTER_CLASS_RETRANSMIT;
    case RTOP_METRIC_LINK_ERRORS:
      return RTOP_COUNTER_CLASS_LINK_ERROR;
    case RTOP_METRIC_TRANSPORT_ERRORS:
      return RTOP_COUNTER_CLASS_TRANSPORT_ERROR;
    case RTOP_METRIC_OPERATION_ERRORS:
      return RTOP_COUNTER_CLASS_OPERATION_ERROR;
    case RTOP_METRIC_CONGESTION:
      return RTOP_COUNTER_CLASS_CONGESTION;
    case RTOP_METRIC_TX_BYTES:
    case RTOP_METRIC_RX_BYTES:
    case RTOP_METRIC_TX_PACKETS:
    case RTOP_METRIC_RX_PACKETS:
    case RTOP_METRIC_RDMA_READ_BYTES:
    case RTOP_METRIC_RDMA_WRITE_BYTES:
      return RTOP_COUNTER_CLASS_DATA;
    case RTOP_METRIC_ERRORS:
    case RTOP_METRIC_N:
    default:
      g_assert_not_reached ();
      return RTOP_COUNTER_CLASS_N;
    }
}

static void
test_table_sane (void)
{
  static const char * const providers[] = {
    "*", "mlx5", "efa", "erdma", "rxe", "bnxt_re", "irdma", "hns", "nvml", "amdsmi",
  };
  guint n_rules = 0;
  const RtopProviderRule *rules = rtop_provider_rules (&n_rules);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_cmpuint (n_rules, >, 150);
  for (guint i = 0; i < n_rules; i++)
    {
      const RtopProviderRule *rule = &rules[i];
      g_autofree char *key = NULL;

      g_test_message ("row %u: %s %s", i, rule->provider, rule->counter);
      g_assert_true (g_strv_contains (providers, rule->provider));
      g_assert_nonnull (rule->counter);
      g_assert_cmpuint (rule->scale, >=, 1);
      g_assert_cmpint (rule->klass, <, RTOP_COUNTER_CLASS_N);
      g_assert_cmpint (rule->source, <, RTOP_COUNTER_SOURCE_N);
      g_assert_cmpint (rule->source, !=, RTOP_COUNTER_SOURCE_SYSFS_HW);  /* NETLINK covers it */
      /* ERRORS is computed from the three classes, never fed directly. */
      g_assert_cmpint (rule->metric, !=, RTOP_METRIC_ERRORS);
      g_assert_cmpint (rule->metric, <=, RTOP_METRIC_N);
      if (rule->metric < RTOP_METRIC_N)
        g_assert_cmpint (rule->klass, ==, class_of_metric (rule->metric));
      /* Only the PMA data counters count words, and only GPU libraries
       * count KiB (and say so in the counter's name). */
      if (rule->scale == 1024)
        g_assert_true (rule->source == RTOP_COUNTER_SOURCE_GPU &&
                       (g_str_has_suffix (rule->counter, "_kib") ||
                        g_str_has_suffix (rule->counter, "_kb")));
      else if (rule->scale != 1)
        g_assert_true (g_str_has_suffix (rule->counter, "_data"));
      /* Device-level counters feed no port metric. */
      if (rule->source == RTOP_COUNTER_SOURCE_SYSFS_DEVICE)
        g_assert_cmpint (rule->metric, ==, RTOP_METRIC_N);

      /* A row per (provider, counter, source): no double counting. */
      key = g_strdup_printf ("%s/%s/%d", rule->provider, rule->counter, rule->source);
      g_assert_false (g_hash_table_contains (seen, key));
      g_hash_table_add (seen, g_steal_pointer (&key));
    }

  g_assert_true (rtop_provider_has_byte_counters ("efa"));
  g_assert_true (rtop_provider_has_byte_counters ("erdma"));
  g_assert_true (rtop_provider_has_byte_counters ("bnxt_re"));
  g_assert_true (rtop_provider_has_byte_counters ("irdma"));
  g_assert_false (rtop_provider_has_byte_counters ("mlx5"));   /* PMA counters/ */
  g_assert_false (rtop_provider_has_byte_counters ("rxe"));
  g_assert_false (rtop_provider_has_byte_counters ("hns"));
  g_assert_false (rtop_provider_has_byte_counters ("unknown"));
  g_assert_false (rtop_provider_has_byte_counters (NULL));
}

/* The provider to feed a row with, and a source that must not match it. */
static const char *
row_provider (const RtopProviderRule *rule)
{
  if (strcmp (rule->provider, "*") != 0)
    return rule->provider;
  return rule->source == RTOP_COUNTER_SOURCE_NETDEV ? "rxe" : "unknown";
}

/* One apply of a port holding only the row's counter, and the checks. */
static void
check_row_sample (const RtopProviderRule *rule, RtopPort *port, guint64 value, gboolean has_rate)
{
  RtopCounter *counter = find (port, rule->counter);

  counter->value = value;
  counter->has_rate = has_rate;
  counter->rate = has_rate ? 12.5 : 0;
  rtop_provider_apply (row_provider (rule), port);
  g_assert_cmpint (counter->klass, ==, rule->klass);
  g_assert_cmpuint (counter->value, ==, value);        /* raw value untouched */

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      RtopMetric *metric = &port->metrics[m];
      gboolean expected = m == rule->metric ||
                          (m == RTOP_METRIC_ERRORS && is_error_metric (rule->metric));

      g_assert_cmpint (metric->present, ==, expected);
      if (!expected)
        {
          g_assert_null (metric->source);
          continue;
        }
      g_assert_cmpuint (metric->value, ==, value * rule->scale);
      g_assert_cmpint (metric->has_rate, ==, has_rate);
      g_assert_cmpfloat_with_epsilon (metric->rate, has_rate ? 12.5 * rule->scale : 0, 1e-9);
      g_assert_nonnull (metric->source);
      if (m != RTOP_METRIC_ERRORS)
        {
          g_assert_nonnull (strstr (metric->source, rule->counter));
          if (rule->scale == 1024)
            g_assert_true (g_str_has_suffix (metric->source, " x1024"));
          else if (rule->scale != 1)
            g_assert_true (g_str_has_suffix (metric->source, " x4"));
          if (rule->source == RTOP_COUNTER_SOURCE_NETDEV)
            g_assert_true (g_str_has_prefix (metric->source, "netdev d0 "));
        }
    }
}

/* A short sequence: the baseline sample (no rate yet), then two with rates. */
static void
check_row (const RtopProviderRule *rule, RtopCounterSource source, guint64 value)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);

  port->netdev = g_strdup ("d0");
  add (port, rule->counter, source, value, 0, FALSE);
  check_row_sample (rule, port, value, FALSE);
  check_row_sample (rule, port, value + 125, TRUE);
  check_row_sample (rule, port, value + 250, TRUE);
}

/* Every row, fed alone, lands in its metric with its scale and class; hw
 * rows match whether read by netlink or from sysfs hw_counters. */
static void
test_every_row (void)
{
  guint n_rules = 0;
  const RtopProviderRule *rules = rtop_provider_rules (&n_rules);

  for (guint i = 0; i < n_rules; i++)
    {
      g_test_message ("row %u: %s %s", i, rules[i].provider, rules[i].counter);
      check_row (&rules[i], rules[i].source, 1000 + i);
      if (rules[i].source == RTOP_COUNTER_SOURCE_NETLINK)
        check_row (&rules[i], RTOP_COUNTER_SOURCE_SYSFS_HW, 5000 + i);
    }
}

/* A name read from the wrong place is not that row's counter. */
static void
test_source_must_match (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);

  add (port, "port_xmit_data", RTOP_COUNTER_SOURCE_NETLINK, 100, 0, FALSE);
  add (port, "rx_drops", RTOP_COUNTER_SOURCE_SYSFS_PORT, 5, 0, FALSE);
  add (port, "tx_bytes", RTOP_COUNTER_SOURCE_SYSFS_DEVICE, 7, 0, FALSE);
  rtop_provider_apply ("efa", port);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    g_assert_false (port->metrics[m].present);
  /* Still classified, by pattern: a drop is a drop wherever it was read. */
  g_assert_cmpint (find (port, "rx_drops")->klass, ==, RTOP_COUNTER_CLASS_DROP);
}

static void
test_mlx5_fixture (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);

  read_into (port, rtop_sysfs_port_counters_path (fixture_root (), "mlx5_0", 1),
             RTOP_COUNTER_SOURCE_SYSFS_PORT);
  read_into (port, rtop_sysfs_port_hw_counters_path (fixture_root (), "mlx5_0", 1),
             RTOP_COUNTER_SOURCE_SYSFS_HW);
  g_ptr_array_sort (port->counters, compare_counters);
  g_assert_cmpuint (port->counters->len, ==, 21 + 24);

  /* First sample: values, no rates yet. */
  rtop_provider_apply ("mlx5", port);
  assert_metric (port, RTOP_METRIC_TX_BYTES, G_GUINT64_CONSTANT (1234567890) * 4,
                 "sysfs port_xmit_data x4");
  assert_metric (port, RTOP_METRIC_RX_BYTES, G_GUINT64_CONSTANT (987654321) * 4,
                 "sysfs port_rcv_data x4");
  assert_metric (port, RTOP_METRIC_TX_PACKETS, 4567890, "sysfs port_xmit_packets");
  assert_metric (port, RTOP_METRIC_RX_PACKETS, 3456789, NULL);
  g_assert_false (port->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  /* port_xmit_discards + VL15_dropped + out_of_buffer */
  assert_metric (port, RTOP_METRIC_DROPS, 7 + 0 + 11, NULL);
  /* symbol_error + link_error_recovery + link_downed + port_rcv_errors */
  assert_metric (port, RTOP_METRIC_LINK_ERRORS, 3 + 1 + 2 + 5, NULL);
  /* packet_seq_err + local_ack_timeout_err; out_of_sequence (4) is the
   * peer's loss seen here, counted at the peer */
  assert_metric (port, RTOP_METRIC_TRANSPORT_ERRORS, 1 + 2, NULL);
  g_assert_true (rtop_provider_is_peer_loss ("mlx5", find (port, "out_of_sequence")));
  g_assert_false (rtop_provider_is_peer_loss ("mlx5", find (port, "packet_seq_err")));
  /* resp_cqe_error; the flush errors (9, 8) follow from other errors */
  assert_metric (port, RTOP_METRIC_OPERATION_ERRORS, 1, NULL);
  assert_metric (port, RTOP_METRIC_ERRORS, 11 + 3 + 1,
                 "link_errors + transport_errors + operation_errors");
  /* CNPs sent and handled; ECN marks (20) are the same events as CNPs sent */
  assert_metric (port, RTOP_METRIC_CONGESTION, 20 + 30, NULL);
  assert_metric (port, RTOP_METRIC_RETRANSMITS, 0, "sysfs roce_adp_retrans");
  g_assert_false (port->metrics[RTOP_METRIC_RDMA_READ_BYTES].present);

  g_assert_cmpint (find (port, "resp_cqe_flush_error")->klass, ==, RTOP_COUNTER_CLASS_OPERATION_ERROR);
  g_assert_cmpint (find (port, "np_ecn_marked_roce_packets")->klass, ==, RTOP_COUNTER_CLASS_CONGESTION);
  g_assert_cmpint (find (port, "port_xmit_wait")->klass, ==, RTOP_COUNTER_CLASS_CONGESTION);

  /* Second sample: every part has a rate, so every metric has one. */
  give_rates (port);
  rtop_provider_apply ("mlx5", port);
  g_assert_true (port->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  g_assert_cmpfloat_with_epsilon (port->metrics[RTOP_METRIC_TX_BYTES].rate, 123456789.0 * 4, 1e-3);
  g_assert_true (port->metrics[RTOP_METRIC_DROPS].has_rate);
  g_assert_cmpfloat_with_epsilon (port->metrics[RTOP_METRIC_DROPS].rate, 1.8, 1e-9);
  g_assert_true (port->metrics[RTOP_METRIC_ERRORS].has_rate);
  /* 1.9 before out_of_sequence (0.4/s) was left to the peer */
  g_assert_cmpfloat_with_epsilon (port->metrics[RTOP_METRIC_ERRORS].rate, 1.5, 1e-9);
}

static void
test_efa_fixture (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);
  g_autoptr(GPtrArray) device = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  g_autofree char *dev_path = rtop_sysfs_device_hw_counters_path (fixture_root (), "efa_0");
  g_autoptr(RtopCounterDir) dev_dir = rtop_counter_dir_open (dev_path, RTOP_COUNTER_SOURCE_SYSFS_DEVICE, NULL);

  read_into (port, rtop_sysfs_port_hw_counters_path (fixture_root (), "efa_0", 1),
             RTOP_COUNTER_SOURCE_SYSFS_HW);
  /* A netdev tx_bytes next to EFA's own must not be added to it. */
  add (port, "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 999, 0, FALSE);
  g_ptr_array_sort (port->counters, compare_counters);
  rtop_provider_apply ("efa", port);

  assert_metric (port, RTOP_METRIC_TX_BYTES, G_GUINT64_CONSTANT (5000000000), "sysfs tx_bytes");
  assert_metric (port, RTOP_METRIC_RX_BYTES, G_GUINT64_CONSTANT (4000000000), NULL);
  assert_metric (port, RTOP_METRIC_TX_PACKETS, 5000000, "sysfs tx_pkts");
  assert_metric (port, RTOP_METRIC_DROPS, 12, "sysfs rx_drops");
  assert_metric (port, RTOP_METRIC_RDMA_READ_BYTES, 300000, "sysfs rdma_read_bytes");
  assert_metric (port, RTOP_METRIC_RDMA_WRITE_BYTES, 500000, "sysfs rdma_write_bytes");
  assert_metric (port, RTOP_METRIC_RETRANSMITS, 7, "sysfs retrans_pkts");
  assert_metric (port, RTOP_METRIC_TRANSPORT_ERRORS, 1, NULL);
  assert_metric (port, RTOP_METRIC_OPERATION_ERRORS, 1 + 2,
                 "sysfs rdma_read_wr_err + sysfs rdma_write_wr_err");
  assert_metric (port, RTOP_METRIC_ERRORS, 4, "transport_errors + operation_errors");
  g_assert_false (port->metrics[RTOP_METRIC_LINK_ERRORS].present);
  g_assert_false (port->metrics[RTOP_METRIC_CONGESTION].present);

  /* Device-level counters: classified with their own rows. */
  g_assert_nonnull (dev_dir);
  rtop_counter_dir_read (dev_dir, device, NULL);
  rtop_provider_classify_counters ("efa", device);
  g_assert_cmpint (rtop_counters_find (device, "create_qp_err")->klass, ==,
                   RTOP_COUNTER_CLASS_OPERATION_ERROR);
  g_assert_cmpint (rtop_counters_find (device, "keep_alive_rcvd")->klass, ==, RTOP_COUNTER_CLASS_INFO);
  g_assert_cmpint (rtop_counters_find (device, "completed_cmds")->klass, ==, RTOP_COUNTER_CLASS_INFO);
}

/* erdma_0 has the "hw_" spelling, erdma_1 the mainline one: same metrics. */
static void
test_erdma_fixtures (void)
{
  static const char * const devices[] = { "erdma_0", "erdma_1" };

  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    {
      g_autoptr(RtopPort) port = rtop_port_new (1);

      read_into (port, rtop_sysfs_port_hw_counters_path (fixture_root (), devices[i], 1),
                 RTOP_COUNTER_SOURCE_SYSFS_HW);
      g_ptr_array_sort (port->counters, compare_counters);
      rtop_provider_apply ("erdma", port);
      assert_metric (port, RTOP_METRIC_TX_BYTES, 3000000, i == 0 ? "sysfs hw_tx_bytes_cnt" : "sysfs tx_bytes_cnt");
      assert_metric (port, RTOP_METRIC_RX_BYTES, 2500000, NULL);
      assert_metric (port, RTOP_METRIC_TX_PACKETS, 2000, NULL);
      assert_metric (port, RTOP_METRIC_RX_PACKETS, 1500, NULL);
      assert_metric (port, RTOP_METRIC_DROPS, 1 + 2 + 3 + 4 + 5 + 6, NULL);
      g_assert_true (g_str_has_suffix (port->metrics[RTOP_METRIC_DROPS].source, " + 3 more"));
    }
}

static void
test_rxe_fixture (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);
  g_autofree char *parent = rtop_sysfs_read_parent (fixture_root (), "rxe0");

  g_autofree char *pma = rtop_sysfs_port_counters_path (fixture_root (), "rxe0", 1);

  /* Soft-RoCE has no PMA counters/: bytes must come from elsewhere. */
  g_assert_null (rtop_counter_dir_open (pma, RTOP_COUNTER_SOURCE_SYSFS_PORT, NULL));
  port->netdev = g_strdup (parent);
  read_into (port, rtop_sysfs_port_hw_counters_path (fixture_root (), "rxe0", 1),
             RTOP_COUNTER_SOURCE_SYSFS_HW);
  read_into (port, rtop_sysfs_netdev_stats_path (fixture_root (), parent),
             RTOP_COUNTER_SOURCE_NETDEV);
  g_ptr_array_sort (port->counters, compare_counters);
  rtop_provider_apply ("rxe", port);

  /* Bytes from the netdev, labelled so; packets from rxe's own counters. */
  assert_metric (port, RTOP_METRIC_TX_BYTES, 2097152, "netdev d0 tx_bytes");
  assert_metric (port, RTOP_METRIC_RX_BYTES, 1048576, "netdev d0 rx_bytes");
  assert_metric (port, RTOP_METRIC_TX_PACKETS, 812, "sysfs sent_pkts");
  assert_metric (port, RTOP_METRIC_RX_PACKETS, 790, "sysfs rcvd_pkts");
  assert_metric (port, RTOP_METRIC_RETRANSMITS, 3, "sysfs completer_retry_err");
  /* rcvd_seq_err (+ the two retry-exceeded, 0); out_of_seq_request (1) is
   * the responder's view of the sender's loss */
  assert_metric (port, RTOP_METRIC_TRANSPORT_ERRORS, 2, NULL);
  g_assert_true (rtop_provider_is_peer_loss ("rxe", find (port, "out_of_seq_request")));
  g_assert_false (rtop_provider_is_peer_loss ("rxe", find (port, "completer_retry_err")));
  assert_metric (port, RTOP_METRIC_LINK_ERRORS, 0, "sysfs link_downed");
  assert_metric (port, RTOP_METRIC_OPERATION_ERRORS, 0, "sysfs send_err");
  /* The netdev's drops are not RDMA drops: classified, not summed. */
  g_assert_false (port->metrics[RTOP_METRIC_DROPS].present);
  g_assert_cmpint (find (port, "rx_dropped")->klass, ==, RTOP_COUNTER_CLASS_DROP);
  g_assert_cmpint (find (port, "rx_crc_errors")->klass, ==, RTOP_COUNTER_CLASS_LINK_ERROR);
  g_assert_cmpint (find (port, "tx_packets")->klass, ==, RTOP_COUNTER_CLASS_DATA);
  g_assert_cmpint (find (port, "completer_retry_err")->klass, ==, RTOP_COUNTER_CLASS_RETRANSMIT);
}

/* Two parts of one metric: values and rates add; one part without a rate
 * (its first sample) takes the rate away from the sum. */
static void
test_sum_and_has_rate (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);
  RtopMetric *tx = &port->metrics[RTOP_METRIC_TX_BYTES];

  add (port, "ip4OutOctets", RTOP_COUNTER_SOURCE_NETLINK, 100, 10, TRUE);
  add (port, "ip6OutOctets", RTOP_COUNTER_SOURCE_NETLINK, 50, 5, TRUE);
  rtop_provider_apply ("irdma", port);
  assert_metric (port, RTOP_METRIC_TX_BYTES, 150, "netlink ip4OutOctets + netlink ip6OutOctets");
  g_assert_true (tx->has_rate);
  g_assert_cmpfloat_with_epsilon (tx->rate, 15.0, 1e-9);

  find (port, "ip6OutOctets")->has_rate = FALSE;
  find (port, "ip6OutOctets")->rate = 0;
  rtop_provider_apply ("irdma", port);
  g_assert_cmpuint (tx->value, ==, 150);
  g_assert_false (tx->has_rate);
  g_assert_cmpfloat (tx->rate, ==, 0);

  /* ERRORS has a rate only when all present error metrics have one. */
  add (port, "rxVlanErrors", RTOP_COUNTER_SOURCE_NETLINK, 1, 0.5, TRUE);
  add (port, "InProtoErrors", RTOP_COUNTER_SOURCE_NETLINK, 2, 0, FALSE);
  rtop_provider_apply ("irdma", port);
  assert_metric (port, RTOP_METRIC_ERRORS, 3, "link_errors + transport_errors");
  g_assert_true (port->metrics[RTOP_METRIC_LINK_ERRORS].has_rate);
  g_assert_false (port->metrics[RTOP_METRIC_TRANSPORT_ERRORS].has_rate);
  g_assert_false (port->metrics[RTOP_METRIC_ERRORS].has_rate);
  g_assert_cmpfloat (port->metrics[RTOP_METRIC_ERRORS].rate, ==, 0);
  find (port, "InProtoErrors")->has_rate = TRUE;
  find (port, "InProtoErrors")->rate = 0.25;
  rtop_provider_apply ("irdma", port);
  g_assert_true (port->metrics[RTOP_METRIC_ERRORS].has_rate);
  g_assert_cmpfloat_with_epsilon (port->metrics[RTOP_METRIC_ERRORS].rate, 0.75, 1e-9);
}

/* Provider rows beat generic ones, generic beat the netdev. */
static void
test_tiers (void)
{
  g_autoptr(RtopPort) mlx5 = rtop_port_new (1);
  g_autoptr(RtopPort) efa = rtop_port_new (1);

  mlx5->netdev = g_strdup ("eth0");
  add (mlx5, "port_xmit_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, 10, 1, TRUE);
  add (mlx5, "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 1000, 100, TRUE);
  add (mlx5, "rx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 2000, 200, TRUE);
  rtop_provider_apply ("mlx5", mlx5);
  assert_metric (mlx5, RTOP_METRIC_TX_BYTES, 40, "sysfs port_xmit_data x4");
  g_assert_cmpfloat_with_epsilon (mlx5->metrics[RTOP_METRIC_TX_BYTES].rate, 4.0, 1e-9);
  /* No PMA rx counter on this port: the netdev is all there is. */
  assert_metric (mlx5, RTOP_METRIC_RX_BYTES, 2000, "netdev eth0 rx_bytes");

  add (efa, "port_xmit_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, 10, 0, FALSE);
  add (efa, "tx_bytes", RTOP_COUNTER_SOURCE_NETLINK, 77, 0, FALSE);
  rtop_provider_apply ("efa", efa);
  assert_metric (efa, RTOP_METRIC_TX_BYTES, 77, "netlink tx_bytes");
}

static void
test_saturation (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);

  add (port, "port_xmit_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, G_MAXUINT64 / 2, 0, FALSE);
  add (port, "port_xmit_discards", RTOP_COUNTER_SOURCE_SYSFS_PORT, G_MAXUINT64 - 1, 0, FALSE);
  add (port, "VL15_dropped", RTOP_COUNTER_SOURCE_SYSFS_PORT, 5, 0, FALSE);
  rtop_provider_apply ("mlx5", port);
  assert_metric (port, RTOP_METRIC_TX_BYTES, G_MAXUINT64, NULL);
  assert_metric (port, RTOP_METRIC_DROPS, G_MAXUINT64, NULL);
}

/* Applying again replaces every metric; one that lost its parts is gone. */
static void
test_reapply (void)
{
  g_autoptr(RtopPort) port = rtop_port_new (1);

  port->netdev = g_strdup ("d0");
  add (port, "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 10, 0, FALSE);
  add (port, "sent_pkts", RTOP_COUNTER_SOURCE_NETLINK, 3, 0, FALSE);
  rtop_provider_apply ("rxe", port);
  assert_metric (port, RTOP_METRIC_TX_BYTES, 10, "netdev d0 tx_bytes");

  g_ptr_array_remove_index (port->counters, 0);
  find (port, "sent_pkts")->value = 4;
  rtop_provider_apply ("rxe", port);
  g_assert_false (port->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_null (port->metrics[RTOP_METRIC_TX_BYTES].source);
  assert_metric (port, RTOP_METRIC_TX_PACKETS, 4, "netlink sent_pkts");

  /* A port with no counters at all, or no array: nothing, no crash. */
  g_ptr_array_set_size (port->counters, 0);
  rtop_provider_apply ("rxe", port);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    g_assert_false (port->metrics[m].present);
  g_clear_pointer (&port->counters, g_ptr_array_unref);
  rtop_provider_apply (NULL, port);
  port->counters = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
}

/* Counters not in the table: raw name and value kept, no metric, a class
 * from the pattern table. */
static void
test_unknown_counters (void)
{
  static const struct {
    const char *name;
    RtopCounterClass klass;
  } cases[] = {
    { "foo_bar_err", RTOP_COUNTER_CLASS_OPERATION_ERROR },
    { "qp_create_errors", RTOP_COUNTER_CLASS_OPERATION_ERROR },
    { "InWeirdErrors", RTOP_COUNTER_CLASS_OPERATION_ERROR },
    { "verbs_reg_mr_failed_cnt", RTOP_COUNTER_CLASS_OPERATION_ERROR },
    { "rx_err_pkt_new", RTOP_COUNTER_CLASS_OPERATION_ERROR },
    { "weird_seq_err", RTOP_COUNTER_CLASS_TRANSPORT_ERROR },
    { "ack_timeout_error", RTOP_COUNTER_CLASS_TRANSPORT_ERROR },
    { "rnr_nak_rcvd_err", RTOP_COUNTER_CLASS_TRANSPORT_ERROR },
    { "link_flap_errors", RTOP_COUNTER_CLASS_LINK_ERROR },
    { "rx_crc_bad", RTOP_COUNTER_CLASS_LINK_ERROR },
    { "mystery_drops", RTOP_COUNTER_CLASS_DROP },
    { "tx_discarded", RTOP_COUNTER_CLASS_DROP },
    { "new_retrans_cnt", RTOP_COUNTER_CLASS_RETRANSMIT },
    { "qp_retry_something", RTOP_COUNTER_CLASS_RETRANSMIT },
    { "cnp_whatever", RTOP_COUNTER_CLASS_CONGESTION },
    { "rx_ECN_marks", RTOP_COUNTER_CLASS_CONGESTION },
    { "plain_counter", RTOP_COUNTER_CLASS_INFO },
    { "link_speed_changes", RTOP_COUNTER_CLASS_INFO },   /* "link" alone is not an error */
    { "seq_number", RTOP_COUNTER_CLASS_INFO },
  };
  g_autoptr(RtopPort) port = rtop_port_new (1);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    add (port, cases[i].name, RTOP_COUNTER_SOURCE_NETLINK, 100 + i, 1, TRUE);
  rtop_provider_apply ("mlx5", port);

  g_assert_cmpuint (port->counters->len, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RtopCounter *counter = g_ptr_array_index (port->counters, i);

      g_test_message ("unknown counter %s", cases[i].name);
      g_assert_cmpstr (counter->name, ==, cases[i].name);
      g_assert_cmpuint (counter->value, ==, 100 + i);
      g_assert_cmpint (counter->klass, ==, cases[i].klass);
      g_assert_cmpint (rtop_provider_classify ("mlx5", cases[i].name), ==, cases[i].klass);
    }
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    g_assert_false (port->metrics[m].present);
}

static void
test_classify_known (void)
{
  g_assert_cmpint (rtop_provider_classify ("mlx5", "out_of_buffer"), ==, RTOP_COUNTER_CLASS_DROP);
  g_assert_cmpint (rtop_provider_classify ("mlx5", "port_xmit_data"), ==, RTOP_COUNTER_CLASS_DATA);
  g_assert_cmpint (rtop_provider_classify ("rxe", "completer_retry_err"), ==, RTOP_COUNTER_CLASS_RETRANSMIT);
  g_assert_cmpint (rtop_provider_classify ("efa", "tx_bytes"), ==, RTOP_COUNTER_CLASS_DATA);
  g_assert_cmpint (rtop_provider_classify ("rxe", "link_downed"), ==, RTOP_COUNTER_CLASS_LINK_ERROR);
  /* The table beats the pattern: bnxt_re's recoverable_errors are broadcast
   * packets; elsewhere the name reads as an error. */
  g_assert_cmpint (rtop_provider_classify ("bnxt_re", "recoverable_errors"), ==, RTOP_COUNTER_CLASS_INFO);
  g_assert_cmpint (rtop_provider_classify ("unknown", "recoverable_errors"), ==,
                   RTOP_COUNTER_CLASS_OPERATION_ERROR);
  g_assert_cmpint (rtop_provider_classify (NULL, "symbol_error"), ==, RTOP_COUNTER_CLASS_LINK_ERROR);
  g_assert_cmpint (rtop_provider_classify ("mlx5", NULL), ==, RTOP_COUNTER_CLASS_INFO);
}

static void
test_detect (void)
{
  static const struct {
    const char *dev;
    const char *driver;
    const char *provider;
  } cases[] = {
    { "mlx5_0", "mlx5_core", "mlx5" },
    { "ibp59s0", "mlx5_core", "mlx5" },       /* renamed by udev: the driver decides */
    { "rocep1s0f0", "mlx5_ib.rdma", "mlx5" }, /* auxiliary-bus driver name */
    { "mlx5_3", NULL, "mlx5" },
    { "mlx4_0", "mlx4_core", "mlx4" },
    { "efa_0", "efa", "efa" },
    { "rdmap0s6", "efa", "efa" },
    { "erdma_0", "erdma", "erdma" },
    { "bnxt_re0", "bnxt_en", "bnxt_re" },
    { "bnxt_re1", NULL, "bnxt_re" },
    { "irdma0", "ice", "irdma" },
    { "irdma1", "i40e", "irdma" },
    { "rdmap1s0f0", "irdma", "irdma" },
    { "hns_0", "hns3", "hns" },
    { "hns_1", "hns_roce_hw_v2", "hns" },
    { "mana_0", "mana", "mana" },
    { "qedr0", "qede", "qedr" },
    { "ionic_0", "ionic", "ionic" },
    { "rxe0", NULL, "rxe" },
    { "rxe_eth0", NULL, "rxe" },
    { "siw0", NULL, "siw" },
    { "mystery0", "somedriver", "unknown" },
    { "mystery0", NULL, "unknown" },
    { NULL, NULL, "unknown" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("detect %s / %s", cases[i].dev, cases[i].driver);
      g_assert_cmpstr (rtop_provider_detect (cases[i].dev, cases[i].driver), ==, cases[i].provider);
    }

  /* And from the fixture trees, as the collector does it. */
  {
    g_autofree char *mlx5 = rtop_sysfs_read_driver (fixture_root (), "mlx5_0");
    g_autofree char *efa = rtop_sysfs_read_driver (fixture_root (), "efa_0");
    g_autofree char *erdma = rtop_sysfs_read_driver (fixture_root (), "erdma_1");
    g_autofree char *rxe = rtop_sysfs_read_driver (fixture_root (), "rxe0");

    g_assert_cmpstr (rtop_provider_detect ("mlx5_0", mlx5), ==, "mlx5");
    g_assert_cmpstr (rtop_provider_detect ("efa_0", efa), ==, "efa");
    g_assert_cmpstr (rtop_provider_detect ("erdma_1", erdma), ==, "erdma");
    g_assert_cmpstr (rtop_provider_detect ("rxe0", rxe), ==, "rxe");
  }
}

/* A plan made once and run on later reads gives what rtop_provider_apply()
 * gives, to the last bit: every fixture port (provider tier, PMA generic
 * tier, netdev tier, scales), with rates on some counters and not others. */
static void
test_plan_matches_apply (void)
{
  static const struct { const char *device, *provider; } ports[] = {
    { "mlx5_0", "mlx5" }, { "efa_0", "efa" }, { "erdma_0", "erdma" },
    { "erdma_1", "erdma" }, { "rxe0", "rxe" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ports); i++)
    {
      g_autoptr(RtopPort) applied = rtop_port_new (1);
      g_autoptr(RtopPort) planned = rtop_port_new (1);
      RtopProviderPlan *plan;

      g_autofree char *hw = rtop_sysfs_port_hw_counters_path (fixture_root (), ports[i].device, 1);
      g_autofree char *pma = rtop_sysfs_port_counters_path (fixture_root (), ports[i].device, 1);

      /* Not every fixture port has both directories. */
      if (g_file_test (hw, G_FILE_TEST_IS_DIR))
        read_into (applied, g_steal_pointer (&hw), RTOP_COUNTER_SOURCE_NETLINK);
      if (g_file_test (pma, G_FILE_TEST_IS_DIR))
        read_into (applied, g_steal_pointer (&pma), RTOP_COUNTER_SOURCE_SYSFS_PORT);
      add (applied, "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 77, 7.5, TRUE);
      add (applied, "rx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 66, 0, FALSE);
      rtop_counters_sort (applied->counters);
      applied->netdev = g_strdup ("eth9");
      planned->netdev = g_strdup ("eth9");
      for (guint c = 0; c < applied->counters->len; c++)
        {
          RtopCounter *counter = g_ptr_array_index (applied->counters, c);

          /* Rates with fractions, so the order of additions shows. */
          counter->has_rate = c % 7 != 3;
          counter->rate = counter->has_rate ? counter->value / 3.0 + c * 0.1 : 0;
          g_ptr_array_add (planned->counters, rtop_counter_copy (counter));
        }
      g_assert_cmpuint (applied->counters->len, >, 0);

      rtop_provider_apply (ports[i].provider, applied);
      plan = rtop_provider_plan_new (ports[i].provider, planned->counters, "eth9");
      g_assert_cmpuint (rtop_provider_plan_get_n_counters (plan), ==, planned->counters->len);
      rtop_provider_plan_run (plan, planned, FALSE);
      rtop_provider_plan_free (plan);

      for (guint c = 0; c < applied->counters->len; c++)
        g_assert_cmpint (((RtopCounter *) g_ptr_array_index (applied->counters, c))->klass, ==,
                         ((RtopCounter *) g_ptr_array_index (planned->counters, c))->klass);
      for (guint m = 0; m < RTOP_METRIC_N; m++)
        {
          const RtopMetric *a = &applied->metrics[m], *b = &planned->metrics[m];

          g_test_message ("%s %s: %s", ports[i].device, rtop_metric_id_to_string (m),
                          a->source ? a->source : "(none)");
          g_assert_cmpint (a->present, ==, b->present);
          g_assert_cmpuint (a->value, ==, b->value);
          g_assert_cmpint (a->has_rate, ==, b->has_rate);
          g_assert_true (a->rate == b->rate);
          g_assert_cmpstr (a->source, ==, b->source);
        }
      g_assert_true (applied->metrics[RTOP_METRIC_TX_BYTES].present);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/collector/providers/table-sane", test_table_sane);
  g_test_add_func ("/collector/providers/every-row", test_every_row);
  g_test_add_func ("/collector/providers/source-must-match", test_source_must_match);
  g_test_add_func ("/collector/providers/fixture/mlx5", test_mlx5_fixture);
  g_test_add_func ("/collector/providers/fixture/efa", test_efa_fixture);
  g_test_add_func ("/collector/providers/fixture/erdma", test_erdma_fixtures);
  g_test_add_func ("/collector/providers/fixture/rxe", test_rxe_fixture);
  g_test_add_func ("/collector/providers/sum-and-has-rate", test_sum_and_has_rate);
  g_test_add_func ("/collector/providers/tiers", test_tiers);
  g_test_add_func ("/collector/providers/saturation", test_saturation);
  g_test_add_func ("/collector/providers/reapply", test_reapply);
  g_test_add_func ("/collector/providers/unknown-counters", test_unknown_counters);
  g_test_add_func ("/collector/providers/classify-known", test_classify_known);
  g_test_add_func ("/collector/providers/detect", test_detect);
  g_test_add_func ("/collector/providers/plan-matches-apply", test_plan_matches_apply);

  return g_test_run ();
}
