/* rtop-collector.c: one sampling pass over RDMA netlink, sysfs and /proc.
 *
 * Every pass asks the kernel for the device list (GET dump), the port list
 * with states (PORT_GET dump), each port's hw counters (STAT_GET) and, unless
 * disabled, the resource lists (RES_QP/CTX/MR dumps), all over one long-lived
 * socket.  sysfs counter files are kept open and re-read with pread(); link
 * rate and layer, which rarely change, are re-read every few seconds.
 * Processes are enriched from /proc once per distinct pid. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "uapi/rdma/rdma_netlink.h"
#include "rtop-collector-private.h"
#include "rtop-error.h"
#include "rtop-gpu.h"
#include "rtop-health.h"
#include "rtop-nl.h"
#include "rtop-port-key.h"
#include "rtop-procfs.h"
#include "rtop-providers.h"
#include "rtop-rates.h"
#include "rtop-sysfs.h"

#define PORT_INFO_REFRESH_US (5 * G_USEC_PER_SEC)

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

static const char *
port_reply_ndev (const PortReply *pr)
{
  return !pr->has_ndev ? NULL : pr->ndev_long ? pr->ndev_long : pr->ndev_buf;
}

static void
port_reply_clear (gpointer data)
{
  g_clear_pointer (&((PortReply *) data)->ndev_long, g_free);
}

/* What a device's GET reply said, with the strings its snapshots borrow;
 * kept while the replies say the same. */
typedef struct {
  gatomicrefcount ref;
  guint32 port_count;
  guint8 node_type_number;
  guint64 guid_number;
  char *name, *provider, *node_type, *fw_version, *node_guid, *protocol;
} DeviceFacts;

/* ... and per device, keyed by name; dropped when the kernel index changes. */
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

static void
port_layout_unref (gpointer data)
{
  PortLayout *layout = data;

  if (layout == NULL || !g_atomic_ref_count_dec (&layout->ref))
    return;
  for (guint i = 0; i < layout->n; i++)
    g_free (layout->names[i]);
  g_free (layout->names);
  g_free (layout->sources);
  g_free (layout->slot);
  g_free (layout->netdev);
  g_free (layout->link_layer);
  g_free (layout->rate_text);
  rtop_provider_plan_free (layout->plan);
  g_free (layout);
}

static void
port_cache_free (gpointer data)
{
  PortCache *pc = data;

  port_layout_unref (pc->layout);
  if (pc->values != NULL)
    g_array_unref (pc->values);
  g_clear_pointer (&pc->pma, rtop_counter_dir_free);
  g_clear_pointer (&pc->hw, rtop_counter_dir_free);
  g_clear_pointer (&pc->netdev, rtop_counter_dir_free);
  g_free (pc->hw_path);
  g_free (pc->netdev_name);
  rtop_sysfs_port_info_clear (&pc->info);
  rtop_nl_stat_template_free (pc->stat_template);
  rtop_nl_stat_template_free (pc->stat_pending);
  g_free (pc->stat_values);
  g_free (pc);
}

static void
device_facts_unref (gpointer data)
{
  DeviceFacts *f = data;

  if (f == NULL || !g_atomic_ref_count_dec (&f->ref))
    return;
  g_free (f->name);
  g_free (f->provider);
  g_free (f->node_type);
  g_free (f->fw_version);
  g_free (f->node_guid);
  g_free (f->protocol);
  g_free (f);
}

static gboolean
kept_message_equal (const KeptMessage *kept, const struct nlmsghdr *nlh)
{
  return rtop_nl_reply_equal (kept->bytes, kept->len, nlh);
}

static void
kept_message_set (KeptMessage *kept, const struct nlmsghdr *nlh)
{
  g_free (kept->bytes);
  kept->len = nlh->nlmsg_len;
  kept->bytes = g_memdup2 (nlh, nlh->nlmsg_len);
}

static void
port_message_clear (gpointer data)
{
  g_clear_pointer (&((PortMessage *) data)->msg.bytes, g_free);
}

static void
res_run_clear (gpointer data)
{
  g_clear_pointer (&((ResRun *) data)->kern_name, g_free);
}

static GArray *
res_runs_new (void)
{
  GArray *runs = g_array_new (FALSE, TRUE, sizeof (ResRun));

  g_array_set_clear_func (runs, res_run_clear);
  return runs;
}

static void
res_message_clear (gpointer data)
{
  ResMessage *rm = data;

  g_clear_pointer (&rm->msg.bytes, g_free);
  g_clear_pointer (&rm->runs, g_array_unref);
  g_clear_pointer (&rm->qps, g_array_unref);
}

static void
device_cache_free (gpointer data)
{
  DeviceCache *dc = data;

  g_free (dc->facts_msg.bytes);
  g_array_unref (dc->port_msgs);
  for (guint k = 0; k < N_RES_KINDS; k++)
    g_array_unref (dc->res_msgs[k]);
  device_facts_unref (dc->facts);
  g_free (dc->provider);
  g_clear_pointer (&dc->hw, rtop_counter_dir_free);
  g_hash_table_unref (dc->ports);
  g_free (dc);
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
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, device_cache_free);
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
  g_autoptr(RtopRates) rates = NULL;
  g_autofree char *why = NULL;

  if (!g_error_matches (*error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK) ||
      (options != NULL && options->no_gpu))
    return NULL;
  self = rtop_collector_new_for_nl (options, NULL);
  probe = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
  rates = rtop_rates_new ();
  why = rtop_gpu_source_read (self->gpu, rates, probe);
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

/* ---- Devices and ports ---- */

static gboolean
device_wanted (RtopCollector *self, const char *name)
{
  return self->devices_filter == NULL || g_strv_contains ((const char * const *) self->devices_filter, name);
}

/* "0011:2233:4455:6677", as iproute2 prints it (every pass, every
 * device: no printf). */
static char *
format_guid (guint64 guid)
{
  static const char hex[] = "0123456789abcdef";
  char text[20];
  guint n = 0;

  for (int shift = 60; shift >= 0; shift -= 4)
    {
      text[n++] = hex[(guid >> shift) & 0xf];
      if (shift % 16 == 0 && shift > 0)
        text[n++] = ':';
    }
  text[n] = '\0';
  return g_strndup (text, n);
}

static const char *
node_type_name (guint8 type)
{
  /* enum rdma_node_type, named as iproute2 prints them. */
  static const char * const names[] = { NULL, "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified" };

  return type < G_N_ELEMENTS (names) ? names[type] : NULL;
}

static gboolean
device_facts_match (const DeviceFacts *f, const RtopNlDeviceView *v)
{
  return f->port_count == v->port_count && f->node_type_number == v->node_type &&
         f->guid_number == v->node_guid && strcmp (f->name, v->name) == 0 &&
         g_strcmp0 (f->fw_version, v->fw_version) == 0 && g_strcmp0 (f->protocol, v->protocol) == 0;
}

static DeviceFacts *
device_facts_new (const RtopNlDeviceView *v, const char *provider)
{
  DeviceFacts *f = g_new0 (DeviceFacts, 1);

  g_atomic_ref_count_init (&f->ref);
  f->port_count = v->port_count;
  f->node_type_number = v->node_type;
  f->guid_number = v->node_guid;
  f->name = g_strdup (v->name);
  f->provider = g_strdup (provider);
  f->node_type = g_strdup (node_type_name (v->node_type));
  f->fw_version = g_strdup (v->fw_version);
  f->node_guid = v->node_guid ? format_guid (v->node_guid) : NULL;
  f->protocol = g_strdup (v->protocol);
  return f;
}

