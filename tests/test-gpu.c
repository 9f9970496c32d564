/* test-gpu.c: NVLink and XGMI through the stand-in GPU libraries the test
 * suite builds (tests/gpu/), so the whole path runs without a GPU: a
 * collector pass -> snapshot -> JSON -> recording round trip -> health
 * events, and the states for no library, no driver, missing functions,
 * errors, a GPU that disappears, a counter reset and a link going down. */
#include "config.h"

#include <dlfcn.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "rtop-collector-private.h"
#include "rtop-csv-writer-private.h"
#include "rtop-json.h"
#include "rtop-openmetrics.h"
#include "rtop-recording-private.h"
#include "rtop-snapshot-private.h"
#include "rtop-trace-writer-private.h"

typedef struct {
  char *dir;
  char *script;
  GString *lines;
  RtopCollector *collector;
} Fixture;

static const char *
fake_nvml (void)
{
  return g_getenv ("RDMATOP_TEST_FAKE_NVML");
}

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("rdmatop-gpu-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
  f->script = g_build_filename (f->dir, "script", NULL);
  f->lines = g_string_new (NULL);
  g_setenv ("RDMATOP_FAKE_GPU_SCRIPT", f->script, TRUE);
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->collector, rtop_collector_free);
  g_unlink (f->script);
  g_rmdir (f->dir);
  g_free (f->script);
  g_free (f->dir);
  g_string_free (f->lines, TRUE);
}

/* Appends script lines (the last value of a key wins) and writes the file. */
G_GNUC_PRINTF (2, 3) static void
script (Fixture *f, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_string_append_vprintf (f->lines, format, ap);
  va_end (ap);
  g_string_append_c (f->lines, '\n');
  g_assert_true (g_file_set_contents (f->script, f->lines->str, -1, NULL));
}

static void
start (Fixture *f, const char *nvml, const char *amdsmi)
{
  RtopCollectorOptions options = {
    .no_processes = TRUE,
    .nvml_library = nvml,
    .amdsmi_library = amdsmi,
  };

  f->collector = rtop_collector_new_for_nl (&options, NULL);
}

static RtopSnapshot *
pass (Fixture *f)
{
  return rtop_collector_sample (f->collector, 1.0);
}

static RtopPort *
port_of (RtopSnapshot *snap, const char *device, guint32 port)
{
  RtopDevice *dev = rtop_snapshot_find_device (snap, device);

  g_assert_nonnull (dev);
  return rtop_device_find_port (dev, port);
}

static guint
count_events (RtopSnapshot *snap, RtopEventKind kind, const char *device, guint32 port)
{
  guint n = 0;

  for (guint i = 0; i < snap->events->len; i++)
    {
      RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if (ev->kind == kind && g_strcmp0 (ev->device, device) == 0 && ev->port == port)
        n++;
    }
  return n;
}

static void
two_nvidia_gpus (Fixture *f)
{
  script (f, "gpus 2");
  script (f, "gpu.0.name NVIDIA H100 80GB HBM3");
  script (f, "gpu.0.uuid GPU-11111111-2222-3333-4444-555555555555");
  script (f, "gpu.0.bus 00000000:1B:00.0");
  script (f, "gpu.0.util 87");
  script (f, "gpu.0.mem_used 1000");
  script (f, "gpu.0.mem_total 80000");
  script (f, "gpu.0.temp 61");
  script (f, "gpu.0.power_mw 350500");
  script (f, "gpu.0.links 3");
  script (f, "gpu.0.tx_kib 1000");
  script (f, "gpu.0.rx_kib 2000");
  script (f, "gpu.0.link.0.remote 00000000:2A:00.0");
  script (f, "gpu.0.link.0.crc 5");
  script (f, "gpu.0.link.0.replay 1");
  script (f, "gpu.0.link.0.recovery 0");
  script (f, "gpu.0.link.2.up 0");
  script (f, "gpu.1.name NVIDIA H100 80GB HBM3");
  script (f, "gpu.1.uuid GPU-99999999-2222-3333-4444-555555555555");
  script (f, "gpu.1.links 1");
  script (f, "gpu.1.tx_kib 0");
  script (f, "gpu.1.rx_kib 0");
}

