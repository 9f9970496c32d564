/* rtop-collector-private.h: what only the collector's own files
 * (rtop-collector*.c) and the tests use: test hooks, and the caches and
 * steps of a pass that the collector's files share. */
#pragma once

#include <net/if.h>

#include "rtop-collector.h"
#include "rtop-gpu.h"
#include "rtop-health.h"
#include "rtop-nl.h"
#include "rtop-procfs.h"
#include "rtop-providers.h"
#include "rtop-rates.h"
#include "rtop-sysfs.h"

G_BEGIN_DECLS

/* A collector over an existing RtopNl, which it takes (tests serve one end of
 * a socketpair with a fake kernel), or over none (nl NULL: only GPUs, status
 * NO_NETLINK).  No hotplug monitor. */
RtopCollector *rtop_collector_new_for_nl (const RtopCollectorOptions *options, RtopNl *nl);

/* Where netdev counters come from: a routing netlink socket (taken; the
 * tests pass a fake one), or NULL for sysfs.  rtop_collector_new() opens
 * one when it reads the live /sys. */
void rtop_collector_set_route (RtopCollector *self, RtopNl *route);

/* ---- What the collector's files share ---- */

/* What we keep per port between passes. */
typedef struct {
  RtopCounterDir *pma;       /* ports/<p>/counters */
  RtopCounterDir *hw;        /* ports/<p>/hw_counters: fallback when STAT_GET fails */
  char *hw_path;
  RtopCounterDir *netdev;    /* /sys/class/net/<nd>/statistics (providers without byte counters) */
  char *netdev_name;
  guint32 netdev_index;
  guint64 netdev_route_serial; /* RtopCollector.route_serial when the above was decided */
  guint32 netdev_ifindex;    /* nonzero: the netdev's counters come over routing netlink */
  gboolean netdev_packets;   /* ... packets too, not only bytes */
  RtopSysfsPortInfo info;
  gint64 info_read_us;
  guint64 strings_serial;    /* changes when the netdev or info's strings do */
  gboolean stat_unsupported; /* STAT_GET said EOPNOTSUPP: use sysfs */
  struct _PortLayout *layout; /* the counters as the last pass read them */
  GArray *values;            /* guint64 per layout slot: this pass's reads */
  /* The last STAT_GET reply, valid for the layout with id stat_layout: a
   * reply that matches it fills the first counters of that layout. */
  RtopNlStatTemplate *stat_template;
  guint64 stat_layout;
  RtopNlStatTemplate *stat_pending; /* from this pass's reply, until its layout is known */
  guint64 *stat_values;      /* scratch: one per template counter */
} PortCache;

/* A port's counters are the same names, from the same places, in the same
 * order, pass after pass; what follows from the names alone (their order by
 * name, the provider table's classes and metrics, the metrics' source
 * texts) is worked out once per layout and shared, by reference, with every
 * snapshot port built from it.  A pass then only compares each name it
 * reads with the layout's and stores the value. */
typedef struct _PortLayout {
  gatomicrefcount ref;
  guint64 id;                /* never reused: RtopPort.counter_layout */
  guint n;
  char **names;              /* by name (rtop_counters_sort() order) */
  RtopCounterSource *sources;
  guint *slot;               /* read position -> position by name */
  char *netdev;              /* the netdev named in the metrics' sources */
  char *link_layer;          /* and the port's other strings, lent to its snapshots */
  char *rate_text;
  guint64 strings_serial;    /* PortCache.strings_serial they were copied at */
  RtopProviderPlan *plan;
} PortLayout;

/* One port of a PORT_GET dump, kept until the dump is over; the netdev
 * name in place (the kernel's are shorter than IFNAMSIZ). */
typedef struct {
  guint32 dev_index, port, ndev_index;
  guint8 state, phys_state;
  gboolean has_ndev;
  char ndev_buf[IFNAMSIZ];
  char *ndev_long;           /* a longer one, should a kernel ever send it */
} PortReply;

/* What a device's GET reply said, with the strings its snapshots borrow;
 * kept while the replies say the same. */
typedef struct {
  gatomicrefcount ref;
  guint32 port_count;
  guint8 node_type_number;
  guint64 guid_number;
  char *name, *provider, *node_type, *fw_version, *node_guid, *protocol;
} DeviceFacts;

/* A message as it came (for an equal one next pass: the same parse). */
typedef struct {
  guint8 *bytes;
  guint32 len;
} KeptMessage;