/* The devices of one GET dump, wanted ones only, with their caches. */
typedef struct {
  RtopCollector *self;
  GPtrArray *devices;        /* RtopDevice* */
  GPtrArray *caches;         /* DeviceCache*, one per device */
  guint position;            /* of the message in the dump */
} DeviceList;

static DeviceCache *device_cache_get (RtopCollector *self, guint32 index, const char *name);

static gboolean
device_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  DeviceList *list = user_data;
  RtopCollector *self = list->self;
  guint position = list->position++;
  const char *known = position < self->device_order->len ? self->device_order->pdata[position] : NULL;
  RtopNlDeviceView v;
  DeviceCache *dc;
  RtopDevice *dev;
  DeviceFacts *f;

  /* Devices come in the same order pass after pass: the one at this
   * position last time, if its reply is the same bytes, is this one, with
   * the same facts (its name is in those bytes). */
  dc = known != NULL ? g_hash_table_lookup (self->devices, known) : NULL;
  if (dc != NULL && dc->pass != self->pass && dc->facts != NULL &&
      kept_message_equal (&dc->facts_msg, nlh))
    dc->pass = self->pass;
  else
    {
      if (!rtop_nl_parse_device_view (nlh, &v, error))
        return FALSE;
      if (!device_wanted (self, v.name))
        return TRUE;
      dc = device_cache_get (self, v.index, v.name);
      if (dc == NULL)
        return TRUE;
      if (dc->facts == NULL || !device_facts_match (dc->facts, &v))
        {
          device_facts_unref (dc->facts);
          dc->facts = device_facts_new (&v, dc->provider);
        }
      kept_message_set (&dc->facts_msg, nlh);
      if (position >= self->device_order->len)
        g_ptr_array_set_size (self->device_order, position + 1);
      g_free (self->device_order->pdata[position]);
      self->device_order->pdata[position] = g_strdup (v.name);
    }
  f = dc->facts;
  dev = rtop_device_new (dc->index, NULL);
  dev->port_count = f->port_count;
  g_atomic_ref_count_inc (&f->ref);
  rtop_device_set_shared (dev, f, device_facts_unref);
  dev->name = f->name;
  dev->provider = f->provider;
  dev->node_type = f->node_type;
  dev->fw_version = f->fw_version;
  dev->node_guid = f->node_guid;
  dev->protocol = f->protocol;
  g_ptr_array_add (list->devices, dev);
  g_ptr_array_add (list->caches, dc);
  return TRUE;
}

typedef struct {
  GArray *out;               /* PortReply */
  DeviceCache *dc;
  guint position;
} PortList;

static gboolean
port_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  PortList *list = user_data;
  GArray *kept = list->dc->port_msgs;
  guint position = list->position++;
  PortReply pr = { 0 };
  RtopNlPort np;

  /* The same bytes as this position's last time: the same port reply. */
  if (position < kept->len &&
      kept_message_equal (&g_array_index (kept, PortMessage, position).msg, nlh))
    {
      g_array_append_val (list->out, g_array_index (kept, PortMessage, position).reply);
      return TRUE;
    }
  if (!rtop_nl_parse_port_view (nlh, &np, error))
    return FALSE;
  pr.dev_index = np.dev_index;
  pr.port = np.port;
  pr.ndev_index = np.ndev_index;
  pr.state = np.state;
  pr.phys_state = np.phys_state;
  pr.has_ndev = np.ndev_name != NULL;
  if (np.ndev_name != NULL && g_strlcpy (pr.ndev_buf, np.ndev_name, sizeof pr.ndev_buf) >= sizeof pr.ndev_buf)
    pr.ndev_long = g_strdup (np.ndev_name);
  g_array_append_val (list->out, pr);
  if (pr.ndev_long == NULL)
    {
      PortMessage *pm;

      if (position >= kept->len)
        g_array_set_size (kept, position + 1);
      pm = &g_array_index (kept, PortMessage, position);
      kept_message_set (&pm->msg, nlh);
      pm->reply = pr;
    }
  return TRUE;
}

/* NULL for a second device of the same name in one dump (the kernel
 * would not send that; the first one stays, and names stay unique). */
static DeviceCache *
device_cache_get (RtopCollector *self, guint32 index, const char *name)
{
  DeviceCache *dc = g_hash_table_lookup (self->devices, name);

  if (dc != NULL && dc->pass == self->pass)
    return NULL;
  if (dc != NULL && dc->index != index)
    {
      /* Re-added or renamed onto this name: its files are new files. */
      g_hash_table_remove (self->devices, name);
      dc = NULL;
    }
  if (dc == NULL)
    {
      g_autofree char *driver = rtop_sysfs_read_driver (self->sysfs_root, name);
      g_autofree char *hw_path = rtop_sysfs_device_hw_counters_path (self->sysfs_root, name);

      dc = g_new0 (DeviceCache, 1);
      dc->index = index;
      dc->provider = g_strdup (rtop_provider_detect (name, driver));
      dc->hw = rtop_counter_dir_open (hw_path, RTOP_COUNTER_SOURCE_SYSFS_DEVICE, NULL);
      dc->ports = g_hash_table_new_full (NULL, NULL, NULL, port_cache_free);
      dc->port_msgs = g_array_new (FALSE, TRUE, sizeof (PortMessage));
      g_array_set_clear_func (dc->port_msgs, port_message_clear);
      for (guint k = 0; k < N_RES_KINDS; k++)
        {
          dc->res_msgs[k] = g_array_new (FALSE, TRUE, sizeof (ResMessage));
          g_array_set_clear_func (dc->res_msgs[k], res_message_clear);
        }
      g_hash_table_insert (self->devices, g_strdup (name), dc);
    }
  dc->pass = self->pass;
  return dc;
}

static PortCache *
port_cache_get (RtopCollector *self, const RtopDevice *dev, DeviceCache *dc, guint32 port)
{
  PortCache *pc = g_hash_table_lookup (dc->ports, GUINT_TO_POINTER (port));

  if (pc == NULL)
    {
      g_autofree char *pma = rtop_sysfs_port_counters_path (self->sysfs_root, dev->name, port);
      g_autofree char *hw = rtop_sysfs_port_hw_counters_path (self->sysfs_root, dev->name, port);

      pc = g_new0 (PortCache, 1);
      pc->pma = rtop_counter_dir_open (pma, RTOP_COUNTER_SOURCE_SYSFS_PORT, NULL);
      /* hw_counters/ holds what STAT_GET returns; it is opened (one fd per
       * file) only if STAT_GET turns out not to work for this port. */
      pc->hw_path = g_steal_pointer (&hw);
      g_hash_table_insert (dc->ports, GUINT_TO_POINTER (port), pc);
    }
  return pc;
}

/* What the provider table can take from a netdev; packets only when the
 * provider has none of its own (each file read is a kernel allocation). */
static const char * const netdev_bytes[] = { "tx_bytes", "rx_bytes", NULL };
static const char * const netdev_bytes_packets[] = {
  "tx_bytes", "rx_bytes", "tx_packets", "rx_packets", NULL,
};

