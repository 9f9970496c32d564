/* test-collector.c: whole sampling passes against a fake kernel.
 *
 * The collector runs unchanged over one end of a datagram socketpair; a
 * thread on the other end answers each request with replies built byte for
 * byte as the kernel builds them (nl-test-msgs.c).  sysfs comes from the
 * fixture tree, /proc is the real one (the QPs are "owned" by this test
 * process).  The real-kernel counterpart of these checks is the vm suite. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "support/nl-test-msgs.h"
#include "rtop-collector-private.h"
#include "rtop-json.h"
#include "rtop-nl-private.h"
#include "rtop-snapshot-private.h"
#include "uapi/rdma/rdma_netlink.h"

#define PORTID 4711
#define QPS_PER_MSG 100

typedef struct {
  guint32 index;
  char name[32];
  guint8 state, phys;
  const char *ndev;
  guint64 sent, rcvd, seq_err;
  const char *fw;            /* firmware version, NULL: "1.2.3" */
  int stat_errno;            /* answer STAT_GET with this error */
  gboolean extra_counter;    /* STAT_GET also lists "ack_deferred", first */
  int res_errno;             /* answer the RES_* dumps with this error */
  guint qps;                 /* owned by this process */
  gboolean qps_failed;       /* its first message's QPs are in the error state */
  gboolean cm_ids;           /* rdma_cm connected its first two QPs (else RES_CM_ID_GET fails) */
} FakeDev;

typedef struct {
  GMutex lock;
  FakeDev devs[8];
  guint n_devs;
  int get_errno;             /* answer the device dump with this error */
  guint kernel_qps;          /* owned by the kernel (ib_core) on the first device */
  guint cm_id_dumps;         /* RES_CM_ID_GET requests seen */
  int fd;
  GThread *thread;
  RtopCollector *collector;
} Fixture;

static void
reply (Fixture *f, const struct nlmsghdr *nlh, const void *start)
{
  gsize len = nl_test_len (start, nlh);

  g_assert_cmpint (send (f->fd, start, len, 0), ==, (gssize) len);
}

static void
answer_done (Fixture *f, guint32 seq)
{
  NlTestBuf b = { { 0 } };

  reply (f, nl_test_done (b.bytes, seq, PORTID), b.bytes);
}

static void
answer_error (Fixture *f, guint32 seq, int errnum)
{
  NlTestBuf b = { { 0 } };

  reply (f, nl_test_error (b.bytes, seq, PORTID, errnum, "fake kernel says no"), b.bytes);
}

static void
answer_devices (Fixture *f, guint32 seq)
{
  if (f->get_errno)
    {
      answer_error (f, seq, f->get_errno);
      return;
    }
  for (guint i = 0; i < f->n_devs; i++)
    {
      NlTestBuf b = { { 0 } };
      reply (f, nl_test_device_fw (b.bytes, seq, PORTID, f->devs[i].index, f->devs[i].name, 1,
                                   f->devs[i].fw ? f->devs[i].fw : "1.2.3"), b.bytes);
    }
  answer_done (f, seq);
}

static const FakeDev *
find_dev (Fixture *f, guint32 index)
{
  for (guint i = 0; i < f->n_devs; i++)
    if (f->devs[i].index == index)
      return &f->devs[i];
  return NULL;
}

/* Like nldev_port_get_dumpit(): one device per dump, named by DEV_INDEX. */
static void
answer_ports (Fixture *f, guint32 seq, guint32 index)
{
  if (index == RTOP_NL_NO_INDEX)
    {
      answer_error (f, seq, EINVAL);
      return;
    }
  if (find_dev (f, index) == NULL)
    {
      answer_error (f, seq, ENODEV);
      return;
    }
  for (guint i = 0; i < f->n_devs; i++)
    {
      NlTestBuf b = { { 0 } };
      const FakeDev *d = &f->devs[i];

      if (d->index != index)
        continue;
      reply (f, nl_test_port (b.bytes, seq, PORTID, d->index, d->name, 1, d->state, d->phys, d->ndev),
             b.bytes);
    }
  answer_done (f, seq);
}

static void
answer_stat (Fixture *f, guint32 seq, guint32 index, guint32 port)
{
  NlTestBuf b = { { 0 } };
  const FakeDev *d = find_dev (f, index);
  NlTestCounter counters[4];
  guint n = 0;

  if (d == NULL || d->stat_errno)
    {
      answer_error (f, seq, d ? d->stat_errno : ENODEV);
      return;
    }
  /* Not sorted by name: the collector must not rely on the kernel's order. */
  if (d->extra_counter)
    counters[n++] = (NlTestCounter) { "ack_deferred", 5 };
  counters[n++] = (NlTestCounter) { "sent_pkts", d->sent };
  counters[n++] = (NlTestCounter) { "rcvd_seq_err", d->seq_err };
  counters[n++] = (NlTestCounter) { "rcvd_pkts", d->rcvd };
  reply (f, nl_test_stat (b.bytes, seq, PORTID, index, d->name, port, counters, n), b.bytes);
  answer_error (f, seq, 0);    /* the ACK we asked for */
}

/* Like res_get_common_dumpit(): one device per dump, named by DEV_INDEX. */
static void
answer_res (Fixture *f, guint32 seq, guint16 cmd, guint32 index)
{
  if (index == RTOP_NL_NO_INDEX || find_dev (f, index) == NULL)
    {
      answer_error (f, seq, index == RTOP_NL_NO_INDEX ? EINVAL : ENODEV);
      return;
    }
  if (find_dev (f, index)->res_errno)
    {
      answer_error (f, seq, find_dev (f, index)->res_errno);
      return;
    }
  for (guint i = 0; i < f->n_devs; i++)
    {
      const FakeDev *d = &f->devs[i];
      guint kernel = i == 0 ? f->kernel_qps : 0;

      if (d->index != index)
        continue;

      for (guint done = 0; done < d->qps; done += QPS_PER_MSG)
        {
          NlTestBuf b = { { 0 } };
          guint n = MIN (QPS_PER_MSG, d->qps - done);
          struct nlmsghdr *nlh = NULL;

          if (cmd == RDMA_NLDEV_CMD_RES_QP_GET)
            nlh = nl_test_res_qp_full (b.bytes, seq, PORTID, d->index, d->name, 100 + done, n,
                                       getpid (), 2, d->qps_failed && done == 0 ? 6 : 3, 99 + done);
          else if (cmd == RDMA_NLDEV_CMD_RES_CTX_GET && done == 0)
            nlh = nl_test_res_ctx (b.bytes, seq, PORTID, d->index, d->name, 0, 1, getpid ());
          else if (cmd == RDMA_NLDEV_CMD_RES_MR_GET && done == 0)
            nlh = nl_test_res_mr (b.bytes, seq, PORTID, d->index, d->name, 0, 2, getpid (), 4096);
          if (nlh != NULL)
            reply (f, nlh, b.bytes);
        }
      if (kernel > 0 && cmd == RDMA_NLDEV_CMD_RES_QP_GET)
        {
          NlTestBuf b = { { 0 } };
          reply (f, nl_test_res_qp (b.bytes, seq, PORTID, d->index, d->name, 1, kernel, 0), b.bytes);
        }
    }
  answer_done (f, seq);
}

