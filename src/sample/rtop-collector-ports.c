/* rtop-collector-ports.c: the device and port dumps of a pass (GET,
 * PORT_GET) into the snapshot's devices and ports, and the per-device and
 * per-port caches kept between passes. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "uapi/rdma/rdma_netlink.h"
#include "rtop-collector-private.h"
#include "rtop-error.h"

#define PORT_INFO_REFRESH_US (5 * G_USEC_PER_SEC)

static void
port_cache_free (gpointer data)
{
  PortCache *pc = data;

  rtop_collector_port_layout_unref (pc->layout);
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

static void
port_message_clear (gpointer data)
{
  g_clear_pointer (&((PortMessage *) data)->msg.bytes, g_free);
}

static void
res_message_clear (gpointer data)
{
  ResMessage *rm = data;

  g_clear_pointer (&rm->msg.bytes, g_free);
  g_clear_pointer (&rm->runs, g_array_unref);
  g_clear_pointer (&rm->qps, g_array_unref);
}

void
rtop_collector_device_cache_free (gpointer data)
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

/* ---- Devices and ports ---- */

gboolean
rtop_collector_device_wanted (RtopCollector *self, const char *name)
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
      if (!rtop_collector_device_wanted (self, v.name))
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

static void
refresh_port_info (RtopCollector *self, const RtopDevice *dev, PortCache *pc,
                   guint32 port, gint64 now)
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
      PortCache *pc;

      if (np->dev_index != dev->index || np->port == 0)
        continue;
      pc = port_cache_get (self, dev, dc, np->port);
      /* Port facts are re-read every few seconds. */
      refresh_port_info (self, dev, pc, np->port, self->pass_start_us);
      rtop_collector_fill_port (self, dev, dc, pc, np);
    }
  rtop_collector_fill_device_counters (self, dev, dc);
  return TRUE;
}

gboolean
rtop_collector_collect_devices (RtopCollector *self, RtopSnapshot *snap, GError **error)
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
