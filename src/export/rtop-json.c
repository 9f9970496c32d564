/* rtop-json.c: snapshot -> JSON. */
#include "config.h"

#include "rtop-health.h"
#include <math.h>

#include "rtop-json.h"
#include "rtop-text.h"

static void
add_string_or_null (JsonBuilder *b, const char *member, const char *value)
{
  json_builder_set_member_name (b, member);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_int (JsonBuilder *b, const char *member, gint64 value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_int_value (b, value);
}

/* JSON numbers are read as doubles by many tools; kernel counters are u64,
 * and json-glib stores gint64, so values above G_MAXINT64 are clamped. */
static void
add_u64 (JsonBuilder *b, const char *member, guint64 value)
{
  add_int (b, member, (gint64) MIN (value, (guint64) G_MAXINT64));
}

static void
add_counters (JsonBuilder *b, const char *member, GPtrArray *counters,
              RtopCounterSource source)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  for (guint i = 0; i < counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      if (c->source == source)
        add_u64 (b, c->name, c->value);
    }
  json_builder_end_object (b);
}

static void
add_rates (JsonBuilder *b, const char *member, GPtrArray *counters, RtopCounterSource source)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  for (guint i = 0; i < counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      if (c->source == source && c->has_rate)
        {
          json_builder_set_member_name (b, c->name);
          json_builder_add_double_value (b, c->rate);
        }
    }
  json_builder_end_object (b);
}

static void
add_metrics (JsonBuilder *b, const RtopPort *port)
{
  json_builder_set_member_name (b, "metrics");
  json_builder_begin_object (b);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const RtopMetric *metric = &port->metrics[m];

      if (!metric->present)
        continue;
      json_builder_set_member_name (b, rtop_metric_id_to_string (m));
      json_builder_begin_object (b);
      add_u64 (b, "value", metric->value);
      json_builder_set_member_name (b, "rate");
      if (metric->has_rate)
        json_builder_add_double_value (b, metric->rate);
      else
        json_builder_add_null_value (b);
      if (metric->saturated)
        {
          /* Why the rate is null: a part of it stopped counting. */
          json_builder_set_member_name (b, "saturated");
          json_builder_add_boolean_value (b, TRUE);
        }
      add_string_or_null (b, "source", metric->source);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

/* Each source gets its own pair of objects, so names never collide. */
static const struct {
  RtopCounterSource source;
  const char *counters;
  const char *rates;
} port_groups[] = {
  { RTOP_COUNTER_SOURCE_NETLINK, "counters", "rates" },
  { RTOP_COUNTER_SOURCE_SYSFS_HW, "sysfs_hw_counters", "sysfs_hw_rates" },
  { RTOP_COUNTER_SOURCE_SYSFS_PORT, "sysfs_counters", "sysfs_rates" },
  { RTOP_COUNTER_SOURCE_NETDEV, "netdev_counters", "netdev_rates" },
  { RTOP_COUNTER_SOURCE_GPU, "gpu_counters", "gpu_rates" },
};

static void
add_port (JsonBuilder *b, const RtopPort *port, gboolean gpu)
{
  json_builder_begin_object (b);
  add_int (b, "port", port->index);
  add_string_or_null (b, "state", rtop_port_state_to_string (port->state));
  add_string_or_null (b, "physical_state", rtop_port_phys_state_to_string (port->phys_state));
  add_string_or_null (b, "netdev", port->netdev);
  add_int (b, "netdev_index", port->netdev_index);
  add_string_or_null (b, "link_layer", port->link_layer);
  add_string_or_null (b, "rate", port->rate_text);
  json_builder_set_member_name (b, "rate_gbps");
  json_builder_add_double_value (b, port->rate_gbps);
  add_string_or_null (b, "error", port->error);
  if (gpu)
    {
      /* Port 0 holds GPU-wide totals; port N is the library's link N - 1. */
      add_string_or_null (b, "scope", port->index == RTOP_GPU_ALL_LINKS_PORT ? "gpu" : "link");
      if (port->index != RTOP_GPU_ALL_LINKS_PORT)
        add_int (b, "link", port->index - 1);
      add_string_or_null (b, "remote", port->remote);
    }
  /* The verdict at a glance, and whether the link rate above is live. */
  add_string_or_null (b, "health", rtop_port_health_to_string (port->health));
  add_string_or_null (b, "health_reason", port->health_reason);
  json_builder_set_member_name (b, "link_up");
  json_builder_add_boolean_value (b, rtop_health_port_is_up (port));
  json_builder_set_member_name (b, "elapsed_s");
  json_builder_add_double_value (b, port->elapsed_s);
  for (guint g = 0; g < G_N_ELEMENTS (port_groups); g++)
    {
      add_counters (b, port_groups[g].counters, port->counters, port_groups[g].source);
      add_rates (b, port_groups[g].rates, port->counters, port_groups[g].source);
    }
  add_metrics (b, port);
  json_builder_end_object (b);
}

/* A gauge NAN (unknown) is null. */
static void
add_gauge (JsonBuilder *b, const char *name, double value)
{
  json_builder_set_member_name (b, name);
  if (isnan (value))
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, value);
}