/* A listener, the first two QPs connected (one over IPv6) and an ID of
 * a QP the process does not list. */
static void
answer_cm_ids (Fixture *f, guint32 seq, guint32 index)
{
  const FakeDev *d = find_dev (f, index);
  NlTestCmId ids[] = {
    { 1, 0, "0.0.0.0", 18515, NULL, 0 },
    { 2, 100, "192.0.2.1", 18515, "192.0.2.2", 40001 },
    { 3, 101, "2001:db8::1", 18515, "2001:db8::2", 40002 },
    { 4, 5000, "192.0.2.1", 18515, "192.0.2.9", 40003 },
  };
  NlTestBuf b = { { 0 } };

  f->cm_id_dumps++;
  if (d == NULL || !d->cm_ids)
    {
      answer_error (f, seq, d == NULL ? ENODEV : EOPNOTSUPP);
      return;
    }
  reply (f, nl_test_res_cm_id (b.bytes, seq, PORTID, d->index, d->name, ids, G_N_ELEMENTS (ids),
                               getpid ()), b.bytes);
  answer_done (f, seq);
}

static void
answer (Fixture *f, const struct nlmsghdr *req)
{
  guint16 cmd = RDMA_NL_GET_OP (req->nlmsg_type);
  guint32 index = RTOP_NL_NO_INDEX, port = 0;
  struct nlattr *attr;

  g_assert_cmpuint (RDMA_NL_GET_CLIENT (req->nlmsg_type), ==, RDMA_NL_NLDEV);
  mnl_attr_for_each (attr, req, 0)
    {
      if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_DEV_INDEX)
        index = mnl_attr_get_u32 (attr);
      else if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_PORT_INDEX)
        port = mnl_attr_get_u32 (attr);
    }
  g_mutex_lock (&f->lock);
  switch (cmd)
    {
    case RDMA_NLDEV_CMD_GET:
      answer_devices (f, req->nlmsg_seq);
      break;
    case RDMA_NLDEV_CMD_PORT_GET:
      answer_ports (f, req->nlmsg_seq, index);
      break;
    case RDMA_NLDEV_CMD_STAT_GET:
      answer_stat (f, req->nlmsg_seq, index, port);
      break;
    case RDMA_NLDEV_CMD_RES_QP_GET:
    case RDMA_NLDEV_CMD_RES_CTX_GET:
    case RDMA_NLDEV_CMD_RES_MR_GET:
      answer_res (f, req->nlmsg_seq, cmd, index);
      break;
    case RDMA_NLDEV_CMD_RES_CM_ID_GET:
      answer_cm_ids (f, req->nlmsg_seq, index);
      break;
    default:
      answer_error (f, req->nlmsg_seq, EOPNOTSUPP);
    }
  g_mutex_unlock (&f->lock);
}

static gpointer
fake_kernel (gpointer data)
{
  Fixture *f = data;
  struct timeval tv = { 30, 0 };    /* a broken test must not hang the suite */

  setsockopt (f->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (;;)
    {
      NlTestBuf req = { { 0 } };
      gssize n = recv (f->fd, req.bytes, sizeof req.bytes, 0);

      if (n <= 0)
        return NULL;
      g_assert_true (mnl_nlmsg_ok (&req.align, (int) n));
      answer (f, &req.align);
    }
}

static void
add_dev (Fixture *f, guint32 index, const char *name, const char *ndev)
{
  FakeDev *d = &f->devs[f->n_devs++];

  memset (d, 0, sizeof *d);
  d->index = index;
  g_strlcpy (d->name, name, sizeof d->name);
  d->state = 4;
  d->phys = 5;
  d->ndev = ndev;
  d->sent = 1000 * index;
  d->rcvd = 2000 * index;
}

static void
fixture_init (Fixture *f, const char * const *only, gboolean no_processes)
{
  RtopCollectorOptions opts = { 0 };
  g_autofree char *sysfs = g_test_build_filename (G_TEST_DIST, "fixtures", "sys", NULL);
  int sv[2];

  memset (f, 0, sizeof *f);
  g_mutex_init (&f->lock);
  add_dev (f, 1, "mlx5_0", NULL);
  add_dev (f, 2, "rxe0", "d0");
  add_dev (f, 3, "rxe10", NULL);
  add_dev (f, 4, "rxe2", NULL);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  f->fd = sv[1];
  opts.sysfs_root = sysfs;
  opts.proc_root = "/proc";
  opts.devices = only;
  opts.no_processes = no_processes;
  f->collector = rtop_collector_new_for_nl (&opts, rtop_nl_new_for_fd (sv[0], PORTID));
  f->thread = g_thread_new ("fake-kernel", fake_kernel, f);
}

static void
set_up (Fixture *f, gconstpointer data)
{
  fixture_init (f, NULL, FALSE);
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->collector, rtop_collector_free);
  shutdown (f->fd, SHUT_RDWR);
  g_thread_join (f->thread);
  close (f->fd);
  g_mutex_clear (&f->lock);
}

#define LOCKED(f, stmt) G_STMT_START { g_mutex_lock (&(f)->lock); stmt; g_mutex_unlock (&(f)->lock); } G_STMT_END

static RtopPort *
port_of (RtopSnapshot *snap, const char *dev)
{
  RtopDevice *d = rtop_snapshot_find_device (snap, dev);

  g_assert_nonnull (d);
  g_assert_cmpuint (d->ports->len, ==, 1);
  return g_ptr_array_index (d->ports, 0);
}