static gboolean
link_name_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  char **name = user_data;
  const char *n;
  guint32 ifindex;

  if (!rtop_nl_parse_link_name (nlh, &ifindex, &n, error))
    return FALSE;
  g_free (*name);
  *name = g_strdup (n);
  return TRUE;
}

/* Whether the link with this index in our network namespace is the netdev
 * the RDMA port names (it may sit in another namespace). */
static gboolean
route_link_is (RtopCollector *self, guint32 ifindex, const char *netdev)
{
  struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = (int) ifindex };
  g_autoptr(GError) local = NULL;
  g_autofree char *name = NULL;

  if (ifindex == 0 || ifindex > G_MAXINT32)
    return FALSE;
  if (!rtop_nl_query_message (self->route, RTM_GETLINK, FALSE, &ifi, sizeof ifi,
                              IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS, link_name_cb, &name, &local))
    {
      g_debug ("Netdev %s: %s", netdev, local->message);
      return FALSE;
    }
  return g_strcmp0 (name, netdev) == 0;
}

static void
refresh_netdev_dir (RtopCollector *self, PortCache *pc, const char *provider, const char *netdev,
                    guint32 ifindex)
{
  g_autofree char *path = NULL;
  gboolean packets;

  if (g_strcmp0 (pc->netdev_name, netdev) == 0 && pc->netdev_index == ifindex &&
      pc->netdev_route_serial == self->route_serial)
    return;
  g_clear_pointer (&pc->netdev, rtop_counter_dir_free);
  g_free (pc->netdev_name);
  pc->netdev_name = g_strdup (netdev);
  pc->netdev_index = ifindex;
  pc->strings_serial++;
  pc->netdev_route_serial = self->route_serial;
  pc->netdev_ifindex = 0;
  /* Providers whose hw counters have no byte counts get the attached
   * netdev's, labelled as such by the provider table. */
  if (netdev == NULL || rtop_provider_has_byte_counters (provider) || pc->pma != NULL)
    return;
  packets = !rtop_provider_has_metric (provider, RTOP_METRIC_TX_PACKETS);
  if (self->route != NULL && route_link_is (self, ifindex, netdev))
    {
      pc->netdev_ifindex = ifindex;
      pc->netdev_packets = packets;
      return;
    }
  path = rtop_sysfs_netdev_stats_path (self->sysfs_root, netdev);
  /* Only what the provider table can use: a netdev has two dozen files. */
  pc->netdev = rtop_counter_dir_open_names (path, RTOP_COUNTER_SOURCE_NETDEV,
                                            RTOP_COUNTER_DIR_MAX_FILES,
                                            packets ? netdev_bytes_packets : netdev_bytes,
                                            NULL);
}

static gboolean
link_stats_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  RtopNlLinkStats st;

  if (!rtop_nl_parse_link_stats (nlh, &st, error))
    return FALSE;
  g_array_append_val ((GArray *) user_data, st);
  return TRUE;
}

/* A dump of every link costs per link: past this many, sysfs (two files
 * per RDMA port) is cheaper. */
#define MAX_DUMPED_LINKS 512

/* This pass's counters of the link with this index, from one RTM_GETSTATS
 * dump per pass; NULL when it is not listed (gone) or has none. */
static const RtopNlLinkStats *
link_stats_for (RtopCollector *self, guint32 ifindex)
{
  if (self->link_stats_pass != self->pass)
    {
      struct if_stats_msg ifsm = {
        .family = AF_UNSPEC,
        .filter_mask = IFLA_STATS_FILTER_BIT (IFLA_STATS_LINK_64),
      };
      g_autoptr(GError) local = NULL;

      g_array_set_size (self->link_stats, 0);
      self->link_stats_pass = self->pass;
      if (!rtop_nl_query_message (self->route, RTM_GETSTATS, TRUE, &ifsm, sizeof ifsm, 0, 0,
                                  link_stats_cb, self->link_stats, &local) ||
          self->link_stats->len > MAX_DUMPED_LINKS)
        {
          /* From the next pass on every port reads sysfs again. */
          g_debug ("Netdev counters come from sysfs from now on: %s",
                   local ? local->message : "too many links");
          rtop_collector_set_route (self, NULL);
          self->link_stats_pass = self->pass;
          return NULL;
        }
    }
  /* Ports come in the order of their netdevs more often than not: look
   * on from where the last one was found. */
  for (guint n = 0, len = self->link_stats->len; n < len; n++)
    {
      guint i = (self->link_stats_hint + n) % len;
      const RtopNlLinkStats *st = &g_array_index (self->link_stats, RtopNlLinkStats, i);

      if (st->ifindex == ifindex)
        {
          self->link_stats_hint = i + 1;
          return st->has_stats ? st : NULL;
        }
    }
  return NULL;
}

static void
refresh_port_info (RtopCollector *self, const RtopDevice *dev, PortCache *pc, guint32 port,
                   gint64 now)
{
  RtopSysfsPortInfo info = { 0 };

  if (pc->info_read_us != 0 && now - pc->info_read_us < PORT_INFO_REFRESH_US)
    return;
  rtop_sysfs_read_port_info (self->sysfs_root, dev->name, port, &info);
  if (g_strcmp0 (info.rate_text, pc->info.rate_text) != 0 ||
      g_strcmp0 (info.link_layer, pc->info.link_layer) != 0)
    pc->strings_serial++;
  rtop_sysfs_port_info_clear (&pc->info);
  pc->info = info;
  pc->info_read_us = now;
}

/* ---- Counters ---- */

/* Takes the counters of one port read, in read order, against the port's
 * layout; on the first one that differs it falls back to collecting them
 * all (fresh) for a new layout. */
typedef struct {
  PortLayout *layout;        /* NULL before the first read */
  guint64 *values;           /* per layout slot */
  guint k;                   /* counters read so far */
  GPtrArray *fresh;          /* RtopCounter*, read order, once the layout differs */
} CounterReader;

/* From here on every read is collected for a new layout, starting with the
 * k that matched the old one (none when there was no layout). */
static void
reader_go_fresh (CounterReader *r)
{
  r->fresh = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  for (guint j = 0; j < r->k; j++)
    {
      guint s = r->layout->slot[j];

      g_ptr_array_add (r->fresh, rtop_counter_new (r->layout->names[s], r->values[s],
                                                   r->layout->sources[s]));
    }
}

static void
reader_add (const char *name, guint64 value, RtopCounterSource source, gpointer user_data)
{
  CounterReader *r = user_data;

  if (r->fresh == NULL)
    {
      const PortLayout *l = r->layout;

      if (l != NULL && r->k < l->n)
        {
          guint s = l->slot[r->k];

          if (l->sources[s] == source && strcmp (l->names[s], name) == 0)
            {
              r->values[s] = value;
              r->k++;
              return;
            }
        }
      reader_go_fresh (r);
    }
  g_ptr_array_add (r->fresh, rtop_counter_new (name, value, source));
  r->k++;
}

static int
read_order_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GPtrArray *fresh = user_data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  const RtopCounter *ca = g_ptr_array_index (fresh, ia);
  const RtopCounter *cb = g_ptr_array_index (fresh, ib);
  int c = strcmp (ca->name, cb->name);

  if (c != 0)
    return c;
  if (ca->source != cb->source)
    return (int) ca->source - (int) cb->source;
  return (ia > ib) - (ia < ib);
}

