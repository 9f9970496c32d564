/* test-capture.c: RtopCapture against a fake kernel.
 *
 * The collector runs over one end of a datagram socketpair; a thread on the
 * other end answers as the kernel does (nl-test-msgs.c).  The busy device's
 * sent_pkts rises by one with every STAT_GET it answers, so the samples
 * show exactly which reads happened.  The real-kernel counterpart is the
 * vm scenario "capture". */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "support/nl-test-msgs.h"
#include "rtop-capture.h"
#include "rtop-collector-private.h"
#include "rtop-error.h"
#include "rtop-nl-private.h"
#include "uapi/rdma/rdma_netlink.h"

#define PORTID 4712
#define BUSY 1
#define IDLE 2

typedef struct {
  GMutex lock;
  guint64 sent[3];           /* by device index */
  guint stat_delay_us;       /* each STAT_GET answer waits this long */
  int fd;
  GThread *thread;
  char *sysfs;
} Fixture;

static const char *
dev_name (guint32 index)
{
  return index == BUSY ? "rxe0" : index == IDLE ? "rxe1" : NULL;
}

static void
reply (Fixture *f, const struct nlmsghdr *nlh, const void *start)
{
  gsize len = nl_test_len (start, nlh);

  g_assert_cmpint (send (f->fd, start, len, 0), ==, (gssize) len);
}

static void
answer_error (Fixture *f, guint32 seq, int errnum)
{
  NlTestBuf b = { { 0 } };

  reply (f, nl_test_error (b.bytes, seq, PORTID, errnum, NULL), b.bytes);
}

static void
answer_done (Fixture *f, guint32 seq)
{
  NlTestBuf b = { { 0 } };

  reply (f, nl_test_done (b.bytes, seq, PORTID), b.bytes);
}

static void
answer_devices (Fixture *f, guint32 seq)
{
  for (guint32 i = BUSY; i <= IDLE; i++)
    {
      NlTestBuf b = { { 0 } };

      reply (f, nl_test_device (b.bytes, seq, PORTID, i, dev_name (i), 1), b.bytes);
    }
  answer_done (f, seq);
}

static void
answer_ports (Fixture *f, guint32 seq, guint32 index)
{
  NlTestBuf b = { { 0 } };

  if (dev_name (index) == NULL)
    {
      answer_error (f, seq, index == RTOP_NL_NO_INDEX ? EINVAL : ENODEV);
      return;
    }
  reply (f, nl_test_port (b.bytes, seq, PORTID, index, dev_name (index), 1, 4, 5, NULL), b.bytes);
  answer_done (f, seq);
}

static void
answer_stat (Fixture *f, guint32 seq, guint32 index, guint32 port)
{
  NlTestBuf b = { { 0 } };
  NlTestCounter counters[3];

  if (dev_name (index) == NULL)
    {
      answer_error (f, seq, ENODEV);
      return;
    }
  if (f->stat_delay_us)
    g_usleep (f->stat_delay_us);
  if (index == BUSY)
    f->sent[index]++;
  counters[0] = (NlTestCounter) { "sent_pkts", f->sent[index] };
  counters[1] = (NlTestCounter) { "rcvd_pkts", 7 };
  counters[2] = (NlTestCounter) { "completer_retry_err", 0 };
  reply (f, nl_test_stat (b.bytes, seq, PORTID, index, dev_name (index), port, counters, 3), b.bytes);
  answer_error (f, seq, 0);
}

static void
answer (Fixture *f, const struct nlmsghdr *req)
{
  guint16 cmd = RDMA_NL_GET_OP (req->nlmsg_type);
  guint32 index = RTOP_NL_NO_INDEX, port = 0;
  struct nlattr *attr;

  mnl_attr_for_each (attr, req, 0)
    {
      if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_DEV_INDEX)
        index = mnl_attr_get_u32 (attr);
      else if (mnl_attr_get_type (attr) == RDMA_NLDEV_ATTR_PORT_INDEX)
        port = mnl_attr_get_u32 (attr);
    }
  g_mutex_lock (&f->lock);
  if (cmd == RDMA_NLDEV_CMD_GET)
    answer_devices (f, req->nlmsg_seq);
  else if (cmd == RDMA_NLDEV_CMD_PORT_GET)
    answer_ports (f, req->nlmsg_seq, index);
  else if (cmd == RDMA_NLDEV_CMD_STAT_GET)
    answer_stat (f, req->nlmsg_seq, index, port);
  else
    answer_error (f, req->nlmsg_seq, EOPNOTSUPP);
  g_mutex_unlock (&f->lock);
}

