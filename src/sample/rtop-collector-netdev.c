/* rtop-collector-netdev.c: where a port's netdev counters come from, for
 * providers whose hw counters have no byte counts: one routing netlink
 * dump (RTM_GETSTATS) per pass, or the netdev's sysfs statistics. */
#include "config.h"

#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "rtop-collector-private.h"

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

void
rtop_collector_refresh_netdev_dir (RtopCollector *self, PortCache *pc, const char *provider,
                                   const char *netdev, guint32 ifindex)
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
const RtopNlLinkStats *
rtop_collector_link_stats_for (RtopCollector *self, guint32 ifindex)
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
