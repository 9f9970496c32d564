/* test-openmetrics.c: the exporter's totals and exposition, fed snapshots
 * that went through the collector's own rates and provider table. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>

#include "support/metrics-synth.h"
#include "rtop-openmetrics-private.h"

#define WRAP32 (G_GUINT64_CONSTANT (1) << 32)

/* One mlx5 port whose port_xmit_data (32 bits wide here, x4 for bytes) and
 * a netlink counter take the given values; device index dev_index. */
static RtopSnapshot *
mlx5_pass (MetricsSynth *synth, guint32 dev_index, guint64 xmit_data, guint64 seq_err, double t)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopDevice *dev = synth_device (snap, "mlx5_0", dev_index, "mlx5");
  const SynthCounter counters[] = {
    { "port_xmit_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, xmit_data },
    { "port_rcv_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, 100 },
    { "packet_seq_err", RTOP_COUNTER_SOURCE_NETLINK, seq_err },
  };

  synth_port (dev, 1, counters, G_N_ELEMENTS (counters));
  metrics_synth_finish (synth, snap, t);
  return snap;
}

static char *
format (RtopOpenMetrics *om, RtopExposition fmt, const char *failure)
{
  g_autoptr(GBytes) bytes = rtop_openmetrics_format (om, fmt, failure);
  gsize len;
  const char *data = g_bytes_get_data (bytes, &len);

  g_assert_cmpuint (strlen (data), <=, len);
  return g_strndup (data, len);
}

/* The value of the sample line that starts with prefix (name and labels). */
static gboolean
sample_value (const char *text, const char *prefix, char **value)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix) && lines[i][strlen (prefix)] == ' ')
      {
        *value = g_strdup (lines[i] + strlen (prefix) + 1);
        return TRUE;
      }
  return FALSE;
}

static void
assert_sample (const char *text, const char *prefix, guint64 expected)
{
  g_autofree char *value = NULL;
  g_autofree char *want = g_strdup_printf ("%" G_GUINT64_FORMAT, expected);

  if (!sample_value (text, prefix, &value))
    g_error ("no sample %s in:\n%s", prefix, text);
  g_assert_cmpstr (value, ==, want);
}

static void
assert_sample_text (const char *text, const char *prefix, const char *expected)
{
  g_autofree char *value = NULL;

  if (!sample_value (text, prefix, &value))
    g_error ("no sample %s in:\n%s", prefix, text);
  g_assert_cmpstr (value, ==, expected);
}

#define XMIT "rdmatop_port_raw_total{device=\"mlx5_0\",port=\"1\",counter=\"port_xmit_data\",source=\"sysfs\"}"
#define TX_BYTES "rdmatop_port_transmit_bytes_total{device=\"mlx5_0\",port=\"1\"}"

/* A 32-bit counter wrapping three times: totals keep rising by exactly
 * what was counted, the raw family goes on past 2^32 (its value modulo 2^32
 * is still the kernel's), and nothing is taken for a reset. */
static void
test_wrap_is_no_reset (void)
{
  static const guint64 seq[] = {
    0xFFFF0000u, 0xFFFFFF00u, 0x00000100u, 0x7FFFFFFFu, 0xF0000000u, 0x00000010u,
    0x90000000u, 0x00000001u,
  };
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  guint64 expected = seq[0], prev_total = 0;

  for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
    {
      g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, seq[i], 5, i + 1.0);
      g_autofree char *text = NULL;
      guint64 total, bytes;

      if (i > 0)
        expected += seq[i] >= seq[i - 1] ? seq[i] - seq[i - 1] : WRAP32 - seq[i - 1] + seq[i];
      rtop_openmetrics_update (om, snap, 0.01);
      g_assert_true (rtop_openmetrics_get_counter_total (om, "mlx5_0", 1, "port_xmit_data",
                                                         RTOP_COUNTER_SOURCE_SYSFS_PORT, &total));
      g_assert_cmpuint (total, ==, expected);
      g_assert_cmpuint (total, >=, prev_total);
      g_assert_cmpuint (total % WRAP32, ==, seq[i]);
      g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_TX_BYTES,
                                                        &bytes));
      g_assert_cmpuint (bytes, ==, 4 * expected);
      prev_total = total;

      text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
      assert_sample (text, XMIT, expected);
      assert_sample (text, TX_BYTES, 4 * expected);
      assert_sample (text, "rdmatop_health_events_total{kind=\"counter-reset\"}", 0);
    }
  g_assert_cmpuint (expected, >, 3 * WRAP32);
}

/* A counter that goes back without being a wrap (driver reload), and a
 * device re-added under the same name: totals restart at the kernel's
 * value, and the health event is counted. */
