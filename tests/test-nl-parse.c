/* test-nl-parse.c: RDMA netlink parsers and reply processing on real message
 * bytes built with libmnl (tests/support/nl-test-msgs.c), well-formed and broken. */
#include "rtop-nl-private.h"
#include "rtop-error.h"
#include "support/nl-test-msgs.h"
#include "uapi/rdma/rdma_netlink.h"

#include <errno.h>
#include <string.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#define SEQ 4242
#define PORTID 777

/* ---- helpers ---- */

static void
assert_malformed (GError *error)
{
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_test_message ("expected error: %s", error->message);
}

static void
device_rejected (const struct nlmsghdr *nlh)
{
  g_autoptr(GError) error = NULL;
  RtopNlDevice dev;

  g_assert_false (rtop_nl_parse_device (nlh, &dev, &error));
  assert_malformed (error);
  g_assert_null (dev.name);
  g_assert_null (dev.fw_version);
  g_assert_null (dev.protocol);
}

/* Sets the length of the last attribute, as a sender with a bug would. */
static struct nlattr *
last_attr (struct nlmsghdr *nlh)
{
  struct nlattr *attr, *last = NULL;

  mnl_attr_for_each (attr, nlh, 0)
    last = attr;
  g_assert_nonnull (last);
  return last;
}

/* ---- the vendored header ---- */

static void
test_header_numbers (void)
{
  /* Kernel ABI: these never change.  A wrong or mixed-up header fails here. */
  static const struct { int value, expected; const char *name; } abi[] = {
    { RDMA_NL_NLDEV, 5, "RDMA_NL_NLDEV" },
    { RDMA_NL_GROUP_NOTIFY, 4, "RDMA_NL_GROUP_NOTIFY" },
    { RDMA_NLDEV_CMD_GET, 1, "CMD_GET" },
    { RDMA_NLDEV_CMD_PORT_GET, 5, "CMD_PORT_GET" },
    { RDMA_NLDEV_CMD_SYS_GET, 6, "CMD_SYS_GET" },
    { RDMA_NLDEV_CMD_RES_QP_GET, 10, "CMD_RES_QP_GET" },
    { RDMA_NLDEV_CMD_RES_MR_GET, 13, "CMD_RES_MR_GET" },
    { RDMA_NLDEV_CMD_STAT_GET, 17, "CMD_STAT_GET" },
    { RDMA_NLDEV_CMD_RES_CTX_GET, 22, "CMD_RES_CTX_GET" },
    { RDMA_NLDEV_CMD_MONITOR, 28, "CMD_MONITOR" },
    { RDMA_NLDEV_ATTR_DEV_INDEX, 1, "DEV_INDEX" },
    { RDMA_NLDEV_ATTR_DEV_NAME, 2, "DEV_NAME" },
    { RDMA_NLDEV_ATTR_PORT_INDEX, 3, "PORT_INDEX" },
    { RDMA_NLDEV_ATTR_FW_VERSION, 5, "FW_VERSION" },
    { RDMA_NLDEV_ATTR_NODE_GUID, 6, "NODE_GUID" },
    { RDMA_NLDEV_ATTR_PORT_STATE, 12, "PORT_STATE" },
    { RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 13, "PORT_PHYS_STATE" },
    { RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 14, "DEV_NODE_TYPE" },
    { RDMA_NLDEV_ATTR_RES_QP, 19, "RES_QP" },
    { RDMA_NLDEV_ATTR_RES_QP_ENTRY, 20, "RES_QP_ENTRY" },
    { RDMA_NLDEV_ATTR_RES_LQPN, 21, "RES_LQPN" },
    { RDMA_NLDEV_ATTR_RES_TYPE, 26, "RES_TYPE" },
    { RDMA_NLDEV_ATTR_RES_STATE, 27, "RES_STATE" },
    { RDMA_NLDEV_ATTR_RES_PID, 28, "RES_PID" },
    { RDMA_NLDEV_ATTR_RES_KERN_NAME, 29, "RES_KERN_NAME" },
    { RDMA_NLDEV_ATTR_RES_MR, 40, "RES_MR" },
    { RDMA_NLDEV_ATTR_RES_MR_ENTRY, 41, "RES_MR_ENTRY" },
    { RDMA_NLDEV_ATTR_RES_MRLEN, 45, "RES_MRLEN" },
    { RDMA_NLDEV_ATTR_NDEV_INDEX, 50, "NDEV_INDEX" },
    { RDMA_NLDEV_ATTR_NDEV_NAME, 51, "NDEV_NAME" },
    { RDMA_NLDEV_ATTR_RES_MRN, 62, "RES_MRN" },
    { RDMA_NLDEV_ATTR_RES_CTXN, 64, "RES_CTXN" },
    { RDMA_NLDEV_ATTR_DEV_PROTOCOL, 67, "DEV_PROTOCOL" },
    { RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 80, "STAT_HWCOUNTERS" },
    { RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, 81, "STAT_HWCOUNTER_ENTRY" },
    { RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 82, "STAT_HWCOUNTER_ENTRY_NAME" },
    { RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 83, "STAT_HWCOUNTER_ENTRY_VALUE" },
    { RDMA_NLDEV_ATTR_RES_CTX, 86, "RES_CTX" },
    { RDMA_NLDEV_ATTR_RES_CTX_ENTRY, 87, "RES_CTX_ENTRY" },
    { RDMA_NLDEV_ATTR_EVENT_TYPE, 102, "EVENT_TYPE" },
    { RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, 103, "SYS_ATTR_MONITOR_MODE" },
    { RDMA_NETDEV_DETACH_EVENT, 3, "RDMA_NETDEV_DETACH_EVENT" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (abi); i++)
    {
      g_test_message ("%s", abi[i].name);
      g_assert_cmpint (abi[i].value, ==, abi[i].expected);
    }
  g_assert_cmpint (RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET), ==, (5 << 10) + 17);
  g_assert_cmpstr (rtop_nl_command_name (RDMA_NLDEV_CMD_RES_CTX_GET), ==, "RES_CTX_GET");
  g_assert_cmpstr (rtop_nl_command_name (999), ==, "?");
}

/* ---- well-formed replies ---- */

