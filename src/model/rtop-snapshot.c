/* rtop-snapshot.c: the immutable result of one sampling pass.
 *
 * Snapshots are built on the collector's thread and then only read.  The
 * reference count is atomic so a snapshot can be shared by the UI thread and
 * the recorder's writer thread. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-snapshot-private.h"


G_DEFINE_BOXED_TYPE (RtopSnapshot, rtop_snapshot, rtop_snapshot_ref, rtop_snapshot_unref)

static void rtop_gpu_free (RtopGpu *self);

static void
snapshot_clear (gpointer data)
{
  RtopSnapshot *self = data;

  g_free (self->status_message);
  g_free (self->processes_error);
  g_free (self->gpu_status);
  g_free (self->host);
  g_clear_pointer (&self->devices, g_ptr_array_unref);
  g_clear_pointer (&self->processes, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_ptr_array_unref);
}

RtopSnapshot *
rtop_snapshot_new (void)
{
  RtopSnapshot *self = g_atomic_rc_box_new0 (RtopSnapshot);

  self->devices = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
  self->processes = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_process_free);
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_event_free);
  return self;
}

RtopSnapshot *
rtop_snapshot_ref (RtopSnapshot *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return g_atomic_rc_box_acquire (self);
}

void
rtop_snapshot_unref (RtopSnapshot *self)
{
  g_return_if_fail (self != NULL);
  g_atomic_rc_box_release_full (self, snapshot_clear);
}

/* Natural order compares runs of digits by value, so "rxe2" < "rxe10". */
int
rtop_natural_compare (const char *a, const char *b)
{
  if (a == NULL || b == NULL)
    return (a != NULL) - (b != NULL);

  while (*a && *b)
    {
      if (g_ascii_isdigit (*a) && g_ascii_isdigit (*b))
        {
          const char *sa = a, *sb = b;
          gsize la, lb;
          int c;

          while (*sa == '0' && g_ascii_isdigit (sa[1]))
            sa++;
          while (*sb == '0' && g_ascii_isdigit (sb[1]))
            sb++;
          for (a = sa; g_ascii_isdigit (*a); a++)
            ;
          for (b = sb; g_ascii_isdigit (*b); b++)
            ;
          la = a - sa;
          lb = b - sb;
          if (la != lb)
            return la < lb ? -1 : 1;
          c = strncmp (sa, sb, la);
          if (c != 0)
            return c;
          continue;
        }
      if (*a != *b)
        return (guchar) *a < (guchar) *b ? -1 : 1;
      a++;
      b++;
    }
  return (guchar) *a - (guchar) *b;
}

static int
device_cmp (gconstpointer a, gconstpointer b)
{
  const RtopDevice *da = *(RtopDevice * const *) a;
  const RtopDevice *db = *(RtopDevice * const *) b;

  return rtop_natural_compare (da->name, db->name);
}

static int
port_cmp (gconstpointer a, gconstpointer b)
{
  const RtopPort *pa = *(RtopPort * const *) a;
  const RtopPort *pb = *(RtopPort * const *) b;

  return (pa->index > pb->index) - (pa->index < pb->index);
}

static int
counter_cmp (gconstpointer a, gconstpointer b)
{
  const RtopCounter *ca = *(RtopCounter * const *) a;
  const RtopCounter *cb = *(RtopCounter * const *) b;

  int c = strcmp (ca->name, cb->name);

  return c != 0 ? c : (int) ca->source - (int) cb->source;
}

/* Sorts only what is not in order already: every pass lists devices,
 * ports and counters the same way, and it is usually the right order. */
static void
sort_if_needed (GPtrArray *array, GCompareFunc cmp)
{
  for (guint i = 1; i < array->len; i++)
    if (cmp (&array->pdata[i - 1], &array->pdata[i]) > 0)
      {
        g_ptr_array_sort (array, cmp);
        return;
      }
}

static void
sort_array_if_needed (GArray *array, GCompareFunc cmp)
{
  for (guint i = 1; i < array->len; i++)
    if (cmp (array->data + (i - 1) * g_array_get_element_size (array),
             array->data + i * g_array_get_element_size (array)) > 0)
      {
        g_array_sort (array, cmp);
        return;
      }
}