static void
test_real_reset_restarts (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  guint64 total;

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 1000 + 500 * i, 40 + i, i + 1.0);
      rtop_openmetrics_update (om, snap, 0.01);
    }
  g_assert_true (rtop_openmetrics_get_counter_total (om, "mlx5_0", 1, "port_xmit_data",
                                                     RTOP_COUNTER_SOURCE_SYSFS_PORT, &total));
  g_assert_cmpuint (total, ==, 2000);

  {
    /* Back from 2000 to 30: below 2^31, so not a 32-bit wrap. */
    g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 30, 42, 4.0);
    g_autofree char *text = NULL;

    rtop_openmetrics_update (om, snap, 0.01);
    text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    assert_sample (text, XMIT, 30);
    assert_sample (text, TX_BYTES, 120);
    assert_sample (text, "rdmatop_health_events_total{kind=\"counter-reset\"}", 1);
  }
  {
    /* Going on from the new baseline. */
    g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 50, 43, 5.0);

    rtop_openmetrics_update (om, snap, 0.01);
    g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_TX_BYTES,
                                                      &total));
    g_assert_cmpuint (total, ==, 200);
  }
  {
    /* The same name with a new kernel index: every counter restarts, even
     * one whose value rose. */
    g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 7, 60, 50, 6.0);

    rtop_openmetrics_update (om, snap, 0.01);
    g_assert_true (rtop_openmetrics_get_counter_total (om, "mlx5_0", 1, "packet_seq_err",
                                                       RTOP_COUNTER_SOURCE_NETLINK, &total));
    g_assert_cmpuint (total, ==, 50);
    g_assert_true (rtop_openmetrics_get_counter_total (om, "mlx5_0", 1, "port_xmit_data",
                                                       RTOP_COUNTER_SOURCE_SYSFS_PORT, &total));
    g_assert_cmpuint (total, ==, 60);
  }
}

/* Label values with quotes, backslashes, newlines and bytes that are not
 * UTF-8 come out escaped in both formats; HELP text is escaped per format. */
static void
test_escaping (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  RtopOpenMetricsOptions options = { .processes = TRUE, .host = "node\"7\\\n" };
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (&options);
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  RtopDevice *dev = synth_device (snap, "rxe0", 1, "rxe");
  const SynthCounter counters[] = { { "sent_pkts", RTOP_COUNTER_SOURCE_NETLINK, 1 } };
  RtopProcess *proc = rtop_process_new (42);
  RtopProcessDevice pd = { g_strdup ("rxe0"), 3, 1, 2, 4096 };
  g_autofree char *om_text = NULL, *prom_text = NULL;

  dev->fw_version = g_strdup ("1.0 \"beta\"");
  /* Not UTF-8: repaired, with U+FFFD for the byte. */
  dev->node_guid = g_strdup ("fe80:\xfe:1");
  synth_port (dev, 1, counters, 1);
  /* Shown escaped (rtop-text.h), then escaped again as a label value. */
  proc->comm = g_strdup ("we\"ird\\na\nme\xff");
  g_array_append_val (proc->devices, pd);
  g_ptr_array_add (snap->processes, proc);
  metrics_synth_finish (synth, snap, 1);
  rtop_openmetrics_update (om, snap, 0.01);

  om_text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  prom_text = format (om, RTOP_EXPOSITION_PROMETHEUS, NULL);
  for (guint i = 0; i < 2; i++)
    {
      const char *text = i == 0 ? om_text : prom_text;

      g_assert_nonnull (strstr (text, "host=\"node\\\"7\\\\\\n\""));
      g_assert_nonnull (strstr (text, "fw_version=\"1.0 \\\"beta\\\"\""));
      g_assert_nonnull (strstr (text, "node_guid=\"fe80:\xef\xbf\xbd:1\""));
      g_assert_nonnull (strstr (text, "comm=\"we\\\"ird\\\\\\\\na\\\\x0ame\\\\xff\""));
      assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"42\","
                           "comm=\"we\\\"ird\\\\\\\\na\\\\x0ame\\\\xff\"}", 3);
      g_assert_true (g_utf8_validate (text, -1, NULL));
    }
  /* HELP: OpenMetrics escapes the double quote, the 0.0.4 text does not. */
  g_assert_nonnull (strstr (om_text, "`rdma statistic show`"));
  g_assert_nonnull (strstr (prom_text, "# HELP rdmatop_port_raw_total Every raw"));
}

/* The two formats' own rules: OpenMetrics has UNIT, info types, counter
 * families named without _total and ends with # EOF; the 0.0.4 text names
 * families by their samples, has no info type and no EOF. */