static void
test_device (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlDevice dev;

  nl_test_device (buf.bytes, SEQ, PORTID, 3, "mlx5_0", 2);
  g_assert_true (rtop_nl_parse_device (&buf.align, &dev, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (dev.index, ==, 3);
  g_assert_cmpstr (dev.name, ==, "mlx5_0");
  g_assert_cmpuint (dev.port_count, ==, 2);
  g_assert_cmpuint (dev.node_type, ==, RDMA_NODE_IB_CA);
  g_assert_cmpstr (dev.fw_version, ==, "1.2.3");
  g_assert_cmphex (dev.node_guid, ==, G_GUINT64_CONSTANT (0x0002c90300a1b2c3));
  g_assert_cmphex (dev.sys_image_guid, ==, G_GUINT64_CONSTANT (0x0002c90300a1b2c0));
  g_assert_cmpstr (dev.protocol, ==, "roce");
  rtop_nl_device_clear (&dev);
  g_assert_null (dev.name);
}

static void
test_device_minimal (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  RtopNlDevice dev;

  /* Optional attributes absent (no FW, unknown protocol): defaults. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 0, "rxe0");
  g_assert_true (rtop_nl_parse_device (nlh, &dev, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (dev.index, ==, 0);
  g_assert_cmpstr (dev.name, ==, "rxe0");
  g_assert_cmpuint (dev.port_count, ==, 0);
  g_assert_null (dev.fw_version);
  g_assert_null (dev.protocol);
  rtop_nl_device_clear (&dev);
}

static void
test_port (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlPort port;

  nl_test_port (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, 4, 5, "d0");
  g_assert_true (rtop_nl_parse_port (&buf.align, &port, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (port.dev_index, ==, 1);
  g_assert_cmpstr (port.dev_name, ==, "rxe0");
  g_assert_cmpuint (port.port, ==, 1);
  g_assert_cmpuint (port.state, ==, 4);
  g_assert_cmpuint (port.phys_state, ==, 5);
  g_assert_cmpuint (port.ndev_index, ==, 7);
  g_assert_cmpstr (port.ndev_name, ==, "d0");
  rtop_nl_port_clear (&port);

  /* An IB port has no netdev. */
  nl_test_port (buf.bytes, SEQ, PORTID, 2, "mlx5_1", 1, 1, 2, NULL);
  g_assert_true (rtop_nl_parse_port (&buf.align, &port, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (port.ndev_index, ==, 0);
  g_assert_null (port.ndev_name);
  rtop_nl_port_clear (&port);
}

static void
test_hwcounters (void)
{
  static const NlTestCounter counters[] = {
    { "sent_pkts", 123456789 },
    { "rcvd_pkts", G_GUINT64_CONSTANT (0xfffffffff0) },
    { "completer_retry_err", 0 },
  };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlStat stat;

  nl_test_stat (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, counters, G_N_ELEMENTS (counters));
  g_assert_true (rtop_nl_parse_stat (&buf.align, &stat, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stat.dev_index, ==, 1);
  g_assert_cmpstr (stat.dev_name, ==, "rxe0");
  g_assert_cmpuint (stat.port, ==, 1);
  g_assert_cmpuint (stat.counters->len, ==, G_N_ELEMENTS (counters));
  for (guint i = 0; i < G_N_ELEMENTS (counters); i++)
    {
      RtopNlCounter *c = &g_array_index (stat.counters, RtopNlCounter, i);

      g_assert_cmpstr (c->name, ==, counters[i].name);
      g_assert_cmpuint (c->value, ==, counters[i].value);
    }
  rtop_nl_stat_clear (&stat);
  g_assert_null (stat.counters);
}

typedef struct {
  GString *names;
  guint64 sum;
  guint stop_after;          /* 0: never */
  guint n;
} ForeachSink;

static gboolean
foreach_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  ForeachSink *sink = user_data;

  g_string_append_printf (sink->names, "%s;", name);
  sink->sum += value;
  if (++sink->n == sink->stop_after)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED, "enough");
      return FALSE;
    }
  return TRUE;
}

static void
test_hwcounters_foreach (void)
{
  static const NlTestCounter counters[] = {
    { "sent_pkts", 1 }, { "rcvd_pkts", 20 }, { "link_downed", 300 },
  };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  ForeachSink sink = { g_string_new (NULL), 0, 0, 0 };
  guint32 dev_index = 0, port = 0;
  struct nlmsghdr *nlh;
  struct nlattr *table, *entry;

  nl_test_stat (buf.bytes, SEQ, PORTID, 6, "efa_0", 2, counters, G_N_ELEMENTS (counters));
  g_assert_true (rtop_nl_parse_stat_foreach (&buf.align, &dev_index, &port, foreach_cb, &sink,
                                             &error));
  g_assert_no_error (error);
  g_assert_cmpuint (dev_index, ==, 6);
  g_assert_cmpuint (port, ==, 2);
  g_assert_cmpstr (sink.names->str, ==, "sent_pkts;rcvd_pkts;link_downed;");
  g_assert_cmpuint (sink.sum, ==, 321);

  /* The callback stops the walk with its own error. */
  g_string_truncate (sink.names, 0);
  sink.stop_after = 2;
  sink.n = 0;
  g_assert_false (rtop_nl_parse_stat_foreach (&buf.align, NULL, NULL, foreach_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_FAILED);
  g_assert_cmpstr (sink.names->str, ==, "sent_pkts;rcvd_pkts;");
  g_clear_error (&error);

  /* A bad entry after a good one: the good one was seen, the call fails. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "good");
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
  mnl_attr_nest_end (nlh, entry);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "bad");
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_string_truncate (sink.names, 0);
  sink.stop_after = 0;
  g_assert_false (rtop_nl_parse_stat_foreach (nlh, NULL, NULL, foreach_cb, &sink, &error));
  assert_malformed (error);
  g_assert_cmpstr (sink.names->str, ==, "good;");
  g_string_free (sink.names, TRUE);
}

/* A reply equal to the template in all but values (and sequence number)
 * gives its values; any other difference is no match. */
static void
test_stat_template (void)
{
  static const NlTestCounter first[] = {
    { "sent_pkts", 1 }, { "rcvd_pkts", 2 }, { "rcvd_seq_err", G_MAXUINT64 },
  };
  static const NlTestCounter later[] = {
    { "sent_pkts", 10 }, { "rcvd_pkts", 0 }, { "rcvd_seq_err", 30 },
  };
  static const NlTestCounter renamed[] = {
    { "sent_pkts", 10 }, { "rcvd_pkts", 0 }, { "rcvd_seq_ERR", 30 },
  };
  static const NlTestCounter more[] = {
    { "sent_pkts", 10 }, { "rcvd_pkts", 0 }, { "rcvd_seq_err", 30 }, { "ack_deferred", 4 },
  };
  NlTestBuf buf = { { 0 } };
  g_autoptr(RtopNlStatTemplate) t = NULL;
  guint64 values[3] = { 0 };
  struct nlmsghdr *nlh;

  nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe0", 1, first, G_N_ELEMENTS (first));
  t = rtop_nl_stat_template_new (&buf.align);
  g_assert_nonnull (t);
  g_assert_cmpuint (rtop_nl_stat_template_get_n_counters (t), ==, 3);
  g_assert_true (rtop_nl_stat_template_match (t, &buf.align, values));
  g_assert_cmpuint (values[0], ==, 1);
  g_assert_cmpuint (values[2], ==, G_MAXUINT64);

  nlh = nl_test_stat (buf.bytes, SEQ + 7, PORTID, 2, "rxe0", 1, later, G_N_ELEMENTS (later));
  g_assert_true (rtop_nl_stat_template_match (t, nlh, values));
  g_assert_cmpuint (values[0], ==, 10);
  g_assert_cmpuint (values[1], ==, 0);
  g_assert_cmpuint (values[2], ==, 30);

  /* Another name of the same length, another port, another device, one
   * more counter, another message type: the full parse must run. */
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe0", 1, renamed, G_N_ELEMENTS (renamed));
  g_assert_false (rtop_nl_stat_template_match (t, nlh, values));
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe0", 2, later, G_N_ELEMENTS (later));
  g_assert_false (rtop_nl_stat_template_match (t, nlh, values));
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe1", 1, later, G_N_ELEMENTS (later));
  g_assert_false (rtop_nl_stat_template_match (t, nlh, values));
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe0", 1, more, G_N_ELEMENTS (more));
  g_assert_false (rtop_nl_stat_template_match (t, nlh, values));
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 2, "rxe0", 1, later, G_N_ELEMENTS (later));
  nlh->nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
  g_assert_false (rtop_nl_stat_template_match (t, nlh, values));
  /* Values were only written on a match. */
  g_assert_cmpuint (values[2], ==, 30);

  /* No template from a reply that does not parse. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  g_assert_null (rtop_nl_stat_template_new (nlh));   /* no PORT_INDEX */
}

static struct nlmsghdr *
link_stats_msg (void *buf, guint32 ifindex, gsize stats_len)
{
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (buf);
  struct if_stats_msg *ifsm;
  struct rtnl_link_stats64 st = { 0 };

  nlh->nlmsg_type = RTM_NEWSTATS;
  nlh->nlmsg_flags = NLM_F_MULTI;
  ifsm = mnl_nlmsg_put_extra_header (nlh, sizeof *ifsm);
  ifsm->ifindex = ifindex;
  st.rx_packets = 1;
  st.tx_packets = 2;
  st.rx_bytes = 3;
  st.tx_bytes = G_MAXUINT64;
  mnl_attr_put_u32 (nlh, IFLA_STATS_UNSPEC + 40, 9);      /* unknown: skipped */
  if (stats_len > 0)
    mnl_attr_put (nlh, IFLA_STATS_LINK_64, stats_len, &st);
  return nlh;
}

static void
test_link_stats (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlLinkStats st;
  struct nlmsghdr *nlh;
  const char *name;
  guint32 ifindex;
  struct ifinfomsg *ifi;

  g_assert_true (rtop_nl_parse_link_stats (link_stats_msg (buf.bytes, 7, sizeof (struct rtnl_link_stats64)),
                                           &st, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (st.ifindex, ==, 7);
  g_assert_true (st.has_stats);
  g_assert_cmpuint (st.rx_packets, ==, 1);
  g_assert_cmpuint (st.tx_packets, ==, 2);
  g_assert_cmpuint (st.rx_bytes, ==, 3);
  g_assert_cmpuint (st.tx_bytes, ==, G_MAXUINT64);

  /* Too short for the four counters, or absent: a link without them. */
  g_assert_true (rtop_nl_parse_link_stats (link_stats_msg (buf.bytes, 8, 24), &st, &error));
  g_assert_false (st.has_stats);
  g_assert_true (rtop_nl_parse_link_stats (link_stats_msg (buf.bytes, 8, 0), &st, &error));
  g_assert_false (st.has_stats);
  g_assert_cmpuint (st.ifindex, ==, 8);

  /* A cut attribute, a cut header, another message type. */
  nlh = link_stats_msg (buf.bytes, 7, sizeof (struct rtnl_link_stats64));
  nlh->nlmsg_len -= 3;
  g_assert_false (rtop_nl_parse_link_stats (nlh, &st, &error));
  assert_malformed (error);
  g_clear_error (&error);
  nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 4;
  g_assert_false (rtop_nl_parse_link_stats (nlh, &st, &error));
  assert_malformed (error);
  g_clear_error (&error);
  nlh = link_stats_msg (buf.bytes, 7, sizeof (struct rtnl_link_stats64));
  nlh->nlmsg_type = RTM_NEWLINK;
  g_assert_false (rtop_nl_parse_link_stats (nlh, &st, &error));
  assert_malformed (error);
  g_clear_error (&error);

  /* RTM_NEWLINK: index and name. */
  nlh = mnl_nlmsg_put_header (buf.bytes);
  nlh->nlmsg_type = RTM_NEWLINK;
  ifi = mnl_nlmsg_put_extra_header (nlh, sizeof *ifi);
  ifi->ifi_index = 7;
  mnl_attr_put_u32 (nlh, IFLA_MTU, 1500);
  mnl_attr_put_strz (nlh, IFLA_IFNAME, "d0");
  g_assert_true (rtop_nl_parse_link_name (nlh, &ifindex, &name, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ifindex, ==, 7);
  g_assert_cmpstr (name, ==, "d0");

  /* Without a name, or with one that is not a string. */
  nlh = mnl_nlmsg_put_header (buf.bytes);
  nlh->nlmsg_type = RTM_NEWLINK;
  mnl_nlmsg_put_extra_header (nlh, sizeof *ifi);
  g_assert_false (rtop_nl_parse_link_name (nlh, &ifindex, &name, &error));
  assert_malformed (error);
  g_clear_error (&error);
  mnl_attr_put (nlh, IFLA_IFNAME, 2, "d0");
  g_assert_false (rtop_nl_parse_link_name (nlh, &ifindex, &name, &error));
  assert_malformed (error);
  g_assert_null (name);
}

static void
test_hwcounters_empty (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlStat stat;

  /* A driver without hw counters sends an empty table. */
  nl_test_stat (buf.bytes, SEQ, PORTID, 5, "siw0", 1, NULL, 0);
  g_assert_true (rtop_nl_parse_stat (&buf.align, &stat, &error));
  g_assert_no_error (error);
  g_assert_nonnull (stat.counters);
  g_assert_cmpuint (stat.counters->len, ==, 0);
  rtop_nl_stat_clear (&stat);
}

static GArray *
res_array (void)
{
  GArray *arr = g_array_new (FALSE, TRUE, sizeof (RtopNlRes));

  g_array_set_clear_func (arr, (GDestroyNotify) rtop_nl_res_clear);
  return arr;
}

static void
test_res_qp (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = res_array ();
  RtopNlRes *r;

  nl_test_res_qp (buf.bytes, SEQ, PORTID, 1, "rxe0", 17, 3, 4711);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
  g_assert_no_error (error);
  /* A second message of the same dump appends (kernel-owned QP 1). */
  nl_test_res_qp (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, 1, 0);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (qps->len, ==, 4);

  r = &g_array_index (qps, RtopNlRes, 2);
  g_assert_cmpint (r->kind, ==, RTOP_NL_RES_QP);
  g_assert_cmpuint (r->dev_index, ==, 1);
  g_assert_cmpstr (r->dev_name, ==, "rxe0");
  g_assert_cmpuint (r->id, ==, 19);
  g_assert_cmpuint (r->port, ==, 1);
  g_assert_cmpuint (r->qp_type, ==, 2);
  g_assert_cmpuint (r->qp_state, ==, 3);
  g_assert_true (r->has_rqpn);
  g_assert_cmpuint (r->rqpn, ==, 101);
  g_assert_true (r->has_pid);
  g_assert_cmpuint (r->pid, ==, 4711);
  g_assert_null (r->kern_name);

  r = &g_array_index (qps, RtopNlRes, 3);
  g_assert_cmpuint (r->id, ==, 1);
  g_assert_false (r->has_pid);
  g_assert_cmpstr (r->kern_name, ==, "ib_core");
}

/* A UD QP has no peer; a QP in the error state says so. */
static void
test_res_qp_ud_error (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = res_array ();
  RtopNlRes *r;

  nl_test_res_qp_full (buf.bytes, SEQ, PORTID, 3, "mlx5_0", 700, 1, 4242, 4, 6, 0);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (qps->len, ==, 1);
  r = &g_array_index (qps, RtopNlRes, 0);
  g_assert_cmpuint (r->id, ==, 700);
  g_assert_cmpuint (r->qp_type, ==, 4);
  g_assert_cmpuint (r->qp_state, ==, 6);
  g_assert_false (r->has_rqpn);
  g_assert_cmpuint (r->pid, ==, 4242);

  nl_test_res_qp_full (buf.bytes, SEQ, PORTID, 3, "mlx5_0", 800, 1, 4242, 2, 6, 55);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
  r = &g_array_index (qps, RtopNlRes, 1);
  g_assert_true (r->has_rqpn);
  g_assert_cmpuint (r->rqpn, ==, 55);
  g_assert_cmpuint (r->qp_state, ==, 6);
}

static void
test_res_ctx (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) ctxs = res_array ();
  RtopNlRes *r;

  nl_test_res_ctx (buf.bytes, SEQ, PORTID, 2, "mlx5_0", 5, 2, 99);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_CTX, ctxs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ctxs->len, ==, 2);
  r = &g_array_index (ctxs, RtopNlRes, 1);
  g_assert_cmpint (r->kind, ==, RTOP_NL_RES_CTX);
  g_assert_cmpuint (r->id, ==, 6);
  g_assert_cmpuint (r->dev_index, ==, 2);
  g_assert_cmpuint (r->pid, ==, 99);
}

static void
test_res_mr (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) mrs = res_array ();
  RtopNlRes *r;

  nl_test_res_mr (buf.bytes, SEQ, PORTID, 1, "rxe0", 100, 2, 1234,
                  G_GUINT64_CONSTANT (8) << 30);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_MR, mrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (mrs->len, ==, 2);
  r = &g_array_index (mrs, RtopNlRes, 0);
  g_assert_cmpint (r->kind, ==, RTOP_NL_RES_MR);
  g_assert_cmpuint (r->id, ==, 100);
  g_assert_cmpuint (r->mr_len, ==, G_GUINT64_CONSTANT (8) << 30);
  g_assert_cmpuint (r->pid, ==, 1234);
}

/* rdma_cm IDs: the QP each names and the addresses, formatted as people
 * write them; a listening ID has no QP and no peer. */
static void
test_res_cm_id (void)
{
  static const NlTestCmId ids[] = {
    { 3, 0, "0.0.0.0", 18515, NULL, 0 },
    { 4, 17, "192.0.2.1", 18515, "192.0.2.2", 40001 },
    { 5, 18, "2001:db8::1", 4791, "2001:db8::2", 18515 },
  };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) cms = res_array ();
  char text[64];
  RtopNlRes *r;

  nl_test_res_cm_id (buf.bytes, SEQ, PORTID, 1, "rxe0", ids, G_N_ELEMENTS (ids), 1234);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_CM_ID, cms, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (cms->len, ==, 3);

  r = &g_array_index (cms, RtopNlRes, 0);
  g_assert_cmpint (r->kind, ==, RTOP_NL_RES_CM_ID);
  g_assert_cmpuint (r->id, ==, 3);
  g_assert_false (r->has_lqpn);
  g_assert_cmpuint (r->ps, ==, 0x0106);
  g_assert_null (r->dst_addr);
  g_assert_true (rtop_nl_format_sockaddr (r->src_addr, text, sizeof text));
  g_assert_cmpstr (text, ==, "0.0.0.0:18515");

  r = &g_array_index (cms, RtopNlRes, 1);
  g_assert_true (r->has_lqpn);
  g_assert_cmpuint (r->lqpn, ==, 17);
  g_assert_cmpuint (r->pid, ==, 1234);
  g_assert_cmpuint (r->port, ==, 1);
  g_assert_true (rtop_nl_format_sockaddr (r->dst_addr, text, sizeof text));
  g_assert_cmpstr (text, ==, "192.0.2.2:40001");

  r = &g_array_index (cms, RtopNlRes, 2);
  g_assert_cmpuint (r->lqpn, ==, 18);
  g_assert_true (rtop_nl_format_sockaddr (r->dst_addr, text, sizeof text));
  g_assert_cmpstr (text, ==, "[2001:db8::2]:18515");
  g_assert_true (rtop_nl_format_sockaddr (r->src_addr, text, sizeof text));
  g_assert_cmpstr (text, ==, "[2001:db8::1]:4791");

  /* A QP entry's own number is its lqpn too. */
  {
    g_autoptr(GArray) qps = res_array ();

    memset (&buf, 0, sizeof buf);
    nl_test_res_qp (buf.bytes, SEQ, PORTID, 1, "rxe0", 17, 1, 1234);
    g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
    g_assert_true (g_array_index (qps, RtopNlRes, 0).has_lqpn);
    g_assert_cmpuint (g_array_index (qps, RtopNlRes, 0).lqpn, ==, 17);
    g_assert_null (g_array_index (qps, RtopNlRes, 0).dst_addr);
  }
}

/* An address of another size than the kernel's struct, or of a family
 * that is not IP, is refused or not formatted; never read past. */
static void
test_res_cm_id_malformed (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) cms = res_array ();
  struct nlmsghdr *nlh;
  struct nlattr *table, *entry;
  guint8 short_addr[16] = { AF_INET, 0 };
  guint8 other[RTOP_NL_SOCKADDR_SIZE] = { 0 };
  char text[64];

  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_RES_CM_ID_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CM_ID);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_LQPN, 17);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_RES_DST_ADDR, sizeof short_addr, short_addr);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_CM_IDN, 1);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_assert_false (rtop_nl_parse_res (nlh, RTOP_NL_RES_CM_ID, cms, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_assert_nonnull (strstr (error->message, "RES_DST_ADDR"));
  g_assert_cmpuint (cms->len, ==, 0);

  /* AF_IB (27) and an unset family: no text. */
  other[0] = 27;
  g_assert_false (rtop_nl_format_sockaddr (other, text, sizeof text));
  other[0] = 0;
  g_assert_false (rtop_nl_format_sockaddr (other, text, sizeof text));
  g_assert_false (rtop_nl_format_sockaddr (NULL, text, sizeof text));
  /* A buffer too small for the text is not overrun. */
  {
    static const NlTestCmId id = { 1, 2, "192.0.2.1", 1, "192.0.2.2", 65535 };
    g_autoptr(GArray) ok = res_array ();
    char tiny[8];

    memset (&buf, 0, sizeof buf);
    nl_test_res_cm_id (buf.bytes, SEQ, PORTID, 1, "rxe0", &id, 1, 0);
    g_clear_error (&error);
    g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_CM_ID, ok, &error));
    g_assert_false (rtop_nl_format_sockaddr (g_array_index (ok, RtopNlRes, 0).dst_addr, tiny, sizeof tiny));
  }
}

