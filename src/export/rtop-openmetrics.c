/* rtop-openmetrics.c: the exporter's exposition, written from the latest
 * snapshot and the totals that rtop-openmetrics-totals.c keeps.
 *
 * The text is written family by family, each family's samples together, as
 * both formats require; a family with no samples is not written at all. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rtop-openmetrics-private.h"
#include "rtop-openmetrics-totals-private.h"
#include "rtop-port-key.h"
#include "rtop-saturate.h"
#include "rtop-text.h"

/* ---- Reading the totals ---- */

RtopSnapshot *
rtop_openmetrics_get_latest (RtopOpenMetrics *self)
{
  return self->latest;
}

static PortTotals *
lookup_port (RtopOpenMetrics *self, const char *device, guint32 port)
{
  char key[RTOP_PORT_KEY_SIZE];

  return g_hash_table_lookup (self->ports, rtop_port_key (key, device, port));
}

static const CounterTotal *
lookup_counter (PortTotals *pt, guint i, const RtopCounter *c)
{
  g_autofree char *key = NULL;

  if (i < pt->order->len)
    {
      const CounterTotal *ct = g_ptr_array_index (pt->order, i);

      if (ct->source == c->source && strcmp (ct->name, c->name) == 0)
        return ct;
    }
  key = g_strdup_printf ("%d:%s", c->source, c->name);
  return g_hash_table_lookup (pt->counters, key);
}

gboolean
rtop_openmetrics_get_counter_total (RtopOpenMetrics *self, const char *device, guint32 port,
                                    const char *counter, RtopCounterSource source,
                                    guint64 *total)
{
  PortTotals *pt = lookup_port (self, device, port);
  g_autofree char *key = g_strdup_printf ("%d:%s", source, counter);
  const CounterTotal *ct = pt != NULL ? g_hash_table_lookup (pt->counters, key) : NULL;

  if (ct == NULL)
    return FALSE;
  *total = ct->total;
  return TRUE;
}

gboolean
rtop_openmetrics_get_metric_total (RtopOpenMetrics *self, const char *device, guint32 port,
                                   RtopMetricId metric, guint64 *total)
{
  PortTotals *pt = lookup_port (self, device, port);

  if (pt == NULL || metric >= RTOP_METRIC_N || !pt->metric_seen[metric])
    return FALSE;
  *total = pt->metric_total[metric];
  return TRUE;
}

/* ---- Writing ---- */

typedef enum { FAMILY_COUNTER, FAMILY_GAUGE, FAMILY_INFO } FamilyType;

typedef struct {
  const char *name;          /* without _total / _info */
  FamilyType type;
  const char *unit;          /* OpenMetrics UNIT, or NULL; the name ends with it */
  const char *help;
} Family;

typedef struct {
  GString *out;
  RtopExposition format;
  const Family *current;
  gboolean in_labels;
} Writer;

static void
append_escaped (GString *out, const char *s, gboolean quote)
{
  g_autofree char *valid = NULL;

  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  for (; *s != '\0'; s++)
    {
      if (*s == '\\')
        g_string_append (out, "\\\\");
      else if (*s == '\n')
        g_string_append (out, "\\n");
      else if (*s == '"' && quote)
        g_string_append (out, "\\\"");
      else
        g_string_append_c (out, *s);
    }
}

static const char *
family_suffix (const Family *f)
{
  return f->type == FAMILY_COUNTER ? "_total" : f->type == FAMILY_INFO ? "_info" : "";
}

static void
write_header (Writer *w, const Family *f)
{
  static const char * const om_types[] = { "counter", "gauge", "info" };
  gboolean om = w->format == RTOP_EXPOSITION_OPENMETRICS;
  /* The 0.0.4 text names the family by its samples' name, and has no info type. */
  const char *suffix = om ? "" : family_suffix (f);

  g_string_append_printf (w->out, "# HELP %s%s ", f->name, suffix);
  append_escaped (w->out, f->help, om);
  g_string_append_printf (w->out, "\n# TYPE %s%s %s\n", f->name, suffix,
                          om ? om_types[f->type] : f->type == FAMILY_COUNTER ? "counter" : "gauge");
  if (om && f->unit != NULL)
    g_string_append_printf (w->out, "# UNIT %s %s\n", f->name, f->unit);
}

