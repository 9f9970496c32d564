/* rtop-collector.h: one sampling pass = netlink + sysfs + /proc -> snapshot.
 *
 * Not thread-safe: one thread at a time (the sampler's worker). */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"
#include "rtop-sysfs.h"

G_BEGIN_DECLS

typedef struct {
  const char *sysfs_root;    /* NULL: "/sys" */
  const char *proc_root;     /* NULL: "/proc" */
  const char * const *devices; /* only these device names; NULL: all */
  gboolean no_processes;     /* skip RES_* dumps and /proc */
  gboolean no_monitor;       /* do not subscribe to hotplug events (poll instead) */
  gboolean no_gpu;           /* read no GPU library (NVLink, XGMI) */
  /* GPU libraries to load instead of the system's (tests point these at
   * the stand-ins they build); NULL: the environment variables
   * RDMATOP_NVML_LIBRARY / RDMATOP_AMDSMI_LIBRARY, else the system's. */
  const char *nvml_library;
  const char *amdsmi_library;
} RtopCollectorOptions;

typedef struct _RtopCollector RtopCollector;

/* Fails only when RDMA netlink cannot be opened at all (RTOP_ERROR_NO_NETLINK,
 * RTOP_ERROR_PERMISSION) and no GPU library lists a GPU.  With GPUs but no
 * RDMA netlink, every snapshot has status NO_NETLINK and the GPU devices. */
RtopCollector *rtop_collector_new (const RtopCollectorOptions *options, GError **error);
void rtop_collector_free (RtopCollector *self);

/* Runs one pass.  Never returns NULL: a failure of the whole pass is reported
 * in snapshot->status and as one COLLECTION_ERROR event; a port whose read
 * fails has port->error set and the rest go on. */
RtopSnapshot *rtop_collector_sample (RtopCollector *self, double interval_s);

/* The fd to poll for hotplug events (-1 without monitor support).  When it is
 * readable the sampler runs a pass early. */
int rtop_collector_get_monitor_fd (RtopCollector *self);

/* Reads one port's counters and nothing else (captures at millisecond
 * periods): its hw counters (STAT_GET, or sysfs hw_counters where the
 * kernel has no STAT_GET for it) and its sysfs PMA counters, each handed
 * to func in read order with its raw value.  No device or port dump, no
 * netdev, no resources, no /proc, no rates, no health.  The port must have
 * been in the last rtop_collector_sample(): RTOP_ERROR_NO_DEVICE otherwise.
 * A failed STAT_GET is the transport's error; counters handed out before
 * it are to be dropped. */
gboolean rtop_collector_read_port_counters (RtopCollector *self, const char *device,
                                            guint32 port, RtopCounterDirFunc func,
                                            gpointer user_data, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopCollector, rtop_collector_free)

G_END_DECLS
