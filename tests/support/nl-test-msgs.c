/* nl-test-msgs.c: kernel-like RDMA netlink replies, built with libmnl.
 *
 * The attribute order and types follow the kernel's fill_* functions
 * (drivers/infiniband/core/nldev.c, Linux 6.12), including attributes rdmatop
 * does not read (CAP_FLAGS, DEV_DIM, ...) and a PAD attribute as some
 * architectures emit before 64-bit values, so the parsers meet what the
 * kernel really sends. */
#include "nl-test-msgs.h"
#include "uapi/rdma/rdma_netlink.h"

#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

void *
nl_test_next (struct nlmsghdr *nlh)
{
  return (guint8 *) nlh + NLMSG_ALIGN (nlh->nlmsg_len);
}

gsize
nl_test_len (const void *start, const struct nlmsghdr *nlh)
{
  return (gsize) ((const guint8 *) nlh - (const guint8 *) start) + nlh->nlmsg_len;
}

struct nlmsghdr *
nl_test_header (void *buf, guint16 cmd, guint32 seq, guint32 portid, gboolean multi)
{
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (buf);

  nlh->nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, cmd);
  nlh->nlmsg_flags = multi ? NLM_F_MULTI : 0;
  nlh->nlmsg_seq = seq;
  nlh->nlmsg_pid = portid;
  return nlh;
}

void
nl_test_put_handle (struct nlmsghdr *nlh, guint32 index, const char *name)
{
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
}

struct nlmsghdr *
nl_test_device (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                guint32 ports)
{
  return nl_test_device_fw (buf, seq, portid, index, name, ports, "1.2.3");
}

struct nlmsghdr *
nl_test_device_fw (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                   guint32 ports, const char *fw)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_GET, seq, portid, TRUE);

  nl_test_put_handle (nlh, index, name);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, ports);
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_FW_VERSION, fw);
  mnl_attr_put (nlh, RDMA_NLDEV_ATTR_PAD, 0, NULL);
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_NODE_GUID, G_GUINT64_CONSTANT (0x0002c90300a1b2c3));
  mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, G_GUINT64_CONSTANT (0x0002c90300a1b2c0));
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, RDMA_NODE_IB_CA);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_DEV_DIM, 1);
  mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE, RDMA_NAME_ASSIGN_TYPE_USER);
  return nlh;
}

struct nlmsghdr *
nl_test_port (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
              guint32 port, guint8 state, guint8 phys_state, const char *ndev)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_PORT_GET, seq, portid, TRUE);

  nl_test_put_handle (nlh, index, name);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_PORT_STATE, state);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, phys_state);
  if (ndev != NULL)
    {
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
      mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
    }
  return nlh;
}

struct nlmsghdr *
nl_test_stat (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
              guint32 port, const NlTestCounter *counters, guint n_counters)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_STAT_GET, seq, portid, FALSE);
  struct nlattr *table;

  nl_test_put_handle (nlh, index, name);
  mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  for (guint i = 0; i < n_counters; i++)
    {
      struct nlattr *entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

      mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, counters[i].name);
      mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, counters[i].value);
      mnl_attr_nest_end (nlh, entry);
    }
  mnl_attr_nest_end (nlh, table);
  return nlh;
}

/* fill_res_name_pid(): user objects carry a pid, kernel ones a name. */
static void
put_owner (struct nlmsghdr *nlh, guint32 pid)
{
  if (pid != 0)
    mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_PID, pid);
  else
    mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
}

struct nlmsghdr *
nl_test_res_qp (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                guint32 first_id, guint n, guint32 pid)
{
  return nl_test_res_qp_full (buf, seq, portid, index, name, first_id, n, pid, 2, 3, 99);
}

/* As fill_res_qp_entry() and fill_res_qp_entry_query() put them: the peer
 * QP and receive PSN only for connected types (RC 2, UC 3). */
struct nlmsghdr *
nl_test_res_qp_full (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                     guint32 first_id, guint n, guint32 pid, guint8 type, guint8 state,
                     guint32 rqpn)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_RES_QP_GET, seq, portid, TRUE);
  struct nlattr *table;

  nl_test_put_handle (nlh, index, name);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_QP);
  for (guint i = 0; i < n; i++)
    {
      struct nlattr *entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_LQPN, first_id + i);
      if (type == 2 || type == 3)
        {
          mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_RQPN, rqpn + i);
          mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_RQ_PSN, 0x1000);
        }
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_SQ_PSN, 0x2000);
      mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_RES_TYPE, type);
      mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_RES_STATE, state);
      put_owner (nlh, pid);
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_PDN, 4);
      mnl_attr_nest_end (nlh, entry);
    }
  mnl_attr_nest_end (nlh, table);
  return nlh;
}

struct nlmsghdr *
nl_test_res_ctx (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                 guint32 first_id, guint n, guint32 pid)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_RES_CTX_GET, seq, portid, TRUE);
  struct nlattr *table;

  nl_test_put_handle (nlh, index, name);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CTX);
  for (guint i = 0; i < n; i++)
    {
      struct nlattr *entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CTX_ENTRY);

      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_CTXN, first_id + i);
      put_owner (nlh, pid);
      mnl_attr_nest_end (nlh, entry);
    }
  mnl_attr_nest_end (nlh, table);
  return nlh;
}