static gboolean
has_event (RtopSnapshot *snap, RtopEventKind kind, const char *dev)
{
  for (guint i = 0; i < snap->events->len; i++)
    {
      RtopEvent *ev = g_ptr_array_index (snap->events, i);
      if (ev->kind == kind && g_strcmp0 (ev->device, dev) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_discovery (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = rtop_collector_sample (f->collector, 1.0);
  const char *order[] = { "mlx5_0", "rxe0", "rxe2", "rxe10" };
  RtopPort *rxe, *mlx;
  RtopCounter *c;

  g_assert_cmpint (snap->status, ==, RTOP_STATUS_OK);
  g_assert_cmpuint (snap->devices->len, ==, 4);
  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    g_assert_cmpstr (((RtopDevice *) g_ptr_array_index (snap->devices, i))->name, ==, order[i]);

  /* Netlink counters exactly as the kernel sent them. */
  rxe = port_of (snap, "rxe0");
  c = rtop_counters_find (rxe->counters, "sent_pkts");
  g_assert_nonnull (c);
  g_assert_cmpuint (c->value, ==, 2000);
  g_assert_cmpint (c->source, ==, RTOP_COUNTER_SOURCE_NETLINK);
  g_assert_false (c->has_rate);
  g_assert_cmpstr (rxe->netdev, ==, "d0");
  g_assert_cmpuint (rxe->state, ==, 4);
  g_assert_cmpstr (rtop_snapshot_find_device (snap, "rxe0")->provider, ==, "rxe");
  /* As `rdma dev` prints it. */
  g_assert_cmpstr (rtop_snapshot_find_device (snap, "rxe0")->node_guid, ==, "0002:c903:00a1:b2c3");

  /* rxe has no byte counters: bytes come from netdev d0, and say so. */
  g_assert_true (rxe->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_nonnull (strstr (rxe->metrics[RTOP_METRIC_TX_BYTES].source, "d0"));
  g_assert_true (rxe->metrics[RTOP_METRIC_TX_PACKETS].present);
  g_assert_cmpuint (rxe->metrics[RTOP_METRIC_TX_PACKETS].value, ==, 2000);

  /* mlx5's data counters come from sysfs counters/, in 4-byte words. */
  mlx = port_of (snap, "mlx5_0");
  c = rtop_counters_find (mlx->counters, "port_xmit_data");
  g_assert_nonnull (c);
  g_assert_cmpint (c->source, ==, RTOP_COUNTER_SOURCE_SYSFS_PORT);
  g_assert_true (mlx->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_cmpuint (mlx->metrics[RTOP_METRIC_TX_BYTES].value, ==, c->value * 4);
  g_assert_cmpfloat (mlx->rate_gbps, >, 0);
  g_assert_cmpstr (rtop_snapshot_find_device (snap, "mlx5_0")->provider, ==, "mlx5");
}

static void
test_rates_second_pass (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) first = rtop_collector_sample (f->collector, 1.0);
  g_autoptr(RtopSnapshot) second = NULL;
  RtopPort *port;
  RtopCounter *c;

  g_usleep (20000);
  LOCKED (f, f->devs[1].sent += 1234; f->devs[1].seq_err += 2);
  second = rtop_collector_sample (f->collector, 1.0);
  port = port_of (second, "rxe0");
  c = rtop_counters_find (port->counters, "sent_pkts");
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 1234);
  g_assert_cmpfloat (c->rate, >, 0);
  g_assert_cmpfloat (port->elapsed_s, >, 0);
  g_assert_cmpfloat_with_epsilon (c->rate, 1234 / port->elapsed_s, 1e-6);
  g_assert_true (port->metrics[RTOP_METRIC_TX_PACKETS].has_rate);
  /* An error counter that rises once is pending; rising again in the
   * next pass it raises one health event. */
  g_assert_false (has_event (second, RTOP_EVENT_COUNTER_RISING, "rxe0"));
  /* Idle devices: zero rate, not absent. */
  c = rtop_counters_find (port_of (second, "rxe2")->counters, "sent_pkts");
  g_assert_true (c->has_rate);
  g_assert_cmpfloat (c->rate, ==, 0);
  {
    g_autoptr(RtopSnapshot) third = NULL;

    LOCKED (f, f->devs[1].seq_err += 1);
    third = rtop_collector_sample (f->collector, 1.0);
    g_assert_true (has_event (third, RTOP_EVENT_COUNTER_RISING, "rxe0"));
    g_assert_cmpint (port_of (third, "rxe0")->health, ==, RTOP_PORT_HEALTH_WARNING);
    g_assert_cmpint (port_of (third, "rxe2")->health, ==, RTOP_PORT_HEALTH_OK);
  }
}

static void
assert_sorted (GPtrArray *counters)
{
  for (guint i = 1; i < counters->len; i++)
    g_assert_cmpstr (((RtopCounter *) g_ptr_array_index (counters, i - 1))->name, <,
                     ((RtopCounter *) g_ptr_array_index (counters, i))->name);
}

/* The collector keeps what follows from a port's counter names between
 * passes; a counter that appears or goes, or a new netdev, changes that,
 * and snapshots from before stay whole. */
static void
test_counter_layout_changes (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) first = rtop_collector_sample (f->collector, 1.0);
  g_autoptr(RtopSnapshot) second = NULL;
  g_autoptr(RtopSnapshot) third = NULL;
  g_autoptr(RtopSnapshot) fourth = NULL;
  RtopPort *port;
  RtopCounter *c;

  g_assert_cmpuint (port_of (first, "rxe0")->counters->len, ==, 5);  /* 3 netlink + 2 netdev */
  assert_sorted (port_of (first, "rxe0")->counters);

  g_usleep (10000);
  LOCKED (f, f->devs[1].extra_counter = TRUE; f->devs[1].sent += 10);
  second = rtop_collector_sample (f->collector, 1.0);
  port = port_of (second, "rxe0");
  g_assert_cmpuint (port->counters->len, ==, 6);
  assert_sorted (port->counters);
  c = rtop_counters_find (port->counters, "ack_deferred");
  g_assert_nonnull (c);
  g_assert_cmpuint (c->value, ==, 5);
  g_assert_false (c->has_rate);             /* its own baseline */
  c = rtop_counters_find (port->counters, "sent_pkts");
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 10);
  g_assert_cmpuint (port->metrics[RTOP_METRIC_TX_PACKETS].value, ==, 2010);
  g_assert_cmpint (rtop_counters_find (port->counters, "rcvd_seq_err")->klass, ==,
                   RTOP_COUNTER_CLASS_TRANSPORT_ERROR);

  g_usleep (10000);
  LOCKED (f, f->devs[1].extra_counter = FALSE; f->devs[1].sent += 20; f->devs[1].ndev = "d9");
  third = rtop_collector_sample (f->collector, 1.0);
  port = port_of (third, "rxe0");
  g_assert_null (rtop_counters_find (port->counters, "ack_deferred"));
  c = rtop_counters_find (port->counters, "sent_pkts");
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 20);
  /* d9 has no statistics in the fixture tree: no netdev bytes any more. */
  g_assert_cmpstr (port->netdev, ==, "d9");
  g_assert_null (rtop_counters_find (port->counters, "tx_bytes"));
  g_assert_false (port->metrics[RTOP_METRIC_TX_BYTES].present);

  LOCKED (f, f->devs[1].ndev = "d0");
  fourth = rtop_collector_sample (f->collector, 1.0);
  port = port_of (fourth, "rxe0");
  g_assert_true (port->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_nonnull (strstr (port->metrics[RTOP_METRIC_TX_BYTES].source, "netdev d0 "));

  /* Values change, names do not: the same layout, replies matched by
   * their bytes, and the values and rates still right. */
  for (guint i = 1; i <= 3; i++)
    {
      g_autoptr(RtopSnapshot) next = NULL;

      g_usleep (10000);
      /* The port goes down in the second of these passes: a PORT_GET
       * reply that differs from last time's is read anew. */
      /* ... and a firmware update shows from the third: a GET reply that
       * differs from the one the device's facts came from. */
      LOCKED (f, f->devs[1].sent += 100 * i; f->devs[1].rcvd = 7 * i; f->devs[1].state = i == 2 ? 1 : 4;
              f->devs[1].fw = i == 3 ? "1.2.4" : NULL);
      next = rtop_collector_sample (f->collector, 1.0);
      port = port_of (next, "rxe0");
      g_assert_cmpuint (port->state, ==, i == 2 ? 1 : 4);
      g_assert_cmpstr (port->netdev, ==, "d0");
      g_assert_cmpstr (rtop_snapshot_find_device (next, "rxe0")->fw_version, ==, i == 3 ? "1.2.4" : "1.2.3");
      g_assert_cmpstr (rtop_snapshot_find_device (next, "rxe2")->fw_version, ==, "1.2.3");
      g_assert_cmpuint (port->counter_layout, !=, 0);
      g_assert_cmpuint (port->counter_layout, ==, port_of (fourth, "rxe0")->counter_layout);
      c = rtop_counters_find (port->counters, "sent_pkts");
      g_assert_true (c->has_rate);
      g_assert_cmpuint (c->delta, ==, 100 * i);
      c = rtop_counters_find (port->counters, "rcvd_pkts");
      g_assert_cmpuint (c->value, ==, 7 * i);
      g_assert_true (c->reset == (i == 1));      /* 4000 -> 7 went backwards */
      g_assert_cmpuint (port->metrics[RTOP_METRIC_RX_PACKETS].value, ==, 7 * i);
      g_assert_cmpuint (port->counter_layout, !=, port_of (next, "rxe2")->counter_layout);
    }

  /* The first snapshot's strings are its own still (ASan checks). */
  port = port_of (first, "rxe0");
  g_assert_cmpstr (((RtopCounter *) g_ptr_array_index (port->counters, 0))->name, ==, "rcvd_pkts");
  g_assert_nonnull (strstr (port->metrics[RTOP_METRIC_TX_BYTES].source, "d0"));
  g_assert_cmpuint (port->metrics[RTOP_METRIC_TX_PACKETS].value, ==, 2000);
}

/* Two devices of one name in one dump (a kernel would not send that):
 * the first is listed, the pass goes on, names stay unique. */
static void
test_duplicate_device_name (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) first = NULL;
  g_autoptr(RtopSnapshot) second = NULL;
  guint n = 0;

  LOCKED (f, add_dev (f, 9, "rxe0", NULL));
  first = rtop_collector_sample (f->collector, 1.0);
  second = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpint (second->status, ==, RTOP_STATUS_OK);
  for (guint i = 0; i < second->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (second->devices, i);

      if (g_strcmp0 (dev->name, "rxe0") == 0)
        {
          n++;
          g_assert_cmpuint (dev->index, ==, 2);
        }
    }
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (second->devices->len, ==, 4);
}