static void
test_res_empty_list (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) mrs = res_array ();
  struct nlmsghdr *nlh;

  /* Only the device handle, no table: nothing to add, not an error. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_RES_MR_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  g_assert_true (rtop_nl_parse_res (nlh, RTOP_NL_RES_MR, mrs, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (mrs->len, ==, 0);
}

static void
test_sys (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  RtopNlSys sys;

  nl_test_sys (buf.bytes, SEQ, PORTID, 1);
  g_assert_true (rtop_nl_parse_sys (&buf.align, &sys, &error));
  g_assert_no_error (error);
  g_assert_true (sys.has_monitor_mode);
  g_assert_cmpuint (sys.monitor_mode, ==, 1);
  g_assert_true (sys.has_netns_mode);
  g_assert_cmpuint (sys.netns_mode, ==, 1);

  /* A pre-6.12 kernel: no monitor mode attribute at all. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_SYS_GET, SEQ, PORTID, FALSE);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
  g_assert_true (rtop_nl_parse_sys (nlh, &sys, &error));
  g_assert_no_error (error);
  g_assert_false (sys.has_monitor_mode);
  g_assert_true (sys.has_netns_mode);
  g_assert_cmpuint (sys.netns_mode, ==, 0);
}

static void
test_events (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  RtopNlEvent ev;

  nl_test_event (buf.bytes, RDMA_REGISTER_EVENT, 4, "rxe1", 0, NULL);
  g_assert_true (rtop_nl_parse_event (&buf.align, &ev, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ev.event_type, ==, RDMA_REGISTER_EVENT);
  g_assert_cmpuint (ev.dev_index, ==, 4);
  g_assert_cmpstr (ev.dev_name, ==, "rxe1");
  g_assert_cmpuint (ev.port, ==, 0);
  g_assert_null (ev.ndev_name);
  rtop_nl_event_clear (&ev);

  nl_test_event (buf.bytes, RDMA_NETDEV_ATTACH_EVENT, 4, "rxe1", 1, "veth0");
  g_assert_true (rtop_nl_parse_event (&buf.align, &ev, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ev.event_type, ==, RDMA_NETDEV_ATTACH_EVENT);
  g_assert_cmpuint (ev.port, ==, 1);
  g_assert_cmpuint (ev.ndev_index, ==, 7);
  g_assert_cmpstr (ev.ndev_name, ==, "veth0");
  rtop_nl_event_clear (&ev);
}

static void
test_event_without_device (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  RtopNlEvent ev;

  /* A future event type with no device handle still parses. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_MONITOR, 0, 0, FALSE);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_EVENT_TYPE, 42);
  g_assert_true (rtop_nl_parse_event (nlh, &ev, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ev.event_type, ==, 42);
  g_assert_cmpuint (ev.dev_index, ==, RTOP_NL_NO_INDEX);
  g_assert_null (ev.dev_name);
  rtop_nl_event_clear (&ev);
}

static void
test_unknown_attributes_skipped (void)
{
  static const guint8 blob[3] = { 1, 2, 3 };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  struct nlattr *entry, *table;
  RtopNlDevice dev;
  RtopNlStat stat;

  /* Beyond ATTR_MAX, and known to the header but unused by us, in odd sizes. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 1, "rxe0", 1);
  mnl_attr_put (nlh, 500, sizeof blob, blob);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_LID, sizeof blob, blob);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_MAX + 1, 9);
  g_assert_true (rtop_nl_parse_device (nlh, &dev, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (dev.name, ==, "rxe0");
  rtop_nl_device_clear (&dev);

  /* Unknown attributes inside a nest, and an unknown nest in the table. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 0);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "rx_bytes");
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 1);
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 77);
  mnl_attr_nest_end (nlh, entry);
  entry = mnl_attr_nest_start (nlh, 300);
  mnl_attr_put (nlh, 1, sizeof blob, blob);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_assert_true (rtop_nl_parse_stat (nlh, &stat, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stat.counters->len, ==, 1);
  g_assert_cmpstr (g_array_index (stat.counters, RtopNlCounter, 0).name, ==, "rx_bytes");
  g_assert_cmpuint (g_array_index (stat.counters, RtopNlCounter, 0).value, ==, 77);
  rtop_nl_stat_clear (&stat);
}

/* ---- malformed replies ---- */

