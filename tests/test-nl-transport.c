/* test-nl-transport.c: RtopNl's request/reply loop against a fake kernel.
 *
 * The fake kernel is a thread on the other end of a datagram socketpair: it
 * reads each request rdmatop sends, checks it, and answers with datagrams
 * built by tests/support/nl-test-msgs.c, carrying the request's sequence number as
 * the kernel does.  That exercises the real send, receive, timeout and
 * sequence filtering code, not a copy of it. */
#include "rtop-nl-private.h"
#include "rtop-error.h"
#include "support/nl-test-msgs.h"
#include "uapi/rdma/rdma_netlink.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PORTID 31337

typedef struct _Fixture Fixture;
/* Answers one request; req is the request as the fake kernel received it. */
typedef void (*AnswerFunc) (Fixture *f, const struct nlmsghdr *req);

struct _Fixture {
  RtopNl *nl;
  int kernel_fd;
  GThread *thread;
  AnswerFunc answers[4];
  guint n_answers;
  GMutex lock;
  guint32 seen_seq[4];
  guint n_seen;
  guint32 request_dev_index, request_port;
  guint16 request_type, request_flags;
};

static void
fake_send (Fixture *f, const void *buf, gsize len)
{
  gssize n = send (f->kernel_fd, buf, len, 0);

  g_assert_cmpint (n, ==, (gssize) len);
}

static void
record_request (Fixture *f, const struct nlmsghdr *req)
{
  struct nlattr *attr;

  g_mutex_lock (&f->lock);
  f->seen_seq[f->n_seen++] = req->nlmsg_seq;
  f->request_type = req->nlmsg_type;
  f->request_flags = req->nlmsg_flags;
  f->request_dev_index = RTOP_NL_NO_INDEX;
  f->request_port = 0;
  mnl_attr_for_each (attr, req, 0)
    {
      if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_DEV_INDEX)
        f->request_dev_index = mnl_attr_get_u32 (attr);
      else if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_PORT_INDEX)
        f->request_port = mnl_attr_get_u32 (attr);
    }
  g_mutex_unlock (&f->lock);
}

static gpointer
fake_kernel_thread (gpointer data)
{
  Fixture *f = data;
  struct timeval tv = { 10, 0 };   /* a broken test must not hang the suite */

  setsockopt (f->kernel_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  for (guint i = 0; i < f->n_answers; i++)
    {
      NlTestBuf req = { { 0 } };
      gssize n = recv (f->kernel_fd, req.bytes, sizeof req.bytes, 0);

      if (n <= 0)
        break;
      g_assert_true (mnl_nlmsg_ok (&req.align, (int) n));
      record_request (f, &req.align);
      f->answers[i] (f, &req.align);
    }
  return NULL;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  int sv[2];

  memset (f, 0, sizeof *f);
  g_mutex_init (&f->lock);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  f->nl = rtop_nl_new_for_fd (sv[0], PORTID);
  f->kernel_fd = sv[1];
  g_assert_cmpint (rtop_nl_get_fd (f->nl), ==, sv[0]);
  g_assert_cmpuint (rtop_nl_get_portid (f->nl), ==, PORTID);
}

static void
fixture_start (Fixture *f, guint n, const AnswerFunc *answers)
{
  g_assert_cmpuint (n, <=, G_N_ELEMENTS (f->answers));
  memcpy (f->answers, answers, n * sizeof *answers);
  f->n_answers = n;
  f->thread = g_thread_new ("fake-kernel", fake_kernel_thread, f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_pointer (&f->nl, rtop_nl_free);   /* the thread's recv sees EOF-less close */
  if (f->thread != NULL)
    {
      shutdown (f->kernel_fd, SHUT_RDWR);
      g_thread_join (f->thread);
    }
  close (f->kernel_fd);
  g_mutex_clear (&f->lock);
}

/* ---- answers ---- */

static void
answer_devices (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  /* Two datagrams, like a dump that fills more than one skb. */
  nlh = nl_test_device (buf.bytes, req->nlmsg_seq, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), req->nlmsg_seq, PORTID, 1, "rxe1", 1);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
  nlh = nl_test_device (buf.bytes, req->nlmsg_seq, PORTID, 2, "mlx5_0", 2);
  nlh = nl_test_done (nl_test_next (nlh), req->nlmsg_seq, PORTID);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
}

static void
answer_devices_without_done (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };

  nl_test_device (buf.bytes, req->nlmsg_seq, PORTID, 0, "rxe0", 1);
  fake_send (f, buf.bytes, buf.align.nlmsg_len);
}

