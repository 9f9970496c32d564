/* replay-cost: rdmatop's own work in a sampling pass, without the kernel.
 *
 * The kernel's side of a pass (building the netlink replies) is the same
 * for rdmatop and for the bare-libmnl floor; what rdmatop adds is its own
 * work on those replies: parsing, counter layouts, rates, metrics, health,
 * the snapshot.  This program runs rtop_collector_sample() (the pass the
 * app, the CLI and the recorder run) against replies recorded from a real
 * kernel (`nl-floor --record FILE`, see tests/bench/guest-record.sh):
 * threads on the other ends of two datagram socketpairs answer each RDMA
 * and routing netlink request with the recorded datagrams.  Run under
 * `valgrind --tool=callgrind --toggle-collect=measured_passes` it counts
 * the instructions of rdmatop's passes exactly (after three warm-up passes,
 * on this thread only), with no emulator or busy host in the figure; alone
 * it prints the CPU time of the collector's thread per pass.
 *
 * sysfs comes from a tree this program writes under a temporary folder
 * (each port's rate, state and link layer, as Soft-RoCE shows them);
 * processes are looked up in the real /proc (the recorded pids are not
 * there: those processes are counted, not enriched).
 *
 * Usage: replay-cost FILE [--passes N]     (default 1000)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <libmnl/libmnl.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rtop-collector-private.h"
#include "rtop-snapshot.h"
#include "rtop-nl-private.h"
#include "uapi/rdma/rdma_netlink.h"

#define PORTID 4711
#define MAX_REPLAY_LINKS 1024

/* The datagrams that answered one request, keyed as nl-floor recorded it. */
typedef struct {
  guint32 cmd, dev, port;
  GPtrArray *datagrams;      /* GBytes */
} Reply;

static GPtrArray *replies;   /* Reply */
static guint32 link_index[MAX_REPLAY_LINKS];
static char link_name[MAX_REPLAY_LINKS][IFNAMSIZ];
static guint n_links;

static Reply *
find_reply (guint32 cmd, guint32 dev, guint32 port)
{
  for (guint i = 0; i < replies->len; i++)
    {
      Reply *r = g_ptr_array_index (replies, i);

      if (r->cmd == cmd && r->dev == dev && r->port == port)
        return r;
    }
  return NULL;
}

static gboolean
ends_reply (const guint8 *buf, gsize len)
{
  const struct nlmsghdr *nlh = (const struct nlmsghdr *) (gconstpointer) buf;
  int left = (int) len;

  for (; mnl_nlmsg_ok (nlh, left); nlh = mnl_nlmsg_next (nlh, &left))
    if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR)
      return TRUE;
  return FALSE;
}

/* Netdevs named in the PORT_GET replies: the routing side answers for them. */
static void
learn_links (const guint8 *buf, gsize len)
{
  const struct nlmsghdr *nlh = (const struct nlmsghdr *) (gconstpointer) buf;
  int left = (int) len;

  for (; mnl_nlmsg_ok (nlh, left); nlh = mnl_nlmsg_next (nlh, &left))
    {
      const struct nlattr *attr;
      guint32 index = 0;
      const char *name = NULL;

      if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
        continue;
      mnl_attr_for_each (attr, nlh, 0)
        {
          if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_NDEV_INDEX)
            index = mnl_attr_get_u32 (attr);
          else if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_NDEV_NAME &&
                   mnl_attr_validate (attr, MNL_TYPE_NUL_STRING) == 0)
            name = mnl_attr_get_str (attr);
        }
      if (index != 0 && name != NULL && n_links < MAX_REPLAY_LINKS)
        {
          link_index[n_links] = index;
          g_strlcpy (link_name[n_links], name, IFNAMSIZ);
          n_links++;
        }
    }
}

/* FILE: records of { u32 cmd, dev, port, len; len bytes }, in the order
 * nl-floor received them; a later reply to the same request replaces an
 * earlier one (the file holds a warm-up pass and a measured one). */
