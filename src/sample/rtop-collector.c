/* rtop-collector.c: one sampling pass over RDMA netlink, sysfs and /proc.
 *
 * Every pass asks the kernel for the device list (GET dump), the port list
 * with states (PORT_GET dump), each port's hw counters (STAT_GET) and, unless
 * disabled, the resource lists (RES_QP/CTX/MR dumps), all over one long-lived
 * socket.  sysfs counter files are kept open and re-read with pread(); link
 * rate and layer, which rarely change, are re-read every few seconds.
 * Processes are enriched from /proc once per distinct pid.
 *
 * This file has the collector itself and the pass; the parts of a pass
 * are in rtop-collector-ports.c (devices and ports), -counters.c (each
 * port's counters), -netdev.c (netdev counters) and -resources.c
 * (resources and processes). */
#include "config.h"

#include <sys/resource.h>

#include "rtop-collector-private.h"
#include "rtop-error.h"
#include "rtop-gpu-rates.h"

static void
port_reply_clear (gpointer data)
{
  g_clear_pointer (&((PortReply *) data)->ndev_long, g_free);
}

RtopCollector *
rtop_collector_new_for_nl (const RtopCollectorOptions *options, RtopNl *nl)
{
  static const RtopCollectorOptions defaults = { 0 };
  RtopCollector *self = g_new0 (RtopCollector, 1);

  if (options == NULL)
    options = &defaults;
  self->sysfs_root = g_strdup (options->sysfs_root ? options->sysfs_root : "/sys");
  self->proc_root = g_strdup (options->proc_root ? options->proc_root : "/proc");
  self->devices_filter = g_strdupv ((char **) options->devices);
  self->no_processes = options->no_processes;
  self->nl = nl;
  self->rates = rtop_rates_new ();
  self->health = rtop_health_new ();
  self->procs = rtop_proc_cache_new (self->proc_root);
  self->gpu = rtop_gpu_source_new (&(RtopGpuOptions) {
    .disabled = options->no_gpu,
    .nvml_library = options->nvml_library,
    .amdsmi_library = options->amdsmi_library,
  });
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         rtop_collector_device_cache_free);
  self->link_stats = g_array_new (FALSE, FALSE, sizeof (RtopNlLinkStats));
  self->port_replies = g_array_new (FALSE, TRUE, sizeof (PortReply));
  self->device_order = g_ptr_array_new_with_free_func (g_free);
  g_array_set_clear_func (self->port_replies, port_reply_clear);
  return self;
}

void
rtop_collector_set_route (RtopCollector *self, RtopNl *route)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->route, rtop_nl_free);
  self->route = route;
  self->route_serial++;
  self->link_stats_pass = 0;
}

/* sysfs counter files stay open (one pread per pass instead of three
 * syscalls), which takes about 20 descriptors per port: 64 devices pass
 * the usual soft limit of 1024.  The hard limit is ours to take; nothing
 * here uses select(). */
static void
raise_fd_limit (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      struct rlimit rl;

      /* Bounded: a huge limit slows down code that walks every fd. */
      if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < MIN (rl.rlim_max, 65536))
        {
          rl.rlim_cur = MIN (rl.rlim_max, 65536);
          setrlimit (RLIMIT_NOFILE, &rl);
        }
      g_once_init_leave (&done, 1);
    }
}

/* A machine without RDMA may still have GPU interconnects to show. */
static RtopCollector *
new_for_gpus_only (const RtopCollectorOptions *options, GError **error)
{
  g_autoptr(RtopCollector) self = NULL;
  g_autoptr(GPtrArray) probe = NULL;
  g_autofree char *why = NULL;

  if (!g_error_matches (*error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK) ||
      (options != NULL && options->no_gpu))
    return NULL;
  self = rtop_collector_new_for_nl (options, NULL);
  probe = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
  why = rtop_gpu_source_read (self->gpu, probe);
  if (!rtop_gpu_source_has_gpus (self->gpu))
    return NULL;
  self->no_netlink = g_strdup ((*error)->message);
  g_clear_error (error);
  return g_steal_pointer (&self);
}