void
rtop_counters_sort (GPtrArray *counters)
{
  sort_if_needed (counters, counter_cmp);
}

static int
process_cmp (gconstpointer a, gconstpointer b)
{
  const RtopProcess *pa = *(RtopProcess * const *) a;
  const RtopProcess *pb = *(RtopProcess * const *) b;

  if (pa->pid != pb->pid)
    return (pa->pid > pb->pid) - (pa->pid < pb->pid);
  return g_strcmp0 (pa->comm, pb->comm);
}

static int
process_device_cmp (gconstpointer a, gconstpointer b)
{
  return rtop_natural_compare (((const RtopProcessDevice *) a)->device,
                               ((const RtopProcessDevice *) b)->device);
}

void
rtop_snapshot_seal (RtopSnapshot *self)
{
  g_return_if_fail (self != NULL);

  sort_if_needed (self->devices, device_cmp);
  for (guint i = 0; i < self->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (self->devices, i);

      sort_if_needed (dev->ports, port_cmp);
      rtop_counters_sort (dev->counters);
      for (guint j = 0; j < dev->ports->len; j++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, j);

          /* A shared block is built in order (rtop_port_set_shared()). */
          if (port->shared_ == NULL)
            rtop_counters_sort (port->counters);
        }
    }
  sort_if_needed (self->processes, process_cmp);
  for (guint i = 0; i < self->processes->len; i++)
    {
      RtopProcess *proc = g_ptr_array_index (self->processes, i);
      sort_array_if_needed (proc->devices, process_device_cmp);
    }
}

RtopDevice *
rtop_snapshot_find_device (const RtopSnapshot *self, const char *name)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (self->devices, i);
      if (g_strcmp0 (dev->name, name) == 0)
        return dev;
    }
  return NULL;
}

gboolean
rtop_snapshot_has_devices (const RtopSnapshot *self, const char *const *names, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    if (rtop_snapshot_find_device (self, names[i]) == NULL)
      {
        g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                     _("no RDMA device named “%s” (see “rdma dev”)"), names[i]);
        return FALSE;
      }
  return TRUE;
}

RtopPort *
rtop_device_find_port (const RtopDevice *self, guint32 index)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->ports->len; i++)
    {
      RtopPort *port = g_ptr_array_index (self->ports, i);
      if (port->index == index)
        return port;
    }
  return NULL;
}

RtopCounter *
rtop_counters_find (GPtrArray *counters, const char *name)
{
  guint lo = 0, hi;

  g_return_val_if_fail (counters != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  hi = counters->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      RtopCounter *c = g_ptr_array_index (counters, mid);
      int cmp = strcmp (name, c->name);

      if (cmp == 0)
        return c;
      if (cmp < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
  return NULL;
}

RtopProcess *
rtop_snapshot_find_process (const RtopSnapshot *self, gint32 pid)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->processes->len; i++)
    {
      RtopProcess *proc = g_ptr_array_index (self->processes, i);
      if (proc->pid == pid)
        return proc;
    }
  return NULL;
}

guint
rtop_snapshot_get_n_ports (const RtopSnapshot *self)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint i = 0; i < self->devices->len; i++)
    n += ((RtopDevice *) g_ptr_array_index (self->devices, i))->ports->len;
  return n;
}

RtopDevice *
rtop_device_new (guint32 index, const char *name)
{
  RtopDevice *self = g_new0 (RtopDevice, 1);

  self->index = index;
  self->name = g_strdup (name);
  self->ports = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_port_free);
  self->counters = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  return self;
}

static void
device_clear_strings (RtopDevice *self)
{
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->provider, g_free);
  g_clear_pointer (&self->node_type, g_free);
  g_clear_pointer (&self->fw_version, g_free);
  g_clear_pointer (&self->node_guid, g_free);
  g_clear_pointer (&self->protocol, g_free);
}