static void
sample_begin (Writer *w, const Family *f)
{
  if (w->current != f)
    write_header (w, f);
  w->current = f;
  g_string_append (w->out, f->name);
  g_string_append (w->out, family_suffix (f));
  w->in_labels = FALSE;
}

static void
label (Writer *w, const char *name, const char *value)
{
  if (value == NULL)
    return;
  g_string_append_c (w->out, w->in_labels ? ',' : '{');
  w->in_labels = TRUE;
  g_string_append (w->out, name);
  g_string_append (w->out, "=\"");
  append_escaped (w->out, value, TRUE);
  g_string_append_c (w->out, '"');
}

static void
label_uint (Writer *w, const char *name, guint64 value)
{
  char digits[24];

  g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, value);
  label (w, name, digits);
}

static void
end_labels (Writer *w)
{
  if (w->in_labels)
    g_string_append_c (w->out, '}');
  w->in_labels = FALSE;
}

static void
value_uint (Writer *w, guint64 v)
{
  end_labels (w);
  g_string_append_printf (w->out, " %" G_GUINT64_FORMAT "\n", v);
}

static void
value_double (Writer *w, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  end_labels (w);
  if (isnan (v))
    g_string_append (w->out, " NaN\n");
  else if (isinf (v))
    g_string_append (w->out, v > 0 ? " +Inf\n" : " -Inf\n");
  else if (v == floor (v) && fabs (v) < 9007199254740992.0)
    g_string_append_printf (w->out, " %" G_GINT64_FORMAT "\n", (gint64) v);
  else
    {
      /* The shortest of the usual widths that reads back as the same double. */
      g_ascii_formatd (buf, sizeof buf, "%.15g", v);
      if (g_ascii_strtod (buf, NULL) != v)
        g_ascii_dtostr (buf, sizeof buf, v);
      g_string_append_printf (w->out, " %s\n", buf);
    }
}

/* ---- Families ---- */

static const Family fam_exporter = {
  "rdmatop_exporter", FAMILY_INFO, NULL,
  "The rdmatop exporter: its version and the host it runs on." };
static const Family fam_up = {
  "rdmatop_up", FAMILY_GAUGE, NULL,
  "1 when the latest collection pass succeeded and is recent, 0 otherwise "
  "(rdmatop_collection_error_info says why)." };
static const Family fam_collection_error = {
  "rdmatop_collection_error", FAMILY_INFO, NULL,
  "Why the collection is failing: reason (no-pass-yet, no-netlink, permission, error, stale) "
  "and a sentence for people." };
static const Family fam_passes = {
  "rdmatop_exporter_passes", FAMILY_COUNTER, NULL,
  "Collection passes the exporter received, failed ones included." };
static const Family fam_failed_passes = {
  "rdmatop_exporter_failed_passes", FAMILY_COUNTER, NULL,
  "Passes in which the collection as a whole failed." };
static const Family fam_port_read_errors = {
  "rdmatop_exporter_port_read_errors", FAMILY_COUNTER, NULL,
  "Port reads that failed, over all passes (the port's data is then left out)." };
static const Family fam_pass_seconds = {
  "rdmatop_exporter_pass_duration_seconds", FAMILY_COUNTER, "seconds",
  "Time from the start of each pass to its arrival at the exporter, summed over passes." };
static const Family fam_last_pass_seconds = {
  "rdmatop_exporter_last_pass_duration_seconds", FAMILY_GAUGE, "seconds",
  "Time from the start of the latest pass to its arrival at the exporter." };
static const Family fam_last_pass_time = {
  "rdmatop_exporter_last_pass_timestamp_seconds", FAMILY_GAUGE, "seconds",
  "Wall-clock time (Unix epoch) at which the latest pass started." };
static const Family fam_interval = {
  "rdmatop_exporter_sample_interval_seconds", FAMILY_GAUGE, "seconds",
  "Seconds between collection passes; scrapes read the latest pass and never start one." };