RtopCollector *
rtop_collector_new (const RtopCollectorOptions *options, GError **error)
{
  RtopNl *nl;

  raise_fd_limit ();
  nl = rtop_nl_open (error);
  RtopCollector *self;

  if (nl == NULL)
    return new_for_gpus_only (options, error);
  self = rtop_collector_new_for_nl (options, nl);
  if (options == NULL || !options->no_monitor)
    /* Without monitor support (old kernel) discovery is by polling, which
     * every pass does anyway; events then only make it faster. */
    self->monitor = rtop_nl_open_monitor (NULL);
  /* Netdev counters of the live system: one routing netlink dump per pass
   * rather than two sysfs reads per port; sysfs when that is not possible
   * or when sysfs is not the live one. */
  if (g_strcmp0 (self->sysfs_root, "/sys") == 0)
    {
      g_autoptr(GError) local = NULL;
      RtopNl *route = rtop_nl_open_route (&local);

      if (route == NULL)
        g_debug ("Netdev counters come from sysfs: %s", local->message);
      rtop_collector_set_route (self, route);
    }
  return self;
}

void
rtop_collector_free (RtopCollector *self)
{
  if (self == NULL)
    return;
  g_free (self->sysfs_root);
  g_free (self->proc_root);
  g_strfreev (self->devices_filter);
  g_clear_pointer (&self->gpu, rtop_gpu_source_free);
  g_free (self->no_netlink);
  g_clear_pointer (&self->nl, rtop_nl_free);
  g_clear_pointer (&self->monitor, rtop_nl_free);
  g_clear_pointer (&self->route, rtop_nl_free);
  g_array_unref (self->link_stats);
  g_array_unref (self->port_replies);
  g_ptr_array_unref (self->device_order);
  rtop_rates_free (self->rates);
  rtop_health_free (self->health);
  rtop_proc_cache_free (self->procs);
  g_hash_table_unref (self->devices);
  g_free (self);
}

int
rtop_collector_get_monitor_fd (RtopCollector *self)
{
  return self->monitor ? rtop_nl_get_fd (self->monitor) : -1;
}

/* ---- Monitor events ---- */

static gboolean
drain_event_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  /* The pass that follows re-reads everything, so the event itself only
   * needs to be valid; its content shows up as a diff in health. */
  RtopNlEvent ev = { 0 };
  gboolean ok = rtop_nl_parse_event (nlh, &ev, NULL);

  rtop_nl_event_clear (&ev);
  if (ok)
    (*(guint *) user_data)++;
  return TRUE;
}

static void
drain_monitor (RtopCollector *self)
{
  guint n = 0;
  gboolean overrun = FALSE;

  if (self->monitor == NULL)
    return;
  if (!rtop_nl_read_monitor (self->monitor, drain_event_cb, &n, &overrun, NULL))
    g_clear_pointer (&self->monitor, rtop_nl_free);
}

/* ---- The pass ---- */

static RtopStatus
status_for_error (const GError *error)
{
  if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK))
    return RTOP_STATUS_NO_NETLINK;
  if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_PERMISSION))
    return RTOP_STATUS_PERMISSION;
  return RTOP_STATUS_ERROR;
}

/* GPUs after RDMA, so that a slow GPU library never delays the RDMA
 * counters' read times. */
static void
collect_gpus (RtopCollector *self, RtopSnapshot *snap)
{
  g_autoptr(GPtrArray) gpus = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);

  snap->gpu_status = rtop_gpu_source_read (self->gpu, gpus);
  rtop_gpu_rates_apply (self->rates, gpus);
  for (guint i = 0; i < gpus->len; i++)
    if (rtop_collector_device_wanted (self, ((RtopDevice *) g_ptr_array_index (gpus, i))->name))
      {
        g_ptr_array_add (snap->devices, g_ptr_array_index (gpus, i));
        gpus->pdata[i] = NULL;
      }
}

RtopSnapshot *
rtop_collector_sample (RtopCollector *self, double interval_s)
{
  g_autoptr(GError) error = NULL;
  RtopSnapshot *snap = rtop_snapshot_new ();

  self->pass++;
  snap->sequence = self->pass;
  snap->monotonic_us = self->pass_start_us = g_get_monotonic_time ();
  snap->realtime_us = g_get_real_time ();
  snap->interval_s = interval_s;
  snap->hotplug_events = self->monitor != NULL;

  drain_monitor (self);
  rtop_rates_begin_pass (self->rates);
  if (!rtop_collector_collect_devices (self, snap, &error))
    {
      snap->status = status_for_error (error);
      snap->status_message = g_strdup (error->message);
      g_ptr_array_set_size (snap->devices, 0);
    }
  else if (!self->no_processes)
    rtop_collector_collect_processes (self, snap);
  collect_gpus (self, snap);
  rtop_rates_end_pass (self->rates);
  rtop_snapshot_seal (snap);
  rtop_health_process (self->health, snap);
  return snap;
}