/* A fake routing netlink kernel: link 7 is called route_name and has the
 * counters below; link 1 is lo.  RTM_GETSTATS fails with stats_errno. */
typedef struct {
  GMutex lock;
  int fd;
  GThread *thread;
  char route_name[16];
  guint64 tx_bytes, rx_bytes;
  int stats_errno;
  guint n_getlink, n_getstats;
} FakeRoute;

static void
route_send (FakeRoute *r, const struct nlmsghdr *nlh)
{
  g_assert_cmpint (send (r->fd, nlh, nlh->nlmsg_len, 0), ==, (gssize) nlh->nlmsg_len);
}

static void
route_answer (FakeRoute *r, const struct nlmsghdr *req)
{
  NlTestBuf b = { { 0 } };
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (b.bytes);

  nlh->nlmsg_seq = req->nlmsg_seq;
  nlh->nlmsg_pid = PORTID;
  if (req->nlmsg_type == RTM_GETLINK)
    {
      const struct ifinfomsg *want = mnl_nlmsg_get_payload (req);
      struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header (nlh, sizeof *ifi);

      r->n_getlink++;
      nlh->nlmsg_type = RTM_NEWLINK;
      ifi->ifi_index = want->ifi_index;
      mnl_attr_put_strz (nlh, IFLA_IFNAME, want->ifi_index == 7 ? r->route_name : "lo");
      route_send (r, nlh);
      route_send (r, nl_test_error (b.bytes, req->nlmsg_seq, PORTID, 0, NULL));
      return;
    }
  g_assert_cmpuint (req->nlmsg_type, ==, RTM_GETSTATS);
  r->n_getstats++;
  if (r->stats_errno != 0)
    {
      route_send (r, nl_test_error (b.bytes, req->nlmsg_seq, PORTID, r->stats_errno, "no stats"));
      return;
    }
  for (guint32 ifindex = 1; ifindex <= 7; ifindex += 6)
    {
      struct if_stats_msg *ifsm;
      struct rtnl_link_stats64 st = { 0 };

      nlh = mnl_nlmsg_put_header (b.bytes);
      nlh->nlmsg_type = RTM_NEWSTATS;
      nlh->nlmsg_flags = NLM_F_MULTI;
      nlh->nlmsg_seq = req->nlmsg_seq;
      nlh->nlmsg_pid = PORTID;
      ifsm = mnl_nlmsg_put_extra_header (nlh, sizeof *ifsm);
      ifsm->ifindex = ifindex;
      st.tx_bytes = ifindex == 7 ? r->tx_bytes : 1;
      st.rx_bytes = ifindex == 7 ? r->rx_bytes : 1;
      mnl_attr_put (nlh, IFLA_STATS_LINK_64, sizeof st, &st);
      route_send (r, nlh);
    }
  route_send (r, nl_test_done (b.bytes, req->nlmsg_seq, PORTID));
}