static const Family fam_events = {
  "rdmatop_health_events", FAMILY_COUNTER, NULL,
  "Health events rdmatop raised, by kind (one per condition, when it starts)." };
static const Family fam_device = {
  "rdmatop_device", FAMILY_INFO, NULL,
  "An RDMA device: provider, node type, protocol, firmware and node GUID." };
static const Family fam_device_counter = {
  "rdmatop_device_raw", FAMILY_COUNTER, NULL,
  "A device-level counter under the kernel's name (sysfs <device>/hw_counters), "
  "the kernel's value corrected for 32-bit wraps." };
static const Family fam_port = {
  "rdmatop_port", FAMILY_INFO, NULL,
  "An RDMA port: its netdev, link layer and link rate as the kernel words it." };
static const Family fam_port_state = {
  "rdmatop_port_state", FAMILY_GAUGE, NULL,
  "Logical port state: 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER." };
static const Family fam_port_phys_state = {
  "rdmatop_port_physical_state", FAMILY_GAUGE, NULL,
  "Physical port state: 0 unknown, 1 SLEEP, 2 POLLING, 3 DISABLED, 4 TRAINING, 5 LINK_UP, "
  "6 LINK_ERROR_RECOVERY, 7 PHY_TEST." };
static const Family fam_port_rate = {
  "rdmatop_port_link_rate_bytes_per_second", FAMILY_GAUGE, "bytes_per_second",
  "Link rate the port reports (sysfs rate), in bytes per second." };
static const Family fam_port_read_error = {
  "rdmatop_port_read_error", FAMILY_INFO, NULL,
  "The port's counters could not be read in the latest pass, and why." };
static const Family fam_metric_source = {
  "rdmatop_port_metric_source", FAMILY_INFO, NULL,
  "Which kernel counters each canonical metric of a port is made of." };
static const Family fam_port_counter = {
  "rdmatop_port_raw", FAMILY_COUNTER, NULL,
  "Every raw port counter under the kernel's name and where it was read (netlink: what "
  "`rdma statistic show` prints; sysfs: the port's counters/ directory; netdev: the attached "
  "netdev).  The kernel's value, unscaled, until a 32-bit counter wraps; then it goes on "
  "counting instead of going back." };

static const Family fam_port_counter_saturated = {
  "rdmatop_port_counter_saturated", FAMILY_GAUGE, NULL,
  "1 for an IB PMA counter stuck at the maximum of its width: the adapter no longer counts "
  "it, so it and the metrics made of it are left out (their rate is unknown, not 0) until "
  "the port's counters are cleared." };

/* The canonical metrics, per RtopMetricId; ERRORS is written by class. */
static const Family fam_metric[RTOP_METRIC_N] = {
  [RTOP_METRIC_TX_BYTES] = { "rdmatop_port_transmit_bytes", FAMILY_COUNTER, "bytes",
    "Bytes transmitted by the port (rdmatop_port_metric_source_info says from which counters)." },
  [RTOP_METRIC_RX_BYTES] = { "rdmatop_port_receive_bytes", FAMILY_COUNTER, "bytes",
    "Bytes received by the port." },
  [RTOP_METRIC_TX_PACKETS] = { "rdmatop_port_transmit_packets", FAMILY_COUNTER, NULL,
    "Packets transmitted by the port." },
  [RTOP_METRIC_RX_PACKETS] = { "rdmatop_port_receive_packets", FAMILY_COUNTER, NULL,
    "Packets received by the port." },
  [RTOP_METRIC_DROPS] = { "rdmatop_port_dropped_packets", FAMILY_COUNTER, NULL,
    "Packets the port dropped (all drop counters the provider has, summed)." },
  [RTOP_METRIC_RDMA_READ_BYTES] = { "rdmatop_port_rdma_read_bytes", FAMILY_COUNTER, "bytes",
    "Bytes moved by RDMA reads." },
  [RTOP_METRIC_RDMA_WRITE_BYTES] = { "rdmatop_port_rdma_write_bytes", FAMILY_COUNTER, "bytes",
    "Bytes moved by RDMA writes." },
  [RTOP_METRIC_RETRANSMITS] = { "rdmatop_port_retransmits", FAMILY_COUNTER, NULL,
    "Retransmissions (packets or retry events, as the provider counts them)." },
  [RTOP_METRIC_ERRORS] = { "rdmatop_port_errors", FAMILY_COUNTER, NULL,
    "Errors by class: link (symbol errors, link downed, bad packets on the wire), transport "
    "(sequence errors, ack timeouts, RNR retries exceeded), operation (failed work requests)." },
  [RTOP_METRIC_CONGESTION] = { "rdmatop_port_congestion_events", FAMILY_COUNTER, NULL,
    "Congestion signals: CNPs sent and handled, ECN-marked packets." },
};