/* A layout for counters read in this order (fresh), with their values
 * stored by slot into values. */
static PortLayout *
port_layout_new (GPtrArray *fresh, const char *provider, const char *netdev,
                 const RtopSysfsPortInfo *info, GArray *values)
{
  static guint64 last_id;
  PortLayout *layout = g_new0 (PortLayout, 1);
  guint n = fresh->len;
  g_autofree guint *by_name = g_new (guint, MAX (n, 1));
  g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (n);

  g_atomic_ref_count_init (&layout->ref);
  layout->id = __atomic_add_fetch (&last_id, 1, __ATOMIC_RELAXED);
  layout->n = n;
  layout->names = g_new (char *, MAX (n, 1));
  layout->sources = g_new (RtopCounterSource, MAX (n, 1));
  layout->slot = g_new (guint, MAX (n, 1));
  layout->netdev = g_strdup (netdev);
  layout->link_layer = g_strdup (info->link_layer);
  layout->rate_text = g_strdup (info->rate_text);
  for (guint i = 0; i < n; i++)
    by_name[i] = i;
  g_qsort_with_data (by_name, (gint) n, sizeof (guint), read_order_cmp, fresh);
  g_array_set_size (values, n);
  for (guint s = 0; s < n; s++)
    {
      const RtopCounter *c = g_ptr_array_index (fresh, by_name[s]);

      layout->names[s] = g_strdup (c->name);
      layout->sources[s] = c->source;
      layout->slot[by_name[s]] = s;
      g_array_index (values, guint64, s) = c->value;
      g_ptr_array_add (sorted, (gpointer) c);
    }
  layout->plan = rtop_provider_plan_new (provider, sorted, netdev);
  return layout;
}

typedef struct {
  CounterReader *reader;
  PortCache *pc;
  guint32 dev_index, port_index;   /* asked for */
  guint32 got_dev, got_port;       /* answered */
} StatData;

static gboolean
stat_counter_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  StatData *sd = user_data;

  /* A reply for another device or port would be a kernel bug; ignore it. */
  if (sd->got_dev == sd->dev_index && (sd->got_port == 0 || sd->got_port == sd->port_index))
    reader_add (name, value, RTOP_COUNTER_SOURCE_NETLINK, sd->reader);
  return TRUE;
}

/* A reply equal to the port's last one but for the values goes straight
 * into the layout's slots; any other is parsed, and kept as the template
 * once this pass's layout is known (fill_port()). */
static gboolean
stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  StatData *sd = user_data;
  CounterReader *r = sd->reader;
  PortCache *pc = sd->pc;

  if (pc->stat_template != NULL && r->k == 0 && r->fresh == NULL && r->layout != NULL &&
      r->layout->id == pc->stat_layout &&
      rtop_nl_stat_template_match (pc->stat_template, nlh, pc->stat_values))
    {
      guint n = rtop_nl_stat_template_get_n_counters (pc->stat_template);

      for (guint k = 0; k < n; k++)
        r->values[r->layout->slot[k]] = pc->stat_values[k];
      r->k = n;
      return TRUE;
    }
  if (!rtop_nl_parse_stat_foreach (nlh, &sd->got_dev, &sd->got_port, stat_counter_cb, sd, error))
    return FALSE;
  g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);
  if (sd->got_dev == sd->dev_index && sd->got_port == sd->port_index && r->k > 0)
    {
      pc->stat_pending = rtop_nl_stat_template_new (nlh);
      /* Only a reply that holds all of the port's netlink counters. */
      if (pc->stat_pending != NULL && rtop_nl_stat_template_get_n_counters (pc->stat_pending) != r->k)
        g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);
    }
  return TRUE;
}

static void
reader_clear (CounterReader *r)
{
  g_clear_pointer (&r->fresh, g_ptr_array_unref);
}

/* Reads the port's counters through r (set up by the caller); FALSE with
 * port->error set when the read failed. */
static gboolean
read_port_counters (RtopCollector *self, RtopDevice *dev, PortCache *pc, RtopPort *port,
                    CounterReader *r)
{
  g_autoptr(GError) error = NULL;
  StatData sd = { r, pc, dev->index, port->index, 0, 0 };
  guint failed = 0;

  g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);

  if (!pc->stat_unsupported &&
      !rtop_nl_query (self->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, dev->index, port->index,
                      stat_cb, &sd, &error))
    {
      /* Whatever came before the error is dropped. */
      reader_clear (r);
      r->k = 0;
      if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL) && pc->hw == NULL)
        pc->hw = rtop_counter_dir_open (pc->hw_path, RTOP_COUNTER_SOURCE_SYSFS_HW, NULL);
      if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL) && pc->hw != NULL)
        pc->stat_unsupported = TRUE;    /* sysfs hw_counters serve instead */
      else if (!g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL))
        {
          port->error = g_strdup (error->message);
          return FALSE;
        }
      /* Other kernel refusals (no hw counters on this driver) leave the
       * port with sysfs counters only; that is not an error. */
    }
  port->read_time_us = g_get_monotonic_time ();
  if (pc->stat_unsupported && pc->hw != NULL)
    rtop_counter_dir_read_foreach (pc->hw, reader_add, r, &failed);
  if (pc->pma != NULL)
    rtop_counter_dir_read_foreach (pc->pma, reader_add, r, &failed);
  if (pc->netdev_ifindex != 0)
    {
      const RtopNlLinkStats *st = link_stats_for (self, pc->netdev_ifindex);

      if (st != NULL)
        {
          reader_add ("tx_bytes", st->tx_bytes, RTOP_COUNTER_SOURCE_NETDEV, r);
          reader_add ("rx_bytes", st->rx_bytes, RTOP_COUNTER_SOURCE_NETDEV, r);
          if (pc->netdev_packets)
            {
              reader_add ("tx_packets", st->tx_packets, RTOP_COUNTER_SOURCE_NETDEV, r);
              reader_add ("rx_packets", st->rx_packets, RTOP_COUNTER_SOURCE_NETDEV, r);
            }
        }
      else
        g_clear_pointer (&pc->netdev_name, g_free);   /* gone: look again next pass */
    }
  if (pc->netdev != NULL)
    {
      rtop_counter_dir_read_foreach (pc->netdev, reader_add, r, &failed);
      /* The netdev was deleted (maybe re-created under its name): reopen. */
      if (rtop_counter_dir_get_n_vanished (pc->netdev) > 0)
        {
          g_clear_pointer (&pc->netdev, rtop_counter_dir_free);
          g_clear_pointer (&pc->netdev_name, g_free);
        }
    }
  return TRUE;
}

/* The port's counters, by name, from this pass's reads: the same layout as
 * last time when every name matched (and the port's strings are the same),
 * a new one otherwise.  The port's strings are the layout's. */
