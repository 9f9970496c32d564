/* rtop-nl-parse-link.c: routing netlink (NETLINK_ROUTE) replies that the
 * collector reads for providers with no byte counters of their own (rxe):
 * a netdev's statistics (RTM_NEWSTATS) and its name (RTM_NEWLINK), walked
 * with the same whole-attribute checks as the RDMA netlink parsers. */
#include "config.h"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "rtop-nl-parse-private.h"

/* Walks the attributes after a family header of hdr_len bytes; calls
 * func for each whole one; FALSE when bytes are left that are no whole
 * attribute. */
static gboolean
walk_family_attrs (const struct nlmsghdr *nlh, gsize hdr_len,
                   void (*func) (const struct nlattr *attr, gpointer data), gpointer data)
{
  const struct nlattr *attr;
  AttrWalk w;

  walk_init (&w, (const guint8 *) nlh + MNL_NLMSG_HDRLEN + MNL_ALIGN (hdr_len),
             nlh->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN (hdr_len));
  while ((attr = walk_next (&w)) != NULL)
    func (attr, data);
  return walk_complete (&w);
}

static void
link_stats_attr (const struct nlattr *attr, gpointer data)
{
  RtopNlLinkStats *out = data;
  guint64 first[4];

  /* struct rtnl_link_stats64 starts rx_packets, tx_packets, rx_bytes,
   * tx_bytes and has only grown since. */
  if ((attr->nla_type & NLA_TYPE_MASK) != IFLA_STATS_LINK_64 || attr_data_len (attr) < sizeof first)
    return;
  memcpy (first, attr_data (attr), sizeof first);
  out->rx_packets = first[0];
  out->tx_packets = first[1];
  out->rx_bytes = first[2];
  out->tx_bytes = first[3];
  out->has_stats = TRUE;
}

gboolean
rtop_nl_parse_link_stats (const struct nlmsghdr *nlh, RtopNlLinkStats *out, GError **error)
{
  struct if_stats_msg ifsm;

  memset (out, 0, sizeof *out);
  if (nlh->nlmsg_type != RTM_NEWSTATS)
    return rtop_nl_malformed (error, _("not a link statistics message"));
  if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN (sizeof ifsm))
    return rtop_nl_malformed (error, _("truncated message header"));
  memcpy (&ifsm, (const guint8 *) nlh + MNL_NLMSG_HDRLEN, sizeof ifsm);
  out->ifindex = ifsm.ifindex;
  if (!walk_family_attrs (nlh, sizeof ifsm, link_stats_attr, out))
    {
      memset (out, 0, sizeof *out);
      return rtop_nl_malformed (error, _("truncated attribute"));
    }
  return TRUE;
}

typedef struct {
  const char *name;
  gboolean bad;
} LinkName;

static void
link_name_attr (const struct nlattr *attr, gpointer data)
{
  LinkName *ln = data;

  if ((attr->nla_type & NLA_TYPE_MASK) != IFLA_IFNAME)
    return;
  if (rtop_nl_string_is_valid (attr_data (attr), attr_data_len (attr)))
    ln->name = attr_data (attr);
  else
    ln->bad = TRUE;
}

gboolean
rtop_nl_parse_link_name (const struct nlmsghdr *nlh, guint32 *ifindex, const char **name,
                         GError **error)
{
  struct ifinfomsg ifi;
  LinkName ln = { NULL, FALSE };

  *ifindex = 0;
  *name = NULL;
  if (nlh->nlmsg_type != RTM_NEWLINK)
    return rtop_nl_malformed (error, _("not a link message"));
  if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN (sizeof ifi))
    return rtop_nl_malformed (error, _("truncated message header"));
  memcpy (&ifi, (const guint8 *) nlh + MNL_NLMSG_HDRLEN, sizeof ifi);
  if (!walk_family_attrs (nlh, sizeof ifi, link_name_attr, &ln))
    return rtop_nl_malformed (error, _("truncated attribute"));
  if (ln.bad || ln.name == NULL)
    return rtop_nl_malformed (error, _("IFLA_IFNAME is missing or not a string"));
  *ifindex = (guint32) ifi.ifi_index;
  *name = ln.name;
  return TRUE;
}