/* GPUs, gauges, links and GPU-wide throughput as NVML reports them. */
static void
test_nvml_snapshot (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) first = NULL;
  g_autoptr(RtopSnapshot) second = NULL;
  RtopDevice *dev;
  RtopPort *all, *link0, *link2;
  RtopCounter *crc;

  two_nvidia_gpus (f);
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  first = pass (f);
  g_assert_cmpint (first->status, ==, RTOP_STATUS_NO_NETLINK);
  g_assert_null (first->gpu_status);
  g_assert_cmpuint (first->devices->len, ==, 2);

  dev = rtop_snapshot_find_device (first, "nvidia0");
  g_assert_nonnull (dev);
  g_assert_cmpint (dev->kind, ==, RTOP_DEVICE_KIND_GPU);
  g_assert_cmpstr (dev->provider, ==, "nvml");
  g_assert_cmpstr (dev->gpu->vendor, ==, "NVIDIA");
  g_assert_cmpstr (dev->gpu->model, ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpstr (dev->gpu->pci_bus_id, ==, "00000000:1B:00.0");
  g_assert_cmpfloat (dev->gpu->utilisation_pct, ==, 87);
  g_assert_cmpfloat (dev->gpu->memory_used_bytes, ==, 1000);
  g_assert_cmpfloat (dev->gpu->memory_total_bytes, ==, 80000);
  g_assert_cmpfloat (dev->gpu->temperature_c, ==, 61);
  g_assert_cmpfloat_with_epsilon (dev->gpu->power_w, 350.5, 1e-9);
  g_assert_cmpuint (dev->ports->len, ==, 4);   /* all links + 3 links */

  all = port_of (first, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
  g_assert_nonnull (all);
  g_assert_cmpstr (all->link_layer, ==, "NVLink");
  g_assert_true (all->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_cmpuint (all->metrics[RTOP_METRIC_TX_BYTES].value, ==, 1000 * 1024);
  g_assert_cmpuint (all->metrics[RTOP_METRIC_RX_BYTES].value, ==, 2000 * 1024);
  g_assert_false (all->metrics[RTOP_METRIC_TX_BYTES].has_rate);   /* baseline */
  g_assert_nonnull (strstr (all->rate_text, "GPU-wide"));

  link0 = port_of (first, "nvidia0", 1);
  g_assert_cmpint (link0->state, ==, 4);
  g_assert_cmpstr (link0->remote, ==, "PCI 00000000:2A:00.0");
  g_assert_cmpstr (link0->rate_text, ==, "NVLink 4, 25.78 GB/s");
  g_assert_cmpfloat_with_epsilon (link0->rate_gbps, 25781 * 8 / 1000.0, 1e-9);
  /* Throughput is never a link's own. */
  g_assert_false (link0->metrics[RTOP_METRIC_TX_BYTES].present);
  crc = rtop_counters_find (link0->counters, "nvlink_crc_errors");
  g_assert_nonnull (crc);
  g_assert_cmpuint (crc->value, ==, 5);
  g_assert_cmpint (crc->source, ==, RTOP_COUNTER_SOURCE_GPU);
  g_assert_cmpint (crc->klass, ==, RTOP_COUNTER_CLASS_LINK_ERROR);
  g_assert_true (link0->metrics[RTOP_METRIC_LINK_ERRORS].present);
  g_assert_true (link0->metrics[RTOP_METRIC_RETRANSMITS].present);

  link2 = port_of (first, "nvidia0", 3);
  g_assert_cmpint (link2->state, ==, 1);
  g_assert_null (link2->remote);

  /* One second's traffic: a rate in bytes per second, GPU-wide. */
  script (f, "gpu.0.tx_kib 1001000");
  g_usleep (20000);
  second = pass (f);
  all = port_of (second, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
  g_assert_true (all->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  g_assert_cmpfloat (all->metrics[RTOP_METRIC_TX_BYTES].rate, >, 0);
  g_assert_cmpfloat_with_epsilon (all->metrics[RTOP_METRIC_TX_BYTES].rate * all->elapsed_s,
                                  1000000.0 * 1024, 1.0);
}

/* Health: a link going down, errors rising, a counter reset, a GPU lost. */
static void
test_nvml_events (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) s1 = NULL;
  g_autoptr(RtopSnapshot) s2 = NULL;
  g_autoptr(RtopSnapshot) s3 = NULL;
  g_autoptr(RtopSnapshot) s4 = NULL;
  RtopPort *all;

  two_nvidia_gpus (f);
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  s1 = pass (f);

  script (f, "gpu.0.link.1.up 0");
  script (f, "gpu.0.link.0.crc 9");
  s2 = pass (f);
  /* One event per link going down, as for any port: its state and
   * physical state fold into the episode. */
  g_assert_cmpuint (count_events (s2, RTOP_EVENT_PORT_DOWN, "nvidia0", 2), ==, 1);
  g_assert_cmpuint (count_events (s2, RTOP_EVENT_PORT_STATE, "nvidia0", 2), ==, 0);
  g_assert_cmpuint (count_events (s2, RTOP_EVENT_PORT_PHYS_STATE, "nvidia0", 2), ==, 0);
  g_assert_cmpuint (count_events (s2, RTOP_EVENT_COUNTER_RISING, "nvidia0", 1), ==, 1);

  /* The driver reloaded: throughput starts again from zero. */
  script (f, "gpu.0.tx_kib 3");
  s3 = pass (f);
  all = port_of (s3, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
  g_assert_true (rtop_counters_find (all->counters, "nvlink_data_tx_kib")->reset);
  g_assert_false (all->metrics[RTOP_METRIC_TX_BYTES].has_rate &&
                  all->metrics[RTOP_METRIC_TX_BYTES].rate > 1e9);
  g_assert_cmpuint (count_events (s3, RTOP_EVENT_COUNTER_RESET, "nvidia0", 0), >=, 1);

  /* The driver stops answering for a pass: the GPUs stay, saying why, with
   * one event each; when it answers again the rates span the gap. */
  {
    g_autoptr(RtopSnapshot) failed = NULL;
    g_autoptr(RtopSnapshot) back = NULL;

    script (f, "count_error 999");
    failed = pass (f);
    g_assert_nonnull (rtop_snapshot_find_device (failed, "nvidia0"));
    g_assert_nonnull (strstr (port_of (failed, "nvidia0", 1)->error, "Unknown Error"));
    g_assert_cmpuint (count_events (failed, RTOP_EVENT_DEVICE_REMOVED, "nvidia0", 0), ==, 0);
    g_assert_cmpuint (count_events (failed, RTOP_EVENT_COLLECTION_ERROR, "nvidia0", 0), ==, 1);
    g_assert_cmpuint (count_events (failed, RTOP_EVENT_COLLECTION_ERROR, "nvidia0", 1), ==, 0);
    g_assert_nonnull (strstr (failed->gpu_status, "Unknown Error"));
    script (f, "count_error 0");
    script (f, "gpu.0.tx_kib 1003");
    back = pass (f);
    g_assert_cmpuint (count_events (back, RTOP_EVENT_COLLECTION_RECOVERED, "nvidia0", 0), ==, 1);
    g_assert_cmpuint (count_events (back, RTOP_EVENT_DEVICE_ADDED, "nvidia0", 0), ==, 0);
    all = port_of (back, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
    g_assert_true (all->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  }

  /* GPU 1 falls off the bus. */
  script (f, "gpu.1.lost 1");
  s4 = pass (f);
  g_assert_null (rtop_snapshot_find_device (s4, "nvidia1"));
  g_assert_cmpuint (count_events (s4, RTOP_EVENT_DEVICE_REMOVED, "nvidia1", 0), ==, 1);
}

/* The snapshot JSON says what a GPU is and that throughput is GPU-wide. */
static void
test_nvml_json (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonObject *dev = NULL, *gpu, *port0, *port1;
  JsonArray *devices, *ports;

  two_nvidia_gpus (f);
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  snap = pass (f);
  text = rtop_json_snapshot_to_string (snap, FALSE);
  root = json_from_string (text, &error);
  g_assert_no_error (error);
  devices = json_object_get_array_member (json_node_get_object (root), "devices");
  for (guint i = 0; i < json_array_get_length (devices); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (devices, i), "name"),
                   "nvidia0") == 0)
      dev = json_array_get_object_element (devices, i);
  g_assert_nonnull (dev);
  g_assert_cmpstr (json_object_get_string_member (dev, "kind"), ==, "gpu");
  gpu = json_object_get_object_member (dev, "gpu");
  g_assert_cmpstr (json_object_get_string_member (gpu, "model"), ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpfloat (json_object_get_double_member (gpu, "temperature_c"), ==, 61);
  ports = json_object_get_array_member (dev, "ports");
  port0 = json_array_get_object_element (ports, 0);
  port1 = json_array_get_object_element (ports, 1);
  g_assert_cmpstr (json_object_get_string_member (port0, "scope"), ==, "gpu");
  g_assert_cmpstr (json_object_get_string_member (port1, "scope"), ==, "link");
  g_assert_cmpint (json_object_get_int_member (port1, "link"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (port1, "remote"), ==, "PCI 00000000:2A:00.0");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (port0, "gpu_counters"),
                                               "nvlink_data_tx_kib"), ==, 1000);
  g_assert_true (json_object_has_member (json_object_get_object_member (port0, "metrics"), "tx_bytes"));
}

/* A recording keeps the GPU links as ports, GPU-wide port included. */
static void
test_nvml_recording (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  g_autoptr(RtopCsvWriter) csv = rtop_csv_writer_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) csv_text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  RtopSnapshot *last;
  RtopPort *all, *link2;

  two_nvidia_gpus (f);
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = NULL;

      script (f, "gpu.0.tx_kib %u", 1000 + i * 500000);
      g_usleep (20000);
      snap = pass (f);
      rtop_trace_writer_add (writer, snap, text);
      rtop_csv_writer_add (csv, snap, csv_text);
    }
  rtop_trace_writer_end (writer, text);
  g_assert_nonnull (strstr (csv_text->str, "nvidia0"));

  bytes = g_bytes_new (text->str, text->len);
  rec = rtop_recording_load_bytes (bytes, 0, &error);
  g_assert_no_error (error);
  last = rtop_recording_get_snapshot (rec, rtop_recording_get_n_snapshots (rec) - 1);
  all = port_of (last, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
  g_assert_nonnull (all);
  g_assert_true (all->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  g_assert_cmpfloat (all->metrics[RTOP_METRIC_TX_BYTES].rate, >, 0);
  g_assert_cmpstr (all->link_layer, ==, "NVLink");
  link2 = port_of (last, "nvidia0", 3);
  g_assert_nonnull (link2);
  g_assert_cmpint (link2->state, ==, 1);
  g_assert_cmpint (rtop_snapshot_find_device (last, "nvidia0")->kind, ==, RTOP_DEVICE_KIND_GPU);
  g_assert_cmpstr (port_of (last, "nvidia0", 1)->remote, ==, "PCI 00000000:2A:00.0");
  g_assert_cmpstr (rtop_snapshot_find_device (last, "nvidia0")->gpu->model, ==, "NVIDIA H100 80GB HBM3");
  g_assert_cmpfloat (rtop_snapshot_find_device (last, "nvidia0")->gpu->temperature_c, ==, 61);
  g_assert_cmpfloat_with_epsilon (rtop_snapshot_find_device (last, "nvidia0")->gpu->power_w, 350.5, 1e-9);
  g_assert_cmpfloat (rtop_snapshot_find_device (last, "nvidia0")->gpu->memory_total_bytes, ==, 80000);

  /* The CSV keeps the links and their rates, port 0 included. */
  {
    g_autoptr(GBytes) csv_bytes = g_bytes_new (csv_text->str, csv_text->len);
    g_autoptr(RtopRecording) csv_rec = rtop_recording_load_bytes (csv_bytes, 0, &error);
    RtopSnapshot *csv_last;

    g_assert_no_error (error);
    csv_last = rtop_recording_get_snapshot (csv_rec, rtop_recording_get_n_snapshots (csv_rec) - 1);
    all = port_of (csv_last, "nvidia0", RTOP_GPU_ALL_LINKS_PORT);
    g_assert_nonnull (all);
    g_assert_true (all->metrics[RTOP_METRIC_TX_BYTES].present);
    g_assert_cmpint (rtop_snapshot_find_device (csv_last, "nvidia0")->kind, ==, RTOP_DEVICE_KIND_GPU);
    g_assert_cmpint (port_of (csv_last, "nvidia0", 3)->state, ==, 1);
  }
}

/* The metrics endpoint: GPU links are ports with their totals, the GPU's
 * gauges families of their own, even when RDMA is missing. */
static void
test_nvml_exporter (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopOpenMetrics) om = rtop_openmetrics_new (NULL);
  g_autoptr(GBytes) bytes = NULL;
  const char *text;

  two_nvidia_gpus (f);
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(RtopSnapshot) snap = NULL;

      script (f, "gpu.0.tx_kib %u", 1000 + i * 500);
      snap = pass (f);
      g_assert_cmpint (snap->status, ==, RTOP_STATUS_NO_NETLINK);
      rtop_openmetrics_update (om, snap, 0.01);
    }
  bytes = rtop_openmetrics_format (om, RTOP_EXPOSITION_OPENMETRICS, NULL);
  text = g_bytes_get_data (bytes, NULL);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "\nrdmatop_up 0\n"));
  g_assert_nonnull (strstr (text, "reason=\"no-netlink\""));
  g_assert_nonnull (strstr (text, "\nrdmatop_gpu_info{device=\"nvidia0\",vendor=\"NVIDIA\","
                                  "model=\"NVIDIA H100 80GB HBM3\""));
  g_assert_nonnull (strstr (text, "\nrdmatop_gpu_temperature_celsius{device=\"nvidia0\"} 61\n"));
  g_assert_nonnull (strstr (text, "\nrdmatop_gpu_utilisation_ratio{device=\"nvidia0\"} 0.87\n"));
  g_assert_nonnull (strstr (text, "\nrdmatop_port_transmit_bytes_total{device=\"nvidia0\",port=\"0\"} 1536000\n"));
  g_assert_nonnull (strstr (text, "\nrdmatop_gpu_link_info{device=\"nvidia0\",port=\"1\",scope=\"link\","
                                  "link=\"0\",remote=\"PCI 00000000:2A:00.0\"} 1\n"));
  g_assert_nonnull (strstr (text, "\nrdmatop_gpu_link_info{device=\"nvidia0\",port=\"0\",scope=\"gpu\"} 1\n"));
  g_assert_true (g_str_has_suffix (text, "# EOF\n"));
}