static gpointer
fake_route_thread (gpointer data)
{
  FakeRoute *r = data;
  struct timeval tv = { 30, 0 };

  setsockopt (r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (;;)
    {
      NlTestBuf req = { { 0 } };
      gssize n = recv (r->fd, req.bytes, sizeof req.bytes, 0);

      if (n <= 0)
        return NULL;
      g_mutex_lock (&r->lock);
      route_answer (r, &req.align);
      g_mutex_unlock (&r->lock);
    }
}

static FakeRoute *
fake_route_start (Fixture *f, const char *name)
{
  FakeRoute *r = g_new0 (FakeRoute, 1);
  int sv[2];

  g_mutex_init (&r->lock);
  g_strlcpy (r->route_name, name, sizeof r->route_name);
  r->tx_bytes = 5000;
  r->rx_bytes = 6000;
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  r->fd = sv[1];
  rtop_collector_set_route (f->collector, rtop_nl_new_for_fd (sv[0], PORTID));
  r->thread = g_thread_new ("fake-route", fake_route_thread, r);
  return r;
}

static void
fake_route_stop (Fixture *f, FakeRoute *r)
{
  rtop_collector_set_route (f->collector, NULL);    /* closes our end */
  shutdown (r->fd, SHUT_RDWR);                      /* wakes the thread */
  g_thread_join (r->thread);
  close (r->fd);
  g_mutex_clear (&r->lock);
  g_free (r);
}

/* Soft-RoCE's byte counters come from its netdev: over routing netlink
 * (one dump per pass) when the link of that index is that netdev here. */
static void
test_netdev_route (Fixture *f, gconstpointer data)
{
  FakeRoute *r = fake_route_start (f, "d0");
  g_autoptr(RtopSnapshot) first = rtop_collector_sample (f->collector, 1.0);
  g_autoptr(RtopSnapshot) second = NULL;
  g_autoptr(RtopSnapshot) third = NULL;
  g_autoptr(RtopSnapshot) fourth = NULL;
  RtopPort *port = port_of (first, "rxe0");
  RtopCounter *c = rtop_counters_find (port->counters, "tx_bytes");

  g_assert_nonnull (c);
  g_assert_cmpuint (c->value, ==, 5000);                 /* not sysfs's 2097152 */
  g_assert_cmpint (c->source, ==, RTOP_COUNTER_SOURCE_NETDEV);
  g_assert_cmpuint (rtop_counters_find (port->counters, "rx_bytes")->value, ==, 6000);
  g_assert_cmpuint (port->metrics[RTOP_METRIC_TX_BYTES].value, ==, 5000);
  g_assert_nonnull (strstr (port->metrics[RTOP_METRIC_TX_BYTES].source, "netdev d0 "));
  g_assert_cmpuint (r->n_getlink, ==, 1);
  g_assert_cmpuint (r->n_getstats, ==, 1);

  g_usleep (10000);
  LOCKED (r, r->tx_bytes += 1000);
  second = rtop_collector_sample (f->collector, 1.0);
  c = rtop_counters_find (port_of (second, "rxe0")->counters, "tx_bytes");
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 1000);
  /* The name was checked once; the counters come in one dump per pass. */
  g_assert_cmpuint (r->n_getlink, ==, 1);
  g_assert_cmpuint (r->n_getstats, ==, 2);

  /* The kernel cannot dump link counters: this pass has none, the next
   * reads sysfs. */
  LOCKED (r, r->stats_errno = EOPNOTSUPP);
  third = rtop_collector_sample (f->collector, 1.0);
  g_assert_null (rtop_counters_find (port_of (third, "rxe0")->counters, "tx_bytes"));
  fourth = rtop_collector_sample (f->collector, 1.0);
  c = rtop_counters_find (port_of (fourth, "rxe0")->counters, "tx_bytes");
  g_assert_nonnull (c);
  g_assert_cmpuint (c->value, ==, 2097152);
  g_assert_cmpuint (r->n_getstats, ==, 3);
  fake_route_stop (f, r);
}

/* Link 7 here is another netdev (d0 lives in another namespace): sysfs. */
static void
test_netdev_route_other_namespace (Fixture *f, gconstpointer data)
{
  FakeRoute *r = fake_route_start (f, "eth9");
  g_autoptr(RtopSnapshot) snap = rtop_collector_sample (f->collector, 1.0);
  RtopCounter *c = rtop_counters_find (port_of (snap, "rxe0")->counters, "tx_bytes");

  g_assert_nonnull (c);
  g_assert_cmpuint (c->value, ==, 2097152);
  g_assert_cmpuint (r->n_getstats, ==, 0);
  fake_route_stop (f, r);
}

/* A process lists its first QPs in dump order (rxe0's, then rxe2's), the
 * rest counted; every QP in error is counted, listed or not. */