static void
build_port_counters (PortCache *pc, CounterReader *r, const char *provider, const char *netdev,
                     RtopPort *port)
{
  gboolean unchanged = r->fresh == NULL && r->layout != NULL && r->k == r->layout->n &&
                       r->layout->strings_serial == pc->strings_serial;
  PortLayout *layout;
  RtopCounter *block;

  if (!unchanged)
    {
      /* A counter came or went (or fewer were read), or the metrics'
       * sources name another netdev: a new layout from this pass's reads. */
      if (r->fresh == NULL)
        reader_go_fresh (r);
      port_layout_unref (pc->layout);
      pc->layout = port_layout_new (r->fresh, provider, netdev, &pc->info, pc->values);
      pc->layout->strings_serial = pc->strings_serial;
      reader_clear (r);
    }
  layout = pc->layout;
  block = g_new (RtopCounter, MAX (layout->n, 1));
  for (guint s = 0; s < layout->n; s++)
    block[s] = (RtopCounter) {
      .name = layout->names[s],
      .value = g_array_index (pc->values, guint64, s),
      .source = layout->sources[s],
    };
  g_atomic_ref_count_inc (&layout->ref);
  rtop_port_set_shared (port, block, layout->n, layout, port_layout_unref);
  port->counter_layout = layout->id;
  port->netdev = layout->netdev;
  port->link_layer = layout->link_layer;
  port->rate_text = layout->rate_text;
}

/* This pass's STAT_GET reply, when it was parsed, is the template for the
 * layout the pass ended with: its counters are that layout's first ones. */
static void
adopt_stat_template (PortCache *pc)
{
  if (pc->stat_pending == NULL)
    return;
  rtop_nl_stat_template_free (pc->stat_template);
  pc->stat_template = g_steal_pointer (&pc->stat_pending);
  pc->stat_layout = pc->layout->id;
  g_free (pc->stat_values);
  pc->stat_values = g_new (guint64, MAX (rtop_nl_stat_template_get_n_counters (pc->stat_template), 1));
}

static void
fill_port (RtopCollector *self, RtopDevice *dev, DeviceCache *dc, const PortReply *np)
{
  const char *ndev_name = port_reply_ndev (np);
  RtopPort *port = rtop_port_new (np->port);
  PortCache *pc = port_cache_get (self, dev, dc, np->port);
  gint64 now = self->pass_start_us;     /* port facts are re-read every few seconds */
  CounterReader r = { 0 };

  port->state = np->state;
  port->phys_state = np->phys_state;
  port->netdev_index = np->ndev_index;
  refresh_port_info (self, dev, pc, np->port, now);
  port->rate_gbps = pc->info.rate_gbps;
  if (np->state == 0 && pc->info.state >= 0)
    port->state = pc->info.state;     /* state fallback from sysfs */
  if (np->phys_state == 0 && pc->info.phys_state >= 0)
    port->phys_state = pc->info.phys_state;
  refresh_netdev_dir (self, pc, dc->provider, ndev_name, np->ndev_index);

  if (pc->values == NULL)
    pc->values = g_array_new (FALSE, TRUE, sizeof (guint64));
  r.layout = pc->layout;
  r.values = (guint64 *) (gpointer) pc->values->data;
  if (!read_port_counters (self, dev, pc, port, &r))
    {
      /* No counters, so no layout to lend the strings. */
      port->netdev = g_strdup (ndev_name);
      port->link_layer = g_strdup (pc->info.link_layer);
      port->rate_text = g_strdup (pc->info.rate_text);
      rtop_rates_keep (self->rates, dev->name, port->index);
    }
  else
    {
      build_port_counters (pc, &r, dc->provider, ndev_name, port);
      adopt_stat_template (pc);
      port->elapsed_s = rtop_rates_update_layout (self->rates, dev->name, dev->index, port->index,
                                                  port->read_time_us, port->counter_layout,
                                                  port->counters, NULL);
      rtop_provider_plan_run (pc->layout->plan, port, TRUE);
    }
  reader_clear (&r);
  g_ptr_array_add (dev->ports, port);
}

static void
fill_device_counters (RtopCollector *self, RtopDevice *dev, DeviceCache *dc)
{
  guint failed = 0;

  if (dc->hw == NULL)
    return;
  rtop_counter_dir_read (dc->hw, dev->counters, &failed);
  rtop_rates_update (self->rates, dev->name, dev->index, 0, g_get_monotonic_time (),
                     dev->counters, NULL);
  rtop_provider_classify_counters (dc->provider, dev->counters);
}

static gboolean
cache_is_stale_cb (gpointer key, gpointer value, gpointer user_data)
{
  return ((DeviceCache *) value)->pass != ((RtopCollector *) user_data)->pass;
}

/* The kernel dumps ports one device at a time (PORT_GET needs DEV_INDEX). */
static gboolean
collect_ports (RtopCollector *self, RtopDevice *dev, DeviceCache *dc, GError **error)
{
  GArray *ports = self->port_replies;
  PortList list = { ports, dc, 0 };

  g_array_set_size (ports, 0);
  if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_PORT_GET, TRUE, dev->index, 0,
                      port_cb, &list, error))
    return FALSE;
  /* Fewer ports than before: forget the positions past the last. */
  if (list.position < dc->port_msgs->len)
    g_array_set_size (dc->port_msgs, list.position);
  for (guint j = 0; j < ports->len; j++)
    {
      const PortReply *np = &g_array_index (ports, PortReply, j);
      if (np->dev_index == dev->index && np->port > 0)
        fill_port (self, dev, dc, np);
    }
  fill_device_counters (self, dev, dc);
  return TRUE;
}

static gboolean
collect_devices (RtopCollector *self, RtopSnapshot *snap, GError **error)
{
  g_autoptr(GPtrArray) devices = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
  g_autoptr(GPtrArray) caches = g_ptr_array_new ();
  DeviceList list = { self, devices, caches, 0 };

  if (self->nl == NULL)
    {
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK,
                           self->no_netlink != NULL ? self->no_netlink
                           : _("This kernel has no RDMA netlink."));
      return FALSE;
    }
  if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                      device_cb, &list, error))
    return FALSE;

  for (guint i = 0; i < devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (devices, i);
      g_autoptr(GError) port_error = NULL;

      if (!collect_ports (self, dev, g_ptr_array_index (caches, i), &port_error))
        {
          /* Gone between the two dumps: the next pass will not list it. */
          if (g_error_matches (port_error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE))
            continue;
          /* Anything else is this device's problem, not the pass's. */
          for (guint p = 1; p <= dev->port_count && p <= 64; p++)
            {
              RtopPort *port = rtop_port_new (p);

              port->error = g_strdup (port_error->message);
              rtop_rates_keep (self->rates, dev->name, p);
              g_ptr_array_add (dev->ports, port);
            }
        }
      g_ptr_array_add (snap->devices, g_ptr_array_index (devices, i));
      devices->pdata[i] = NULL;
    }
  g_hash_table_foreach_remove (self->devices, cache_is_stale_cb, self);
  return TRUE;
}

/* ---- Processes ---- */

/* A process seen in this dump, and where its entry for the dump's device
 * is in its devices array (it stays there: the dump adds no other device). */
typedef struct {
  RtopProcess *proc;
  guint32 pid;
  guint pd;
} RecentOwner;

#define N_RECENT_OWNERS 8
#define RUN_LOOKBACK 8