static gboolean
load (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize size, off = 0;
  Reply *cur = NULL;
  gboolean complete = TRUE;

  if (!g_file_get_contents (path, &data, &size, error))
    return FALSE;
  replies = g_ptr_array_new ();
  while (off + 16 <= size)
    {
      guint32 hdr[4];

      memcpy (hdr, data + off, sizeof hdr);
      off += sizeof hdr;
      if (hdr[3] > size - off || hdr[3] < sizeof (struct nlmsghdr))
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: cut or garbled record", path);
          return FALSE;
        }
      if (complete)
        {
          cur = find_reply (hdr[0], hdr[1], hdr[2]);
          if (cur == NULL)
            {
              cur = g_new0 (Reply, 1);
              cur->cmd = hdr[0];
              cur->dev = hdr[1];
              cur->port = hdr[2];
              g_ptr_array_add (replies, cur);
            }
          g_clear_pointer (&cur->datagrams, g_ptr_array_unref);
          cur->datagrams = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
        }
      g_ptr_array_add (cur->datagrams, g_bytes_new (data + off, hdr[3]));
      if (hdr[0] == RDMA_NLDEV_CMD_PORT_GET)
        learn_links ((const guint8 *) data + off, hdr[3]);
      complete = ends_reply ((const guint8 *) data + off, hdr[3]);
      off += hdr[3];
    }
  if (replies->len == 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: no replies", path);
      return FALSE;
    }
  return TRUE;
}

static void
send_as_reply (int fd, const void *bytes, gsize len, const struct nlmsghdr *req)
{
  g_autofree guint8 *copy = g_memdup2 (bytes, len);
  struct nlmsghdr *nlh = (struct nlmsghdr *) (gpointer) copy;
  int left = (int) len;

  for (; mnl_nlmsg_ok (nlh, left); nlh = mnl_nlmsg_next (nlh, &left))
    {
      nlh->nlmsg_seq = req->nlmsg_seq;
      nlh->nlmsg_pid = PORTID;
    }
  if (send (fd, copy, len, 0) != (gssize) len)
    g_error ("replay: send: %s", g_strerror (errno));
}

static void
refuse (int fd, const struct nlmsghdr *req, int err)
{
  union { guint8 bytes[NLMSG_LENGTH (sizeof (struct nlmsgerr))]; struct nlmsghdr nlh; } out;
  struct nlmsgerr *e;

  memset (&out, 0, sizeof out);
  out.nlh.nlmsg_len = sizeof out.bytes;
  out.nlh.nlmsg_type = NLMSG_ERROR;
  out.nlh.nlmsg_seq = req->nlmsg_seq;
  out.nlh.nlmsg_pid = PORTID;
  e = NLMSG_DATA (&out.nlh);
  e->error = -err;
  e->msg = *req;
  if (send (fd, out.bytes, sizeof out.bytes, 0) != (gssize) sizeof out.bytes)
    g_error ("replay: send: %s", g_strerror (errno));
}

static gpointer
rdma_kernel (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  static union { guint8 bytes[8192]; struct nlmsghdr nlh; } req;

  for (;;)
    {
      gssize n = recv (fd, req.bytes, sizeof req.bytes, 0);
      guint32 dev = UINT32_MAX, port = 0;
      const struct nlattr *attr;
      Reply *r;

      if (n <= 0)
        return NULL;
      mnl_attr_for_each (attr, &req.nlh, 0)
        {
          if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_DEV_INDEX)
            dev = mnl_attr_get_u32 (attr);
          else if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_PORT_INDEX)
            port = mnl_attr_get_u32 (attr);
        }
      r = find_reply (RDMA_NL_GET_OP (req.nlh.nlmsg_type), dev, port);
      if (r == NULL && RDMA_NL_GET_OP (req.nlh.nlmsg_type) == RDMA_NLDEV_CMD_RES_CM_ID_GET)
        {
          /* A reply set recorded without rdma_cm IDs: answer as a kernel
           * that refuses the dump, which the collector must take calmly. */
          refuse (fd, &req.nlh, EOPNOTSUPP);
          continue;
        }
      if (r == NULL)
        g_error ("replay: nothing recorded for command %u, device %u, port %u",
                 RDMA_NL_GET_OP (req.nlh.nlmsg_type), dev, port);
      for (guint i = 0; i < r->datagrams->len; i++)
        {
          gsize len;
          const void *bytes = g_bytes_get_data (g_ptr_array_index (r->datagrams, i), &len);

          send_as_reply (fd, bytes, len, &req.nlh);
        }
    }
}