static void
test_formats (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  g_autofree char *om_text = NULL, *prom_text = NULL;

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 2, pass, pass + 1.0);
      rtop_openmetrics_update (om, snap, 0.01);
    }
  om_text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  prom_text = format (om, RTOP_EXPOSITION_PROMETHEUS, NULL);

  g_assert_true (g_str_has_suffix (om_text, "\n# EOF\n"));
  g_assert_nonnull (strstr (om_text, "# TYPE rdmatop_port_transmit_bytes counter\n"
                                     "# UNIT rdmatop_port_transmit_bytes bytes\n"));
  g_assert_nonnull (strstr (om_text, "# TYPE rdmatop_device info\n"));
  g_assert_nonnull (strstr (om_text, "\nrdmatop_device_info{device=\"mlx5_0\",provider=\"mlx5\""));

  g_assert_null (strstr (prom_text, "# EOF"));
  g_assert_null (strstr (prom_text, "# UNIT"));
  g_assert_nonnull (strstr (prom_text, "# TYPE rdmatop_port_transmit_bytes_total counter\n"));
  g_assert_nonnull (strstr (prom_text, "# TYPE rdmatop_device_info gauge\n"));
  g_assert_null (strstr (prom_text, " info\n"));

  /* The same samples in both. */
  assert_sample (om_text, TX_BYTES, 4 * (1000000 + 14 * 7));
  assert_sample (prom_text, TX_BYTES, 4 * (1000000 + 14 * 7));
  assert_sample (om_text, "rdmatop_port_state{device=\"mlx5_1\",port=\"1\"}", 4);
  assert_sample (prom_text, "rdmatop_port_link_rate_bytes_per_second{device=\"mlx5_1\",port=\"1\"}",
                 12500000000);
  {
    g_autofree char *v = NULL;
    g_assert_true (sample_value (om_text, "rdmatop_port_errors_total{device=\"mlx5_1\",port=\"1\","
                                          "class=\"link\"}", &v));
  }
  /* No process data unless asked for. */
  g_assert_null (strstr (om_text, "rdmatop_process_"));

  /* Every family's samples together: a family's TYPE line appears once. */
  {
    g_auto(GStrv) lines = g_strsplit (om_text, "\n", -1);
    g_autoptr(GHashTable) types = g_hash_table_new (g_str_hash, g_str_equal);

    for (guint i = 0; lines[i] != NULL; i++)
      if (g_str_has_prefix (lines[i], "# TYPE "))
        g_assert_true (g_hash_table_add (types, lines[i]));
  }
}

/* A comma as the decimal point in the user's locale must not reach the text. */
static void
test_locale_independent (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 1, 0, 1.0);
  g_autofree char *old = g_strdup (setlocale (LC_NUMERIC, NULL));
  g_autofree char *text = NULL;

  rtop_openmetrics_update (om, snap, 0.25);
  if (setlocale (LC_NUMERIC, "de_DE.UTF-8") == NULL)
    {
      g_test_skip ("the de_DE.UTF-8 locale is not installed (tests/deps.sh generates it)");
      return;
    }
  /* The locale really writes a comma, or this test proves nothing. */
  {
    char probe[16];

    g_snprintf (probe, sizeof probe, "%.2f", 0.25);
    g_assert_cmpstr (probe, ==, "0,25");
  }
  text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  setlocale (LC_NUMERIC, old);
  g_assert_nonnull (strstr (text, "\nrdmatop_exporter_last_pass_duration_seconds 0.25\n"));
}

/* Real numbers as the text writes them: the shortest form that reads back
 * as the same double; a pass that took 0 s has a duration, a negative
 * one (a clock that went back) has none and adds nothing; an unknown
 * interval (0) and a link rate that is not a number are left out. */