static void
assert_qp_list (const RtopProcess *me, guint total, guint in_error)
{
  guint listed = MIN (total, RTOP_PROCESS_MAX_QPS);
  const RtopQp *qp;

  g_assert_nonnull (me->qp_list);
  g_assert_cmpuint (me->qp_list->len, ==, listed);
  g_assert_cmpuint (me->qps_not_listed, ==, total - listed);
  g_assert_cmpuint (me->qps_in_error, ==, in_error);
  qp = &g_array_index (me->qp_list, RtopQp, 0);
  g_assert_cmpstr (qp->device, ==, "rxe0");
  g_assert_cmpuint (qp->lqpn, ==, 100);
  g_assert_true (qp->has_rqpn);
  g_assert_cmpuint (qp->rqpn, ==, 99);
  g_assert_cmpuint (qp->type, ==, 2);
  g_assert_cmpuint (qp->state, ==, 3);
  g_assert_cmpuint (qp->port, ==, 1);
  qp = &g_array_index (me->qp_list, RtopQp, listed - 1);
  if (total < RTOP_PROCESS_MAX_QPS)
    {
      g_assert_cmpstr (qp->device, ==, "rxe2");
      g_assert_cmpuint (qp->state, ==, in_error ? 6 : 3);
    }
  else
    g_assert_cmpuint (qp->lqpn, ==, 100 + listed - 1);
}

static void
test_processes (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) snap = NULL;
  RtopProcess *me, *kernel = NULL;
  g_autofree char *comm = NULL;

  LOCKED (f, f->devs[1].qps = 10000; f->devs[3].qps = 3; f->kernel_qps = 1);
  snap = rtop_collector_sample (f->collector, 1.0);
  me = rtop_snapshot_find_process (snap, getpid ());
  g_assert_nonnull (me);
  g_assert_cmpuint (me->qps, ==, 10003);
  /* One context and two MRs on each device where it has QPs. */
  g_assert_cmpuint (me->contexts, ==, 2);
  g_assert_cmpuint (me->mrs, ==, 4);
  g_assert_cmpuint (me->mr_bytes, ==, 4 * 4096);
  g_assert_cmpuint (me->devices->len, ==, 2);
  g_assert_cmpstr (g_array_index (me->devices, RtopProcessDevice, 0).device, ==, "rxe0");
  g_assert_cmpuint (g_array_index (me->devices, RtopProcessDevice, 0).qps, ==, 10000);
  g_assert_cmpstr (g_array_index (me->devices, RtopProcessDevice, 1).device, ==, "rxe2");
  g_assert_cmpuint (g_array_index (me->devices, RtopProcessDevice, 1).qps, ==, 3);
  /* Enriched from the real /proc. */
  g_assert_true (g_file_get_contents ("/proc/self/comm", &comm, NULL, NULL));
  g_strchomp (comm);
  g_assert_cmpstr (me->comm, ==, comm);
  g_assert_nonnull (me->user);
  g_assert_cmpuint (me->threads, >=, 2);    /* this thread and the fake kernel */
  g_assert_cmpuint (me->rss_bytes, >, 0);
  /* Our job, from our own cgroup: every Linux process has one. */
  g_assert_cmpint (me->job.kind, !=, RTOP_JOB_NONE);
  g_assert_nonnull (me->job.name);

  for (guint i = 0; i < snap->processes->len; i++)
    {
      RtopProcess *p = g_ptr_array_index (snap->processes, i);
      if (p->kernel)
        kernel = p;
    }
  g_assert_nonnull (kernel);
  g_assert_cmpint (kernel->pid, ==, 0);
  g_assert_cmpstr (kernel->comm, ==, "ib_core");
  g_assert_false (snap->pids_hidden);

  /* The same replies again: messages equal to last pass's add up what
   * they added then; then fewer QPs on one device, more on the other. */
  for (guint pass = 0; pass < 3; pass++)
    {
      g_autoptr(RtopSnapshot) next = NULL;
      guint32 on_rxe0 = pass < 2 ? 10000 : 9950, on_rxe2 = pass < 2 ? 3 : 205;
      guint n_kernel = 0;

      LOCKED (f, f->devs[1].qps = on_rxe0; f->devs[3].qps = on_rxe2);
      next = rtop_collector_sample (f->collector, 1.0);
      me = rtop_snapshot_find_process (next, getpid ());
      g_assert_nonnull (me);
      g_assert_cmpuint (me->qps, ==, on_rxe0 + on_rxe2);
      g_assert_cmpuint (me->contexts, ==, 2);
      g_assert_cmpuint (me->mrs, ==, 4);
      g_assert_cmpuint (me->mr_bytes, ==, 4 * 4096);
      g_assert_cmpuint (me->devices->len, ==, 2);
      g_assert_cmpuint (g_array_index (me->devices, RtopProcessDevice, 0).qps, ==, on_rxe0);
      g_assert_cmpuint (g_array_index (me->devices, RtopProcessDevice, 1).qps, ==, on_rxe2);
      g_assert_cmpuint (g_array_index (me->devices, RtopProcessDevice, 1).mr_bytes, ==, 2 * 4096);
      for (guint i = 0; i < next->processes->len; i++)
        {
          RtopProcess *p = g_ptr_array_index (next->processes, i);

          if (p->kernel)
            {
              n_kernel++;
              g_assert_cmpuint (p->qps, ==, 1);
              g_assert_cmpstr (p->comm, ==, "ib_core");
            }
        }
      g_assert_cmpuint (n_kernel, ==, 1);
      g_assert_cmpuint (next->processes->len, ==, 2);
      /* Replayed or walked, the same bounded list of QPs. */
      assert_qp_list (me, on_rxe0 + on_rxe2, 0);
    }

  /* rxe2's QPs fail: they are marked, and one event names the process. */
  {
    g_autoptr(RtopSnapshot) failed = NULL;
    g_autoptr(RtopSnapshot) again = NULL;
    const RtopEvent *ev = NULL;

    LOCKED (f, f->devs[1].qps = 10; f->devs[3].qps = 3; f->devs[3].qps_failed = TRUE);
    failed = rtop_collector_sample (f->collector, 1.0);
    me = rtop_snapshot_find_process (failed, getpid ());
    assert_qp_list (me, 13, 3);
    for (guint i = 0; i < failed->events->len; i++)
      if (((RtopEvent *) g_ptr_array_index (failed->events, i))->kind == RTOP_EVENT_QP_ERROR)
        {
          g_assert_null (ev);
          ev = g_ptr_array_index (failed->events, i);
        }
    g_assert_nonnull (ev);
    g_assert_cmpint (ev->pid, ==, getpid ());
    g_assert_cmpstr (ev->process, ==, me->comm);
    g_assert_cmpstr (ev->device, ==, "rxe2");
    g_assert_cmpuint (ev->total, ==, 3);
    g_assert_nonnull (strstr (ev->message, me->comm));
    /* Still failed next pass (replayed): no new event. */
    again = rtop_collector_sample (f->collector, 1.0);
    assert_qp_list (rtop_snapshot_find_process (again, getpid ()), 13, 3);
    for (guint i = 0; i < again->events->len; i++)
      g_assert_cmpint (((RtopEvent *) g_ptr_array_index (again->events, i))->kind, !=,
                       RTOP_EVENT_QP_ERROR);
  }
}