typedef struct {
  RtopNlResKind kind;
  const RtopDevice *dev;
  GHashTable *owners;
  RtopSnapshot *snap;
  /* Entries of a few processes come interleaved (threads creating QPs at
   * once): those are found here, without a hash lookup per entry. */
  RecentOwner recent[N_RECENT_OWNERS];
  guint n_recent, next_recent;
  GArray *kept;              /* ResMessage of the device's last dump of this kind, or NULL */
  guint position;            /* of the message in this dump */
  GArray *runs;              /* ResRun: what the message being walked adds up to */
  GArray *qps;               /* RtopQp: the QPs it lists (QP dumps with runs) */
  GArray *qp_runs;           /* guint: the run of each */
} ResData;

static void account (RtopProcess *proc, guint pd, RtopNlResKind kind, guint64 count,
                     guint64 mr_bytes);
static guint process_device_for (RtopProcess *proc, const char *device);
static RtopProcess *owner_for (GHashTable *owners, const RtopNlRes *r, gboolean *hidden);

/* The process an entry belongs to, and the index of its entry for the
 * dump's device. */
static RtopProcess *
owner_of (ResData *rd, const RtopNlRes *r, guint *pd)
{
  RtopProcess *proc;

  if (r->has_pid)
    for (guint i = 0; i < rd->n_recent; i++)
      if (rd->recent[i].pid == r->pid)
        {
          *pd = rd->recent[i].pd;
          return rd->recent[i].proc;
        }
  proc = owner_for (rd->owners, r, &rd->snap->pids_hidden);
  *pd = process_device_for (proc, rd->dev->name);
  if (r->has_pid)
    {
      RecentOwner *slot = rd->n_recent < N_RECENT_OWNERS ? &rd->recent[rd->n_recent++]
                                                         : &rd->recent[rd->next_recent++ % N_RECENT_OWNERS];

      *slot = (RecentOwner) { proc, r->pid, *pd };
    }
  return proc;
}

/* Lists a QP in its owner's bounded list (and counts one in error). */
static void
list_qp (RtopProcess *proc, const RtopQp *qp)
{
  proc->qps_in_error += qp->state == RTOP_QP_STATE_ERR;
  if (proc->qp_list == NULL)
    proc->qp_list = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), RTOP_PROCESS_MAX_QPS);
  else if (proc->qp_list->len >= RTOP_PROCESS_MAX_QPS)
    {
      proc->qps_not_listed++;
      return;
    }
  g_array_append_val (proc->qp_list, *qp);
}

/* Replays a kept run's QPs: as many as the owner's list has room for, in
 * one copy; the rest only counted. */
static void
list_run_qps (RtopProcess *proc, const ResRun *run, const GArray *qps)
{
  guint room, n;

  if (run->qp_n == 0)
    return;
  if (proc->qp_list == NULL)
    proc->qp_list = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), RTOP_PROCESS_MAX_QPS);
  room = RTOP_PROCESS_MAX_QPS - MIN (proc->qp_list->len, RTOP_PROCESS_MAX_QPS);
  n = MIN (room, run->qp_n);
  if (n > 0)
    g_array_append_vals (proc->qp_list, &g_array_index (qps, RtopQp, run->qp_first), n);
  proc->qps_not_listed += run->qp_n - n;
  proc->qps_in_error += run->qp_errors;
}

/* Orders a walked message's QPs by run (a counting sort: runs are few and
 * their QPs keep their order), so that a replay copies each run's QPs as
 * one slice. */
static GArray *
group_qps_by_run (GArray *runs, GArray *qps, GArray *qp_runs)
{
  GArray *sorted;
  guint next = 0;

  if (qps == NULL || qps->len == 0)
    return NULL;
  for (guint i = 0; i < qps->len; i++)
    {
      ResRun *run = &g_array_index (runs, ResRun, g_array_index (qp_runs, guint, i));

      run->qp_n++;
      run->qp_errors += g_array_index (qps, RtopQp, i).state == RTOP_QP_STATE_ERR;
    }
  for (guint r = 0; r < runs->len; r++)
    {
      ResRun *run = &g_array_index (runs, ResRun, r);

      run->qp_first = next;
      next += run->qp_n;
      run->qp_n = 0;
    }
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), qps->len);
  g_array_set_size (sorted, qps->len);
  for (guint i = 0; i < qps->len; i++)
    {
      ResRun *run = &g_array_index (runs, ResRun, g_array_index (qp_runs, guint, i));

      g_array_index (sorted, RtopQp, run->qp_first + run->qp_n++) = g_array_index (qps, RtopQp, i);
    }
  return sorted;
}

/* Kept QPs name the device of the pass that kept them: a device's name
 * string is the same from pass to pass while its facts are, else the
 * slice is pointed at this pass's. */
static void
rename_kept_qps (ResMessage *rm, const char *device)
{
  if (rm->qps == NULL || rm->qps_device == device)
    return;
  for (guint i = 0; i < rm->qps->len; i++)
    g_array_index (rm->qps, RtopQp, i).device = device;
  rm->qps_device = device;
}

static gboolean
res_entry_cb (const RtopNlRes *r, gpointer user_data, GError **error)
{
  ResData *rd = user_data;
  RtopProcess *proc;
  guint pd;

  if (r->dev_index != rd->dev->index)
    return TRUE;
  proc = owner_of (rd, r, &pd);
  account (proc, pd, r->kind, 1, r->mr_len);
  if (r->kind == RTOP_NL_RES_QP)
    {
      RtopQp qp = { rd->dev->name, r->port, r->id, r->rqpn, r->has_rqpn, r->qp_type, r->qp_state };

      list_qp (proc, &qp);
      if (rd->qps != NULL)
        g_array_append_val (rd->qps, qp);
    }
  if (rd->runs != NULL)
    {
      ResRun *run = NULL;

      /* The entries of a few owners come interleaved: an owner among the
       * last few items adds to its item (the order of owners in a message
       * does not change what it adds up to). */
      for (guint i = rd->runs->len; i > 0 && i + RUN_LOOKBACK > rd->runs->len; i--)
        {
          ResRun *candidate = &g_array_index (rd->runs, ResRun, i - 1);

          if (candidate->has_pid == r->has_pid && (!r->has_pid || candidate->pid == r->pid) &&
              g_strcmp0 (candidate->kern_name, r->has_pid ? NULL : r->kern_name) == 0)
            {
              run = candidate;
              break;
            }
        }
      if (run == NULL)
        {
          ResRun added = { r->has_pid, r->pid, r->has_pid ? NULL : g_strdup (r->kern_name), 0, 0 };

          g_array_append_val (rd->runs, added);
          run = &g_array_index (rd->runs, ResRun, rd->runs->len - 1);
        }
      run->count++;
      run->mr_bytes += r->mr_len;
      if (rd->qps != NULL && r->kind == RTOP_NL_RES_QP)
        {
          guint index = run - (ResRun *) rd->runs->data;

          g_array_append_val (rd->qp_runs, index);
        }
    }
  return TRUE;
}

/* A resource message equal to the one at its position in the device's
 * last dump of this kind (the same bytes but for sequence number and port
 * id: idle QPs list the same way pass after pass) adds up what it added
 * then; any other is walked, and kept for the next pass. */
