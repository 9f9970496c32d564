/* gen-netlink-seeds.c: writes the fuzzer's seed corpus, one datagram per
 * file, built by the same kernel-like builders the unit tests use.
 * Usage: gen-netlink-seeds OUTDIR */
#include <string.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include "../support/nl-test-msgs.h"
#include "uapi/rdma/rdma_netlink.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "recorded-replies.h"

static void
write_seed (const char *dir, const char *name, const void *buf, gsize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  if (!g_file_set_contents (path, buf, len, &error))
    g_error ("%s", error->message);
}

/* Every datagram a real kernel sent in the guest is a seed of its own. */
static void
recorded_seed_cb (guint32 cmd, const guint8 *datagram, gsize len, guint n, gpointer user_data)
{
  g_autofree char *name = g_strdup_printf ("guest-%04u", n);

  write_seed (user_data, name, datagram, len);
}

int
main (int argc, char **argv)
{
  static const NlTestCounter counters[] = {
    { "sent_pkts", 1000 }, { "rcvd_pkts", 2000 }, { "completer_retry_err", 3 },
  };
  static NlTestBuf buf;
  struct nlmsghdr *nlh;
  const char *dir;

  if (argc != 2 && argc != 3)
    {
      g_printerr ("usage: %s OUTDIR [RECORDED-REPLIES]\n", argv[0]);
      return 2;
    }
  dir = argv[1];
  if (g_mkdir_with_parents (dir, 0755) < 0)
    g_error ("%s: %s", dir, g_strerror (errno));
  if (argc == 3 && !recorded_replies_foreach (argv[2], recorded_seed_cb, (gpointer) dir))
    return 1;

  nlh = nl_test_device (buf.bytes, 1, 0, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), 1, 0, 1, "mlx5_0", 2);
  nlh = nl_test_done (nl_test_next (nlh), 1, 0);
  write_seed (dir, "get-dump", buf.bytes, nl_test_len (buf.bytes, nlh));

  nlh = nl_test_port (buf.bytes, 1, 0, 0, "rxe0", 1, 4, 5, "d0");
  nlh = nl_test_done (nl_test_next (nlh), 1, 0);
  write_seed (dir, "port-dump", buf.bytes, nl_test_len (buf.bytes, nlh));

  nlh = nl_test_stat (buf.bytes, 1, 0, 0, "rxe0", 1, counters, G_N_ELEMENTS (counters));
  nlh = nl_test_error (nl_test_next (nlh), 1, 0, 0, NULL);
  write_seed (dir, "stat-ack", buf.bytes, nl_test_len (buf.bytes, nlh));

  nlh = nl_test_res_qp (buf.bytes, 1, 0, 0, "rxe0", 17, 2, 4711);
  nlh = nl_test_res_qp (nl_test_next (nlh), 1, 0, 0, "rxe0", 1, 1, 0);
  nlh = nl_test_done (nl_test_next (nlh), 1, 0);
  write_seed (dir, "res-qp", buf.bytes, nl_test_len (buf.bytes, nlh));

  /* A UD QP (no peer) and an RC QP in the error state. */
  nlh = nl_test_res_qp_full (buf.bytes, 1, 0, 0, "rxe0", 30, 1, 4711, 4, 3, 0);
  nlh = nl_test_res_qp_full (nl_test_next (nlh), 1, 0, 0, "rxe0", 31, 2, 4711, 2, 6, 90);
  nlh = nl_test_done (nl_test_next (nlh), 1, 0);
  write_seed (dir, "res-qp-ud-err", buf.bytes, nl_test_len (buf.bytes, nlh));

  /* rdma_cm IDs: a listener, an IPv4 and an IPv6 connection. */
  {
    static const NlTestCmId ids[] = {
      { 3, 0, "0.0.0.0", 18515, NULL, 0 },
      { 4, 17, "192.0.2.1", 18515, "192.0.2.2", 40001 },
      { 5, 18, "2001:db8::1", 4791, "2001:db8::2", 18515 },
    };

    nlh = nl_test_res_cm_id (buf.bytes, 1, 0, 0, "rxe0", ids, G_N_ELEMENTS (ids), 4711);
    nlh = nl_test_done (nl_test_next (nlh), 1, 0);
    write_seed (dir, "res-cm-id", buf.bytes, nl_test_len (buf.bytes, nlh));
  }

  nlh = nl_test_res_ctx (buf.bytes, 1, 0, 0, "rxe0", 0, 2, 4711);
  write_seed (dir, "res-ctx", buf.bytes, nlh->nlmsg_len);

  nlh = nl_test_res_mr (buf.bytes, 1, 0, 0, "rxe0", 5, 2, 4711, 1 << 20);
  write_seed (dir, "res-mr", buf.bytes, nlh->nlmsg_len);

  nlh = nl_test_sys (buf.bytes, 1, 0, 1);
  nlh = nl_test_error (nl_test_next (nlh), 1, 0, 0, NULL);
  write_seed (dir, "sys-ack", buf.bytes, nl_test_len (buf.bytes, nlh));

  nlh = nl_test_event (buf.bytes, RDMA_REGISTER_EVENT, 2, "rxe1", 0, NULL);
  nlh = nl_test_event (nl_test_next (nlh), RDMA_NETDEV_ATTACH_EVENT, 2, "rxe1", 1, "d1");
  write_seed (dir, "events", buf.bytes, nl_test_len (buf.bytes, nlh));

  nlh = nl_test_error (buf.bytes, 1, 0, EINVAL, "Port index is out of range");
  write_seed (dir, "error-ext-ack", buf.bytes, nlh->nlmsg_len);

  nlh = nl_test_done (buf.bytes, 1, 0);
  *(gint32 *) mnl_nlmsg_get_payload (nlh) = -EINVAL;
  nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
  mnl_attr_put_strz (nlh, NLMSGERR_ATTR_MSG, "Device index is missing");
  write_seed (dir, "done-error", buf.bytes, nlh->nlmsg_len);

  /* Routing netlink: link counters and a link's name. */
  {
    struct rtnl_link_stats64 st = { 1, 2, 3, 4 };
    struct if_stats_msg *ifsm;
    struct ifinfomsg *ifi;

    memset (&buf, 0, sizeof buf);
    nlh = mnl_nlmsg_put_header (buf.bytes);
    nlh->nlmsg_type = RTM_NEWSTATS;
    nlh->nlmsg_flags = NLM_F_MULTI;
    nlh->nlmsg_seq = 1;
    ifsm = mnl_nlmsg_put_extra_header (nlh, sizeof *ifsm);
    ifsm->ifindex = 7;
    mnl_attr_put (nlh, IFLA_STATS_LINK_64, sizeof st, &st);
    write_seed (dir, "link-stats", buf.bytes, nlh->nlmsg_len);

    memset (&buf, 0, sizeof buf);
    nlh = mnl_nlmsg_put_header (buf.bytes);
    nlh->nlmsg_type = RTM_NEWLINK;
    nlh->nlmsg_seq = 1;
    ifi = mnl_nlmsg_put_extra_header (nlh, sizeof *ifi);
    ifi->ifi_index = 7;
    mnl_attr_put_strz (nlh, IFLA_IFNAME, "d0");
    write_seed (dir, "link-name", buf.bytes, nlh->nlmsg_len);
  }
  return 0;
}