static void
test_real_numbers (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  static const struct {
    double pass_seconds;
    const char *last;              /* its sample's value, NULL: no sample */
    const char *total;
  } passes[] = {
    { 0.1 + 0.2, "0.30000000000000004", "0.30000000000000004" },
    { 0.0, "0", "0.30000000000000004" },
    { -1.0, NULL, "0.30000000000000004" },
    { 0.25, "0.25", "0.55" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 1000 + i, 5, i + 1.0);
      g_autofree char *text = NULL;
      g_autofree char *value = NULL;

      g_test_message ("pass %u", i);
      rtop_openmetrics_update (om, snap, passes[i].pass_seconds);
      text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
      if (passes[i].last != NULL)
        {
          g_assert_true (sample_value (text, "rdmatop_exporter_last_pass_duration_seconds", &value));
          g_assert_cmpstr (value, ==, passes[i].last);
          g_assert_cmpfloat (g_ascii_strtod (value, NULL), ==, passes[i].pass_seconds);
          g_clear_pointer (&value, g_free);
        }
      else
        g_assert_false (sample_value (text, "rdmatop_exporter_last_pass_duration_seconds", &value));
      g_assert_true (sample_value (text, "rdmatop_exporter_pass_duration_seconds_total", &value));
      g_assert_cmpstr (value, ==, passes[i].total);
    }
  {
    g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 2000, 5, 10.0);
    RtopDevice *dev = g_ptr_array_index (snap->devices, 0);
    g_autofree char *text = NULL;
    g_autofree char *value = NULL;

    snap->interval_s = 0;
    ((RtopPort *) g_ptr_array_index (dev->ports, 0))->rate_gbps = INFINITY;
    rtop_openmetrics_update (om, snap, 0.01);
    text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    g_assert_false (sample_value (text, "rdmatop_exporter_sample_interval_seconds", &value));
    g_assert_false (sample_value (text, "rdmatop_port_link_rate_bytes_per_second"
                                        "{device=\"mlx5_0\",port=\"1\"}", &value));
  }
  {
    g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, 2000, 5, 11.0);
    g_autofree char *text = NULL;

    snap->interval_s = 2.5;
    rtop_openmetrics_update (om, snap, 0.01);
    text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    assert_sample_text (text, "rdmatop_exporter_sample_interval_seconds", "2.5");
    assert_sample (text, "rdmatop_port_link_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"}",
                   12500000000);
  }
}

/* Failures answer at once with the error metric and no device data. */
static void
test_failures (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  g_autofree char *none = NULL, *failed = NULL, *stale = NULL, *good = NULL;

  none = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  assert_sample (none, "rdmatop_up", 0);
  g_assert_nonnull (strstr (none, "rdmatop_collection_error_info{reason=\"no-pass-yet\""));

  {
    g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 1, 0, 1.0);
    rtop_openmetrics_update (om, snap, 0.01);
    good = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    assert_sample (good, "rdmatop_up", 1);
    g_assert_null (strstr (good, "\nrdmatop_collection_error_info"));
  }
  {
    g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();

    snap->status = RTOP_STATUS_PERMISSION;
    snap->status_message = g_strdup ("Permission denied: run as a user who may read netlink");
    rtop_snapshot_seal (snap);
    rtop_openmetrics_update (om, snap, 0.01);
    failed = format (om, RTOP_EXPOSITION_PROMETHEUS, NULL);
    assert_sample (failed, "rdmatop_up", 0);
    assert_sample (failed, "rdmatop_exporter_failed_passes_total", 1);
    g_assert_nonnull (strstr (failed, "reason=\"permission\",message=\"Permission denied"));
    g_assert_null (strstr (failed, "rdmatop_port_"));
  }
  {
    /* Recovered: the totals went on from where they were. */
    g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 1, 2, 3.0);
    rtop_openmetrics_update (om, snap, 0.01);
    stale = format (om, RTOP_EXPOSITION_OPENMETRICS, "No pass for 40 s");
    assert_sample (stale, "rdmatop_up", 0);
    g_assert_nonnull (strstr (stale, "reason=\"stale\",message=\"No pass for 40 s\""));
    g_assert_null (strstr (stale, "rdmatop_port_"));
    g_clear_pointer (&good, g_free);
    good = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    assert_sample (good, TX_BYTES, 4 * (2000000 + 14 * 7));
  }
}

/* Process series: summed where the labels would repeat, capped by weight. */
static void
test_processes_capped (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  RtopOpenMetricsOptions options = { .processes = TRUE, .max_process_series = 3 };
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (&options);
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  g_autofree char *text = NULL;

  synth_device (snap, "rxe0", 1, "rxe");
  for (guint i = 0; i < 6; i++)
    {
      /* Two hidden owners (pid 0, no comm) and four processes. */
      RtopProcess *p = rtop_process_new (i < 2 ? 0 : 100 + i);
      RtopProcessDevice pd = { g_strdup ("rxe0"), (i < 2 ? 100 : 10) * (i + 1), 1, 1, 1 };

      p->comm = i < 2 ? NULL : g_strdup_printf ("job%u", i);
      g_array_append_val (p->devices, pd);
      g_ptr_array_add (snap->processes, p);
    }
  metrics_synth_finish (synth, snap, 1);
  rtop_openmetrics_update (om, snap, 0.01);
  text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"\"}", 300);
  assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"105\",comm=\"job5\"}", 60);
  assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"104\",comm=\"job4\"}", 50);
  g_assert_null (strstr (text, "job3"));
  g_assert_null (strstr (text, "job2"));
  assert_sample (text, "rdmatop_exporter_process_series_dropped", 2);
}

/* A pid that is not a process's own (negative: none known) is written as
 * 0, like a process outside the PID namespace, never as a huge number. */