/* A library without the newer functions: links from the older calls, no
 * throughput, no power; nothing else lost. */
static void
test_nvml_old_library (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;
  RtopDevice *dev;

  two_nvidia_gpus (f);
  start (f, g_getenv ("RDMATOP_TEST_FAKE_NVML_OLD"), "/nonexistent/libamd_smi.so");
  snap = pass (f);
  dev = rtop_snapshot_find_device (snap, "nvidia0");
  g_assert_nonnull (dev);
  g_assert_true (isnan (dev->gpu->power_w));
  g_assert_cmpfloat (dev->gpu->temperature_c, ==, 61);
  g_assert_cmpuint (dev->ports->len, ==, 4);
  g_assert_false (port_of (snap, "nvidia0", RTOP_GPU_ALL_LINKS_PORT)->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_cmpint (port_of (snap, "nvidia0", 3)->state, ==, 1);
}

/* Strings from the library must end within their buffer. */
static void
test_nvml_bad_strings (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;

  two_nvidia_gpus (f);
  script (f, "gpu.0.name_unterminated 1");
  script (f, "gpu.1.name \xff\xfe bad");
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  snap = pass (f);
  g_assert_null (rtop_snapshot_find_device (snap, "nvidia0")->gpu->model);
  g_assert_null (rtop_snapshot_find_device (snap, "nvidia1")->gpu->model);
}

/* No library, no driver, a failing library: one sentence, no crash. */
static void
test_gpu_states (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) missing = NULL;
  g_autoptr(RtopSnapshot) no_driver = NULL;
  g_autoptr(RtopSnapshot) failing = NULL;
  g_autoptr(RtopSnapshot) none = NULL;
  g_autoptr(RtopSnapshot) off = NULL;
  RtopCollectorOptions options = { .no_processes = TRUE, .no_gpu = TRUE };

  start (f, "/nonexistent/libnvidia-ml.so.1", "/nonexistent/libamd_smi.so");
  missing = pass (f);
  g_assert_cmpuint (missing->devices->len, ==, 0);
  g_assert_nonnull (strstr (missing->gpu_status, "/nonexistent/libnvidia-ml.so.1"));
  g_clear_pointer (&f->collector, rtop_collector_free);

  script (f, "init_error 9");
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  no_driver = pass (f);
  g_assert_nonnull (strstr (no_driver->gpu_status, "No NVIDIA driver on this machine"));
  g_clear_pointer (&f->collector, rtop_collector_free);

  script (f, "init_error 0");
  script (f, "count_error 999");
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  failing = pass (f);
  g_assert_nonnull (strstr (failing->gpu_status, "Unknown Error"));
  g_clear_pointer (&f->collector, rtop_collector_free);

  script (f, "count_error 0");
  script (f, "gpus 0");
  start (f, fake_nvml (), "/nonexistent/libamd_smi.so");
  none = pass (f);
  g_assert_nonnull (strstr (none->gpu_status, "lists no GPU"));
  g_clear_pointer (&f->collector, rtop_collector_free);

  f->collector = rtop_collector_new_for_nl (&options, NULL);
  off = pass (f);
  g_assert_null (off->gpu_status);
  g_assert_cmpuint (off->devices->len, ==, 0);
}