void
rtop_device_set_shared (RtopDevice *dev, gpointer shared, GDestroyNotify release)
{
  g_return_if_fail (dev != NULL && dev->shared_ == NULL && shared != NULL);

  device_clear_strings (dev);
  dev->shared_ = shared;
  dev->shared_release_ = release;
}

void
rtop_device_free (RtopDevice *self)
{
  if (self == NULL)
    return;
  if (self->shared_ == NULL)
    device_clear_strings (self);
  else if (self->shared_release_ != NULL)
    self->shared_release_ (self->shared_);   /* the strings were its */
  g_ptr_array_unref (self->ports);
  g_ptr_array_unref (self->counters);
  rtop_gpu_free (self->gpu);
  g_free (self);
}

RtopGpu *
rtop_gpu_new (const char *vendor)
{
  RtopGpu *self = g_new0 (RtopGpu, 1);

  self->vendor = g_strdup (vendor);
  self->utilisation_pct = NAN;
  self->memory_used_bytes = NAN;
  self->memory_total_bytes = NAN;
  self->temperature_c = NAN;
  self->power_w = NAN;
  return self;
}

static void
rtop_gpu_free (RtopGpu *self)
{
  if (self == NULL)
    return;
  g_free (self->vendor);
  g_free (self->model);
  g_free (self->uuid);
  g_free (self->pci_bus_id);
  g_free (self);
}

RtopPort *
rtop_port_new (guint32 index)
{
  RtopPort *self = g_new0 (RtopPort, 1);

  self->index = index;
  self->counters = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  return self;
}

static void
metric_clear (RtopMetric *self)
{
  g_clear_pointer (&self->source, g_free);
  memset (self, 0, sizeof *self);
}

void
rtop_port_set_shared (RtopPort *port, RtopCounter *block, guint n,
                      gpointer shared, GDestroyNotify release)
{
  g_return_if_fail (port != NULL && port->counters->len == 0 && port->shared_ == NULL);
  g_return_if_fail (block != NULL || n == 0);

  g_ptr_array_set_free_func (port->counters, NULL);
  g_ptr_array_set_size (port->counters, n);
  for (guint i = 0; i < n; i++)
    port->counters->pdata[i] = &block[i];
  port->counter_block_ = block;
  port->shared_ = shared;
  port->shared_release_ = release;
}

void
rtop_port_free (RtopPort *self)
{
  if (self == NULL)
    return;
  g_free (self->error);
  g_free (self->remote);
  g_ptr_array_unref (self->counters);
  if (self->shared_ != NULL)
    {
      /* Names, sources and the port's strings belong to shared. */
      g_free (self->counter_block_);
      if (self->shared_release_ != NULL)
        self->shared_release_ (self->shared_);
    }
  else
    {
      g_free (self->netdev);
      g_free (self->link_layer);
      g_free (self->rate_text);
      for (guint i = 0; i < RTOP_METRIC_N; i++)
        metric_clear (&self->metrics[i]);
    }
  g_free (self);
}

RtopCounter *
rtop_counter_new (const char *name, guint64 value, RtopCounterSource source)
{
  RtopCounter *self = g_new0 (RtopCounter, 1);

  self->name = g_strdup (name);
  self->value = value;
  self->source = source;
  return self;
}

RtopCounter *
rtop_counter_copy (const RtopCounter *self)
{
  RtopCounter *copy = g_memdup2 (self, sizeof *self);

  copy->name = g_strdup (self->name);
  return copy;
}

void
rtop_counter_free (RtopCounter *self)
{
  if (self == NULL)
    return;
  g_free (self->name);
  g_free (self);
}

static void
process_device_clear (gpointer data)
{
  g_free (((RtopProcessDevice *) data)->device);
}

RtopProcess *
rtop_process_new (gint32 pid)
{
  RtopProcess *self = g_new0 (RtopProcess, 1);

  self->pid = pid;
  self->state = '?';
  self->devices = g_array_new (FALSE, TRUE, sizeof (RtopProcessDevice));
  g_array_set_clear_func (self->devices, process_device_clear);
  return self;
}