static gpointer
fake_kernel (gpointer data)
{
  Fixture *f = data;
  struct timeval tv = { 30, 0 };

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
set_up (Fixture *f, gconstpointer data)
{
  memset (f, 0, sizeof *f);
  g_mutex_init (&f->lock);
  /* No sysfs counters: every counter comes over netlink. */
  f->sysfs = g_dir_make_tmp ("rdmatop-capture-XXXXXX", NULL);
  g_assert_nonnull (f->sysfs);
}

static void
tear_down (Fixture *f, gconstpointer data)
{
  if (f->thread != NULL)
    {
      shutdown (f->fd, SHUT_RDWR);
      g_thread_join (f->thread);
      close (f->fd);
    }
  g_rmdir (f->sysfs);
  g_free (f->sysfs);
  g_mutex_clear (&f->lock);
}

/* A collector over the fake kernel, for rtop_capture_new() to take. */
static RtopCollector *
fake_collector (Fixture *f)
{
  RtopCollectorOptions opts = { .sysfs_root = f->sysfs, .no_processes = TRUE, .no_gpu = TRUE };
  int sv[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), ==, 0);
  f->fd = sv[1];
  f->thread = g_thread_new ("fake-kernel", fake_kernel, f);
  return rtop_collector_new_for_nl (&opts, rtop_nl_new_for_fd (sv[0], PORTID));
}

static RtopCapture *
new_capture (Fixture *f, const RtopCaptureOptions *o)
{
  g_autoptr(GError) error = NULL;
  RtopCapture *cap = rtop_capture_new (fake_collector (f), o, &error);

  g_assert_no_error (error);
  g_assert_nonnull (cap);
  return cap;
}

/* Runs until the capture has taken n passes (bounded: a broken capture
 * fails here instead of hanging). */
static void
run_passes (RtopCapture *cap, guint64 n)
{
  RtopCaptureStats st = { 0 };

  g_assert_true (rtop_capture_start (cap, NULL));
  for (guint i = 0; i < 30000 && st.taken < n; i++)
    {
      g_usleep (1000);
      rtop_capture_get_stats (cap, &st);
    }
  rtop_capture_stop (cap);
  g_assert_cmpuint (st.taken, >=, n);
}

static GArray *
read_all (RtopCapture *cap)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (RtopCaptureSample));
  RtopCaptureSample buf[7];
  gsize n;

  /* An odd batch: passes are split across reads. */
  while ((n = rtop_capture_read (cap, buf, G_N_ELEMENTS (buf))) > 0)
    g_array_append_vals (all, buf, (guint) n);
  return all;
}