static void
test_process_pid_negative (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  RtopOpenMetricsOptions options = { .processes = TRUE };
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (&options);
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  RtopProcess *p = rtop_process_new (-5);
  RtopProcessDevice pd = { g_strdup ("rxe0"), 3, 1, 1, 4096 };
  g_autofree char *text = NULL;

  synth_device (snap, "rxe0", 1, "rxe");
  p->comm = g_strdup ("gone");
  g_array_append_val (p->devices, pd);
  g_ptr_array_add (snap->processes, p);
  metrics_synth_finish (synth, snap, 1);
  rtop_openmetrics_update (om, snap, 0.01);
  text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"gone\"}", 3);
}

/* The job label only when asked: two hidden owners (pid 0) in two pods
 * are two series with it, one summed series without it. */
static void
test_process_job_label (void)
{
  for (guint with = 0; with < 2; with++)
    {
      g_autoptr(MetricsSynth) synth = metrics_synth_new ();
      RtopOpenMetricsOptions options = { .processes = TRUE, .job_label = with };
      g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (&options);
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      g_autofree char *text = NULL;

      synth_device (snap, "rxe0", 1, "rxe");
      for (guint i = 0; i < 3; i++)
        {
          RtopProcess *p = rtop_process_new (0);
          RtopProcessDevice pd = { g_strdup ("rxe0"), 1 + i, 1, 1, 1 };

          if (i < 2)
            rtop_job_set (&p->job, RTOP_JOB_KUBERNETES, i == 0 ? "pod-a-uid" : "pod-b-uid", NULL);
          g_array_append_val (p->devices, pd);
          g_ptr_array_add (snap->processes, p);
        }
      metrics_synth_finish (synth, snap, 1);
      rtop_openmetrics_update (om, snap, 0.01);
      text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
      if (!with)
        {
          assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"\"}", 6);
          g_assert_null (strstr (text, "job_name"));
          continue;
        }
      assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"\","
                     "job_name=\"\",job_kind=\"\"}", 3);
      assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"\","
                     "job_name=\"pod pod-a-uid\",job_kind=\"kubernetes\"}", 1);
      assert_sample (text, "rdmatop_process_queue_pairs{device=\"rxe0\",pid=\"0\",comm=\"\","
                     "job_name=\"pod pod-b-uid\",job_kind=\"kubernetes\"}", 2);
    }
}

/* State is bounded: ports that go away take their totals along. */
static void
test_ports_swept (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  guint64 total;

  {
    g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 4, 0, 1.0);
    rtop_openmetrics_update (om, snap, 0.01);
  }
  g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_3", 1, RTOP_METRIC_TX_BYTES, &total));
  {
    g_autoptr(RtopSnapshot) snap = synth_mlx5_fleet (synth, 2, 1, 2.0);
    rtop_openmetrics_update (om, snap, 0.01);
  }
  g_assert_false (rtop_openmetrics_get_metric_total (om, "mlx5_3", 1, RTOP_METRIC_TX_BYTES, &total));
  g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_1", 1, RTOP_METRIC_TX_BYTES, &total));
}

/* A port whose read failed is named with its error and left out of the
 * counters; its totals wait, and the next good read goes on from them.
 * Device-level counters get totals of their own. */
static void
test_port_error_and_device_counters (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  guint64 total;

  for (guint pass = 0; pass < 3; pass++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopDevice *dev = synth_device (snap, "efa_0", 1, "efa");
      const SynthCounter counters[] = { { "tx_bytes", RTOP_COUNTER_SOURCE_NETLINK, 1000 * (pass + 1) } };
      RtopPort *port = synth_port (dev, 1, counters, pass == 1 ? 0 : 1);
      g_autofree char *text = NULL;

      g_ptr_array_add (dev->counters, rtop_counter_new ("alloc_pd_err", 7 + pass,
                                                        RTOP_COUNTER_SOURCE_SYSFS_DEVICE));
      if (pass == 1)
        port->error = g_strdup ("Reading the port's counters failed: Operation timed out");
      metrics_synth_finish (synth, snap, pass + 1.0);
      rtop_openmetrics_update (om, snap, 0.01);
      text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
      assert_sample (text, "rdmatop_device_raw_total{device=\"efa_0\",counter=\"alloc_pd_err\","
                           "source=\"sysfs-device\"}", 7 + pass);
      if (pass == 1)
        {
          g_assert_nonnull (strstr (text, "\nrdmatop_port_read_error_info{device=\"efa_0\",port=\"1\","
                                          "message=\"Reading the port's counters failed"));
          g_assert_null (strstr (text, "\nrdmatop_port_transmit_bytes_total"));
          assert_sample (text, "rdmatop_exporter_port_read_errors_total", 1);
        }
      else
        {
          g_assert_null (strstr (text, "\nrdmatop_port_read_error_info"));
          assert_sample (text, "rdmatop_port_transmit_bytes_total{device=\"efa_0\",port=\"1\"}",
                         1000 * (pass + 1));
        }
    }
  g_assert_true (rtop_openmetrics_get_counter_total (om, "efa_0", 1, "tx_bytes",
                                                     RTOP_COUNTER_SOURCE_NETLINK, &total));
  g_assert_cmpuint (total, ==, 3000);
}