/* The peer address of a QP rdma_cm connected comes from its CM ID; the
 * CM IDs are asked for only where a listed QP has a peer, and a kernel
 * that cannot list them leaves the process list complete. */
static void
test_peer_addresses (Fixture *f, gconstpointer data)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(RtopSnapshot) snap = NULL;
      RtopProcess *me;
      guint dumps;

      LOCKED (f, f->devs[1].qps = 3; f->devs[1].cm_ids = TRUE; f->cm_id_dumps = 0);
      snap = rtop_collector_sample (f->collector, 1.0);
      LOCKED (f, dumps = f->cm_id_dumps);
      g_assert_cmpuint (dumps, ==, 1);      /* rxe0 only: no other device has QPs */
      me = rtop_snapshot_find_process (snap, getpid ());
      g_assert_nonnull (me);
      g_assert_cmpuint (me->qp_list->len, ==, 3);
      g_assert_cmpstr (g_array_index (me->qp_list, RtopQp, 0).peer_addr, ==, "192.0.2.2:40001");
      g_assert_cmpstr (g_array_index (me->qp_list, RtopQp, 1).peer_addr, ==, "[2001:db8::2]:40002");
      g_assert_null (g_array_index (me->qp_list, RtopQp, 2).peer_addr);
      g_assert_cmpuint (me->qp_addrs->len, ==, 2);
      g_assert_null (snap->processes_error);
      /* In the JSON as "peer_addr". */
      {
        g_autofree char *json = rtop_json_snapshot_to_string (snap, FALSE);

        g_assert_nonnull (strstr (json, "\"peer_addr\":\"192.0.2.2:40001\""));
        g_assert_nonnull (strstr (json, "\"peer_addr\":null"));
      }
    }

  /* Without CM IDs (an older kernel): no addresses, no error. */
  {
    g_autoptr(RtopSnapshot) snap = NULL;
    RtopProcess *me;

    LOCKED (f, f->devs[1].cm_ids = FALSE);
    snap = rtop_collector_sample (f->collector, 1.0);
    me = rtop_snapshot_find_process (snap, getpid ());
    g_assert_null (g_array_index (me->qp_list, RtopQp, 0).peer_addr);
    g_assert_null (me->qp_addrs);
    g_assert_null (snap->processes_error);
  }
}

static void
test_device_removed_and_readded (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) a = rtop_collector_sample (f->collector, 1.0);
  g_autoptr(RtopSnapshot) b = NULL;
  g_autoptr(RtopSnapshot) c = NULL;
  g_autoptr(RtopSnapshot) d = NULL;
  RtopCounter *sent;

  LOCKED (f, f->n_devs = 3);     /* rxe2 (the last) goes away */
  b = rtop_collector_sample (f->collector, 1.0);
  g_assert_null (rtop_snapshot_find_device (b, "rxe2"));
  g_assert_true (has_event (b, RTOP_EVENT_DEVICE_REMOVED, "rxe2"));

  /* Back under the same name with a new index and counters from zero. */
  LOCKED (f, add_dev (f, 9, "rxe2", NULL); f->devs[3].sent = 5);
  c = rtop_collector_sample (f->collector, 1.0);
  g_assert_true (has_event (c, RTOP_EVENT_DEVICE_ADDED, "rxe2"));
  sent = rtop_counters_find (port_of (c, "rxe2")->counters, "sent_pkts");
  g_assert_false (sent->has_rate);     /* a new baseline, no spike */

  /* Re-added between two passes: counters went from 9000 to 7, a reset. */
  LOCKED (f, f->devs[3].index = 10; f->devs[3].sent = 7);
  d = rtop_collector_sample (f->collector, 1.0);
  sent = rtop_counters_find (port_of (d, "rxe2")->counters, "sent_pkts");
  g_assert_false (sent->has_rate);
  g_assert_cmpfloat (sent->rate, ==, 0);
  g_assert_true (has_event (d, RTOP_EVENT_COUNTER_RESET, "rxe2"));
}

static void
test_port_failure_is_contained (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) a = rtop_collector_sample (f->collector, 1.0);
  g_autoptr(RtopSnapshot) b = NULL;
  g_autoptr(RtopSnapshot) c = NULL;

  LOCKED (f, f->devs[2].stat_errno = ENODEV);
  b = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpint (b->status, ==, RTOP_STATUS_OK);
  g_assert_nonnull (port_of (b, "rxe10")->error);
  g_assert_null (port_of (b, "rxe2")->error);
  g_assert_nonnull (rtop_counters_find (port_of (b, "rxe2")->counters, "sent_pkts"));
  g_assert_true (has_event (b, RTOP_EVENT_COLLECTION_ERROR, "rxe10"));

  LOCKED (f, f->devs[2].stat_errno = 0; f->devs[2].sent += 10);
  c = rtop_collector_sample (f->collector, 1.0);
  g_assert_null (port_of (c, "rxe10")->error);
  /* The rate spans the failed pass too: no restart from a baseline. */
  g_assert_true (rtop_counters_find (port_of (c, "rxe10")->counters, "sent_pkts")->has_rate);
  g_assert_true (has_event (c, RTOP_EVENT_COLLECTION_RECOVERED, "rxe10"));
}

static guint
count_events (RtopSnapshot *snap, RtopEventKind kind)
{
  guint n = 0;

  for (guint i = 0; i < snap->events->len; i++)
    n += ((RtopEvent *) g_ptr_array_index (snap->events, i))->kind == kind;
  return n;
}

