/* nl-floor: the netlink floor of one rdmatop sampling pass.
 *
 * A bare libmnl program (no GLib, no parsing beyond what the next request
 * needs) that sends the same RDMA netlink requests as one rdmatop pass and
 * throws the replies away:
 *
 *   SYS_GET; GET dump (all devices); then per device: PORT_GET dump,
 *   STAT_GET per port, RES_QP_GET / RES_CTX_GET / RES_MR_GET dumps;
 *   with --netdev-stats one routing netlink RTM_GETSTATS dump (what
 *   rdmatop asks when a provider's byte counters come from its netdev,
 *   as Soft-RoCE's do).
 *
 * It prints the CPU time (getrusage, user + system) per pass, the number the
 * collector's own per-pass CPU time is compared against (as a ratio measured
 * in the same machine or guest), and the median and spread of single passes
 * (CLOCK_PROCESS_CPUTIME_ID) on a line of its own before it.  One long-lived
 * socket, like rdmatop.
 *
 * It receives the way rdmatop does (src/kernel/rtop-nl.c), which is
 * libmnl's own way: one mnl_socket_recvfrom() per datagram into a
 * MNL_SOCKET_BUFFER_SIZE (page) buffer.  The kernel sizes every dump skb
 * by the largest iov length the socket was read with, and zeroing those
 * skbs is a large part of a pass, so both use the same.  A dump that took
 * more than 16 datagrams averaging at least half a page is asked on a
 * second socket read with 32 KiB from the next pass on (and moves back when
 * it fits one datagram), as rdmatop does for large resource dumps.
 *
 * Usage: nl-floor [--passes N]        (default 100, plus one warm-up pass) */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "uapi/rdma/rdma_netlink.h"

#define MAX_DEVICES 1024
#define NO_INDEX UINT32_MAX
#define BULK_AFTER 16                /* rtop-nl.c's rule for the bulk socket */
#define BULK_FILL 2048               /* ... for datagrams this full on average */
#define BULK_IOV (32 * 1024)
#define MAX_BULK_KEYS 4096

typedef struct {
  uint32_t index;
  uint32_t ports;
} Device;

typedef struct {
  FILE *record;              /* --record: every datagram received, for replay-cost */
  struct mnl_socket *nl, *bulk, *route;
  uint32_t route_portid;
  int netdev_stats;
  uint32_t portid, bulk_portid;
  uint64_t bulk_keys[MAX_BULK_KEYS];
  unsigned n_bulk_keys;
  uint32_t seq;
  char *buf;
  Device devices[MAX_DEVICES];
  unsigned n_devices;
  unsigned long n_requests, n_messages, n_errors;
} Floor;

static int
handle_attr_cb (const struct nlattr *attr, void *data)
{
  const struct nlattr **tb = data;
  uint16_t type = mnl_attr_get_type (attr);

  if (type != RDMA_NLDEV_ATTR_DEV_INDEX && type != RDMA_NLDEV_ATTR_PORT_INDEX)
    return MNL_CB_OK;
  if (mnl_attr_validate (attr, MNL_TYPE_U32) < 0)
    return MNL_CB_ERROR;
  tb[type] = attr;
  return MNL_CB_OK;
}

/* GET dump: keep only what the following requests need. */
static int
device_cb (const struct nlmsghdr *nlh, void *data)
{
  const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { NULL };
  Floor *f = data;

  f->n_messages++;
  if (mnl_attr_parse (nlh, 0, handle_attr_cb, tb) < 0)
    return MNL_CB_ERROR;
  if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] == NULL || f->n_devices == MAX_DEVICES)
    return MNL_CB_OK;
  f->devices[f->n_devices].index = mnl_attr_get_u32 (tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
  f->devices[f->n_devices].ports =
    tb[RDMA_NLDEV_ATTR_PORT_INDEX] ? mnl_attr_get_u32 (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) : 0;
  f->n_devices++;
  return MNL_CB_OK;
}