/* An efa port: tx_bytes from netlink and from the netdev, as present. */
static RtopSnapshot *
efa_pass (MetricsSynth *synth, guint64 netlink, guint64 netdev, double t)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopDevice *dev = synth_device (snap, "efa_0", 1, "efa");
  SynthCounter counters[2];
  guint n = 0;

  if (netlink != 0)
    counters[n++] = (SynthCounter) { "tx_bytes", RTOP_COUNTER_SOURCE_NETLINK, netlink };
  if (netdev != 0)
    counters[n++] = (SynthCounter) { "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, netdev };
  synth_port (dev, 1, counters, n);
  metrics_synth_finish (synth, snap, t);
  return snap;
}

/* Two counters of one name from two sources keep their own totals, also
 * when one of them goes away and the other takes its place in the list. */
static void
test_totals_by_source (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  guint64 total;

  {
    g_autoptr(RtopSnapshot) snap = efa_pass (synth, 1000, 50, 1.0);
    rtop_openmetrics_update (om, snap, 0.01);
  }
  {
    g_autoptr(RtopSnapshot) snap = efa_pass (synth, 0, 80, 2.0);
    g_autofree char *text = NULL;

    rtop_openmetrics_update (om, snap, 0.01);
    g_assert_true (rtop_openmetrics_get_counter_total (om, "efa_0", 1, "tx_bytes",
                                                       RTOP_COUNTER_SOURCE_NETDEV, &total));
    g_assert_cmpuint (total, ==, 80);
    g_assert_false (rtop_openmetrics_get_counter_total (om, "efa_0", 1, "tx_bytes",
                                                        RTOP_COUNTER_SOURCE_NETLINK, &total));
    text = format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
    assert_sample (text, "rdmatop_port_raw_total{device=\"efa_0\",port=\"1\",counter=\"tx_bytes\","
                         "source=\"netdev\"}", 80);
  }
}

/* An mlx5 port with the given PMA counters (32-bit data, 16-bit drops). */
static RtopSnapshot *
pma_pass (MetricsSynth *synth, const SynthCounter *counters, guint n, guint64 layout, double t)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopDevice *dev = synth_device (snap, "mlx5_0", 1, "mlx5");
  RtopPort *port = synth_port (dev, 1, counters, n);

  port->counter_layout = layout;
  metrics_synth_finish (synth, snap, t);
  return snap;
}

#define PMA RTOP_COUNTER_SOURCE_SYSFS_PORT

/* The metric plan follows the counter layout: a new layout id with as many
 * counters, and the same id with fewer counters (a peer's mistake), each
 * get a new plan, so a metric is summed from its own counter. */
static void
test_totals_follow_layout (void)
{
  for (guint shrink = 0; shrink < 2; shrink++)
    {
      g_autoptr(MetricsSynth) synth = metrics_synth_new ();
      g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
      const SynthCounter first[] = { { "port_rcv_data", PMA, 500 }, { "port_xmit_data", PMA, 1000 } };
      const SynthCounter moved[] = { { "port_xmit_data", PMA, 1100 }, { "symbol_error", PMA, 7 } };
      const SynthCounter fewer[] = { { "port_xmit_data", PMA, 1100 } };
      guint64 total;

      g_test_message ("%s", shrink ? "same layout id, fewer counters" : "new layout id");
      {
        g_autoptr(RtopSnapshot) snap = pma_pass (synth, first, 2, 5, 1.0);
        rtop_openmetrics_update (om, snap, 0.01);
      }
      {
        g_autoptr(RtopSnapshot) snap = shrink ? pma_pass (synth, fewer, 1, 5, 2.0)
                                              : pma_pass (synth, moved, 2, 6, 2.0);
        rtop_openmetrics_update (om, snap, 0.01);
      }
      g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_TX_BYTES,
                                                        &total));
      g_assert_cmpuint (total, ==, 4 * 1100);
      g_assert_false (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_RX_BYTES,
                                                         &total));
    }
}

/* A metric summed from two counters restarts when either part resets, and
 * one that went away starts again from the kernel's value when it is back
 * (not from where it stood, which a wrap had taken past the value). */