typedef struct {
  KeptMessage msg;
  PortReply reply;           /* never one with ndev_long */
} PortMessage;

/* What one resource message added up, by owner (the entries of one owner
 * are one item, unless many other owners came between): replaying it
 * accounts exactly what walking the message does. */
typedef struct {
  gboolean has_pid;
  guint32 pid;
  char *kern_name;           /* a kernel owner; NULL with has_pid FALSE: hidden */
  guint64 count;
  guint64 mr_bytes;
  guint qp_first, qp_n;      /* its QPs in the message's qps */
  guint qp_errors;           /* of them, in the error state */
} ResRun;

typedef struct {
  KeptMessage msg;
  GArray *runs;              /* ResRun */
  GArray *qps;               /* RtopQp by run (QP dumps), or NULL: a replay copies a run's
                                slice as it is */
  const char *qps_device;    /* the device name their device points to */
} ResMessage;

#define N_RES_KINDS 3

/* ... and per device, keyed by name; dropped when the kernel index changes. */
typedef struct {
  guint32 index;
  char *provider;
  DeviceFacts *facts;
  KeptMessage facts_msg;     /* the GET reply the facts come from */
  GArray *port_msgs;         /* PortMessage, by position in the PORT_GET dump */
  GArray *res_msgs[N_RES_KINDS]; /* ResMessage, by position in each RES_*_GET dump */
  RtopCounterDir *hw;        /* <dev>/hw_counters (device-level) */
  GHashTable *ports;         /* port number -> PortCache */
  guint64 pass;
} DeviceCache;

struct _RtopCollector {
  char *sysfs_root;
  char *proc_root;
  GStrv devices_filter;
  gboolean no_processes;
  RtopNl *nl;
  RtopNl *monitor;
  RtopNl *route;             /* netdev counters; NULL: from sysfs */
  GArray *port_replies;      /* PortReply: scratch for one device's PORT_GET */
  GPtrArray *device_order;   /* char*: device names by position in the last GET dump */
  guint64 route_serial;      /* changes when route does */
  GArray *link_stats;        /* RtopNlLinkStats of this pass's RTM_GETSTATS dump */
  guint64 link_stats_pass;
  guint link_stats_hint;     /* where to start looking for the next port's link */
  RtopRates *rates;
  RtopHealth *health;
  RtopProcCache *procs;
  RtopGpuSource *gpu;
  char *no_netlink;          /* nl is NULL: why (the open error's message) */
  GHashTable *devices;       /* name -> DeviceCache */
  guint64 pass;
  gint64 pass_start_us;
};

static inline gboolean
kept_message_equal (const KeptMessage *kept, const struct nlmsghdr *nlh)
{
  return rtop_nl_reply_equal (kept->bytes, kept->len, nlh);
}

static inline void
kept_message_set (KeptMessage *kept, const struct nlmsghdr *nlh)
{
  g_free (kept->bytes);
  kept->len = nlh->nlmsg_len;
  kept->bytes = g_memdup2 (nlh, nlh->nlmsg_len);
}

/* rtop-collector-ports.c: the devices and ports of a pass, and their caches. */
gboolean rtop_collector_device_wanted (RtopCollector *self, const char *name);
gboolean rtop_collector_collect_devices (RtopCollector *self, RtopSnapshot *snap, GError **error);
void rtop_collector_device_cache_free (gpointer data);

/* rtop-collector-counters.c: a port filled in with its counters (pc: its
 * cache, its facts refreshed), and the device's own counters. */
void rtop_collector_fill_port (RtopCollector *self, RtopDevice *dev, DeviceCache *dc,
                               PortCache *pc, const PortReply *np);
void rtop_collector_fill_device_counters (RtopCollector *self, RtopDevice *dev, DeviceCache *dc);
void rtop_collector_port_layout_unref (gpointer data);

/* rtop-collector-netdev.c: where a port's netdev counters come from, and
 * this pass's counters of a link. */
void rtop_collector_refresh_netdev_dir (RtopCollector *self, PortCache *pc, const char *provider,
                                        const char *netdev, guint32 ifindex);
const RtopNlLinkStats *rtop_collector_link_stats_for (RtopCollector *self, guint32 ifindex);

/* rtop-collector-resources.c: the processes of a pass, from the resource
 * dumps and /proc. */
void rtop_collector_collect_processes (RtopCollector *self, RtopSnapshot *snap);

G_END_DECLS