static void
test_truncated_attribute (void)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  /* The last attribute claims more bytes than the message has. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 1, "rxe0", 1);
  last_attr (nlh)->nla_len += 8;
  device_rejected (nlh);

  /* The message ends two bytes into an attribute header. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 1, "rxe0", 1);
  nlh->nlmsg_len += 2;
  device_rejected (nlh);

  /* An attribute header that says it is shorter than a header. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 1, "rxe0", 1);
  last_attr (nlh)->nla_len = 2;
  device_rejected (nlh);

  /* A message shorter than its own header. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 1, "rxe0", 1);
  nlh->nlmsg_len = 8;
  device_rejected (nlh);
}

static void
test_wrong_sizes (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  struct nlattr *table, *entry;
  RtopNlStat stat;
  RtopNlPort port;

  /* DEV_INDEX (u32) sent as a u8. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
  device_rejected (nlh);

  /* NODE_GUID (u64) sent as a u32. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_NODE_GUID, 1);
  device_rejected (nlh);

  /* PORT_STATE (u8) sent as a u32. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_PORT_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_STATE, 4);
  g_assert_false (rtop_nl_parse_port (nlh, &port, &error));
  assert_malformed (error);
  g_clear_error (&error);

  /* A counter value (u64) sent as a u32, deep inside the nest. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "sent_pkts");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 5);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_assert_false (rtop_nl_parse_stat (nlh, &stat, &error));
  assert_malformed (error);
  g_assert_null (stat.counters);
  g_assert_null (stat.dev_name);
}

static void
test_missing_required (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = res_array ();
  struct nlmsghdr *nlh;
  struct nlattr *table, *entry;
  RtopNlPort port;
  RtopNlStat stat;
  RtopNlEvent ev;

  /* Device without a name. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  device_rejected (nlh);

  /* Device without an index. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
  device_rejected (nlh);

  /* Port without a port index. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_PORT_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  g_assert_false (rtop_nl_parse_port (nlh, &port, &error));
  assert_malformed (error);
  g_assert_null (port.dev_name);
  g_clear_error (&error);

  /* A counter without a name. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 5);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_assert_false (rtop_nl_parse_stat (nlh, &stat, &error));
  assert_malformed (error);
  g_assert_nonnull (strstr (error->message, "HWCOUNTER_ENTRY_NAME"));
  g_clear_error (&error);

  /* A QP entry without its number: nothing is added, earlier entries stay. */
  nl_test_res_qp (buf.bytes, SEQ, PORTID, 1, "rxe0", 10, 2, 5);
  g_assert_true (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_QP, qps, &error));
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_RES_QP_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_QP);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_LQPN, 12);
  mnl_attr_nest_end (nlh, entry);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_PID, 5);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  g_assert_false (rtop_nl_parse_res (nlh, RTOP_NL_RES_QP, qps, &error));
  assert_malformed (error);
  g_assert_cmpuint (qps->len, ==, 2);
  g_assert_cmpuint (g_array_index (qps, RtopNlRes, 1).id, ==, 11);
  g_clear_error (&error);

  /* An event without its type. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_MONITOR, 0, 0, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  g_assert_false (rtop_nl_parse_event (nlh, &ev, &error));
  assert_malformed (error);
  g_assert_null (ev.dev_name);
}

static void
test_bad_strings (void)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  /* Not NUL-terminated within the attribute. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_DEV_NAME, 4, "rxe0");
  device_rejected (nlh);

  /* Empty (no NUL at all). */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_DEV_NAME, 0, NULL);
  device_rejected (nlh);

  /* Not UTF-8. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe\xff\xfe");
  device_rejected (nlh);

  /* ... also where the check takes eight bytes at a time. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, "abcdefg\xc3xyz0123456");
  device_rejected (nlh);
}

static void
test_utf8_strings (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  RtopNlDevice dev;

  /* Valid UTF-8 beyond ASCII goes through, whole. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_GET, SEQ, PORTID, TRUE);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, "r\xc3\xa9seau_longer_than_8");
  g_assert_true (rtop_nl_parse_device (nlh, &dev, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (dev.name, ==, "r\xc3\xa9seau_longer_than_8");
  rtop_nl_device_clear (&dev);
}

static void
test_nested_garbage (void)
{
  static const guint8 garbage[] = { 0xff, 0xff, 0x51, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01 };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) mrs = res_array ();
  struct nlmsghdr *nlh;
  struct nlattr *table, *entry;
  RtopNlStat stat;

  /* Random bytes where the counter table should be. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, sizeof garbage, garbage);
  g_assert_false (rtop_nl_parse_stat (nlh, &stat, &error));
  assert_malformed (error);
  g_clear_error (&error);

  /* A table that is too short to hold even one header. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_STAT_GET, SEQ, PORTID, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 2, garbage);
  g_assert_false (rtop_nl_parse_stat (nlh, &stat, &error));
  assert_malformed (error);
  g_clear_error (&error);

  /* Garbage inside an MR entry, after a good one. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_RES_MR_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_MRN, 1);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY, sizeof garbage, garbage);
  mnl_attr_nest_end (nlh, table);
  g_assert_false (rtop_nl_parse_res (nlh, RTOP_NL_RES_MR, mrs, &error));
  assert_malformed (error);
  g_assert_cmpuint (mrs->len, ==, 0);
  g_clear_error (&error);

  /* A table whose last entry runs past the table's end. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_RES_MR_GET, SEQ, PORTID, TRUE);
  nl_test_put_handle (nlh, 1, "rxe0");
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR);
  entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_MRN, 1);
  mnl_attr_nest_end (nlh, entry);
  mnl_attr_nest_end (nlh, table);
  table->nla_len -= 4;
  g_assert_false (rtop_nl_parse_res (nlh, RTOP_NL_RES_MR, mrs, &error));
  assert_malformed (error);
  g_assert_cmpuint (mrs->len, ==, 0);
}

static void
test_wrong_message_type (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) arr = res_array ();
  RtopNlSys sys;

  /* A port message handed to the device parser, a QP dump to the MR parser. */
  nl_test_port (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, 4, 5, NULL);
  device_rejected (&buf.align);
  nl_test_res_qp (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, 1, 1);
  g_assert_false (rtop_nl_parse_res (&buf.align, RTOP_NL_RES_MR, arr, &error));
  assert_malformed (error);
  g_clear_error (&error);
  g_assert_false (rtop_nl_parse_sys (&buf.align, &sys, &error));
  assert_malformed (error);
}