struct nlmsghdr *
nl_test_res_mr (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                guint32 first_id, guint n, guint32 pid, guint64 mr_len)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_RES_MR_GET, seq, portid, TRUE);
  struct nlattr *table;

  nl_test_put_handle (nlh, index, name);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR);
  for (guint i = 0; i < n; i++)
    {
      struct nlattr *entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);

      mnl_attr_put_u64 (nlh, RDMA_NLDEV_ATTR_RES_MRLEN, mr_len);
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_MRN, first_id + i);
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_PDN, 4);
      put_owner (nlh, pid);
      mnl_attr_nest_end (nlh, entry);
    }
  mnl_attr_nest_end (nlh, table);
  return nlh;
}

/* A struct sockaddr_storage as the kernel copies it: the family in host
 * order, port and address in network order, the rest zero. */
static void
put_sockaddr (struct nlmsghdr *nlh, guint16 type, const char *text, guint16 port)
{
  struct sockaddr_storage ss;

  memset (&ss, 0, sizeof ss);
  if (strchr (text, ':') != NULL)
    {
      struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;

      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons (port);
      g_assert_cmpint (inet_pton (AF_INET6, text, &in6->sin6_addr), ==, 1);
    }
  else
    {
      struct sockaddr_in *in = (struct sockaddr_in *) &ss;

      in->sin_family = AF_INET;
      in->sin_port = htons (port);
      g_assert_cmpint (inet_pton (AF_INET, text, &in->sin_addr), ==, 1);
    }
  mnl_attr_put (nlh, type, sizeof ss, &ss);
}

struct nlmsghdr *
nl_test_res_cm_id (void *buf, guint32 seq, guint32 portid, guint32 index, const char *name,
                   const NlTestCmId *ids, guint n, guint32 pid)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_RES_CM_ID_GET, seq, portid, TRUE);
  struct nlattr *table;

  nl_test_put_handle (nlh, index, name);
  table = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CM_ID);
  for (guint i = 0; i < n; i++)
    {
      struct nlattr *entry = mnl_attr_nest_start (nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);

      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
      if (ids[i].lqpn != 0)
        {
          mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_LQPN, ids[i].lqpn);
          mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2);   /* RC */
        }
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_PS, 0x0106);   /* RDMA_PS_TCP */
      mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_RES_STATE, ids[i].lqpn != 0 ? 9 : 7);   /* CONNECT, LISTEN */
      if (ids[i].src != NULL)
        put_sockaddr (nlh, RDMA_NLDEV_ATTR_RES_SRC_ADDR, ids[i].src, ids[i].src_port);
      if (ids[i].dst != NULL)
        put_sockaddr (nlh, RDMA_NLDEV_ATTR_RES_DST_ADDR, ids[i].dst, ids[i].dst_port);
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_RES_CM_IDN, ids[i].cm_idn);
      put_owner (nlh, pid);
      mnl_attr_nest_end (nlh, entry);
    }
  mnl_attr_nest_end (nlh, table);
  return nlh;
}

struct nlmsghdr *
nl_test_sys (void *buf, guint32 seq, guint32 portid, guint8 monitor_mode)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_SYS_GET, seq, portid, FALSE);

  mnl_attr_put_u8 (nlh, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, monitor_mode);
  return nlh;
}

struct nlmsghdr *
nl_test_event (void *buf, guint8 event_type, guint32 index, const char *name,
               guint32 port, const char *ndev)
{
  struct nlmsghdr *nlh = nl_test_header (buf, RDMA_NLDEV_CMD_MONITOR, 0, 0, FALSE);

  nl_test_put_handle (nlh, index, name);
  if (port != 0)
    mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  if (ndev != NULL)
    {
      mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
      mnl_attr_put_strz (nlh, RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
    }
  mnl_attr_put_u8 (nlh, RDMA_NLDEV_ATTR_EVENT_TYPE, event_type);
  return nlh;
}

struct nlmsghdr *
nl_test_done (void *buf, guint32 seq, guint32 portid)
{
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (buf);
  gint32 *status;

  nlh->nlmsg_type = NLMSG_DONE;
  nlh->nlmsg_flags = NLM_F_MULTI;
  nlh->nlmsg_seq = seq;
  nlh->nlmsg_pid = portid;
  status = mnl_nlmsg_put_extra_header (nlh, sizeof *status);
  *status = 0;
  return nlh;
}

/* As netlink_ack() builds it with NETLINK_CAP_ACK and NETLINK_EXT_ACK set. */
struct nlmsghdr *
nl_test_error (void *buf, guint32 seq, guint32 portid, int errnum, const char *ext_ack)
{
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (buf);
  struct nlmsgerr *err;

  nlh->nlmsg_type = NLMSG_ERROR;
  nlh->nlmsg_flags = errnum ? NLM_F_CAPPED : 0;
  nlh->nlmsg_seq = seq;
  nlh->nlmsg_pid = portid;
  err = mnl_nlmsg_put_extra_header (nlh, sizeof *err);
  err->error = -errnum;
  err->msg.nlmsg_len = 24;
  err->msg.nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
  err->msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  err->msg.nlmsg_seq = seq;
  err->msg.nlmsg_pid = portid;
  if (ext_ack != NULL)
    {
      nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
      mnl_attr_put_strz (nlh, NLMSGERR_ATTR_MSG, ext_ack);
      mnl_attr_put_u32 (nlh, NLMSGERR_ATTR_OFFS, 16);
    }
  return nlh;
}