static void
test_metric_totals_restart (void)
{
  for (guint which = 0; which < 2; which++)
    {
      g_autoptr(MetricsSynth) synth = metrics_synth_new ();
      g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
      /* Drops: VL15_dropped + port_xmit_discards; one of them resets. */
      static const guint64 values[3][2] = { { 1000, 500 }, { 2000, 600 }, { 10, 10 } };
      guint64 total;

      for (guint pass = 0; pass < 3; pass++)
        {
          SynthCounter counters[] = {
            { "VL15_dropped", PMA, pass < 2 || which == 0 ? values[pass][0] : 2100 },
            { "port_xmit_discards", PMA, pass < 2 || which == 1 ? values[pass][1] : 700 },
          };
          g_autoptr(RtopSnapshot) snap = pma_pass (synth, counters, 2, 0, pass + 1.0);

          rtop_openmetrics_update (om, snap, 0.01);
        }
      g_assert_true (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_DROPS, &total));
      g_assert_cmpuint (total, ==, which == 0 ? 10 + 700 : 2100 + 10);
    }
  {
    g_autoptr(MetricsSynth) synth = metrics_synth_new ();
    g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
    static const guint64 xmit[] = { 0xFFFFFF00u, 0x100, 0, 0x200 };
    guint64 total;

    for (guint pass = 0; pass < G_N_ELEMENTS (xmit); pass++)
      {
        const SynthCounter counters[] = { { "port_rcv_data", PMA, 5 }, { "port_xmit_data", PMA, xmit[pass] } };
        g_autoptr(RtopSnapshot) snap = pma_pass (synth, counters, xmit[pass] != 0 ? 2 : 1, 0,
                                                 pass + 1.0);

        rtop_openmetrics_update (om, snap, 0.01);
        g_assert_cmpint (rtop_openmetrics_get_metric_total (om, "mlx5_0", 1, RTOP_METRIC_TX_BYTES,
                                                            &total), ==, xmit[pass] != 0);
        if (pass == 1)
          g_assert_cmpuint (total, ==, 4 * (WRAP32 + 0x100));
      }
    g_assert_cmpuint (total, ==, 4 * 0x200);
  }
}

static gboolean
negotiate (const char *accept, RtopExposition *fmt)
{
  return rtop_exposition_negotiate (accept, accept != NULL ? strlen (accept) : 0, fmt);
}