/* ---- reply processing ---- */

typedef struct {
  guint n_calls;
  guint fail_at;     /* 1-based; 0 never */
  GPtrArray *names;
} Collect;

static gboolean
collect_devices_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Collect *c = user_data;
  RtopNlDevice dev;

  c->n_calls++;
  if (c->n_calls == c->fail_at)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED, "callback failed on purpose");
      return FALSE;
    }
  if (!rtop_nl_parse_device (nlh, &dev, error))
    return FALSE;
  g_ptr_array_add (c->names, g_steal_pointer (&dev.name));
  rtop_nl_device_clear (&dev);
  return TRUE;
}

static void
collect_init (Collect *c)
{
  memset (c, 0, sizeof *c);
  c->names = g_ptr_array_new_with_free_func (g_free);
}

static void
collect_clear (Collect *c)
{
  g_ptr_array_unref (c->names);
}

static void
test_buffer_multi (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = TRUE;
  Collect c;

  collect_init (&c);
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID, 1, "rxe1", 1);
  g_assert_true (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh), SEQ, PORTID,
                                         collect_devices_cb, &c, &done, &error));
  g_assert_no_error (error);
  g_assert_false (done);
  /* The dump goes on in the next datagram and ends there. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 2, "mlx5_0", 2);
  nlh = nl_test_done (nl_test_next (nlh), SEQ, PORTID);
  g_assert_true (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh), SEQ, PORTID,
                                         collect_devices_cb, &c, &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
  g_assert_cmpuint (c.names->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (c.names, 2), ==, "mlx5_0");
  collect_clear (&c);
}

static void
test_buffer_stale (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;
  Collect c;

  collect_init (&c);
  /* An earlier request's late reply (seq - 1, with its DONE and an error),
   * a message for another socket, then ours. */
  nlh = nl_test_device (buf.bytes, SEQ - 1, PORTID, 9, "stale", 1);
  nlh = nl_test_error (nl_test_next (nlh), SEQ - 1, PORTID, EINVAL, "old");
  nlh = nl_test_done (nl_test_next (nlh), SEQ - 1, PORTID);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID + 1, 8, "other", 1);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_done (nl_test_next (nlh), SEQ, PORTID);
  g_assert_true (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh), SEQ, PORTID,
                                         collect_devices_cb, &c, &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
  g_assert_cmpuint (c.names->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (c.names, 0), ==, "rxe0");
  collect_clear (&c);
}