static const Family fam_proc[] = {
  { "rdmatop_process_queue_pairs", FAMILY_GAUGE, NULL,
    "Queue pairs a process holds on a device (only with --processes)." },
  { "rdmatop_process_contexts", FAMILY_GAUGE, NULL,
    "Verbs contexts a process has open on a device." },
  { "rdmatop_process_memory_regions", FAMILY_GAUGE, NULL,
    "Memory regions a process registered on a device." },
  { "rdmatop_process_registered_memory_bytes", FAMILY_GAUGE, "bytes",
    "Bytes of memory a process registered on a device." },
};
static const Family fam_proc_dropped = {
  "rdmatop_exporter_process_series_dropped", FAMILY_GAUGE, NULL,
  "Process series left out of this scrape by the cap (--max-processes)." };

/* GPUs (NVIDIA through NVML, AMD through AMD SMI): their links are ports
 * like any other; these are the GPU's own gauges and what a link is. */
static const Family fam_gpu = {
  "rdmatop_gpu", FAMILY_INFO, NULL,
  "A GPU whose interconnect links (NVLink, XGMI) are the device's ports: vendor, model, "
  "UUID and PCI address.  Port 0 holds what the GPU library counts for the whole GPU "
  "(NVLink throughput is a GPU-wide total); port N is link N-1." };
static const Family fam_gpu_link = {
  "rdmatop_gpu_link", FAMILY_INFO, NULL,
  "A GPU port: scope gpu (port 0, GPU-wide totals) or link (with the library's link "
  "number and its other end)." };
static const Family fam_gpu_utilisation = {
  "rdmatop_gpu_utilisation_ratio", FAMILY_GAUGE, "ratio",
  "Share of time the GPU's compute engines were busy, 0 to 1." };
static const Family fam_gpu_memory_used = {
  "rdmatop_gpu_memory_used_bytes", FAMILY_GAUGE, "bytes", "GPU memory in use." };
static const Family fam_gpu_memory_total = {
  "rdmatop_gpu_memory_total_bytes", FAMILY_GAUGE, "bytes", "GPU memory in all." };
static const Family fam_gpu_temperature = {
  "rdmatop_gpu_temperature_celsius", FAMILY_GAUGE, "celsius", "GPU temperature." };
static const Family fam_gpu_power = {
  "rdmatop_gpu_power_watts", FAMILY_GAUGE, "watts", "GPU power draw." };

static const char *
status_reason (RtopStatus status)
{
  switch (status)
    {
    case RTOP_STATUS_NO_NETLINK: return "no-netlink";
    case RTOP_STATUS_PERMISSION: return "permission";
    case RTOP_STATUS_OK: return "ok";
    case RTOP_STATUS_ERROR:
    default: return "error";
    }
}