/* The rest of the first (timed-out) dump arrives late, then the answer to
 * the second request. */
static void
answer_late_then_stat (Fixture *f, const struct nlmsghdr *req)
{
  static const NlTestCounter counters[] = { { "sent_pkts", 10 }, { "rcvd_pkts", 20 } };
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;
  guint32 old_seq;

  g_mutex_lock (&f->lock);
  old_seq = f->seen_seq[0];
  g_mutex_unlock (&f->lock);

  nlh = nl_test_device (buf.bytes, old_seq, PORTID, 1, "rxe1", 1);
  nlh = nl_test_done (nl_test_next (nlh), old_seq, PORTID);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
  nlh = nl_test_error (buf.bytes, old_seq, PORTID, EINVAL, "stale error");
  fake_send (f, buf.bytes, nlh->nlmsg_len);

  nlh = nl_test_stat (buf.bytes, req->nlmsg_seq, PORTID, 1, "rxe0", 1, counters,
                      G_N_ELEMENTS (counters));
  nlh = nl_test_error (nl_test_next (nlh), req->nlmsg_seq, PORTID, 0, NULL);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
}

static void
answer_stat (Fixture *f, const struct nlmsghdr *req)
{
  static const NlTestCounter counters[] = { { "sent_pkts", 10 }, { "rcvd_pkts", 20 } };
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  nlh = nl_test_stat (buf.bytes, req->nlmsg_seq, PORTID, 1, "rxe0", 1, counters,
                      G_N_ELEMENTS (counters));
  nlh = nl_test_error (nl_test_next (nlh), req->nlmsg_seq, PORTID, 0, NULL);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
}

static void
answer_einval (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  nlh = nl_test_error (buf.bytes, req->nlmsg_seq, PORTID, EINVAL, "Port 9 does not exist");
  fake_send (f, buf.bytes, nlh->nlmsg_len);
}

/* Above rtop-nl.c's 256 KiB limit for one datagram. */
#define OVERSIZED (320 * 1024)
/* Above the buffer RtopNl starts with (8 KiB) and a page: received whole. */
#define LARGE (20 * 1024)

/* A socketpair carries a datagram only up to the sender's SO_SNDBUF. */
static gboolean
raise_sndbuf (Fixture *f, gsize need)
{
  int size = (int) need * 2;
  socklen_t len = sizeof size;

  setsockopt (f->kernel_fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
  g_assert_cmpint (getsockopt (f->kernel_fd, SOL_SOCKET, SO_SNDBUF, &size, &len), ==, 0);
  return (gsize) size > need + 1024;
}

static void
answer_oversized_then_done (Fixture *f, const struct nlmsghdr *req)
{
  g_autofree guint8 *big = g_malloc0 (OVERSIZED);
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  nlh = nl_test_device (big, req->nlmsg_seq, PORTID, 0, "rxe0", 1);
  nlh->nlmsg_len = OVERSIZED;
  fake_send (f, big, OVERSIZED);
  nlh = nl_test_done (buf.bytes, req->nlmsg_seq, PORTID);
  fake_send (f, buf.bytes, nlh->nlmsg_len);
}

/* One datagram of more than LARGE bytes: devices "d0", "d1", ... and DONE. */
static void
answer_many_devices (Fixture *f, const struct nlmsghdr *req)
{
  g_autofree guint8 *big = g_malloc0 (LARGE + 4096);
  struct nlmsghdr *nlh = NULL;
  void *next = big;

  for (guint i = 0; nlh == NULL || nl_test_len (big, nlh) < LARGE; i++)
    {
      g_autofree char *name = g_strdup_printf ("d%u", i);

      nlh = nl_test_device (next, req->nlmsg_seq, PORTID, i, name, 1);
      next = nl_test_next (nlh);
    }
  nlh = nl_test_done (next, req->nlmsg_seq, PORTID);
  g_assert_cmpuint (nl_test_len (big, nlh), <=, LARGE + 4096);
  fake_send (f, big, nl_test_len (big, nlh));
}

/* Only stale messages, one every 20 ms for about a second: each resets
 * SO_RCVTIMEO, so only the overall no-progress deadline ends the wait. */
static void
answer_stale_stream (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };

  for (guint i = 0; i < 50; i++)
    {
      nl_test_device (buf.bytes, req->nlmsg_seq + 1000, PORTID, 0, "stale", 1);
      if (send (f->kernel_fd, buf.bytes, buf.align.nlmsg_len, MSG_DONTWAIT) < 0)
        break;
      g_usleep (20 * 1000);
    }
}