/* Without the system's NVML (as on machines without NVIDIA GPUs), the
 * sentence a user sees. */
static gboolean system_has_nvml;

static void
test_gpu_system_absent (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;

  if (system_has_nvml)
    {
      g_test_skip ("This machine has NVML");
      return;
    }
  g_unsetenv ("RDMATOP_NVML_LIBRARY");
  start (f, NULL, "/nonexistent/libamd_smi.so");
  snap = pass (f);
  g_assert_nonnull (strstr (snap->gpu_status, "No NVIDIA driver on this machine."));
}

static void
two_amd_gpus (Fixture *f, guint version)
{
  script (f, "amd.version %u", version);
  script (f, "amd.gpus 2");
  script (f, "amd.gpu.0.name AMD Instinct MI300X");
  script (f, "amd.gpu.0.uuid 5f0a-00ff");
  script (f, "amd.gpu.0.util 40");
  script (f, "amd.gpu.0.mem_total 1000");
  script (f, "amd.gpu.0.mem_used 10");
  script (f, "amd.gpu.0.links 3");
  script (f, "amd.gpu.0.link.1.type 2");   /* a PCIe path, not XGMI */
  script (f, "amd.gpu.0.link.0.read 100");
  script (f, "amd.gpu.0.link.0.write 200");
  script (f, "amd.gpu.0.link.2.bit_rate 0");
  script (f, "amd.gpu.0.ecc_ce 1");
  script (f, "amd.gpu.1.name AMD Instinct MI300X");
  script (f, "amd.gpu.1.links 1");
}