static void
write_exporter (RtopOpenMetrics *self, Writer *w, const char *reason, const char *message)
{
  const RtopSnapshot *snap = self->latest;

  sample_begin (w, &fam_exporter);
  label (w, "version", self->options.version);
  label (w, "host", self->options.host);
  value_uint (w, 1);
  sample_begin (w, &fam_up);
  value_uint (w, reason == NULL ? 1 : 0);
  if (reason != NULL)
    {
      sample_begin (w, &fam_collection_error);
      label (w, "reason", reason);
      label (w, "message", message != NULL ? message : "");
      value_uint (w, 1);
    }
  sample_begin (w, &fam_passes);
  value_uint (w, self->passes);
  sample_begin (w, &fam_failed_passes);
  value_uint (w, self->failed_passes);
  sample_begin (w, &fam_port_read_errors);
  value_uint (w, self->port_read_errors);
  sample_begin (w, &fam_pass_seconds);
  value_double (w, self->pass_seconds_total);
  if (self->last_pass_seconds >= 0)
    {
      sample_begin (w, &fam_last_pass_seconds);
      value_double (w, self->last_pass_seconds);
    }
  if (snap != NULL)
    {
      sample_begin (w, &fam_last_pass_time);
      value_double (w, snap->realtime_us / (double) G_USEC_PER_SEC);
      if (snap->interval_s > 0)
        {
          sample_begin (w, &fam_interval);
          value_double (w, snap->interval_s);
        }
    }
  /* Every kind, zeros too, so rate() and increase() have a series from the start. */
  for (guint k = 0; k < G_N_ELEMENTS (self->events); k++)
    {
      sample_begin (w, &fam_events);
      label (w, "kind", rtop_event_kind_to_string (k));
      value_uint (w, self->events[k]);
    }
}

static void
port_labels (Writer *w, const RtopDevice *dev, const RtopPort *port)
{
  label (w, "device", dev->name);
  label_uint (w, "port", port->index);
}

typedef void (*PortWriter) (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                            const RtopPort *port, gconstpointer data);

/* Calls fn for every port whose counters were read this pass (or every
 * port, with all). */
static void
foreach_port (RtopOpenMetrics *self, Writer *w, gboolean all, PortWriter fn, gconstpointer data)
{
  for (guint i = 0; i < self->latest->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (self->latest->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);

          if (all || port->error == NULL)
            fn (self, w, dev, port, data);
        }
    }
}

static void
write_port_info (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                 const RtopPort *port, gconstpointer data)
{
  sample_begin (w, &fam_port);
  port_labels (w, dev, port);
  label (w, "netdev", port->netdev);
  label (w, "link_layer", port->link_layer);
  label (w, "rate", port->rate_text);
  value_uint (w, 1);
}

static void
write_port_state (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                  const RtopPort *port, gconstpointer data)
{
  const Family *f = data;

  sample_begin (w, f);
  port_labels (w, dev, port);
  if (f == &fam_port_state)
    value_uint (w, port->state);
  else if (f == &fam_port_phys_state)
    value_uint (w, port->phys_state);
  else
    value_double (w, port->rate_gbps * 1e9 / 8);
}

static void
write_port_rate (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                 const RtopPort *port, gconstpointer data)
{
  if (port->rate_gbps > 0 && isfinite (port->rate_gbps))
    write_port_state (self, w, dev, port, data);
}

static void
write_port_error (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                  const RtopPort *port, gconstpointer data)
{
  if (port->error == NULL)
    return;
  sample_begin (w, &fam_port_read_error);
  port_labels (w, dev, port);
  label (w, "message", port->error);
  value_uint (w, 1);
}

static void
write_metric (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
              const RtopPort *port, gconstpointer data)
{
  RtopMetricId m = GPOINTER_TO_UINT (data);
  guint64 total;

  /* A stuck total would read as a rate of 0: no sample is the truth. */
  if (port->metrics[m].saturated ||
      !rtop_openmetrics_get_metric_total (self, dev->name, port->index, m, &total))
    return;
  sample_begin (w, &fam_metric[m]);
  port_labels (w, dev, port);
  value_uint (w, total);
}

static void
write_errors (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
              const RtopPort *port, gconstpointer data)
{
  static const struct { RtopMetricId metric; const char *klass; } classes[] = {
    { RTOP_METRIC_LINK_ERRORS, "link" },
    { RTOP_METRIC_TRANSPORT_ERRORS, "transport" },
    { RTOP_METRIC_OPERATION_ERRORS, "operation" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (classes); i++)
    {
      guint64 total;

      if (port->metrics[classes[i].metric].saturated ||
          !rtop_openmetrics_get_metric_total (self, dev->name, port->index, classes[i].metric,
                                              &total))
        continue;
      sample_begin (w, &fam_metric[RTOP_METRIC_ERRORS]);
      port_labels (w, dev, port);
      label (w, "class", classes[i].klass);
      value_uint (w, total);
    }
}

static void
write_metric_sources (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                      const RtopPort *port, gconstpointer data)
{
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      if (!port->metrics[m].present || port->metrics[m].source == NULL)
        continue;
      sample_begin (w, &fam_metric_source);
      port_labels (w, dev, port);
      label (w, "metric", rtop_metric_id_to_string (m));
      label (w, "source", port->metrics[m].source);
      value_uint (w, 1);
    }
}