static void
answer_two_devices (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  g_assert_cmpuint (req->nlmsg_type, ==, (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_GET);
  nlh = nl_test_device (buf.bytes, req->nlmsg_seq, PORTID, 0, "rxe0", 1);
  nlh = nl_test_device (nl_test_next (nlh), req->nlmsg_seq, PORTID, 5, "rxe5", 1);
  nlh = nl_test_done (nl_test_next (nlh), req->nlmsg_seq, PORTID);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
}

/* Like the kernel: a resource dump needs DEV_INDEX. */
static void
answer_qps_of_device (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;
  guint32 dev;

  g_mutex_lock (&f->lock);
  dev = f->request_dev_index;
  g_mutex_unlock (&f->lock);
  if (dev == RTOP_NL_NO_INDEX)
    {
      nlh = nl_test_done (buf.bytes, req->nlmsg_seq, PORTID);
      *(gint32 *) mnl_nlmsg_get_payload (nlh) = -EINVAL;
      fake_send (f, buf.bytes, nlh->nlmsg_len);
      return;
    }
  nlh = nl_test_res_qp (buf.bytes, req->nlmsg_seq, PORTID, dev, dev ? "rxe5" : "rxe0",
                        dev * 100 + 1, 2, 42);
  nlh = nl_test_done (nl_test_next (nlh), req->nlmsg_seq, PORTID);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
}

static void
answer_device_gone (Fixture *f, const struct nlmsghdr *req)
{
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  nlh = nl_test_done (buf.bytes, req->nlmsg_seq, PORTID);
  *(gint32 *) mnl_nlmsg_get_payload (nlh) = -EINVAL;
  fake_send (f, buf.bytes, nlh->nlmsg_len);
}

/* ---- callbacks ---- */

typedef struct {
  GPtrArray *names;
  guint n_counters;
  gboolean fail;
} Sink;

static gboolean
device_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Sink *sink = user_data;
  RtopNlDevice dev;

  if (sink->fail)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED, "callback failed on purpose");
      return FALSE;
    }
  if (!rtop_nl_parse_device (nlh, &dev, error))
    return FALSE;
  g_ptr_array_add (sink->names, g_steal_pointer (&dev.name));
  rtop_nl_device_clear (&dev);
  return TRUE;
}

static gboolean
stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Sink *sink = user_data;
  RtopNlStat stat;

  if (!rtop_nl_parse_stat (nlh, &stat, error))
    return FALSE;
  sink->n_counters += stat.counters->len;
  rtop_nl_stat_clear (&stat);
  return TRUE;
}

static void
sink_init (Sink *sink)
{
  memset (sink, 0, sizeof *sink);
  sink->names = g_ptr_array_new_with_free_func (g_free);
}

static void
sink_clear (Sink *sink)
{
  g_ptr_array_unref (sink->names);
}

/* ---- tests ---- */

static void
test_dump (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_devices };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (sink.names, 0), ==, "rxe0");
  g_assert_cmpstr (g_ptr_array_index (sink.names, 2), ==, "mlx5_0");
  /* What went to the kernel: an NLDEV GET dump without attributes. */
  g_assert_cmpuint (f->request_type, ==, (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_GET);
  g_assert_cmphex (f->request_flags, ==, NLM_F_REQUEST | NLM_F_DUMP);
  g_assert_cmpuint (f->request_dev_index, ==, RTOP_NL_NO_INDEX);
  g_assert_cmpuint (f->seen_seq[0], !=, 0);
  sink_clear (&sink);
}