/* The routing side: RTM_GETLINK names a link, RTM_GETSTATS dumps them all. */
static gpointer
route_kernel (gpointer data)
{
  int fd = GPOINTER_TO_INT (data);
  static union { guint8 bytes[8192]; struct nlmsghdr nlh; } req;
  static union { guint8 bytes[MAX_REPLAY_LINKS * 256 + 64]; struct nlmsghdr nlh; } out;

  for (;;)
    {
      gssize n = recv (fd, req.bytes, sizeof req.bytes, 0);
      struct nlmsghdr *nlh;
      gsize len = 0;

      if (n <= 0)
        return NULL;
      memset (out.bytes, 0, sizeof out.bytes);
      if (req.nlh.nlmsg_type == RTM_GETLINK)
        {
          const struct ifinfomsg *want = mnl_nlmsg_get_payload (&req.nlh);
          struct ifinfomsg *ifi;
          const char *name = "?";

          for (guint i = 0; i < n_links; i++)
            if ((int) link_index[i] == want->ifi_index)
              name = link_name[i];
          nlh = mnl_nlmsg_put_header (out.bytes);
          nlh->nlmsg_type = RTM_NEWLINK;
          ifi = mnl_nlmsg_put_extra_header (nlh, sizeof *ifi);
          ifi->ifi_index = want->ifi_index;
          mnl_attr_put_strz (nlh, IFLA_IFNAME, name);
          len = NLMSG_ALIGN (nlh->nlmsg_len);
          nlh = (struct nlmsghdr *) (gpointer) (out.bytes + len);
          nlh->nlmsg_len = NLMSG_LENGTH (sizeof (struct nlmsgerr));
          nlh->nlmsg_type = NLMSG_ERROR;     /* the ACK: error 0 */
          len += nlh->nlmsg_len;
        }
      else
        {
          for (guint i = 0; i <= n_links; i++)
            {
              struct rtnl_link_stats64 st = { 0 };
              struct if_stats_msg *ifsm;

              nlh = mnl_nlmsg_put_header (out.bytes + len);
              nlh->nlmsg_type = RTM_NEWSTATS;
              nlh->nlmsg_flags = NLM_F_MULTI;
              ifsm = mnl_nlmsg_put_extra_header (nlh, sizeof *ifsm);
              ifsm->ifindex = i < n_links ? link_index[i] : 1;    /* and lo */
              st.tx_bytes = 1000 + i;
              st.rx_bytes = 2000 + i;
              mnl_attr_put (nlh, IFLA_STATS_LINK_64, sizeof st, &st);
              len += NLMSG_ALIGN (nlh->nlmsg_len);
            }
          nlh = (struct nlmsghdr *) (gpointer) (out.bytes + len);
          nlh->nlmsg_len = NLMSG_LENGTH (sizeof (int));
          nlh->nlmsg_type = NLMSG_DONE;
          nlh->nlmsg_flags = NLM_F_MULTI;
          len += nlh->nlmsg_len;
        }
      send_as_reply (fd, out.bytes, len, &req.nlh);
    }
}