static void
test_processes_error_is_said (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) a = NULL;
  g_autoptr(RtopSnapshot) b = NULL;
  g_autoptr(RtopSnapshot) c = NULL;

  LOCKED (f, f->devs[1].qps = 5; f->devs[1].res_errno = EOPNOTSUPP);
  a = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpint (a->status, ==, RTOP_STATUS_OK);
  g_assert_nonnull (a->processes_error);
  g_assert_nonnull (strstr (a->processes_error, "rxe0"));
  g_assert_cmpuint (count_events (a, RTOP_EVENT_COLLECTION_ERROR), ==, 1);
  b = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpuint (count_events (b, RTOP_EVENT_COLLECTION_ERROR), ==, 0);

  LOCKED (f, f->devs[1].res_errno = 0);
  c = rtop_collector_sample (f->collector, 1.0);
  g_assert_null (c->processes_error);
  g_assert_cmpuint (count_events (c, RTOP_EVENT_COLLECTION_RECOVERED), ==, 1);
  g_assert_cmpuint (rtop_snapshot_find_process (c, getpid ())->qps, ==, 5);
}

static void
test_permission_error (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) a = NULL;
  g_autoptr(RtopSnapshot) b = NULL;

  LOCKED (f, f->get_errno = EPERM);
  a = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpint (a->status, ==, RTOP_STATUS_PERMISSION);
  g_assert_nonnull (strstr (a->status_message, "fake kernel says no"));
  g_assert_cmpuint (a->devices->len, ==, 0);
  g_assert_true (has_event (a, RTOP_EVENT_COLLECTION_ERROR, NULL));
  b = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpuint (b->events->len, ==, 0);   /* one event, not a flood */
}

static void
test_device_filter (void)
{
  const char *only[] = { "rxe0", NULL };
  g_autoptr(RtopSnapshot) snap = NULL;
  Fixture f;

  fixture_init (&f, only, TRUE);
  snap = rtop_collector_sample (f.collector, 1.0);
  g_assert_cmpuint (snap->devices->len, ==, 1);
  g_assert_cmpstr (((RtopDevice *) g_ptr_array_index (snap->devices, 0))->name, ==, "rxe0");
  g_assert_cmpuint (snap->processes->len, ==, 0);
  tear_down (&f, NULL);
}

static guint
count_kind (RtopSnapshot *snap, RtopEventKind kind, const char *dev)
{
  guint n = 0;

  for (guint i = 0; i < snap->events->len; i++)
    {
      RtopEvent *ev = g_ptr_array_index (snap->events, i);

      n += ev->kind == kind && g_strcmp0 (ev->device, dev) == 0;
    }
  return n;
}

/* mlx5_9's fixture counters/ has port_xmit_data at 2^32 - 1, symbol_error
 * at 2^16 - 1 and link_downed at 2^8 - 1 (stuck), port_rcv_data one below
 * its maximum (idle). */
static void
test_saturated_counters (Fixture *f, gconstpointer data)
{
  g_autoptr(RtopSnapshot) first = NULL;
  g_autoptr(RtopSnapshot) second = NULL;
  g_autoptr(RtopSnapshot) third = NULL;
  RtopPort *port;
  RtopCounter *c;

  LOCKED (f, add_dev (f, 9, "mlx5_9", NULL));
  first = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpuint (count_kind (first, RTOP_EVENT_COUNTER_SATURATED, "mlx5_9"), ==, 0);
  g_usleep (10000);
  second = rtop_collector_sample (f->collector, 1.0);
  port = port_of (second, "mlx5_9");
  c = rtop_counters_find (port->counters, "port_xmit_data");
  g_assert_true (c->saturated);
  g_assert_false (c->has_rate);
  g_assert_false (rtop_counters_find (port->counters, "port_rcv_data")->saturated);
  g_assert_true (rtop_counters_find (port->counters, "port_rcv_data")->has_rate);
  /* Bytes made of the stuck counter: unknown, not 0; the others go on. */
  g_assert_true (port->metrics[RTOP_METRIC_TX_BYTES].present);
  g_assert_false (port->metrics[RTOP_METRIC_TX_BYTES].has_rate);
  g_assert_true (port->metrics[RTOP_METRIC_TX_BYTES].saturated);
  g_assert_true (port->metrics[RTOP_METRIC_RX_BYTES].has_rate);
  g_assert_false (port->metrics[RTOP_METRIC_RX_BYTES].saturated);
  g_assert_true (port->metrics[RTOP_METRIC_LINK_ERRORS].saturated);
  g_assert_true (port->metrics[RTOP_METRIC_ERRORS].saturated);
  g_assert_false (port->metrics[RTOP_METRIC_ERRORS].has_rate);
  /* One event per stuck counter, saying which; mlx5_0's idle counters
   * raise none. */
  g_assert_cmpuint (count_kind (second, RTOP_EVENT_COUNTER_SATURATED, "mlx5_9"), ==, 3);
  g_assert_cmpuint (count_kind (second, RTOP_EVENT_COUNTER_SATURATED, "mlx5_0"), ==, 0);
  for (guint i = 0; i < second->events->len; i++)
    {
      RtopEvent *ev = g_ptr_array_index (second->events, i);

      if (ev->kind != RTOP_EVENT_COUNTER_SATURATED)
        continue;
      g_assert_nonnull (ev->counter);
      g_assert_nonnull (strstr (ev->message, ev->counter));
      g_assert_nonnull (strstr (ev->message, "rate is unknown"));
      g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_WARNING);
    }
  /* Still stuck: no new event. */
  third = rtop_collector_sample (f->collector, 1.0);
  g_assert_cmpuint (count_kind (third, RTOP_EVENT_COUNTER_SATURATED, "mlx5_9"), ==, 0);
  g_assert_true (rtop_counters_find (port_of (third, "mlx5_9")->counters,
                                     "symbol_error")->saturated);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add ("/collector/pass/" path, Fixture, NULL, set_up, fn, tear_down)
  ADD ("counter-layout-changes", test_counter_layout_changes);
  ADD ("duplicate-device-name", test_duplicate_device_name);
  ADD ("netdev-route", test_netdev_route);
  ADD ("netdev-route-other-namespace", test_netdev_route_other_namespace);
  ADD ("discovery", test_discovery);
  ADD ("saturated-counters", test_saturated_counters);
  ADD ("rates", test_rates_second_pass);
  ADD ("processes", test_processes);
  ADD ("peer-addresses", test_peer_addresses);
  ADD ("device-removed-and-readded", test_device_removed_and_readded);
  ADD ("port-failure-contained", test_port_failure_is_contained);
  ADD ("permission-error", test_permission_error);
  ADD ("processes-error", test_processes_error_is_said);
#undef ADD
  g_test_add_func ("/collector/pass/device-filter", test_device_filter);
  return g_test_run ();
}