static void
test_accept (void)
{
  static const struct { const char *accept; int want; } cases[] = {
    /* What Prometheus 2.42 sends. */
    { "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1", RTOP_EXPOSITION_OPENMETRICS },
    /* Prometheus with OpenMetrics off, and older scrapers. */
    { "text/plain;version=0.0.4;q=1,*/*;q=0.1", RTOP_EXPOSITION_PROMETHEUS },
    { "text/plain", RTOP_EXPOSITION_PROMETHEUS },
    { "TEXT/Plain ; Version=\"0.0.4\"", RTOP_EXPOSITION_PROMETHEUS },
    { "text/*", RTOP_EXPOSITION_PROMETHEUS },
    { "*/*", RTOP_EXPOSITION_PROMETHEUS },
    /* No header, or nothing that parses: the 0.0.4 text promtool and agents read. */
    { NULL, RTOP_EXPOSITION_PROMETHEUS },
    { "", RTOP_EXPOSITION_PROMETHEUS },
    { "application/*", RTOP_EXPOSITION_OPENMETRICS },
    { "text/*, application/*", RTOP_EXPOSITION_PROMETHEUS },
    { "text/plain;q=0.7, application/openmetrics-text;q=0.7", RTOP_EXPOSITION_OPENMETRICS },
    { "*/*;q=0.8, application/openmetrics-text;q=0.9", RTOP_EXPOSITION_OPENMETRICS },
    { "application/openmetrics-text; version=0.0.1, text/plain;q=0.2", RTOP_EXPOSITION_PROMETHEUS },
    { "application/openmetrics-text;q=0.3, text/plain;q=0.7", RTOP_EXPOSITION_PROMETHEUS },
    { "application/openmetrics-text;q=0.7, text/plain;q=0.7", RTOP_EXPOSITION_OPENMETRICS },
    /* The most specific range decides: text/plain;q=0 refuses it despite * / *. */
    { "text/plain;q=0, */*", RTOP_EXPOSITION_OPENMETRICS },
    { "application/json", -1 },
    { "application/openmetrics-text;q=0, text/plain;q=0", -1 },
    { "text/html;q=0.9, application/xhtml+xml", -1 },
    /* Malformed pieces match nothing; the rest still counts. */
    { "text/plain;q=2, application/openmetrics-text", RTOP_EXPOSITION_OPENMETRICS },
    /* A quoted comma is no separator: this asks for a version we do not write. */
    { "garbage, text/plain;version=\"0.0.4\\\"x,y\"", -1 },
    { "garbage, text/plain;version=\"0.0.4\"", RTOP_EXPOSITION_PROMETHEUS },
    { ";;;,,,", RTOP_EXPOSITION_PROMETHEUS },
    { "text/plain;q=0.5;q", RTOP_EXPOSITION_PROMETHEUS },
    { "text/plain;q=\"0.5", RTOP_EXPOSITION_PROMETHEUS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      RtopExposition fmt = 99;
      gboolean ok = negotiate (cases[i].accept, &fmt);

      g_test_message ("Accept: %s", cases[i].accept ? cases[i].accept : "(none)");
      if (cases[i].want < 0)
        g_assert_false (ok);
      else
        {
          g_assert_true (ok);
          g_assert_cmpint (fmt, ==, cases[i].want);
        }
    }
  {
    /* Not NUL-terminated: only len bytes are read. */
    char buf[10];
    RtopExposition fmt;

    memcpy (buf, "text/plain", 10);
    g_assert_true (rtop_exposition_negotiate (buf, sizeof buf, &fmt));
    g_assert_cmpint (fmt, ==, RTOP_EXPOSITION_PROMETHEUS);
  }
}

static void
test_accept_encoding (void)
{
  static const struct { const char *value; gboolean gzip; } cases[] = {
    { "gzip", TRUE },                      /* what Prometheus sends */
    { "deflate, GZIP;q=0.5", TRUE },
    { "x-gzip", TRUE },
    { "*", TRUE },
    { "gzip;q=0, *", FALSE },
    { "*;q=0", FALSE },
    { "identity", FALSE },
    { "br, zstd", FALSE },
    { "", FALSE },
    { NULL, FALSE },
    { "gzip;q=5", FALSE },                 /* malformed: no preference */
    { "gzip;q=\"0.5", FALSE },
    { ",,;gzip", FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *v = cases[i].value;

      g_test_message ("Accept-Encoding: %s", v ? v : "(none)");
      g_assert_cmpint (rtop_http_accepts_gzip (v, v ? strlen (v) : 0), ==, cases[i].gzip);
    }
}

/* A PMA counter stuck at its maximum: the exporter leaves it and the
 * metrics made of it out (Prometheus then shows no rate rather than 0) and
 * says which counter is stuck. */
static void
test_saturated_left_out (void)
{
  g_autoptr(MetricsSynth) synth = metrics_synth_new ();
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *value = NULL;

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = mlx5_pass (synth, 1, G_MAXUINT32, 5, 1.0 + i);

      rtop_openmetrics_update (om, snap, 0.01);
    }
  text = format (om, RTOP_EXPOSITION_PROMETHEUS, NULL);
  g_assert_false (sample_value (text, XMIT, &value));
  g_assert_false (sample_value (text, TX_BYTES, &value));
  assert_sample (text, "rdmatop_port_counter_saturated{device=\"mlx5_0\",port=\"1\","
                       "counter=\"port_xmit_data\"}", 1);
  assert_sample (text, "rdmatop_port_receive_bytes_total{device=\"mlx5_0\",port=\"1\"}", 400);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/openmetrics/wrap-is-no-reset", test_wrap_is_no_reset);
  g_test_add_func ("/openmetrics/real-reset-restarts", test_real_reset_restarts);
  g_test_add_func ("/openmetrics/escaping", test_escaping);
  g_test_add_func ("/openmetrics/saturated-left-out", test_saturated_left_out);
  g_test_add_func ("/openmetrics/formats", test_formats);
  g_test_add_func ("/openmetrics/locale-independent", test_locale_independent);
  g_test_add_func ("/openmetrics/real-numbers", test_real_numbers);
  g_test_add_func ("/openmetrics/failures", test_failures);
  g_test_add_func ("/openmetrics/processes-capped", test_processes_capped);
  g_test_add_func ("/openmetrics/process-pid-negative", test_process_pid_negative);
  g_test_add_func ("/openmetrics/ports-swept", test_ports_swept);
  g_test_add_func ("/openmetrics/port-error-device-counters", test_port_error_and_device_counters);
  g_test_add_func ("/openmetrics/totals-by-source", test_totals_by_source);
  g_test_add_func ("/openmetrics/totals-follow-layout", test_totals_follow_layout);
  g_test_add_func ("/openmetrics/metric-totals-restart", test_metric_totals_restart);
  g_test_add_func ("/openmetrics/process-job-label", test_process_job_label);
  g_test_add_func ("/openmetrics/accept", test_accept);
  g_test_add_func ("/openmetrics/accept-encoding", test_accept_encoding);
  return g_test_run ();
}