static void
test_buffer_error_ext_ack (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;

  nlh = nl_test_error (buf.bytes, SEQ, PORTID, EINVAL, "Port index is out of range");
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_true (done);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_nonnull (strstr (error->message, g_strerror (EINVAL)));
  g_assert_nonnull (strstr (error->message, "Port index is out of range"));
  g_clear_error (&error);

  /* EPERM is a permission error, and without ext ack there is no "()". */
  nlh = nl_test_error (buf.bytes, SEQ, PORTID, EPERM, NULL);
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_PERMISSION);
  g_assert_nonnull (strstr (error->message, g_strerror (EPERM)));
  g_assert_null (strstr (error->message, "()"));
  g_clear_error (&error);

  /* An errno no kernel sends: reported as a bad message, not looked up. */
  nlh = nl_test_error (buf.bytes, SEQ, PORTID, 123456, NULL);
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_nonnull (strstr (error->message, g_strerror (EBADMSG)));
  g_clear_error (&error);

  /* An error too short to hold struct nlmsgerr. */
  nlh = nl_test_error (buf.bytes, SEQ, PORTID, EINVAL, NULL);
  nlh->nlmsg_len = NLMSG_HDRLEN + 2;
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_true (done);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
}

static void
test_buffer_error_uncapped (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (buf.bytes);
  struct nlmsgerr *err;
  gboolean done = FALSE;
  guint8 *echo;

  /* An old kernel without NETLINK_CAP_ACK echoes the 24-byte request. */
  nlh->nlmsg_type = NLMSG_ERROR;
  nlh->nlmsg_flags = NLM_F_ACK_TLVS;
  nlh->nlmsg_seq = SEQ;
  nlh->nlmsg_pid = PORTID;
  err = mnl_nlmsg_put_extra_header (nlh, sizeof *err);
  err->error = -EOPNOTSUPP;
  err->msg.nlmsg_len = 24;
  echo = mnl_nlmsg_put_extra_header (nlh, 8);
  memset (echo, 0xab, 8);
  mnl_attr_put_strz (nlh, NLMSGERR_ATTR_MSG, "not here");
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_nonnull (strstr (error->message, "not here"));
  g_clear_error (&error);

  /* An echo length that points past the message: no text, no crash. */
  err->msg.nlmsg_len = 4000;
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_null (strstr (error->message, "not here"));
}