static void
test_request_with_ack (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_stat, answer_stat };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, 3, 1,
                                stat_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.n_counters, ==, 2);
  g_assert_cmpuint (f->request_type, ==, (RDMA_NL_NLDEV << 10) + RDMA_NLDEV_CMD_STAT_GET);
  g_assert_cmphex (f->request_flags, ==, NLM_F_REQUEST | NLM_F_ACK);
  g_assert_cmpuint (f->request_dev_index, ==, 3);
  g_assert_cmpuint (f->request_port, ==, 1);

  /* The next request gets the next sequence number. */
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, 3, 1,
                                stat_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (f->seen_seq[1], ==, f->seen_seq[0] + 1);
  sink_clear (&sink);
}

static void
test_dump_without_done (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_devices_without_done };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  /* Long enough for the fake kernel's first message to arrive on a busy
   * machine: what is checked is what happens at the timeout, not when. */
  rtop_nl_set_timeout_ms (f->nl, 1500);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_TIMEOUT);
  g_assert_nonnull (strstr (error->message, "GET"));
  g_test_message ("%s", error->message);
  /* What did arrive was still handed over. */
  g_assert_cmpuint (sink.names->len, ==, 1);
  sink_clear (&sink);
}

static void
test_stale_replies_ignored (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_devices_without_done, answer_late_then_stat };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  rtop_nl_set_timeout_ms (f->nl, 1500);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_TIMEOUT);
  g_clear_error (&error);

  /* The late DONE and error of the first request must not end or fail the
   * second, and the late device must not reach the stat callback. */
  rtop_nl_set_timeout_ms (f->nl, 2000);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, 1, 1,
                                stat_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.n_counters, ==, 2);
  g_assert_cmpuint (sink.names->len, ==, 1);
  sink_clear (&sink);
}

static void
test_stale_stream_still_times_out (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_stale_stream };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  rtop_nl_set_timeout_ms (f->nl, 100);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_TIMEOUT);
  g_assert_cmpuint (sink.names->len, ==, 0);
  sink_clear (&sink);
}

static void
test_kernel_error (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_einval, answer_stat };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, 1, 9,
                                 stat_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "STAT_GET"));
  g_assert_nonnull (strstr (error->message, g_strerror (EINVAL)));
  g_assert_nonnull (strstr (error->message, "Port 9 does not exist"));
  g_clear_error (&error);

  /* The socket is still in step for the next request. */
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, 1, 1,
                                stat_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.n_counters, ==, 2);
  sink_clear (&sink);
}

static void
test_callback_error_drains (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_devices, answer_devices };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  sink.fail = TRUE;
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "callback failed on purpose"));
  g_clear_error (&error);

  /* The rest of the failed dump was read, so this one sees only its own. */
  sink.fail = FALSE;
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, ==, 3);
  sink_clear (&sink);
}

/* Datagrams larger than the receive buffer RtopNl starts with are taken
 * whole, between small ones, in one dump. */
static void
test_large_datagram (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_devices, answer_many_devices, answer_devices };
  g_autoptr(GError) error = NULL;
  guint n_large;
  Sink sink;

  sink_init (&sink);
  g_assert_true (raise_sndbuf (f, LARGE + 4096));
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, ==, 3);

  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  n_large = sink.names->len - 3;
  g_test_message ("%u devices in one datagram", n_large);
  g_assert_cmpuint (n_large, >, 100);
  for (guint i = 0; i < n_large; i++)
    {
      g_autofree char *name = g_strdup_printf ("d%u", i);

      g_assert_cmpstr (g_ptr_array_index (sink.names, 3 + i), ==, name);
    }

  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, ==, n_large + 6);
  g_assert_cmpstr (g_ptr_array_index (sink.names, n_large + 5), ==, "mlx5_0");
  sink_clear (&sink);
}

/* A reply larger than the receive size is lost once, with an error that
 * gives both sizes; the channel then reads such replies whole. */
static void
test_receive_size_grows (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_many_devices, answer_many_devices, answer_devices };
  g_autoptr(GError) error = NULL;
  Sink sink;

  sink_init (&sink);
  g_assert_true (raise_sndbuf (f, LARGE + 4096));
  rtop_nl_set_receive_size (f->nl, 4096);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, " 4096 "));
  g_assert_cmpuint (sink.names->len, ==, 0);
  g_clear_error (&error);

  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, >, 100);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  sink_clear (&sink);
}