static gboolean
res_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  ResData *rd = user_data;
  guint position = rd->position++;
  GArray *kept = rd->kept;
  gboolean ok;

  if (kept != NULL && position < kept->len &&
      kept_message_equal (&g_array_index (kept, ResMessage, position).msg, nlh))
    {
      ResMessage *rm = &g_array_index (kept, ResMessage, position);

      rename_kept_qps (rm, rd->dev->name);
      for (guint i = 0; i < rm->runs->len; i++)
        {
          const ResRun *run = &g_array_index (rm->runs, ResRun, i);
          RtopNlRes r = { .kind = rd->kind, .has_pid = run->has_pid, .pid = run->pid,
                          .kern_name = run->kern_name };
          guint pd;
          RtopProcess *proc = owner_of (rd, &r, &pd);

          account (proc, pd, rd->kind, run->count, run->mr_bytes);
          if (rm->qps != NULL)
            list_run_qps (proc, run, rm->qps);
        }
      return TRUE;
    }
  rd->runs = kept != NULL ? res_runs_new () : NULL;
  if (kept != NULL && rd->kind == RTOP_NL_RES_QP)
    {
      rd->qps = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      rd->qp_runs = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  ok = rtop_nl_parse_res_foreach (nlh, rd->kind, res_entry_cb, rd, error);
  if (ok && kept != NULL)
    {
      ResMessage *rm;

      if (position >= kept->len)
        g_array_set_size (kept, position + 1);
      rm = &g_array_index (kept, ResMessage, position);
      kept_message_set (&rm->msg, nlh);
      g_clear_pointer (&rm->runs, g_array_unref);
      g_clear_pointer (&rm->qps, g_array_unref);
      rm->qps = group_qps_by_run (rd->runs, rd->qps, rd->qp_runs);
      rm->qps_device = rd->dev->name;
      rm->runs = g_steal_pointer (&rd->runs);
    }
  g_clear_pointer (&rd->runs, g_array_unref);
  g_clear_pointer (&rd->qps, g_array_unref);
  g_clear_pointer (&rd->qp_runs, g_array_unref);
  return ok;
}

/* Owners are keyed by pid, or by kernel name for kernel-owned objects, or
 * gathered as "hidden" when the owner is outside our PID namespace. */
static RtopProcess *
owner_for (GHashTable *owners, const RtopNlRes *r, gboolean *hidden)
{
  char key[RTOP_PORT_KEY_SIZE];
  RtopProcess *proc;

  /* "p/<pid>", "k<name>", "h": no printf, this runs per owner run. */
  if (r->has_pid)
    rtop_port_key (key, "p", r->pid);
  else if (r->kern_name != NULL)
    {
      key[0] = 'k';
      g_strlcpy (key + 1, r->kern_name, sizeof key - 1);
    }
  else
    {
      g_strlcpy (key, "h", sizeof key);
      *hidden = TRUE;
    }
  proc = g_hash_table_lookup (owners, key);
  if (proc == NULL)
    {
      proc = rtop_process_new (r->has_pid ? (gint32) MIN (r->pid, G_MAXINT32) : 0);
      proc->kernel = !r->has_pid && r->kern_name != NULL;
      if (proc->kernel)
        proc->comm = g_strdup (r->kern_name);
      g_hash_table_insert (owners, g_strdup (key), proc);
    }
  return proc;
}

/* The index of proc's entry for device in proc->devices, added if new. */
static guint
process_device_for (RtopProcess *proc, const char *device)
{
  RtopProcessDevice pd = { 0 };

  /* Devices are dumped one after another and never twice in a pass (their
   * names are unique, device_cb() sees to it): a process's entry for this
   * device, if it has one, is the one added last. */
  if (proc->devices->len > 0)
    {
      RtopProcessDevice *d = &g_array_index (proc->devices, RtopProcessDevice, proc->devices->len - 1);
      if (g_strcmp0 (d->device, device) == 0)
        return proc->devices->len - 1;
    }
  pd.device = g_strdup (device);
  g_array_append_val (proc->devices, pd);
  return proc->devices->len - 1;
}

/* count entries of kind, whose MRs (for MR entries) add up to mr_bytes. */
static void
account (RtopProcess *proc, guint pd_index, RtopNlResKind kind, guint64 count, guint64 mr_bytes)
{
  RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, pd_index);

  switch (kind)
    {
    case RTOP_NL_RES_QP:
      pd->qps += (guint32) count;
      proc->qps += (guint32) count;
      break;
    case RTOP_NL_RES_CTX:
      pd->contexts += (guint32) count;
      proc->contexts += (guint32) count;
      break;
    case RTOP_NL_RES_MR:
      pd->mrs += (guint32) count;
      proc->mrs += (guint32) count;
      pd->mr_bytes += mr_bytes;
      proc->mr_bytes += mr_bytes;
      break;
    case RTOP_NL_RES_CM_ID:
      break;             /* read for QPs' peer addresses, counted nowhere */
    }
}

static void
enrich (RtopCollector *self, RtopProcess *proc)
{
  const RtopProcInfo *info;

  if (proc->pid <= 0)
    return;
  info = rtop_proc_cache_lookup (self->procs, proc->pid);
  if (info == NULL)
    return;     /* exited between the dump and now */
  proc->start_time = info->start_time;
  proc->comm = g_strdup (info->comm);
  proc->cmdline = g_strdup (info->cmdline);
  proc->user = g_strdup (info->user);
  proc->uid = info->uid;
  proc->rss_bytes = info->rss_bytes;
  proc->threads = info->threads;
  proc->state = info->state;
}

/* The kernel lists resources one device at a time (RES_*_GET dumps need
 * DEV_INDEX), so the pass asks for the devices it already has. */
static void
dump_resources (RtopCollector *self, const RtopDevice *dev, GHashTable *owners,
                RtopSnapshot *snap)
{
  static const struct { RtopNlResKind kind; guint16 cmd; } dumps[] = {
    { RTOP_NL_RES_QP, RDMA_NLDEV_CMD_RES_QP_GET },
    { RTOP_NL_RES_CTX, RDMA_NLDEV_CMD_RES_CTX_GET },
    { RTOP_NL_RES_MR, RDMA_NLDEV_CMD_RES_MR_GET },
  };

  DeviceCache *dc = g_hash_table_lookup (self->devices, dev->name);

  G_STATIC_ASSERT (G_N_ELEMENTS (dumps) == N_RES_KINDS);
  for (guint d = 0; d < G_N_ELEMENTS (dumps); d++)
    {
      ResData rd = { dumps[d].kind, dev, owners, snap, { { 0 } }, 0, 0,
                     dc != NULL ? dc->res_msgs[dumps[d].kind] : NULL, 0, NULL, NULL, NULL };
      g_autoptr(GError) error = NULL;

      /* Entries are counted as they arrive, without copies; a dump that
       * fails part-way keeps what it counted, and processes_error says
       * the list is incomplete. */
      if (rtop_nl_query (self->nl, dumps[d].cmd, TRUE, dev->index, 0, res_cb, &rd, &error))
        {
          /* Fewer messages than last time: forget the positions past them. */
          if (rd.kept != NULL && rd.position < rd.kept->len)
            g_array_set_size (rd.kept, rd.position);
        }
      else
        {
          if (rd.kept != NULL)
            g_array_set_size (rd.kept, 0);
          /* A device that vanished since the device dump has nothing to
           * list; anything else leaves the process list incomplete, and
           * the snapshot says so rather than passing fewer processes off
           * as all of them. */
          if (!g_error_matches (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE) &&
              snap->processes_error == NULL)
            snap->processes_error = g_strdup_printf (_("Listing the processes on %s failed: %s"),
                                                     dev->name, error->message);
        }
    }
}