static void
test_every_pass_every_counter (Fixture *f, gconstpointer data)
{
  const char *devices[] = { "rxe0", "rxe1", NULL };
  RtopCaptureOptions o = { .devices = devices, .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS };
  g_autoptr(RtopCapture) cap = new_capture (f, &o);
  g_autoptr(GArray) all = NULL;
  RtopCaptureStats st;
  guint64 first_sent = 0, last_sent = 0, busy_reads = 0;
  gint64 last_mono = 0;

  run_passes (cap, 20);
  all = read_all (cap);
  rtop_capture_get_stats (cap, &st);
  g_assert_cmpuint (st.dropped, ==, 0);
  g_assert_cmpuint (st.read_errors, ==, 0);
  /* Two ports of three counters, every pass; all of them read. */
  g_assert_cmpuint (st.samples, ==, st.taken * 6);
  g_assert_cmpuint (all->len, ==, st.samples);
  g_assert_cmpuint (rtop_capture_read (cap, NULL, 0), ==, 0);
  for (guint i = 0; i < all->len; i++)
    {
      const RtopCaptureSample *s = &g_array_index (all, RtopCaptureSample, i);

      g_assert_cmpuint (s->port, ==, 1);
      g_assert_cmpint (s->monotonic_ns, >=, last_mono);
      g_assert_cmpint (s->realtime_ns, >, 0);
      last_mono = s->monotonic_ns;
      if (strcmp (s->device, "rxe0") == 0 && strcmp (s->counter, "sent_pkts") == 0)
        {
          /* One STAT_GET per pass: the fake's count rises by one each. */
          if (busy_reads++ == 0)
            first_sent = s->value;
          else
            g_assert_cmpuint (s->value, ==, last_sent + 1);
          last_sent = s->value;
        }
      else if (strcmp (s->counter, "sent_pkts") == 0)
        g_assert_cmpuint (s->value, ==, 0);
    }
  g_assert_cmpuint (busy_reads, ==, st.taken);
  /* The first pass (at creation) read it once before the capture did. */
  g_assert_cmpuint (first_sent, ==, 2);
  g_assert_cmpuint (st.intervals, ==, st.taken - 1);
  g_assert_cmpint (st.interval_min_ns, <=, st.interval_median_ns);
  g_assert_cmpint (st.interval_median_ns, <=, st.interval_p99_ns + st.interval_p99_ns / 32);
  g_assert_cmpint (st.interval_p99_ns, <=, st.interval_max_ns + st.interval_max_ns / 32);
}

static void
test_filters (Fixture *f, gconstpointer data)
{
  const char *counters[] = { "sent_pkts", NULL };
  const guint32 ports[] = { 1 };
  RtopCaptureOptions o = {
    .ports = ports, .n_ports = 1, .counters = counters, .interval_ns = 2 * RTOP_CAPTURE_MIN_INTERVAL_NS,
  };
  g_autoptr(RtopCapture) cap = new_capture (f, &o);
  g_autoptr(GArray) all = NULL;
  RtopCaptureStats st;

  run_passes (cap, 5);
  all = read_all (cap);
  rtop_capture_get_stats (cap, &st);
  g_assert_cmpuint (all->len, ==, st.taken * 2);
  for (guint i = 0; i < all->len; i++)
    g_assert_cmpstr (g_array_index (all, RtopCaptureSample, i).counter, ==, "sent_pkts");
}

static void
assert_refused (Fixture *f, const RtopCaptureOptions *o, int code, const char *message)
{
  g_autoptr(GError) error = NULL;
  RtopCapture *cap = rtop_capture_new (fake_collector (f), o, &error);

  g_assert_null (cap);
  g_assert_error (error, RTOP_ERROR, code);
  g_assert_cmpstr (error->message, ==, message);
  shutdown (f->fd, SHUT_RDWR);
  g_thread_join (g_steal_pointer (&f->thread));
  close (f->fd);
}

static void
test_refusals (Fixture *f, gconstpointer data)
{
  const char *nosuch[] = { "rxe0", "nosuchdev0", NULL };
  const char *counters[] = { "no_such_counter", NULL };
  const guint32 port[] = { 9 };

  assert_refused (f, &(RtopCaptureOptions) { .devices = nosuch, .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS },
                  RTOP_ERROR_NO_DEVICE, "no RDMA device named “nosuchdev0” (see “rdma dev”)");
  assert_refused (f, &(RtopCaptureOptions) { .counters = counters, .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS },
                  RTOP_ERROR_NO_DEVICE, "No port captured has a counter named “no_such_counter”");
  assert_refused (f, &(RtopCaptureOptions) { .ports = port, .n_ports = 1, .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS },
                  RTOP_ERROR_NO_DEVICE, "No RDMA device captured has a port 9");
  assert_refused (f, &(RtopCaptureOptions) { .devices = nosuch, .ports = port, .n_ports = 1,
                                             .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS },
                  RTOP_ERROR_NO_DEVICE, "The RDMA device “rxe0” has no port 9");
  assert_refused (f, &(RtopCaptureOptions) { .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS - 1 },
                  RTOP_ERROR_INVALID_ARGUMENT,
                  "The interval must be a number of seconds from 0.001 to 60, not “0.000999999”");
  assert_refused (f, &(RtopCaptureOptions) { .interval_ns = RTOP_CAPTURE_MAX_INTERVAL_NS + 1000000000 },
                  RTOP_ERROR_INVALID_ARGUMENT,
                  "The interval must be a number of seconds from 0.001 to 60, not “61”");
}