/* A datagram beyond the limit is dropped with an error that says so, and
 * the socket stays in step. */
static void
test_oversized_datagram (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_oversized_then_done, answer_devices };
  g_autoptr(GError) error = NULL;
  g_autofree char *size = g_strdup_printf ("%u", OVERSIZED);
  Sink sink;

  if (!raise_sndbuf (f, OVERSIZED))
    {
      g_test_skip ("this system's net.core.wmem_max is too small to send the datagram");
      return;
    }
  sink_init (&sink);
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 device_cb, &sink, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, size));
  g_assert_cmpuint (sink.names->len, ==, 0);
  g_clear_error (&error);
  g_assert_true (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.names->len, ==, 3);
  sink_clear (&sink);
}

static gboolean
qp_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  return rtop_nl_parse_res (nlh, RTOP_NL_RES_QP, user_data, error);
}

static GArray *
qp_array (void)
{
  GArray *arr = g_array_new (FALSE, TRUE, sizeof (RtopNlRes));

  g_array_set_clear_func (arr, (GDestroyNotify) rtop_nl_res_clear);
  return arr;
}

static gboolean
collect_index_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  RtopNlDevice dev;

  if (!rtop_nl_parse_device (nlh, &dev, error))
    return FALSE;
  g_array_append_val ((GArray *) user_data, dev.index);
  rtop_nl_device_clear (&dev);
  return TRUE;
}

/* A per-device dump for every device, as a caller of RtopNl asks for it
 * (the transport sends what it is given).  A device that goes away between
 * the GET dump and its own dump answers with a kernel error: that device is
 * skipped; transport and parse errors still fail the whole query. */
static gboolean
query_all_devices (RtopNl *nl, guint16 cmd, guint32 port,
                   RtopNlMsgFunc func, gpointer user_data, GError **error)
{
  g_autoptr(GArray) indexes = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (!rtop_nl_query (nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                      collect_index_cb, indexes, error))
    return FALSE;
  for (guint i = 0; i < indexes->len; i++)
    {
      g_autoptr(GError) local = NULL;

      if (rtop_nl_query (nl, cmd, TRUE, g_array_index (indexes, guint32, i), port,
                         func, user_data, &local))
        continue;
      if (local->domain != RTOP_ERROR ||
          (local->code != RTOP_ERROR_KERNEL && local->code != RTOP_ERROR_NO_DEVICE))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_debug ("%s", local->message);
    }
  return TRUE;
}

static void
test_per_device_dump_needs_index (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_qps_of_device };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = qp_array ();

  /* Without an index the request goes out as it is, and the kernel's
   * refusal comes back. */
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_false (rtop_nl_query (f->nl, RDMA_NLDEV_CMD_RES_QP_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                 qp_cb, qps, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_KERNEL);
  g_assert_cmpuint (qps->len, ==, 0);
  g_assert_cmpuint (f->n_seen, ==, 1);
  g_assert_cmpuint (f->request_dev_index, ==, RTOP_NL_NO_INDEX);
}