static gboolean
count_stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  RtopNlStat stat;

  if (!rtop_nl_parse_stat (nlh, &stat, error))
    return FALSE;
  *(guint *) user_data += stat.counters->len;
  rtop_nl_stat_clear (&stat);
  return TRUE;
}

static void
test_buffer_ack (void)
{
  static const NlTestCounter two[] = { { "x", 1 }, { "y", 2 } };
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;
  guint n_counters = 0;

  /* A request (not a dump) ends with the ACK we asked for. */
  nlh = nl_test_stat (buf.bytes, SEQ, PORTID, 1, "rxe0", 1, two, 2);
  nlh = nl_test_error (nl_test_next (nlh), SEQ, PORTID, 0, NULL);
  g_assert_true (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh), SEQ, PORTID,
                                         count_stat_cb, &n_counters, &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
  g_assert_cmpuint (n_counters, ==, 2);
}

static void
test_buffer_done_with_error (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;

  /* A dump that fails (e.g. PORT_GET without DEV_INDEX): errno in DONE. */
  nlh = nl_test_done (buf.bytes, SEQ, PORTID);
  *(gint32 *) mnl_nlmsg_get_payload (nlh) = -EINVAL;
  nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
  mnl_attr_put_strz (nlh, NLMSGERR_ATTR_MSG, "Device index is missing");
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                          NULL, NULL, &done, &error));
  g_assert_true (done);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_nonnull (strstr (error->message, "Device index is missing"));
  g_clear_error (&error);

  /* A bare DONE without the status word (some kernels) is a clean end. */
  nlh = nl_test_done (buf.bytes, SEQ, PORTID);
  nlh->nlmsg_len = NLMSG_HDRLEN;
  g_assert_true (rtop_nl_process_buffer (buf.bytes, nlh->nlmsg_len, SEQ, PORTID,
                                         NULL, NULL, &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
}

static void
test_buffer_truncated_header (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;
  Collect c;

  collect_init (&c);
  /* The second message claims more bytes than the datagram has. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID, 1, "rxe1", 1);
  nlh->nlmsg_len += 100;
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh) - 100, SEQ,
                                          PORTID, collect_devices_cb, &c, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_assert_cmpuint (c.names->len, ==, 1);
  g_clear_error (&error);

  /* A length above 2 GiB, which libmnl's own check lets through. */
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID, 1, "rxe1", 1);
  nlh->nlmsg_len = 0xffffffea;
  g_assert_false (rtop_nl_process_buffer (buf.bytes, NLMSG_ALIGN (buf.align.nlmsg_len) + 22,
                                          SEQ, PORTID, collect_devices_cb, &c, &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_assert_cmpuint (c.names->len, ==, 2);
  g_clear_error (&error);

  /* Fewer bytes than one header. */
  g_assert_false (rtop_nl_process_buffer (buf.bytes, 7, SEQ, PORTID, collect_devices_cb, &c,
                                          &done, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_assert_false (done);
  collect_clear (&c);
}

static void
test_buffer_callback_error (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;
  Collect c;

  collect_init (&c);
  c.fail_at = 1;
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), SEQ, PORTID, 1, "rxe1", 1);
  nlh = nl_test_error (nl_test_next (nlh), SEQ, PORTID, EBUSY, "later error");
  g_assert_false (rtop_nl_process_buffer (buf.bytes, nl_test_len (buf.bytes, nlh), SEQ, PORTID,
                                          collect_devices_cb, &c, &done, &error));
  /* The first error wins; later data is not handed over; the end is seen. */
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "callback failed on purpose");
  g_assert_cmpuint (c.n_calls, ==, 1);
  g_assert_true (done);
  collect_clear (&c);
}

static void
test_buffer_unaligned (void)
{
  NlTestBuf buf = { { 0 } };
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *copy = NULL;
  struct nlmsghdr *nlh;
  gboolean done = FALSE;
  gsize len;
  Collect c;

  collect_init (&c);
  nlh = nl_test_device (buf.bytes, SEQ, PORTID, 0, "rxe0", 1);
  nlh = nl_test_done (nl_test_next (nlh), SEQ, PORTID);
  len = nl_test_len (buf.bytes, nlh);
  copy = g_malloc (len + 1);
  memcpy (copy + 1, buf.bytes, len);
  g_assert_true (rtop_nl_process_buffer (copy + 1, len, SEQ, PORTID, collect_devices_cb, &c,
                                         &done, &error));
  g_assert_no_error (error);
  g_assert_true (done);
  g_assert_cmpuint (c.names->len, ==, 1);
  collect_clear (&c);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/collector/netlink/header-numbers", test_header_numbers);
  g_test_add_func ("/collector/netlink/device", test_device);
  g_test_add_func ("/collector/netlink/device-minimal", test_device_minimal);
  g_test_add_func ("/collector/netlink/port", test_port);
  g_test_add_func ("/collector/netlink/hwcounters", test_hwcounters);
  g_test_add_func ("/collector/netlink/hwcounters-foreach", test_hwcounters_foreach);
  g_test_add_func ("/collector/netlink/hwcounters-empty", test_hwcounters_empty);
  g_test_add_func ("/collector/netlink/stat-template", test_stat_template);
  g_test_add_func ("/collector/netlink/link-stats", test_link_stats);
  g_test_add_func ("/collector/netlink/utf8-strings", test_utf8_strings);
  g_test_add_func ("/collector/netlink/res-qp", test_res_qp);
  g_test_add_func ("/collector/netlink/res-qp-ud-error", test_res_qp_ud_error);
  g_test_add_func ("/collector/netlink/res-ctx", test_res_ctx);
  g_test_add_func ("/collector/netlink/res-mr", test_res_mr);
  g_test_add_func ("/collector/netlink/res-empty-list", test_res_empty_list);
  g_test_add_func ("/collector/netlink/res-cm-id", test_res_cm_id);
  g_test_add_func ("/collector/netlink/malformed/res-cm-id", test_res_cm_id_malformed);
  g_test_add_func ("/collector/netlink/sys", test_sys);
  g_test_add_func ("/collector/netlink/events", test_events);
  g_test_add_func ("/collector/netlink/event-without-device", test_event_without_device);
  g_test_add_func ("/collector/netlink/unknown-attributes-skipped", test_unknown_attributes_skipped);
  g_test_add_func ("/collector/netlink/malformed/truncated-attribute", test_truncated_attribute);
  g_test_add_func ("/collector/netlink/malformed/wrong-sizes", test_wrong_sizes);
  g_test_add_func ("/collector/netlink/malformed/missing-required", test_missing_required);
  g_test_add_func ("/collector/netlink/malformed/bad-strings", test_bad_strings);
  g_test_add_func ("/collector/netlink/malformed/nested-garbage", test_nested_garbage);
  g_test_add_func ("/collector/netlink/malformed/wrong-message-type", test_wrong_message_type);
  g_test_add_func ("/collector/netlink/buffer/multi-part", test_buffer_multi);
  g_test_add_func ("/collector/netlink/buffer/stale-ignored", test_buffer_stale);
  g_test_add_func ("/collector/netlink/buffer/error-ext-ack", test_buffer_error_ext_ack);
  g_test_add_func ("/collector/netlink/buffer/error-uncapped", test_buffer_error_uncapped);
  g_test_add_func ("/collector/netlink/buffer/ack", test_buffer_ack);
  g_test_add_func ("/collector/netlink/buffer/done-with-error", test_buffer_done_with_error);
  g_test_add_func ("/collector/netlink/buffer/truncated-header", test_buffer_truncated_header);
  g_test_add_func ("/collector/netlink/buffer/callback-error", test_buffer_callback_error);
  g_test_add_func ("/collector/netlink/buffer/unaligned", test_buffer_unaligned);

  return g_test_run ();
}