static void
write_raw_counters (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                    const RtopPort *port, gconstpointer data)
{
  PortTotals *pt = lookup_port (self, dev->name, port->index);

  for (guint i = 0; pt != NULL && i < port->counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (port->counters, i);
      const CounterTotal *ct = lookup_counter (pt, i, c);

      if (ct == NULL || c->saturated)
        continue;
      sample_begin (w, &fam_port_counter);
      port_labels (w, dev, port);
      label (w, "counter", c->name);
      label (w, "source", rtop_counter_source_to_string (c->source));
      value_uint (w, ct->total);
    }
}

static void
write_saturated (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                 const RtopPort *port, gconstpointer data)
{
  for (guint i = 0; i < port->counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (port->counters, i);

      if (!c->saturated)
        continue;
      sample_begin (w, &fam_port_counter_saturated);
      port_labels (w, dev, port);
      label (w, "counter", c->name);
      value_uint (w, 1);
    }
}

static void
write_devices (RtopOpenMetrics *self, Writer *w)
{
  GPtrArray *devices = self->latest->devices;

  for (guint i = 0; i < devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (devices, i);

      sample_begin (w, &fam_device);
      label (w, "device", dev->name);
      label (w, "provider", dev->provider);
      label (w, "node_type", dev->node_type);
      label (w, "protocol", dev->protocol);
      label (w, "fw_version", dev->fw_version);
      label (w, "node_guid", dev->node_guid);
      value_uint (w, 1);
    }
  for (guint i = 0; i < devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (devices, i);
      PortTotals *pt = lookup_port (self, dev->name, 0);

      for (guint j = 0; pt != NULL && dev->counters != NULL && j < dev->counters->len; j++)
        {
          const RtopCounter *c = g_ptr_array_index (dev->counters, j);
          const CounterTotal *ct = lookup_counter (pt, j, c);

          if (ct == NULL)
            continue;
          sample_begin (w, &fam_device_counter);
          label (w, "device", dev->name);
          label (w, "counter", c->name);
          label (w, "source", rtop_counter_source_to_string (c->source));
          value_uint (w, ct->total);
        }
    }
}

static void
write_gpu_link (RtopOpenMetrics *self, Writer *w, const RtopDevice *dev,
                const RtopPort *port, gconstpointer data)
{
  if (dev->kind != RTOP_DEVICE_KIND_GPU)
    return;
  sample_begin (w, &fam_gpu_link);
  port_labels (w, dev, port);
  label (w, "scope", port->index == RTOP_GPU_ALL_LINKS_PORT ? "gpu" : "link");
  if (port->index != RTOP_GPU_ALL_LINKS_PORT)
    label_uint (w, "link", port->index - 1);
  label (w, "remote", port->remote);
  value_uint (w, 1);
}

/* One gauge over every GPU that knows it (NAN: the library cannot tell). */
static void
write_gpu_gauge (RtopOpenMetrics *self, Writer *w, const Family *f, gsize offset, double scale)
{
  for (guint i = 0; i < self->latest->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (self->latest->devices, i);
      double v;

      if (dev->gpu == NULL)
        continue;
      v = G_STRUCT_MEMBER (double, dev->gpu, offset);
      if (isnan (v))
        continue;
      sample_begin (w, f);
      label (w, "device", dev->name);
      value_double (w, v * scale);
    }
}