static void
test_per_device_dump_fans_out (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_two_devices, answer_qps_of_device,
                                        answer_qps_of_device };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = qp_array ();

  /* Asked device by device, one RtopNl takes the requests in turn. */
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_true (query_all_devices (f->nl, RDMA_NLDEV_CMD_RES_QP_GET, 0, qp_cb, qps, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (qps->len, ==, 4);
  g_assert_cmpuint (g_array_index (qps, RtopNlRes, 0).dev_index, ==, 0);
  g_assert_cmpuint (g_array_index (qps, RtopNlRes, 0).id, ==, 1);
  g_assert_cmpuint (g_array_index (qps, RtopNlRes, 3).dev_index, ==, 5);
  g_assert_cmpuint (g_array_index (qps, RtopNlRes, 3).id, ==, 502);
  g_assert_cmpuint (f->n_seen, ==, 3);
  g_assert_cmpuint (f->request_dev_index, ==, 5);
}

static void
test_per_device_dump_skips_vanished (Fixture *f, gconstpointer data)
{
  static const AnswerFunc answers[] = { answer_two_devices, answer_qps_of_device,
                                        answer_device_gone };
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) qps = qp_array ();

  /* Device 5 went away after the GET dump: the others still count. */
  fixture_start (f, G_N_ELEMENTS (answers), answers);
  g_assert_true (query_all_devices (f->nl, RDMA_NLDEV_CMD_RES_QP_GET, 0, qp_cb, qps, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (qps->len, ==, 2);
}

/* ---- monitor ---- */

typedef struct {
  GArray *types;
  GPtrArray *names;
} EventSink;

static gboolean
event_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  EventSink *sink = user_data;
  RtopNlEvent ev;

  if (!rtop_nl_parse_event (nlh, &ev, error))
    return FALSE;
  g_array_append_val (sink->types, ev.event_type);
  g_ptr_array_add (sink->names, g_steal_pointer (&ev.dev_name));
  rtop_nl_event_clear (&ev);
  return TRUE;
}

static void
test_monitor (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree guint8 *big = g_malloc0 (OVERSIZED);
  EventSink sink = { g_array_new (FALSE, FALSE, sizeof (guint32)),
                     g_ptr_array_new_with_free_func (g_free) };
  gboolean overrun = TRUE;
  NlTestBuf buf = { { 0 } };
  struct nlmsghdr *nlh;

  g_assert_cmpint (fcntl (rtop_nl_get_fd (f->nl), F_SETFL, O_NONBLOCK), ==, 0);

  /* Nothing queued: returns at once. */
  g_assert_true (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_no_error (error);
  g_assert_false (overrun);
  g_assert_cmpuint (sink.types->len, ==, 0);

  /* Two datagrams, the second with two events. */
  nl_test_event (buf.bytes, RDMA_REGISTER_EVENT, 2, "rxe1", 0, NULL);
  fake_send (f, buf.bytes, buf.align.nlmsg_len);
  nlh = nl_test_event (buf.bytes, RDMA_NETDEV_ATTACH_EVENT, 2, "rxe1", 1, "d1");
  nlh = nl_test_event (nl_test_next (nlh), RDMA_UNREGISTER_EVENT, 0, "rxe0", 0, NULL);
  fake_send (f, buf.bytes, nl_test_len (buf.bytes, nlh));
  g_assert_true (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_no_error (error);
  g_assert_false (overrun);
  g_assert_cmpuint (sink.types->len, ==, 3);
  g_assert_cmpuint (g_array_index (sink.types, guint32, 1), ==, RDMA_NETDEV_ATTACH_EVENT);
  g_assert_cmpstr (g_ptr_array_index (sink.names, 2), ==, "rxe0");

  /* A datagram we do not take whole means lost events: overrun. */
  g_assert_true (raise_sndbuf (f, LARGE));
  if (raise_sndbuf (f, OVERSIZED))
    {
      nlh = nl_test_event (big, RDMA_REGISTER_EVENT, 3, "rxe3", 0, NULL);
      nlh->nlmsg_len = OVERSIZED;
      fake_send (f, big, OVERSIZED);
    }
  else
    g_test_message ("net.core.wmem_max too small: no oversized event");
  nl_test_event (buf.bytes, RDMA_REGISTER_EVENT, 4, "rxe4", 0, NULL);
  fake_send (f, buf.bytes, buf.align.nlmsg_len);
  g_assert_true (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_no_error (error);
  g_assert_cmpint (overrun, ==, raise_sndbuf (f, OVERSIZED));
  g_assert_cmpuint (sink.types->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (sink.names, 3), ==, "rxe4");

  /* An event datagram larger than a page arrives whole. */
  memset (big, 0, LARGE);
  nlh = nl_test_event (big, RDMA_REGISTER_EVENT, 6, "rxe6", 0, NULL);
  for (guint i = 0; nl_test_len (big, nlh) < LARGE; i++)
    nlh = nl_test_event (nl_test_next (nlh), RDMA_REGISTER_EVENT, 7 + i, "rxeN", 0, NULL);
  fake_send (f, big, nl_test_len (big, nlh));
  g_assert_true (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_no_error (error);
  g_assert_false (overrun);
  g_assert_cmpuint (sink.types->len, >, 4 + 100);
  g_assert_cmpstr (g_ptr_array_index (sink.names, 4), ==, "rxe6");
  g_ptr_array_set_size (sink.names, 4);
  g_array_set_size (sink.types, 4);

  /* A malformed event is an error, after the queue is drained. */
  nlh = nl_test_header (buf.bytes, RDMA_NLDEV_CMD_MONITOR, 0, 0, FALSE);
  nl_test_put_handle (nlh, 1, "rxe0");
  fake_send (f, buf.bytes, nlh->nlmsg_len);
  nl_test_event (buf.bytes, RDMA_REGISTER_EVENT, 5, "rxe5", 0, NULL);
  fake_send (f, buf.bytes, buf.align.nlmsg_len);
  g_assert_false (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
  g_clear_error (&error);
  g_assert_true (rtop_nl_read_monitor (f->nl, event_cb, &sink, &overrun, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (sink.types->len, ==, 4);

  g_array_unref (sink.types);
  g_ptr_array_unref (sink.names);
}

/* ---- this machine's kernel ---- */

/* A kernel without ib_core: opening fails with an error that says what
 * to do.  Where RDMA netlink exists there is no such error to see. */
static void
test_open_without_netlink (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopNl) nl = rtop_nl_open (&error);

  if (nl != NULL)
    {
      g_test_skip ("RDMA netlink works here: no missing-kernel error to see");
      return;
    }
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK);
  g_assert_nonnull (strstr (error->message, "ib_core"));
  g_test_message ("%s", error->message);
}

/* With RDMA netlink the device dump works unprivileged.  A machine without
 * RDMA netlink cannot run this; the Soft-RoCE guest runs it
 * (tests/vm/scenario-discovery.sh). */
static void
test_open_real_kernel (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopNl) nl = rtop_nl_open (&error);
  g_autoptr(RtopNl) mon = NULL;
  Sink sink;

  if (nl == NULL)
    {
      g_test_skip ("no RDMA netlink on this machine (no ib_core): the Soft-RoCE guest runs this");
      return;
    }
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_nl_get_portid (nl), !=, 0);
  g_assert_cmpint (rtop_nl_get_fd (nl), >=, 0);

  sink_init (&sink);
  g_assert_true (rtop_nl_query (nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0,
                                device_cb, &sink, &error));
  g_assert_no_error (error);
  g_test_message ("%u RDMA devices", sink.names->len);
  /* The guest that runs this has made at least one rxe device. */
  g_assert_cmpuint (sink.names->len, >, 0);
  sink_clear (&sink);

  /* The monitor needs a kernel with RDMA monitoring (6.9): an older one
   * gives an error of ours, never a crash. */
  mon = rtop_nl_open_monitor (&error);
  if (mon == NULL)
    {
      g_test_message ("no monitor: %s", error->message);
      g_assert_true (error->domain == RTOP_ERROR);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/collector/netlink/transport/" path, Fixture, NULL, \
              fixture_set_up, func, fixture_tear_down)
  ADD ("dump", test_dump);
  ADD ("request-with-ack", test_request_with_ack);
  ADD ("dump-without-done", test_dump_without_done);
  ADD ("stale-replies-ignored", test_stale_replies_ignored);
  ADD ("stale-stream-still-times-out", test_stale_stream_still_times_out);
  ADD ("kernel-error", test_kernel_error);
  ADD ("callback-error-drains", test_callback_error_drains);
  ADD ("large-datagram", test_large_datagram);
  ADD ("oversized-datagram", test_oversized_datagram);
  ADD ("receive-size-grows", test_receive_size_grows);
  ADD ("per-device-dump-needs-index", test_per_device_dump_needs_index);
  ADD ("per-device-dump-fans-out", test_per_device_dump_fans_out);
  ADD ("per-device-dump-skips-vanished", test_per_device_dump_skips_vanished);
  ADD ("monitor", test_monitor);
#undef ADD
  g_test_add_func ("/collector/netlink/transport/open-without-netlink", test_open_without_netlink);
  g_test_add_func ("/collector/netlink/transport/open-real-kernel", test_open_real_kernel);

  return g_test_run ();
}