/* A full buffer keeps whole passes and counts the rest; never overwrites. */
static void
test_full_buffer (Fixture *f, gconstpointer data)
{
  RtopCaptureOptions o = { .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS, .capacity = 13 };
  g_autoptr(RtopCapture) cap = new_capture (f, &o);
  g_autoptr(GArray) all = NULL;
  RtopCaptureStats st;

  run_passes (cap, 6);
  rtop_capture_get_stats (cap, &st);
  g_assert_cmpuint (st.samples, ==, 12);
  g_assert_cmpuint (st.dropped, ==, st.taken - 2);
  g_assert_cmpuint (st.dropped_samples, ==, st.dropped * 6);
  all = read_all (cap);
  g_assert_cmpuint (all->len, ==, 12);
  /* The first two passes. */
  g_assert_cmpuint (g_array_index (all, RtopCaptureSample, 0).monotonic_ns, <,
                    g_array_index (all, RtopCaptureSample, 11).monotonic_ns);
}

/* Passes that take longer than the interval skip the deadlines they ran
 * past, and count them; they are never made up. */
static void
test_missed_deadlines (Fixture *f, gconstpointer data)
{
  RtopCaptureOptions o = { .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS };
  g_autoptr(RtopCapture) cap = NULL;
  RtopCaptureStats st;

  cap = new_capture (f, &o);
  g_mutex_lock (&f->lock);
  f->stat_delay_us = 3000;       /* two ports: each pass takes over 6 ms */
  g_mutex_unlock (&f->lock);
  run_passes (cap, 5);
  rtop_capture_get_stats (cap, &st);
  g_assert_cmpuint (st.missed, >=, 5 * (st.taken - 1));
  g_assert_cmpint (st.interval_min_ns, >=, 6 * RTOP_CAPTURE_MIN_INTERVAL_NS);
}

/* Passes as snapshots for the recorder: rates and metrics as the
 * collector computes them. */
static void
test_snapshots (Fixture *f, gconstpointer data)
{
  const char *devices[] = { "rxe0", NULL };
  RtopCaptureOptions o = { .devices = devices, .interval_ns = RTOP_CAPTURE_MIN_INTERVAL_NS };
  g_autoptr(RtopCapture) cap = new_capture (f, &o);
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) first = NULL, rest = NULL;
  RtopCaptureStats st;
  const RtopPort *port;

  run_passes (cap, 4);
  rtop_capture_get_stats (cap, &st);
  first = rtop_capture_read_snapshots (cap, rates, 1);
  rest = rtop_capture_read_snapshots (cap, rates, G_MAXUINT);
  g_assert_cmpuint (first->len, ==, 1);
  g_assert_cmpuint (first->len + rest->len, ==, st.taken);
  port = rtop_device_find_port (rtop_snapshot_find_device (g_ptr_array_index (first, 0), "rxe0"), 1);
  g_assert_nonnull (port);
  g_assert_cmpuint (port->counters->len, ==, 3);
  g_assert_cmpuint (port->state, ==, 4);
  g_assert_false (port->metrics[RTOP_METRIC_TX_PACKETS].has_rate);
  port = rtop_device_find_port (rtop_snapshot_find_device (g_ptr_array_index (rest, 0), "rxe0"), 1);
  g_assert_true (port->metrics[RTOP_METRIC_TX_PACKETS].present);
  g_assert_true (port->metrics[RTOP_METRIC_TX_PACKETS].has_rate);
  g_assert_cmpfloat (port->metrics[RTOP_METRIC_TX_PACKETS].rate, >, 0);
  g_assert_cmpuint (((RtopSnapshot *) g_ptr_array_index (rest, 0))->sequence, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, set_up, fn, tear_down)
  ADD ("/capture/every-pass-every-counter", test_every_pass_every_counter);
  ADD ("/capture/filters", test_filters);
  ADD ("/capture/refusals", test_refusals);
  ADD ("/capture/full-buffer", test_full_buffer);
  ADD ("/capture/missed-deadlines", test_missed_deadlines);
  ADD ("/capture/snapshots", test_snapshots);
  return g_test_run ();
}