static int
start_kernel (GThreadFunc func, const char *name)
{
  int sv[2], size = 8 << 20;

  if (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
    g_error ("replay: socketpair: %s", g_strerror (errno));
  setsockopt (sv[0], SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  setsockopt (sv[1], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  g_thread_unref (g_thread_new (name, func, GINT_TO_POINTER (sv[1])));
  return sv[0];
}

/* Each port as Soft-RoCE shows it in sysfs. */
static char *
write_sysfs (void)
{
  g_autoptr(GError) error = NULL;
  char *root = g_dir_make_tmp ("replay-cost-XXXXXX", &error);
  Reply *devices = find_reply (RDMA_NLDEV_CMD_GET, UINT32_MAX, 0);

  if (root == NULL)
    g_error ("replay: %s", error->message);
  for (guint i = 0; devices != NULL && i < devices->datagrams->len; i++)
    {
      gsize len;
      const struct nlmsghdr *nlh = g_bytes_get_data (g_ptr_array_index (devices->datagrams, i), &len);
      int left = (int) len;

      for (; mnl_nlmsg_ok (nlh, left); nlh = mnl_nlmsg_next (nlh, &left))
        {
          const struct nlattr *attr;

          if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
            continue;
          mnl_attr_for_each (attr, nlh, 0)
            if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_DEV_NAME &&
                mnl_attr_validate (attr, MNL_TYPE_NUL_STRING) == 0 &&
                strchr (mnl_attr_get_str (attr), '/') == NULL)
              {
                g_autofree char *port = g_build_filename (root, "class", "infiniband",
                                                          mnl_attr_get_str (attr), "ports", "1", NULL);
                static const char * const files[][2] = {
                  { "rate", "2.5 Gb/sec (1X SDR)\n" }, { "state", "4: ACTIVE\n" },
                  { "phys_state", "5: LinkUp\n" }, { "link_layer", "Ethernet\n" },
                };

                g_mkdir_with_parents (port, 0755);
                for (guint f = 0; f < G_N_ELEMENTS (files); f++)
                  {
                    g_autofree char *path = g_build_filename (port, files[f][0], NULL);
                    g_file_set_contents (path, files[f][1], -1, NULL);
                  }
              }
        }
    }
  return root;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

/* The measured passes, after the warm-up: a function of its own, so
 * callgrind can count just these (--toggle-collect=measured_passes). */
static G_GNUC_NO_INLINE void
measured_passes (RtopCollector *collector, unsigned long passes)
{
  for (unsigned long i = 0; i < passes; i++)
    rtop_snapshot_unref (rtop_collector_sample (collector, 1.0));
}

static double
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *sysfs = NULL;
  RtopCollectorOptions opts = { 0 };
  RtopCollector *collector;
  unsigned long passes = 1000;
  guint counters = 0, ports = 0;
  RtopSnapshot *snap;
  double t0;

  if (argc < 2 || argv[1][0] == '-' ||
      (argc == 4 && strcmp (argv[2], "--passes") == 0
       ? (passes = strtoul (argv[3], NULL, 10)) == 0 || passes > 10000000
       : argc != 2))
    {
      fprintf (stderr, "Usage: %s FILE [--passes N]   (FILE from nl-floor --record)\n", argv[0]);
      return 2;
    }
  if (!load (argv[1], &error))
    {
      fprintf (stderr, "replay-cost: %s\n", error->message);
      return 1;
    }
  sysfs = write_sysfs ();
  opts.sysfs_root = sysfs;
  opts.proc_root = "/proc";
  collector = rtop_collector_new_for_nl (&opts, rtop_nl_new_for_fd (start_kernel (rdma_kernel, "rdma"),
                                                                    PORTID));
  rtop_collector_set_route (collector, rtop_nl_new_for_fd (start_kernel (route_kernel, "route"),
                                                           PORTID));

  /* Warm-up: layouts, templates and caches are made in the first passes. */
  for (int i = 0; i < 3; i++)
    rtop_snapshot_unref (rtop_collector_sample (collector, 1.0));
  snap = rtop_collector_sample (collector, 1.0);
  if (snap->status != RTOP_STATUS_OK)
    {
      fprintf (stderr, "replay-cost: the pass failed: %s\n", snap->status_message);
      return 1;
    }
  for (guint i = 0; i < snap->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, j);

          ports++;
          counters += port->counters->len;
        }
    }
  printf ("replay-cost: %u devices, %u ports, %u counters, %u processes per pass\n",
          snap->devices->len, ports, counters, snap->processes->len);
  rtop_snapshot_unref (snap);

  t0 = thread_cpu_us ();
  measured_passes (collector, passes);
  printf ("passes=%lu collector_thread_cpu_us_per_pass=%.1f\n", passes,
          (thread_cpu_us () - t0) / passes);
  rtop_collector_free (collector);
  remove_tree (sysfs);
  return 0;
}