static void
write_gpus (RtopOpenMetrics *self, Writer *w)
{
  for (guint i = 0; i < self->latest->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (self->latest->devices, i);

      if (dev->gpu == NULL)
        continue;
      sample_begin (w, &fam_gpu);
      label (w, "device", dev->name);
      label (w, "vendor", dev->gpu->vendor);
      label (w, "model", dev->gpu->model);
      label (w, "uuid", dev->gpu->uuid);
      label (w, "pci_bus_id", dev->gpu->pci_bus_id);
      value_uint (w, 1);
    }
  foreach_port (self, w, TRUE, write_gpu_link, NULL);
  write_gpu_gauge (self, w, &fam_gpu_utilisation, G_STRUCT_OFFSET (RtopGpu, utilisation_pct), 0.01);
  write_gpu_gauge (self, w, &fam_gpu_memory_used, G_STRUCT_OFFSET (RtopGpu, memory_used_bytes), 1);
  write_gpu_gauge (self, w, &fam_gpu_memory_total, G_STRUCT_OFFSET (RtopGpu, memory_total_bytes), 1);
  write_gpu_gauge (self, w, &fam_gpu_temperature, G_STRUCT_OFFSET (RtopGpu, temperature_c), 1);
  write_gpu_gauge (self, w, &fam_gpu_power, G_STRUCT_OFFSET (RtopGpu, power_w), 1);
}

static void
write_ports (RtopOpenMetrics *self, Writer *w)
{
  foreach_port (self, w, TRUE, write_port_info, NULL);
  foreach_port (self, w, TRUE, write_port_state, &fam_port_state);
  foreach_port (self, w, TRUE, write_port_state, &fam_port_phys_state);
  foreach_port (self, w, TRUE, write_port_rate, &fam_port_rate);
  foreach_port (self, w, TRUE, write_port_error, NULL);
  foreach_port (self, w, FALSE, write_saturated, NULL);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      if (m == RTOP_METRIC_ERRORS)
        foreach_port (self, w, FALSE, write_errors, NULL);
      else if (m != RTOP_METRIC_LINK_ERRORS && m != RTOP_METRIC_TRANSPORT_ERRORS &&
               m != RTOP_METRIC_OPERATION_ERRORS)
        foreach_port (self, w, FALSE, write_metric, GUINT_TO_POINTER (m));
    }
  foreach_port (self, w, FALSE, write_metric_sources, NULL);
  foreach_port (self, w, FALSE, write_raw_counters, NULL);
}

/* ---- Processes ---- */

typedef struct {
  const char *device;
  gint32 pid;
  const char *comm;
  const RtopJob *job;        /* NULL unless the job label was asked for */
  guint64 values[G_N_ELEMENTS (fam_proc)];
} ProcRow;

static int
proc_row_weight_cmp (gconstpointer a, gconstpointer b)
{
  const ProcRow *x = a, *y = b;

  /* The heaviest users first: queue pairs, then registered memory. */
  if (x->values[0] != y->values[0])
    return x->values[0] > y->values[0] ? -1 : 1;
  if (x->values[3] != y->values[3])
    return x->values[3] > y->values[3] ? -1 : 1;
  return 0;
}

static int
proc_row_key_cmp (gconstpointer a, gconstpointer b)
{
  const ProcRow *x = a, *y = b;
  int c = rtop_natural_compare (x->device, y->device);

  if (c != 0)
    return c;
  if (x->pid != y->pid)
    return x->pid < y->pid ? -1 : 1;
  c = g_strcmp0 (x->comm, y->comm);
  if (c != 0 || x->job == NULL || y->job == NULL)
    return c != 0 ? c : (x->job != NULL) - (y->job != NULL);
  return g_strcmp0 (x->job->name, y->job->name);
}

/* One row per (device, pid, command, and job when labelled): rows that
 * would repeat a label set (owners outside our PID namespace, kernel
 * objects) are summed, since a scrape with a repeated series is rejected
 * whole. */