void
rtop_process_free (RtopProcess *self)
{
  if (self == NULL)
    return;
  g_free (self->comm);
  g_free (self->cmdline);
  g_free (self->user);
  rtop_job_clear (&self->job);
  g_array_unref (self->devices);
  g_clear_pointer (&self->qp_list, g_array_unref);
  g_clear_pointer (&self->qp_addrs, g_ptr_array_unref);
  g_free (self);
}

RtopEvent *
rtop_event_new (RtopEventKind kind, RtopSeverity severity,
                const char *device, guint32 port, const char *message)
{
  RtopEvent *self = g_new0 (RtopEvent, 1);

  self->realtime_us = g_get_real_time ();
  self->monotonic_us = g_get_monotonic_time ();
  self->kind = kind;
  self->severity = severity;
  self->device = g_strdup (device);
  self->port = port;
  self->message = g_strdup (message);
  return self;
}

RtopEvent *
rtop_event_copy (const RtopEvent *self)
{
  RtopEvent *copy = g_memdup2 (self, sizeof *self);

  copy->device = g_strdup (self->device);
  copy->counter = g_strdup (self->counter);
  copy->old_value = g_strdup (self->old_value);
  copy->new_value = g_strdup (self->new_value);
  copy->message = g_strdup (self->message);
  copy->process = g_strdup (self->process);
  return copy;
}

void
rtop_event_free (RtopEvent *self)
{
  if (self == NULL)
    return;
  g_free (self->device);
  g_free (self->counter);
  g_free (self->old_value);
  g_free (self->new_value);
  g_free (self->message);
  g_free (self->process);
  g_free (self);
}

/* ---- Stable names (JSON, CSV, traces): never translated ---- */

static const char * const metric_names[RTOP_METRIC_N] = {
  [RTOP_METRIC_TX_BYTES] = "tx_bytes",
  [RTOP_METRIC_RX_BYTES] = "rx_bytes",
  [RTOP_METRIC_TX_PACKETS] = "tx_packets",
  [RTOP_METRIC_RX_PACKETS] = "rx_packets",
  [RTOP_METRIC_DROPS] = "drops",
  [RTOP_METRIC_RDMA_READ_BYTES] = "rdma_read_bytes",
  [RTOP_METRIC_RDMA_WRITE_BYTES] = "rdma_write_bytes",
  [RTOP_METRIC_RETRANSMITS] = "retransmits",
  [RTOP_METRIC_ERRORS] = "errors",
  [RTOP_METRIC_LINK_ERRORS] = "link_errors",
  [RTOP_METRIC_TRANSPORT_ERRORS] = "transport_errors",
  [RTOP_METRIC_OPERATION_ERRORS] = "operation_errors",
  [RTOP_METRIC_CONGESTION] = "congestion",
};

const char *
rtop_metric_id_to_string (RtopMetricId id)
{
  g_return_val_if_fail (id < RTOP_METRIC_N, NULL);
  return metric_names[id];
}