static int
discard_cb (const struct nlmsghdr *nlh, void *data)
{
  Floor *f = data;

  (void) nlh;
  f->n_messages++;
  return MNL_CB_OK;
}

static int
find_bulk_key (Floor *f, uint64_t key)
{
  for (unsigned i = 0; i < f->n_bulk_keys; i++)
    if (f->bulk_keys[i] == key)
      return (int) i;
  return -1;
}

static int
open_socket (struct mnl_socket **nl, uint32_t *portid)
{
  int one = 1;

  *nl = mnl_socket_open (NETLINK_RDMA);
  if (*nl == NULL)
    return -1;
  /* The same socket options rdmatop sets. */
  mnl_socket_setsockopt (*nl, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt (*nl, NETLINK_CAP_ACK, &one, sizeof one);
  if (mnl_socket_bind (*nl, 0, MNL_SOCKET_AUTOPID) < 0)
    return -1;
  *portid = mnl_socket_get_portid (*nl);
  return 0;
}

/* One request and its whole reply; a kernel error is counted, not fatal
 * (rdmatop goes on past a port that fails, too). */
static int
request (Floor *f, uint16_t cmd, int dump, uint32_t dev, uint32_t port, mnl_cb_t cb)
{
  char req[64] = { 0 };
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (req);
  uint64_t key = ((uint64_t) cmd << 32) | dev;
  int bulk_index = dump ? find_bulk_key (f, key) : -1;
  struct mnl_socket *nl = f->nl;
  uint32_t portid = f->portid;
  size_t iov = MNL_SOCKET_BUFFER_SIZE;
  unsigned datagrams = 0;
  size_t bytes = 0;
  int ret;

  if (bulk_index >= 0)
    {
      if (f->bulk == NULL && open_socket (&f->bulk, &f->bulk_portid) < 0)
        return -1;
      nl = f->bulk;
      portid = f->bulk_portid;
      iov = BULK_IOV;
    }

  nlh->nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, cmd);
  nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
  nlh->nlmsg_seq = ++f->seq;
  if (dev != NO_INDEX)
    mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
  if (port != 0)
    mnl_attr_put_u32 (nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  f->n_requests++;
  if (mnl_socket_sendto (nl, nlh, nlh->nlmsg_len) < 0)
    return -1;
  do
    {
      /* One read per datagram, as rdmatop reads. */
      ssize_t n = mnl_socket_recvfrom (nl, f->buf, iov);

      if (n < 0)
        return -1;
      datagrams++;
      bytes += (size_t) n;
      if (f->record != NULL)
        {
          uint32_t hdr[4] = { cmd, dev, port, (uint32_t) n };

          if (fwrite (hdr, sizeof hdr, 1, f->record) != 1 ||
              fwrite (f->buf, 1, (size_t) n, f->record) != (size_t) n)
            return -1;
        }
      ret = mnl_cb_run (f->buf, n, nlh->nlmsg_seq, portid, cb, f);
    }
  while (ret > 0);
  if (dump && bulk_index < 0 && datagrams > BULK_AFTER && bytes / datagrams >= BULK_FILL &&
      f->n_bulk_keys < MAX_BULK_KEYS)
    f->bulk_keys[f->n_bulk_keys++] = key;
  else if (bulk_index >= 0 && datagrams <= 1)
    f->bulk_keys[bulk_index] = f->bulk_keys[--f->n_bulk_keys];
  if (ret < 0)
    f->n_errors++;
  return 0;
}

/* rdmatop's netdev counters for providers without byte counters of their
 * own (Soft-RoCE): one RTM_GETSTATS dump of every link's 64-bit counters. */
static int
netdev_stats (Floor *f)
{
  char req[64] = { 0 };
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (req);
  struct if_stats_msg *ifsm;
  int ret;

  nlh->nlmsg_type = RTM_GETSTATS;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  nlh->nlmsg_seq = ++f->seq;
  ifsm = mnl_nlmsg_put_extra_header (nlh, sizeof *ifsm);
  ifsm->family = AF_UNSPEC;
  ifsm->filter_mask = IFLA_STATS_FILTER_BIT (IFLA_STATS_LINK_64);
  f->n_requests++;
  if (mnl_socket_sendto (f->route, nlh, nlh->nlmsg_len) < 0)
    return -1;
  do
    {
      ssize_t n = mnl_socket_recvfrom (f->route, f->buf, MNL_SOCKET_BUFFER_SIZE);

      if (n < 0)
        return -1;
      ret = mnl_cb_run (f->buf, n, nlh->nlmsg_seq, f->route_portid, discard_cb, f);
    }
  while (ret > 0);
  if (ret < 0)
    f->n_errors++;
  return 0;
}

static int
one_pass (Floor *f)
{
  f->n_devices = 0;
  if (request (f, RDMA_NLDEV_CMD_SYS_GET, 0, NO_INDEX, 0, discard_cb) < 0 ||
      request (f, RDMA_NLDEV_CMD_GET, 1, NO_INDEX, 0, device_cb) < 0)
    return -1;
  for (unsigned i = 0; i < f->n_devices; i++)
    {
      uint32_t dev = f->devices[i].index;

      if (request (f, RDMA_NLDEV_CMD_PORT_GET, 1, dev, 0, discard_cb) < 0)
        return -1;
      for (uint32_t port = 1; port <= f->devices[i].ports; port++)
        if (request (f, RDMA_NLDEV_CMD_STAT_GET, 0, dev, port, discard_cb) < 0)
          return -1;
      if (request (f, RDMA_NLDEV_CMD_RES_QP_GET, 1, dev, 0, discard_cb) < 0 ||
          request (f, RDMA_NLDEV_CMD_RES_CTX_GET, 1, dev, 0, discard_cb) < 0 ||
          request (f, RDMA_NLDEV_CMD_RES_MR_GET, 1, dev, 0, discard_cb) < 0)
        return -1;
    }
  if (f->netdev_stats && netdev_stats (f) < 0)
    return -1;
  return 0;
}

static double
usec (const struct timeval *tv)
{
  return tv->tv_sec * 1e6 + tv->tv_usec;
}

static double
now_usec (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double
cpu_usec (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
compare_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static int
open_floor (Floor *f)
{
  if (open_socket (&f->nl, &f->portid) < 0)
    return -1;
  f->seq = (uint32_t) time (NULL);
  if (f->netdev_stats)
    {
      f->route = mnl_socket_open (NETLINK_ROUTE);
      if (f->route == NULL || mnl_socket_bind (f->route, 0, MNL_SOCKET_AUTOPID) < 0)
        return -1;
      f->route_portid = mnl_socket_get_portid (f->route);
    }
  /* The largest iov either socket reads with; page-aligned, as rdmatop's. */
  if (posix_memalign ((void **) &f->buf, 4096, BULK_IOV) != 0)
    return -1;
  return 0;
}

static void
usage (FILE *out, const char *argv0)
{
  fprintf (out, "Usage: %s [--passes N] [--netdev-stats] [--record FILE]\n"
           "Sends the RDMA netlink requests of one rdmatop sampling pass N times\n"
           "(default 100) and prints the CPU time per pass.  --netdev-stats adds\n"
           "the routing netlink dump rdmatop makes for Soft-RoCE's byte counters.\n"
           "--record FILE keeps every RDMA netlink datagram received, for replay-cost.\n", argv0);
}

int
main (int argc, char **argv)
{
  static const struct option options[] = {
    { "passes", required_argument, NULL, 'n' },
    { "netdev-stats", no_argument, NULL, 's' },
    { "record", required_argument, NULL, 'r' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  static Floor f;
  struct rusage before, after;
  unsigned long passes = 100, requests;
  double wall, user, sys, *pass_us;
  int opt;

  while ((opt = getopt_long (argc, argv, "n:sr:h", options, NULL)) != -1)
    {
      char *end = NULL;

      switch (opt)
        {
        case 'n':
          errno = 0;
          passes = strtoul (optarg, &end, 10);
          if (errno != 0 || end == optarg || *end != '\0' || passes == 0 || passes > 10000000)
            {
              fprintf (stderr, "nl-floor: --passes needs a number from 1 to 10000000\n");
              return 2;
            }
          break;
        case 's':
          f.netdev_stats = 1;
          break;
        case 'r':
          f.record = fopen (optarg, "we");
          if (f.record == NULL)
            {
              fprintf (stderr, "nl-floor: %s: %s\n", optarg, strerror (errno));
              return 1;
            }
          break;
        case 'h':
          usage (stdout, argv[0]);
          return 0;
        default:
          usage (stderr, argv[0]);
          return 2;
        }
    }
  if (optind != argc)
    {
      usage (stderr, argv[0]);
      return 2;
    }

  if (open_floor (&f) < 0)
    {
      fprintf (stderr, "nl-floor: cannot open RDMA netlink: %s (load ib_core or rdma_rxe)\n",
               strerror (errno));
      return 1;
    }
  pass_us = malloc (passes * sizeof *pass_us);
  if (pass_us == NULL)
    {
      fprintf (stderr, "nl-floor: out of memory\n");
      return 1;
    }
  if (one_pass (&f) < 0)   /* warm-up: page in, let the kernel size its dump skbs */
    goto failed;
  f.n_requests = f.n_messages = f.n_errors = 0;

  getrusage (RUSAGE_SELF, &before);
  wall = now_usec ();
  for (unsigned long i = 0; i < passes; i++)
    {
      double t0 = cpu_usec ();

      if (one_pass (&f) < 0)
        goto failed;
      pass_us[i] = cpu_usec () - t0;
    }
  wall = now_usec () - wall;
  getrusage (RUSAGE_SELF, &after);

  user = usec (&after.ru_utime) - usec (&before.ru_utime);
  sys = usec (&after.ru_stime) - usec (&before.ru_stime);
  requests = f.n_requests / passes;
  printf ("nl-floor: %lu passes, %u devices, %lu requests and %lu reply messages per pass, "
          "%lu failed requests\n",
          passes, f.n_devices, requests, f.n_messages / passes, f.n_errors);
  /* One last line, the one the benchmark scripts read (tail -n 1): the
   * median single pass (as sample-cost prints it, robust against a host
   * that stalls the guest now and then) and the mean over all passes. */
  qsort (pass_us, passes, sizeof *pass_us, compare_double);
  printf ("pass_cpu_us_median=%.1f pass_cpu_us_p10=%.1f pass_cpu_us_p90=%.1f "
          "cpu_us_per_pass=%.1f user_us_per_pass=%.1f sys_us_per_pass=%.1f wall_us_per_pass=%.1f\n",
          passes % 2 ? pass_us[passes / 2] : (pass_us[passes / 2 - 1] + pass_us[passes / 2]) / 2,
          pass_us[passes / 10], pass_us[passes * 9 / 10],
          (user + sys) / passes, user / passes, sys / passes, wall / passes);
  mnl_socket_close (f.nl);
  if (f.bulk != NULL)
    mnl_socket_close (f.bulk);
  free (f.buf);
  free (pass_us);
  if (f.record != NULL && fclose (f.record) != 0)
    {
      fprintf (stderr, "nl-floor: writing the record failed: %s\n", strerror (errno));
      return 1;
    }
  return 0;

failed:
  fprintf (stderr, "nl-floor: RDMA netlink failed: %s\n", strerror (errno));
  mnl_socket_close (f.nl);
  if (f.bulk != NULL)
    mnl_socket_close (f.bulk);
  free (f.buf);
  free (pass_us);
  return 1;
}