static void
check_amd (Fixture *f, guint version)
{
  g_autoptr(RtopSnapshot) first = NULL;
  g_autoptr(RtopSnapshot) second = NULL;
  RtopDevice *dev;
  RtopPort *link0, *link1;

  two_amd_gpus (f, version);
  start (f, "/nonexistent/libnvidia-ml.so.1", g_getenv ("RDMATOP_TEST_FAKE_AMDSMI"));
  first = pass (f);
  g_assert_null (first->gpu_status);
  dev = rtop_snapshot_find_device (first, "amdgpu0");
  g_assert_nonnull (dev);
  g_assert_cmpstr (dev->provider, ==, "amdsmi");
  g_assert_cmpstr (dev->gpu->model, ==, "AMD Instinct MI300X");
  g_assert_cmpstr (dev->gpu->pci_bus_id, ==, "0000:21:00.0");
  g_assert_cmpfloat (dev->gpu->utilisation_pct, ==, 40);
  g_assert_cmpuint (dev->ports->len, ==, 3);   /* all links + 2 XGMI links */
  link0 = port_of (first, "amdgpu0", 1);
  g_assert_cmpstr (link0->link_layer, ==, "XGMI");
  g_assert_cmpstr (link0->remote, ==, "GPU 0000:22:00.0");
  g_assert_cmpuint (link0->metrics[RTOP_METRIC_RX_BYTES].value, ==, 100 * 1024);
  g_assert_cmpuint (link0->metrics[RTOP_METRIC_TX_BYTES].value, ==, 200 * 1024);
  link1 = port_of (first, "amdgpu0", 2);
  g_assert_cmpint (link1->state, ==, 1);       /* speed 0: down */
  g_assert_nonnull (rtop_counters_find (port_of (first, "amdgpu0", 0)->counters,
                                        "xgmi_ecc_correctable"));

  script (f, "amd.gpu.0.link.0.write 2200");
  script (f, "amd.gpu.0.ecc_ce 4");
  g_usleep (20000);
  second = pass (f);
  link0 = port_of (second, "amdgpu0", 1);
  g_assert_true (link0->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  g_assert_cmpfloat (link0->metrics[RTOP_METRIC_TX_BYTES].rate, >, 0);
  g_assert_cmpuint (count_events (second, RTOP_EVENT_COUNTER_RISING, "amdgpu0", 0), ==, 1);
}

static void
test_amdsmi_24 (Fixture *f, gconstpointer data)
{
  check_amd (f, 24);
}

static void
test_amdsmi_26 (Fixture *f, gconstpointer data)
{
  check_amd (f, 26);
}

/* A release whose link layout is unknown: GPUs, but no links read. */
static void
test_amdsmi_unknown_release (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;

  two_amd_gpus (f, 99);
  start (f, "/nonexistent/libnvidia-ml.so.1", g_getenv ("RDMATOP_TEST_FAKE_AMDSMI"));
  snap = pass (f);
  /* The GPU-wide ECC counts, in a port whose state is unknown. */
  g_assert_cmpuint (rtop_snapshot_find_device (snap, "amdgpu0")->ports->len, ==, 1);
  g_assert_cmpint (port_of (snap, "amdgpu0", RTOP_GPU_ALL_LINKS_PORT)->state, ==, 0);
}

/* A GPU without NVLink or XGMI: its gauges, no rows. */
static void
test_gpu_without_links (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;

  script (f, "gpus 1");
  script (f, "gpu.0.name NVIDIA L4");
  script (f, "gpu.0.temp 40");
  script (f, "gpu.0.links 0");
  script (f, "amd.version 24");
  script (f, "amd.gpus 1");
  script (f, "amd.gpu.0.links 0");
  start (f, fake_nvml (), g_getenv ("RDMATOP_TEST_FAKE_AMDSMI"));
  snap = pass (f);
  g_assert_cmpuint (rtop_snapshot_find_device (snap, "nvidia0")->ports->len, ==, 0);
  g_assert_cmpfloat (rtop_snapshot_find_device (snap, "nvidia0")->gpu->temperature_c, ==, 40);
  g_assert_cmpuint (rtop_snapshot_find_device (snap, "amdgpu0")->ports->len, ==, 0);
  g_assert_null (snap->gpu_status);
}

int
main (int argc, char **argv)
{
  void *system;

  g_test_init (&argc, &argv, NULL);
  /* Before any stand-in is loaded: a loaded library answers for its soname. */
  system = dlopen ("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  system_has_nvml = system != NULL;
  if (system != NULL)
    dlclose (system);

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/gpu/nvml/snapshot", test_nvml_snapshot);
  ADD ("/gpu/nvml/events", test_nvml_events);
  ADD ("/gpu/nvml/json", test_nvml_json);
  ADD ("/gpu/nvml/recording", test_nvml_recording);
  ADD ("/gpu/nvml/exporter", test_nvml_exporter);
  ADD ("/gpu/nvml/old-library", test_nvml_old_library);
  ADD ("/gpu/nvml/bad-strings", test_nvml_bad_strings);
  ADD ("/gpu/states", test_gpu_states);
  ADD ("/gpu/system-absent", test_gpu_system_absent);
  ADD ("/gpu/amdsmi/release-24", test_amdsmi_24);
  ADD ("/gpu/amdsmi/release-26", test_amdsmi_26);
  ADD ("/gpu/amdsmi/unknown-release", test_amdsmi_unknown_release);
  ADD ("/gpu/without-links", test_gpu_without_links);
  return g_test_run ();
}