static GArray *
process_rows (const RtopSnapshot *snap, gboolean with_job)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (ProcRow));

  for (guint i = 0; i < snap->processes->len; i++)
    {
      const RtopProcess *p = g_ptr_array_index (snap->processes, i);

      for (guint j = 0; p->devices != NULL && j < p->devices->len; j++)
        {
          const RtopProcessDevice *pd = &g_array_index (p->devices, RtopProcessDevice, j);
          ProcRow row = { pd->device, p->pid, p->comm != NULL ? p->comm : "",
                          with_job ? &p->job : NULL,
                          { pd->qps, pd->contexts, pd->mrs, pd->mr_bytes } };

          g_array_append_val (rows, row);
        }
    }
  g_array_sort (rows, proc_row_key_cmp);
  for (guint i = 1; i < rows->len;)
    {
      ProcRow *prev = &g_array_index (rows, ProcRow, i - 1);
      ProcRow *row = &g_array_index (rows, ProcRow, i);

      if (proc_row_key_cmp (prev, row) != 0)
        {
          i++;
          continue;
        }
      for (guint v = 0; v < G_N_ELEMENTS (prev->values); v++)
        prev->values[v] = rtop_add_saturating (prev->values[v], row->values[v]);
      g_array_remove_index (rows, i);
    }
  return rows;
}

/* "job_name" (the job's name, "" when not known) and "job_kind": always
 * both, so every series of a family has the same label names.  Not "job":
 * Prometheus sets that label to the scrape job's name, and would rename
 * ours to "exported_job". */
static void
job_labels (Writer *w, const RtopJob *job)
{
  g_autofree char *name = rtop_text_make_safe (job->name, RTOP_JOB_TEXT_MAX);
  const char *kind = rtop_job_kind_to_string (job->kind);

  label (w, "job_name", name != NULL ? name : "");
  label (w, "job_kind", kind != NULL ? kind : "");
}

static void
write_processes (RtopOpenMetrics *self, Writer *w)
{
  g_autoptr(GArray) rows = process_rows (self->latest, self->options.job_label);
  guint dropped = 0;

  if (rows->len > self->options.max_process_series)
    {
      dropped = rows->len - self->options.max_process_series;
      g_array_sort (rows, proc_row_weight_cmp);
      g_array_set_size (rows, self->options.max_process_series);
      g_array_sort (rows, proc_row_key_cmp);
    }
  for (guint f = 0; f < G_N_ELEMENTS (fam_proc); f++)
    for (guint i = 0; i < rows->len; i++)
      {
        const ProcRow *row = &g_array_index (rows, ProcRow, i);
        g_autofree char *comm = rtop_text_make_safe (row->comm, RTOP_TEXT_COMM_MAX);

        sample_begin (w, &fam_proc[f]);
        label (w, "device", row->device);
        label_uint (w, "pid", (guint64) MAX (row->pid, 0));
        label (w, "comm", comm);
        if (row->job != NULL)
          job_labels (w, row->job);
        value_uint (w, row->values[f]);
      }
  sample_begin (w, &fam_proc_dropped);
  value_uint (w, dropped);
}

GBytes *
rtop_openmetrics_format (RtopOpenMetrics *self, RtopExposition format, const char *failure)
{
  Writer w = { g_string_sized_new (16384), format, NULL, FALSE };
  const RtopSnapshot *snap = self->latest;
  const char *reason = NULL, *message = NULL;
  gsize len;

  if (failure != NULL)
    {
      reason = snap != NULL ? "stale" : "no-pass-yet";
      message = failure;
    }
  else if (snap == NULL)
    reason = "no-pass-yet";
  else if (snap->status != RTOP_STATUS_OK)
    {
      reason = status_reason (snap->status);
      message = snap->status_message;
    }
  write_exporter (self, &w, reason, message);
  /* A pass without RDMA but with GPU links: rdmatop_up says RDMA is not
   * collected, and the GPU links are still exported. */
  if (reason == NULL || (failure == NULL && snap != NULL && rtop_snapshot_get_n_ports (snap) > 0))
    {
      write_devices (self, &w);
      write_ports (self, &w);
      write_gpus (self, &w);
      if (self->options.processes)
        write_processes (self, &w);
    }
  if (format == RTOP_EXPOSITION_OPENMETRICS)
    g_string_append (w.out, "# EOF\n");
  len = w.out->len;
  return g_bytes_new_take (g_string_free (w.out, FALSE), len);
}