/* Peer addresses: RES_QP has none, but the rdma_cm ID of a QP that
 * rdma_cm connected names its QP and the address it connects to.  Asked
 * for only on a device where a listed QP has a peer, and kept only for
 * listed QPs, so memory follows the bounded QP lists. */
typedef struct {
  const RtopDevice *dev;
  GHashTable *wanted;        /* lqpn -> PeerSlot */
} PeerData;

typedef struct {
  RtopProcess *proc;
  guint index;               /* in proc->qp_list */
} PeerSlot;

static gboolean
cm_id_entry_cb (const RtopNlRes *r, gpointer user_data, GError **error)
{
  PeerData *pd = user_data;
  const PeerSlot *slot;
  RtopQp *qp;
  char text[64];

  if (r->dev_index != pd->dev->index || !r->has_lqpn || r->dst_addr == NULL)
    return TRUE;
  slot = g_hash_table_lookup (pd->wanted, GUINT_TO_POINTER (r->lqpn));
  if (slot == NULL || !rtop_nl_format_sockaddr (r->dst_addr, text, sizeof text))
    return TRUE;
  qp = &g_array_index (slot->proc->qp_list, RtopQp, slot->index);
  if (qp->peer_addr != NULL)
    return TRUE;
  if (slot->proc->qp_addrs == NULL)
    slot->proc->qp_addrs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (slot->proc->qp_addrs, g_strdup (text));
  qp->peer_addr = g_ptr_array_index (slot->proc->qp_addrs, slot->proc->qp_addrs->len - 1);
  return TRUE;
}

static gboolean
cm_id_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  return rtop_nl_parse_res_foreach (nlh, RTOP_NL_RES_CM_ID, cm_id_entry_cb, user_data, error);
}

static void
add_peer_addresses (RtopCollector *self, const RtopDevice *dev, GHashTable *owners)
{
  g_autoptr(GHashTable) wanted = NULL;
  g_autoptr(GError) error = NULL;
  PeerData pd = { dev, NULL };
  GHashTableIter iter;
  RtopProcess *proc;

  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &proc))
    for (guint i = 0; proc->qp_list != NULL && i < proc->qp_list->len; i++)
      {
        const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, i);
        PeerSlot *slot;

        if (!qp->has_rqpn || qp->peer_addr != NULL || g_strcmp0 (qp->device, dev->name) != 0)
          continue;
        if (wanted == NULL)
          wanted = g_hash_table_new_full (NULL, NULL, NULL, g_free);
        slot = g_new (PeerSlot, 1);
        *slot = (PeerSlot) { proc, i };
        g_hash_table_replace (wanted, GUINT_TO_POINTER (qp->lqpn), slot);
      }
  if (wanted == NULL)
    return;
  pd.wanted = wanted;
  /* Peer addresses add to the list; without them (a kernel without
   * rdma_cm IDs in netlink, a dump that fails) it is still complete. */
  if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_RES_CM_ID_GET, TRUE, dev->index, 0, cm_id_cb,
                      &pd, &error))
    g_debug ("No rdma_cm IDs on %s: %s", dev->name, error->message);
}

static void
collect_processes (RtopCollector *self, RtopSnapshot *snap)
{
  g_autoptr(GHashTable) owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  RtopProcess *proc;

  for (guint i = 0; i < snap->devices->len; i++)
    {
      dump_resources (self, g_ptr_array_index (snap->devices, i), owners, snap);
      add_peer_addresses (self, g_ptr_array_index (snap->devices, i), owners);
    }

  rtop_proc_cache_begin_pass (self->procs);
  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &proc))
    {
      enrich (self, proc);
      g_ptr_array_add (snap->processes, proc);
    }
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

  snap->gpu_status = rtop_gpu_source_read (self->gpu, self->rates, gpus);
  for (guint i = 0; i < gpus->len; i++)
    if (device_wanted (self, ((RtopDevice *) g_ptr_array_index (gpus, i))->name))
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
  if (!collect_devices (self, snap, &error))
    {
      snap->status = status_for_error (error);
      snap->status_message = g_strdup (error->message);
      g_ptr_array_set_size (snap->devices, 0);
    }
  else if (!self->no_processes)
    collect_processes (self, snap);
  collect_gpus (self, snap);
  rtop_rates_end_pass (self->rates);
  rtop_snapshot_seal (snap);
  rtop_health_process (self->health, snap);
  return snap;
}

/* ---- Counters only ---- */

/* One port's counters and nothing else, for captures at millisecond
 * periods: its STAT_GET reply (or the sysfs hw_counters that replace it)
 * and its sysfs PMA counters.  No device or port dump, no netdev, no
 * resource dump, no /proc, no rates: the pass before set up what this
 * reuses (the port's open counter files and its reply template). */
typedef struct {
  PortCache *pc;
  guint32 dev_index, port;
  guint32 got_dev, got_port;
  RtopCounterDirFunc func;
  gpointer user_data;
} TapData;

static gboolean
tap_counter_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  TapData *td = user_data;

  if (td->got_dev == td->dev_index && (td->got_port == 0 || td->got_port == td->port))
    td->func (name, value, RTOP_COUNTER_SOURCE_NETLINK, td->user_data);
  return TRUE;
}

/* A reply equal to the template but for its values is the layout's first
 * counters, in message order: no walk, no name compared. */
static gboolean
tap_stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  TapData *td = user_data;
  PortCache *pc = td->pc;
  const PortLayout *l = pc->layout;

  if (pc->stat_template != NULL && l != NULL && l->id == pc->stat_layout &&
      rtop_nl_stat_template_match (pc->stat_template, nlh, pc->stat_values))
    {
      guint n = rtop_nl_stat_template_get_n_counters (pc->stat_template);

      for (guint k = 0; k < n; k++)
        td->func (l->names[l->slot[k]], pc->stat_values[k], RTOP_COUNTER_SOURCE_NETLINK,
                  td->user_data);
      return TRUE;
    }
  return rtop_nl_parse_stat_foreach (nlh, &td->got_dev, &td->got_port, tap_counter_cb, td, error);
}

gboolean
rtop_collector_read_port_counters (RtopCollector *self, const char *device, guint32 port,
                                   RtopCounterDirFunc func, gpointer user_data, GError **error)
{
  DeviceCache *dc = self->nl != NULL ? g_hash_table_lookup (self->devices, device) : NULL;
  PortCache *pc = dc != NULL ? g_hash_table_lookup (dc->ports, GUINT_TO_POINTER (port)) : NULL;
  guint failed = 0;

  if (pc == NULL)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                   _("Port %u of “%s” is gone."), port, device);
      return FALSE;
    }
  if (!pc->stat_unsupported)
    {
      TapData td = { pc, dc->index, port, 0, 0, func, user_data };

      if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, dc->index, port,
                          tap_stat_cb, &td, error))
        return FALSE;
    }
  else if (pc->hw != NULL)
    rtop_counter_dir_read_foreach (pc->hw, func, user_data, &failed);
  if (pc->pma != NULL)
    rtop_counter_dir_read_foreach (pc->pma, func, user_data, &failed);
  return TRUE;
}