static void
add_gpu (JsonBuilder *b, const RtopDevice *dev)
{
  const RtopGpu *gpu = dev->gpu;

  json_builder_set_member_name (b, "gpu");
  json_builder_begin_object (b);
  add_string_or_null (b, "vendor", gpu->vendor);
  add_string_or_null (b, "model", gpu->model);
  add_string_or_null (b, "uuid", gpu->uuid);
  add_string_or_null (b, "pci_bus_id", gpu->pci_bus_id);
  add_gauge (b, "utilisation_pct", gpu->utilisation_pct);
  add_gauge (b, "memory_used_bytes", gpu->memory_used_bytes);
  add_gauge (b, "memory_total_bytes", gpu->memory_total_bytes);
  add_gauge (b, "temperature_c", gpu->temperature_c);
  add_gauge (b, "power_w", gpu->power_w);
  /* Which port holds what the library counts for the whole GPU (NVLink
   * throughput is one such total, never a link's own). */
  add_int (b, "all_links_port", RTOP_GPU_ALL_LINKS_PORT);
  json_builder_end_object (b);
}

static void
add_device (JsonBuilder *b, const RtopDevice *dev)
{
  json_builder_begin_object (b);
  add_int (b, "index", dev->index);
  add_string_or_null (b, "name", dev->name);
  add_string_or_null (b, "provider", dev->provider);
  add_string_or_null (b, "node_type", dev->node_type);
  add_string_or_null (b, "fw", dev->fw_version);
  add_string_or_null (b, "node_guid", dev->node_guid);
  add_string_or_null (b, "protocol", dev->protocol);
  add_string_or_null (b, "kind", rtop_device_kind_to_string (dev->kind));
  if (dev->gpu != NULL)
    add_gpu (b, dev);
  add_int (b, "port_count", dev->port_count);
  add_counters (b, "counters", dev->counters, RTOP_COUNTER_SOURCE_SYSFS_DEVICE);
  add_rates (b, "rates", dev->counters, RTOP_COUNTER_SOURCE_SYSFS_DEVICE);
  json_builder_set_member_name (b, "ports");
  json_builder_begin_array (b);
  for (guint i = 0; i < dev->ports->len; i++)
    add_port (b, g_ptr_array_index (dev->ports, i), dev->kind == RTOP_DEVICE_KIND_GPU);
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The QPs a process lists (at most RTOP_PROCESS_MAX_QPS), as `rdma res
 * show qp` names their type and state. */
static void
add_qps (JsonBuilder *b, const RtopProcess *proc)
{
  json_builder_set_member_name (b, "qp_list");
  json_builder_begin_array (b);
  for (guint i = 0; proc->qp_list != NULL && i < proc->qp_list->len; i++)
    {
      const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, i);

      json_builder_begin_object (b);
      add_string_or_null (b, "device", qp->device);
      add_int (b, "port", qp->port);
      add_int (b, "qpn", qp->lqpn);
      add_string_or_null (b, "type", rtop_qp_type_to_string (qp->type));
      add_string_or_null (b, "state", rtop_qp_state_to_string (qp->state));
      json_builder_set_member_name (b, "peer_qpn");
      if (qp->has_rqpn)
        json_builder_add_int_value (b, qp->rqpn);
      else
        json_builder_add_null_value (b);
      add_string_or_null (b, "peer_addr", qp->peer_addr);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_int (b, "qps_not_listed", proc->qps_not_listed);
  add_int (b, "qps_in_error", proc->qps_in_error);
}

/* "job": null, or its kind, id, detail (step, container or runtime) and name. */
static void
add_job (JsonBuilder *b, const RtopJob *job)
{
  g_autofree char *id = rtop_text_make_safe (job->id, RTOP_JOB_TEXT_MAX);
  g_autofree char *detail = rtop_text_make_safe (job->detail, RTOP_JOB_TEXT_MAX);
  g_autofree char *name = rtop_text_make_safe (job->name, RTOP_JOB_TEXT_MAX);

  json_builder_set_member_name (b, "job");
  if (job->kind == RTOP_JOB_NONE)
    {
      json_builder_add_null_value (b);
      return;
    }
  json_builder_begin_object (b);
  add_string_or_null (b, "kind", rtop_job_kind_to_string (job->kind));
  add_string_or_null (b, "id", id);
  add_string_or_null (b, "detail", detail);
  add_string_or_null (b, "name", name);
  json_builder_end_object (b);
}

static void
add_process (JsonBuilder *b, const RtopProcess *proc)
{
  char state[2] = { proc->state, 0 };
  /* JSON would carry them verbatim, and jq -r prints them to a terminal. */
  g_autofree char *comm = rtop_text_make_safe (proc->comm, RTOP_TEXT_COMM_MAX);
  g_autofree char *cmdline = rtop_text_make_safe (proc->cmdline, RTOP_TEXT_CMDLINE_MAX);
  g_autofree char *user = rtop_text_make_safe (proc->user, RTOP_TEXT_USER_MAX);

  json_builder_begin_object (b);
  add_int (b, "pid", proc->pid);
  add_string_or_null (b, "comm", comm);
  add_string_or_null (b, "cmdline", cmdline);
  add_string_or_null (b, "user", user);
  add_int (b, "uid", proc->uid);
  add_job (b, &proc->job);
  add_u64 (b, "rss_bytes", proc->rss_bytes);
  add_int (b, "threads", proc->threads);
  add_string_or_null (b, "state", state);
  json_builder_set_member_name (b, "kernel");
  json_builder_add_boolean_value (b, proc->kernel);
  add_int (b, "qps", proc->qps);
  add_int (b, "contexts", proc->contexts);
  add_int (b, "mrs", proc->mrs);
  add_u64 (b, "mr_bytes", proc->mr_bytes);
  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < proc->devices->len; i++)
    {
      const RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, i);

      json_builder_begin_object (b);
      add_string_or_null (b, "device", pd->device);
      add_int (b, "qps", pd->qps);
      add_int (b, "contexts", pd->contexts);
      add_int (b, "mrs", pd->mrs);
      add_u64 (b, "mr_bytes", pd->mr_bytes);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  add_qps (b, proc);
  json_builder_end_object (b);
}