gboolean
rtop_metric_id_from_string (const char *s, RtopMetricId *out)
{
  for (guint i = 0; i < RTOP_METRIC_N; i++)
    if (g_strcmp0 (s, metric_names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  return FALSE;
}

static const char * const source_names[RTOP_COUNTER_SOURCE_N] = {
  [RTOP_COUNTER_SOURCE_NETLINK] = "netlink",
  [RTOP_COUNTER_SOURCE_SYSFS_PORT] = "sysfs",
  [RTOP_COUNTER_SOURCE_SYSFS_HW] = "sysfs-hw",
  [RTOP_COUNTER_SOURCE_SYSFS_DEVICE] = "sysfs-device",
  [RTOP_COUNTER_SOURCE_NETDEV] = "netdev",
  [RTOP_COUNTER_SOURCE_GPU] = "gpu",
};

const char *
rtop_device_kind_to_string (RtopDeviceKind kind)
{
  return kind == RTOP_DEVICE_KIND_GPU ? "gpu" : "rdma";
}

RtopDeviceKind
rtop_device_kind_for_provider (const char *provider)
{
  /* The ids of rtop-gpu.c's table, which checks it against this. */
  static const char * const gpu_providers[] = { "nvml", "amdsmi" };

  for (guint i = 0; i < G_N_ELEMENTS (gpu_providers); i++)
    if (g_strcmp0 (provider, gpu_providers[i]) == 0)
      return RTOP_DEVICE_KIND_GPU;
  return RTOP_DEVICE_KIND_RDMA;
}

const char *
rtop_counter_source_to_string (RtopCounterSource source)
{
  g_return_val_if_fail (source < RTOP_COUNTER_SOURCE_N, NULL);
  return source_names[source];
}

const char *
rtop_severity_to_string (RtopSeverity severity)
{
  static const char * const names[] = { "info", "warning", "error" };

  g_return_val_if_fail (severity <= RTOP_SEVERITY_ERROR, NULL);
  return names[severity];
}

const char *
rtop_event_kind_to_string (RtopEventKind kind)
{
  static const char * const names[] = {
    [RTOP_EVENT_DEVICE_ADDED] = "device-added",
    [RTOP_EVENT_DEVICE_REMOVED] = "device-removed",
    [RTOP_EVENT_DEVICE_RENAMED] = "device-renamed",
    [RTOP_EVENT_PORT_ADDED] = "port-added",
    [RTOP_EVENT_PORT_REMOVED] = "port-removed",
    [RTOP_EVENT_PORT_STATE] = "port-state",
    [RTOP_EVENT_PORT_PHYS_STATE] = "port-phys-state",
    [RTOP_EVENT_LINK_RATE] = "link-rate",
    [RTOP_EVENT_NETDEV_CHANGED] = "netdev-changed",
    [RTOP_EVENT_COUNTER_RISING] = "counter-rising",
    [RTOP_EVENT_COUNTER_SETTLED] = "counter-settled",
    [RTOP_EVENT_COUNTER_RESET] = "counter-reset",
    [RTOP_EVENT_COLLECTION_ERROR] = "collection-error",
    [RTOP_EVENT_COLLECTION_RECOVERED] = "collection-recovered",
    [RTOP_EVENT_PORT_DOWN] = "port-down",
    [RTOP_EVENT_QP_ERROR] = "qp-error",
    [RTOP_EVENT_COUNTER_SATURATED] = "counter-saturated",
    [RTOP_EVENT_RAIL_IMBALANCE] = "rail-imbalance",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == RTOP_EVENT_N);

  g_return_val_if_fail (kind < G_N_ELEMENTS (names), NULL);
  return names[kind];
}

/* The kernel's names (ib_port_state / ib_port_phys_state), as iproute2
 * prints them, so JSON compares with `rdma -j link`. */
const char *
rtop_port_state_to_string (guint8 state)
{
  static const char * const names[] = {
    "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
  };

  return state < G_N_ELEMENTS (names) ? names[state] : "UNKNOWN";
}

const char *
rtop_port_phys_state_to_string (guint8 phys_state)
{
  /* iproute2's spelling (including its "ARMED" for 4 and the OPA states). */
  static const char * const names[] = {
    "NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP",
    "LINK_ERROR_RECOVER", "PHY_TEST", "UNKNOWN", "OPA_OFFLINE", "UNKNOWN",
    "OPA_TEST",
  };

  return phys_state < G_N_ELEMENTS (names) ? names[phys_state] : "UNKNOWN";
}

const char *
rtop_port_health_to_string (RtopPortHealth health)
{
  static const char * const names[] = { "ok", "warning", "error" };

  return (guint) health < G_N_ELEMENTS (names) ? names[health] : "error";
}

/* enum ib_qp_type and ib_qp_state, spelled as `rdma res show qp` does. */
const char *
rtop_qp_type_to_string (guint8 type)
{
  static const char * const names[] = {
    "SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET",
    "XRC_INI", "XRC_TGT",
  };

  return type < G_N_ELEMENTS (names) ? names[type] : "UNKNOWN";
}

const char *
rtop_qp_state_to_string (guint8 state)
{
  static const char * const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

  return state < G_N_ELEMENTS (names) ? names[state] : "UNKNOWN";
}