static void
add_event (JsonBuilder *b, const RtopEvent *ev)
{
  json_builder_begin_object (b);
  add_int (b, "time_us", ev->realtime_us);
  add_int (b, "monotonic_us", ev->monotonic_us);
  add_string_or_null (b, "kind", rtop_event_kind_to_string (ev->kind));
  add_string_or_null (b, "severity", rtop_severity_to_string (ev->severity));
  add_string_or_null (b, "device", ev->device);
  add_int (b, "port", ev->port);
  add_string_or_null (b, "counter", ev->counter);
  add_string_or_null (b, "old", ev->old_value);
  add_string_or_null (b, "new", ev->new_value);
  add_string_or_null (b, "message", ev->message);
  /* An episode comes twice: ongoing when it starts, then completed. */
  json_builder_set_member_name (b, "episode");
  if (ev->episode != 0)
    json_builder_add_int_value (b, (gint64) MIN (ev->episode, (guint64) G_MAXINT64));
  else
    json_builder_add_null_value (b);
  if (ev->episode != 0)
    {
      json_builder_set_member_name (b, "ongoing");
      json_builder_add_boolean_value (b, ev->ongoing);
      add_int (b, "started_us", ev->started_us);
      add_int (b, "duration_us", ev->duration_us);
      add_u64 (b, "total", ev->total);
      json_builder_set_member_name (b, "peak_rate");
      json_builder_add_double_value (b, ev->peak_rate);
    }
  if (ev->kind == RTOP_EVENT_QP_ERROR)
    {
      add_int (b, "pid", ev->pid);
      add_string_or_null (b, "process", ev->process);
      add_u64 (b, "qps", ev->total);
    }
  json_builder_end_object (b);
}

static const char *
status_name (RtopStatus status)
{
  static const char * const names[] = { "ok", "no-netlink", "permission", "error" };

  return status < G_N_ELEMENTS (names) ? names[status] : "error";
}

static JsonNode *
json_from_snapshot (const RtopSnapshot *snap)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  add_string_or_null (b, "rdmatop_version", PACKAGE_VERSION);
  add_u64 (b, "sequence", snap->sequence);
  add_int (b, "time_us", snap->realtime_us);
  add_int (b, "monotonic_us", snap->monotonic_us);
  json_builder_set_member_name (b, "interval_s");
  json_builder_add_double_value (b, snap->interval_s);
  add_string_or_null (b, "status", status_name (snap->status));
  add_string_or_null (b, "status_message", snap->status_message);
  add_string_or_null (b, "processes_error", snap->processes_error);
  add_string_or_null (b, "gpu_status", snap->gpu_status);
  json_builder_set_member_name (b, "pids_hidden");
  json_builder_add_boolean_value (b, snap->pids_hidden);
  json_builder_set_member_name (b, "hotplug_events");
  json_builder_add_boolean_value (b, snap->hotplug_events);

  json_builder_set_member_name (b, "devices");
  json_builder_begin_array (b);
  for (guint i = 0; i < snap->devices->len; i++)
    add_device (b, g_ptr_array_index (snap->devices, i));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "processes");
  json_builder_begin_array (b);
  for (guint i = 0; i < snap->processes->len; i++)
    add_process (b, g_ptr_array_index (snap->processes, i));
  json_builder_end_array (b);

  json_builder_set_member_name (b, "events");
  json_builder_begin_array (b);
  for (guint i = 0; i < snap->events->len; i++)
    add_event (b, g_ptr_array_index (snap->events, i));
  json_builder_end_array (b);

  json_builder_end_object (b);
  return json_builder_get_root (b);
}

char *
rtop_json_snapshot_to_string (const RtopSnapshot *snap, gboolean pretty)
{
  g_autoptr(JsonNode) root = json_from_snapshot (snap);

  return json_to_string (root, pretty);
}
