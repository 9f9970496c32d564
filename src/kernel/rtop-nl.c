/* rtop-nl.c: the RDMA netlink transport.
 *
 * One long-lived NETLINK_RDMA socket per RtopNl (a monitor polls many times a
 * second; a socket per request, as the rdma tool does, would cost a socket,
 * a bind and a close each time).  Requests get increasing sequence numbers;
 * replies to any other sequence number (left over from a request that timed
 * out) are dropped, so they cannot be taken for the current answer.  The
 * receive timeout bounds every wait: a dump that never sends DONE ends with
 * RTOP_ERROR_TIMEOUT instead of hanging the sampler. */
#include "config.h"

#include "rtop-nl-private.h"
#include "rtop-error.h"
#include "uapi/rdma/rdma_netlink.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <libmnl/libmnl.h>

/* How we receive decides what the kernel allocates: netlink_recvmsg()
 * remembers the largest iov length any recvmsg() on the socket passed
 * (max_recvmsg_len, capped at 32 KiB), and netlink_dump() allocates every
 * dump skb at that size when it is above NLMSG_GOODSIZE (a page less the
 * skb overhead), and trims it to that size.  With init_on_alloc (Debian's
 * default) the kernel zeroes each of them, which with a 64 KiB iov was 30%
 * of a sampling pass.  So a kernel socket is read with libmnl's
 * MNL_SOCKET_BUFFER_SIZE (a page, at most 8 KiB): every dump datagram then
 * fits (it is at most max(iov, NLMSG_GOODSIZE)), and so does every other
 * reply and event (built with NLMSG_DEFAULT_SIZE), in one recvmsg() each.
 * (Peeking at each datagram's length first and reading exactly that kept
 * the skbs a little smaller, but two system calls per datagram cost more:
 * 4.0 vs 3.8 ms per pass with 16 rxe devices in the test guest.)
 * Should a datagram still be larger than the iov, it is lost and said so
 * (RECV_TRUNCATED), and the channel's iov grows to take the next one whole,
 * up to RECV_MAX_SIZE, far above anything the kernel sends; a larger one is
 * dropped as garbage instead of letting a sender make us allocate without
 * bound.  Sockets we did not open for the kernel's dumps (the tests'
 * socketpair) are read with RECV_MAX_SIZE from the start. */
#define RECV_MAX_SIZE (256 * 1024)
/* Page-sized skbs are wrong for a large dump, though: each netlink_dump()
 * round of a resource dump walks the device's resources from the first
 * (res_get_common_dumpit() skips up to where it stopped), so a dump of N
 * QPs costs N times its number of rounds, which small skbs multiply by 8.
 * A dump that took more than BULK_AFTER datagrams is therefore asked on a
 * second socket, read with BULK_IOV (the kernel's 32 KiB cap) from then on;
 * once it fits one datagram there, it goes back.  For a full skb the
 * zeroing costs the same per byte either way. */
#define BULK_AFTER 16
/* ... but only a dump whose datagrams were full (on average at least half
 * a page): the kernel stopped each round for room, so a larger skb means
 * fewer rounds.  The device dump (GET) puts one device in each round
 * whatever the room (ib_enum_all_devs() stops at every device), so 16
 * devices made 17 small datagrams and moved it to 32 KiB skbs: 17 x 32 KiB
 * zeroed per pass for 2 KiB of replies, 15% of a pass. */
#define BULK_FILL 2048
#define BULK_IOV (32 * 1024)
/* Bounds the memory for (command, device) pairs on the bulk socket. */
#define MAX_BULK_KEYS 4096
#define DEFAULT_TIMEOUT_MS 2000
/* Datagrams one rtop_nl_read_monitor() call reads at most, so a flood of
 * events cannot keep the caller's main loop busy; the rest waits for the next
 * call (the fd stays readable). */
#define MONITOR_BATCH 256
/* The kernel's errno values end here (include/linux/err.h); anything larger
 * in an error message is garbage, and g_strerror() would cache a string for
 * every distinct unknown number. */
#define MAX_ERRNO 4095

typedef struct {
  int fd;             /* -1: not open */
  guint32 portid;
  gsize iov;          /* the iov length reads pass (grows, see above) */
} Channel;

struct _RtopNl {
  int fd;
  guint32 portid;
  Channel main;
  Channel bulk;
  gboolean bulk_allowed;   /* only for a real kernel socket (rtop_nl_open) */
  GArray *bulk_keys;       /* guint64: command << 32 | device index */
  guint32 seq;
  guint timeout_ms;
  guint8 *buf;
  gsize buf_size;
  gsize truncated_iov;     /* the iov of the last read that cut a datagram */
};

/* ---- Sockets ---- */

static gboolean
socket_error (GError **error, int errsv, const char *what)
{
  RtopErrorCode code = RTOP_ERROR_FAILED;
  const char *hint = "";

  if (errsv == EPROTONOSUPPORT || errsv == EAFNOSUPPORT)
    {
      code = RTOP_ERROR_NO_NETLINK;
      hint = _("This kernel has no RDMA netlink interface: load the RDMA core "
               "(modprobe ib_core, or a driver such as rdma_rxe) and try again.");
    }
  else if (errsv == EPERM || errsv == EACCES)
    {
      code = RTOP_ERROR_PERMISSION;
      hint = _("The system does not allow this user to use RDMA netlink.");
    }
  g_set_error (error, RTOP_ERROR, code, "%s: %s. %s", what, g_strerror (errsv), hint);
  return FALSE;
}

static void
set_flag_option (int fd, int option)
{
  int one = 1;

  /* Old kernels lack these (ENOPROTOOPT); replies then carry no ext-ack
   * text and errors echo the request, both of which we handle. */
  if (setsockopt (fd, SOL_NETLINK, option, &one, sizeof one) < 0 && errno != ENOPROTOOPT)
    g_debug ("setsockopt(SOL_NETLINK, %d): %s", option, g_strerror (errno));
}

static int
open_socket_for (int protocol, int extra_flags, guint32 *portid, GError **error)
{
  struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
  socklen_t addr_len = sizeof addr;
  int fd;

  fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | extra_flags, protocol);
  if (fd < 0)
    {
      socket_error (error, errno, protocol == NETLINK_RDMA
                                  ? _("Could not open an RDMA netlink socket")
                                  : _("Could not open a routing netlink socket"));
      return -1;
    }
  set_flag_option (fd, NETLINK_EXT_ACK);
  set_flag_option (fd, NETLINK_CAP_ACK);
  if (bind (fd, (struct sockaddr *) &addr, sizeof addr) < 0 ||
      getsockname (fd, (struct sockaddr *) &addr, &addr_len) < 0)
    {
      int errsv = errno;
      close (fd);
      socket_error (error, errsv, _("Could not bind the RDMA netlink socket"));
      return -1;
    }
  *portid = addr.nl_pid;
  return fd;
}

static int
open_socket (int extra_flags, guint32 *portid, GError **error)
{
  return open_socket_for (NETLINK_RDMA, extra_flags, portid, error);
}

RtopNl *
rtop_nl_new_for_fd (int fd, guint32 portid)
{
  RtopNl *self = g_new0 (RtopNl, 1);

  self->fd = fd;
  self->portid = portid;
  self->main = (Channel) { fd, portid, RECV_MAX_SIZE };
  self->bulk = (Channel) { -1, 0, BULK_IOV };
  self->bulk_keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* Any start works; a random one keeps two RtopNl in one process apart in
   * traces. 0 is skipped because it means "unsolicited" (events). */
  self->seq = g_random_int_range (1, G_MAXINT32);
  self->buf_size = 0;
  self->buf = NULL;        /* sized by the first read */
  rtop_nl_set_timeout_ms (self, DEFAULT_TIMEOUT_MS);
  return self;
}

void
rtop_nl_set_receive_size (RtopNl *self, gsize size)
{
  g_return_if_fail (self != NULL);
  self->main.iov = CLAMP (size, 1024, (gsize) RECV_MAX_SIZE);
}

RtopNl *
rtop_nl_open (GError **error)
{
  guint32 portid = 0;
  int fd = open_socket (0, &portid, error);
  RtopNl *self;

  if (fd < 0)
    return NULL;
  self = rtop_nl_new_for_fd (fd, portid);
  rtop_nl_set_receive_size (self, MNL_SOCKET_BUFFER_SIZE);
  self->bulk_allowed = TRUE;
  return self;
}

RtopNl *
rtop_nl_open_route (GError **error)
{
  guint32 portid = 0;
  int fd = open_socket_for (NETLINK_ROUTE, 0, &portid, error);
  RtopNl *self;

  if (fd < 0)
    return NULL;
  self = rtop_nl_new_for_fd (fd, portid);
  rtop_nl_set_receive_size (self, MNL_SOCKET_BUFFER_SIZE);
  return self;
}

RtopNl *
rtop_nl_open_monitor (GError **error)
{
  int group = RDMA_NL_GROUP_NOTIFY;
  guint32 portid = 0;
  int fd = open_socket (SOCK_NONBLOCK, &portid, error);
  RtopNl *self;

  if (fd < 0)
    return NULL;
  if (setsockopt (fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0)
    {
      int errsv = errno;
      close (fd);
      if (errsv == EINVAL)
        g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                     _("This kernel sends no RDMA device events (they need Linux 6.12 "
                       "or newer); devices are found by polling instead."));
      else
        socket_error (error, errsv, _("Could not subscribe to RDMA device events"));
      return NULL;
    }
  self = rtop_nl_new_for_fd (fd, portid);
  /* Events are small (NLMSG_DEFAULT_SIZE); a larger one would be lost and
   * reported as an overrun, after which everything is read again. */
  rtop_nl_set_receive_size (self, MNL_SOCKET_BUFFER_SIZE);
  return self;
}

void
rtop_nl_free (RtopNl *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  if (self->bulk.fd >= 0)
    close (self->bulk.fd);
  g_array_unref (self->bulk_keys);
  g_aligned_free (self->buf);
  g_free (self);
}

int
rtop_nl_get_fd (RtopNl *self)
{
  return self->fd;
}

guint32
rtop_nl_get_portid (RtopNl *self)
{
  return self->portid;
}

void
rtop_nl_set_timeout_ms (RtopNl *self, guint timeout_ms)
{
  struct timeval tv;

  self->timeout_ms = MAX (timeout_ms, 1u);
  tv.tv_sec = self->timeout_ms / 1000;
  tv.tv_usec = (self->timeout_ms % 1000) * 1000;
  if (setsockopt (self->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
    g_warning ("Could not set the netlink receive timeout: %s", g_strerror (errno));
  if (self->bulk.fd >= 0 &&
      setsockopt (self->bulk.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
    g_warning ("Could not set the netlink receive timeout: %s", g_strerror (errno));
}

/* ---- Replies ---- */

typedef struct {
  const char *msg;
} ExtAck;

static int
ext_ack_cb (const struct nlattr *attr, void *data)
{
  ExtAck *ack = data;

  if (mnl_attr_get_type (attr) == NLMSGERR_ATTR_MSG &&
      mnl_attr_validate (attr, MNL_TYPE_NUL_STRING) == 0)
    ack->msg = mnl_attr_get_str (attr);
  return MNL_CB_OK;
}

/* The extended-ack TLVs start at offset tlv_offset of the payload. */
static const char *
find_ext_ack (const struct nlmsghdr *nlh, gsize tlv_offset)
{
  ExtAck ack = { NULL };
  gsize len = mnl_nlmsg_get_payload_len (nlh);

  if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_offset >= len)
    return NULL;
  mnl_attr_parse_payload ((const guint8 *) mnl_nlmsg_get_payload (nlh) + tlv_offset,
                          len - tlv_offset, ext_ack_cb, &ack);
  return ack.msg;
}

static gboolean
kernel_error (GError **error, int errnum, const char *ext_ack)
{
  g_autofree char *ack = ext_ack ? g_utf8_make_valid (ext_ack, -1) : NULL;
  g_autofree char *text = ack && *ack ? g_strdup_printf ("%s (%s)", g_strerror (errnum), ack)
                                      : g_strdup (g_strerror (errnum));

  if (errnum == EPERM || errnum == EACCES)
    g_set_error (error, RTOP_ERROR, RTOP_ERROR_PERMISSION,
                 _("The kernel answered: %s. Reading this needs more privileges "
                   "(CAP_NET_ADMIN)."), text);
  else
    g_set_error (error, RTOP_ERROR,
                 errnum == ENODEV || errnum == ENXIO ? RTOP_ERROR_NO_DEVICE : RTOP_ERROR_KERNEL,
                 _("The kernel answered: %s."), text);
  return FALSE;
}

static gboolean
handle_error_msg (const struct nlmsghdr *nlh, gboolean *done, GError **error)
{
  const struct nlmsgerr *err = mnl_nlmsg_get_payload (nlh);
  gsize len = mnl_nlmsg_get_payload_len (nlh);
  gsize tlv_offset = sizeof *err;

  *done = TRUE;
  if (len < sizeof *err)
    return kernel_error (error, EBADMSG, NULL);
  if (err->error == 0)
    return TRUE;                      /* the ACK that ends a non-dump reply */
  if (err->error > 0 || err->error < -MAX_ERRNO)
    return kernel_error (error, EBADMSG, NULL);
  /* Without NETLINK_CAP_ACK the error echoes our whole request first. */
  if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
    tlv_offset = sizeof err->error + NLMSG_ALIGN ((gsize) err->msg.nlmsg_len);
  return kernel_error (error, -err->error, find_ext_ack (nlh, tlv_offset));
}

static gboolean
handle_done_msg (const struct nlmsghdr *nlh, gboolean *done, GError **error)
{
  gint32 status = 0;

  *done = TRUE;
  /* A dump that failed part way carries the negative errno here. */
  if (mnl_nlmsg_get_payload_len (nlh) >= sizeof status)
    memcpy (&status, mnl_nlmsg_get_payload (nlh), sizeof status);
  if (status >= 0)
    return TRUE;
  if (status < -MAX_ERRNO)
    return kernel_error (error, EBADMSG, NULL);
  return kernel_error (error, -status, find_ext_ack (nlh, sizeof status));
}

static gboolean
handle_message (const struct nlmsghdr *nlh, RtopNlMsgFunc func, gpointer user_data,
                gboolean *done, GError **error)
{
  switch (nlh->nlmsg_type)
    {
    case NLMSG_ERROR:
      return handle_error_msg (nlh, done, error);
    case NLMSG_DONE:
      return handle_done_msg (nlh, done, error);
    case NLMSG_OVERRUN:
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("The kernel reported lost netlink data (overrun)."));
      return FALSE;
    default:
      if (nlh->nlmsg_type < NLMSG_MIN_TYPE || func == NULL)
        return TRUE;                  /* NOOP and other control messages */
      return func (nlh, user_data, error);
    }
}

/* Not mnl_nlmsg_ok(): libmnl 1.0.4 compares the length as a signed int, so
 * an nlmsg_len above 2 GiB passes its check (found by the fuzzer). */
static gboolean
message_ok (const struct nlmsghdr *nlh, int remaining)
{
  return remaining >= (int) sizeof *nlh &&
         nlh->nlmsg_len >= sizeof *nlh &&
         nlh->nlmsg_len <= (guint32) remaining;
}

static gboolean
message_is_ours (const struct nlmsghdr *nlh, guint32 seq, guint32 portid)
{
  return (seq == 0 || nlh->nlmsg_seq == seq) && (portid == 0 || nlh->nlmsg_pid == portid);
}

/* Keeps the first error; once there is one, data messages are no longer
 * handed to func but DONE and ERROR still end the reply. */
static gboolean
process_datagram (const guint8 *buf, gsize len, guint32 seq, guint32 portid,
                  RtopNlMsgFunc func, gpointer user_data,
                  gboolean *done, guint *n_ours, GError **error)
{
  const struct nlmsghdr *nlh = (const struct nlmsghdr *) buf;
  int remaining = (int) len;
  GError *first = NULL;

  while (remaining > 0 && !*done)
    {
      if (!message_ok (nlh, remaining))
        {
          if (first == NULL)
            g_set_error (&first, RTOP_ERROR, RTOP_ERROR_MALFORMED,
                         _("The kernel sent a truncated or garbled netlink message."));
          break;
        }
      if (message_is_ours (nlh, seq, portid))
        {
          (*n_ours)++;
          handle_message (nlh, first ? NULL : func, user_data, done,
                          first ? NULL : &first);
        }
      /* mnl_nlmsg_next(), inline: message_ok() checked the length. */
      remaining -= (int) NLMSG_ALIGN (nlh->nlmsg_len);
      nlh = (const struct nlmsghdr *) (gconstpointer) ((const guint8 *) nlh + NLMSG_ALIGN (nlh->nlmsg_len));
    }
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

gboolean
rtop_nl_process_buffer (const void *buf, gsize len, guint32 seq, guint32 portid,
                        RtopNlMsgFunc func, gpointer user_data,
                        gboolean *done, GError **error)
{
  g_autofree guint8 *aligned = NULL;
  guint n_ours = 0;

  g_return_val_if_fail (buf != NULL || len == 0, FALSE);
  g_return_val_if_fail (done != NULL, FALSE);

  *done = FALSE;
  if (len > G_MAXINT)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED,
                   _("The kernel sent a truncated or garbled netlink message."));
      return FALSE;
    }
  /* Headers are read in place: copy a buffer that is not 4-byte aligned. */
  if (((guintptr) buf) % NLMSG_ALIGNTO != 0)
    buf = aligned = g_memdup2 (buf, len);
  return process_datagram (buf, len, seq, portid, func, user_data, done, &n_ours, error);
}

typedef enum {
  RECV_OK,
  RECV_EMPTY,        /* non-blocking socket, nothing queued */
  RECV_TRUNCATED,    /* the datagram was larger than our buffer and is lost */
  RECV_OVERRUN,      /* ENOBUFS: the kernel dropped messages for us */
  RECV_FOREIGN,      /* not from the kernel: another process wrote to us */
  RECV_TIMEOUT,
  RECV_ERROR,
} RecvStatus;

static gssize
recvmsg_retry (int fd, struct msghdr *msg, int flags)
{
  gssize n;

  do
    n = recvmsg (fd, msg, flags);
  while (n < 0 && errno == EINTR);
  return n;
}

static RecvStatus
status_for_errno (int errsv, int flags)
{
  if (errsv == EAGAIN || errsv == EWOULDBLOCK)
    return (flags & MSG_DONTWAIT) ? RECV_EMPTY : RECV_TIMEOUT;
  return errsv == ENOBUFS ? RECV_OVERRUN : RECV_ERROR;
}

/* Makes self->buf hold at least size bytes (size <= RECV_MAX_SIZE). */
static void
reserve_buffer (RtopNl *self, gsize size)
{
  gsize new_size = MAX (self->buf_size, 4096);

  if (size <= self->buf_size)
    return;
  while (new_size < size)
    new_size *= 2;
  /* No g_realloc(): nothing in the buffer is worth copying.  Page-aligned,
   * so a page-sized datagram lands in one page, not across two. */
  g_aligned_free (self->buf);
  self->buf_size = MIN (new_size, (gsize) RECV_MAX_SIZE);
  self->buf = g_aligned_alloc (1, self->buf_size, 4096);
}

/* Receives one datagram into self->buf with one recvmsg() of the
 * channel's iov (see RECV_MAX_SIZE for why).  MSG_TRUNC makes the kernel
 * return the datagram's real length, so a datagram that did not fit is
 * known by its size: RECV_TRUNCATED, with *len that size, and the channel
 * reads the next one whole. */
static RecvStatus
recv_datagram (RtopNl *self, Channel *ch, int flags, gsize *len, int *errsv)
{
  struct sockaddr_nl addr;
  struct iovec iov;
  struct msghdr msg = { .msg_name = &addr, .msg_namelen = sizeof addr,
                        .msg_iov = &iov, .msg_iovlen = 1 };
  gssize n;

  *len = 0;
  reserve_buffer (self, ch->iov);
  iov = (struct iovec) { self->buf, ch->iov };
  n = recvmsg_retry (ch->fd, &msg, flags | MSG_TRUNC);
  *errsv = n < 0 ? errno : 0;
  if (n < 0)
    return status_for_errno (*errsv, flags);
  *len = (gsize) n;
  /* Only the kernel (port id 0) answers; a privileged process could send
   * to our port id too.  (The tests' socketpair has no netlink address.) */
  if (msg.msg_namelen >= sizeof addr && addr.nl_family == AF_NETLINK && addr.nl_pid != 0)
    return RECV_FOREIGN;
  if ((gsize) n > ch->iov || (msg.msg_flags & MSG_TRUNC))
    {
      self->truncated_iov = ch->iov;
      if ((gsize) n <= RECV_MAX_SIZE)
        while (ch->iov < (gsize) n)
          ch->iov = MIN (ch->iov * 2, (gsize) RECV_MAX_SIZE);
      return RECV_TRUNCATED;
    }
  return RECV_OK;
}

static void
set_timeout_error (RtopNl *self, GError **error)
{
  g_set_error (error, RTOP_ERROR, RTOP_ERROR_TIMEOUT,
               _("The kernel did not finish its answer within %u ms."), self->timeout_ms);
}

static void
set_recv_error (RtopNl *self, RecvStatus status, int errsv, gsize len, GError **error)
{
  switch (status)
    {
    case RECV_TIMEOUT:
      set_timeout_error (self, error);
      break;
    case RECV_TRUNCATED:
      if (len > RECV_MAX_SIZE)
        g_set_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED,
                     /* %lu, not G_GSIZE_FORMAT: a macro inside _() cannot be translated. */
                     _("A netlink reply of %lu bytes was larger than the "
                       "%u byte limit and was dropped."),
                     (unsigned long) len, (guint) RECV_MAX_SIZE);
      else
        g_set_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED,
                     _("A netlink reply of %lu bytes did not fit the %u byte receive "
                       "buffer and was dropped; from now on such replies are read whole."),
                     (unsigned long) len, (guint) self->truncated_iov);
      break;
    case RECV_OVERRUN:
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("The kernel dropped netlink messages because rdmatop read them too slowly."));
      break;
    default:
      socket_error (error, errsv, _("Could not receive from the RDMA netlink socket"));
      break;
    }
}

static gboolean
send_request (RtopNl *self, Channel *ch, guint16 cmd, gboolean dump, guint32 dev_index, guint32 port,
              guint32 seq, GError **error)
{
  /* A header and at most two u32 attributes, written in place: this runs
   * some 80 times per pass. */
  struct {
    struct nlmsghdr nlh;
    struct { struct nlattr hdr; guint32 value; } attrs[2];
  } req;
  guint n_attrs = 0;
  gssize n;

  G_STATIC_ASSERT (sizeof req.attrs[0] == MNL_ALIGN (MNL_ATTR_HDRLEN + sizeof (guint32)));
  if (dev_index != RTOP_NL_NO_INDEX)
    req.attrs[n_attrs++] = (typeof (req.attrs[0])) {
      { MNL_ATTR_HDRLEN + sizeof (guint32), RDMA_NLDEV_ATTR_DEV_INDEX }, dev_index };
  if (port != 0)
    req.attrs[n_attrs++] = (typeof (req.attrs[0])) {
      { MNL_ATTR_HDRLEN + sizeof (guint32), RDMA_NLDEV_ATTR_PORT_INDEX }, port };
  req.nlh = (struct nlmsghdr) {
    .nlmsg_len = (guint32) (MNL_NLMSG_HDRLEN + n_attrs * sizeof req.attrs[0]),
    .nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, cmd),
    .nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK),
    .nlmsg_seq = seq,
  };

  /* send() rather than sendto(): the default destination of a netlink
   * socket is the kernel, and it also works on the tests' socketpair. */
  do
    n = send (ch->fd, &req, req.nlh.nlmsg_len, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return socket_error (error, errno, _("Could not send to the RDMA netlink socket"));
  return TRUE;
}

static guint32
next_seq (RtopNl *self)
{
  if (++self->seq == 0)
    self->seq = 1;
  return self->seq;
}

/* Reads datagrams until DONE/ACK/ERROR.  SO_RCVTIMEO bounds each wait; a
 * stream of stale datagrams (other sequence numbers) would restart it
 * forever, so a deadline also runs from the first stale datagram after the
 * last progress.  The clock is read only then: the common path has no
 * clock reads (costly in an emulated guest).  A lost (cut or dropped)
 * datagram is an error, but we still read on to the end so the next
 * request starts clean. */
static gboolean
receive_reply (RtopNl *self, Channel *ch, guint32 seq, RtopNlMsgFunc func, gpointer user_data,
               guint *n_datagrams, gsize *n_bytes, GError **error)
{
  GError *first = NULL;
  gboolean done = FALSE;
  gint64 stale_deadline = 0;      /* 0: no stale datagram since progress */

  while (!done)
    {
      guint n_ours = 0;
      gsize len;
      int errsv;
      RecvStatus status = recv_datagram (self, ch, 0, &len, &errsv);

      if (status == RECV_OK)
        process_datagram (self->buf, len, seq, ch->portid, first ? NULL : func, user_data,
                          &done, &n_ours, first ? NULL : &first);
      else if (first == NULL && status != RECV_FOREIGN)
        set_recv_error (self, status, errsv, len, &first);

      if (n_ours > 0)
        {
          (*n_datagrams)++;
          *n_bytes += len;
        }
      if (status == RECV_TIMEOUT || status == RECV_ERROR)
        break;
      if (n_ours > 0 || status == RECV_TRUNCATED || status == RECV_OVERRUN)
        stale_deadline = 0;
      else if (stale_deadline == 0)
        stale_deadline = g_get_monotonic_time () + self->timeout_ms * G_GINT64_CONSTANT (1000);
      else if (g_get_monotonic_time () > stale_deadline)
        {
          if (first == NULL)
            set_timeout_error (self, &first);
          break;
        }
    }
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}

static gint
find_bulk_key (RtopNl *self, guint64 key)
{
  for (guint i = 0; i < self->bulk_keys->len; i++)
    if (g_array_index (self->bulk_keys, guint64, i) == key)
      return (gint) i;
  return -1;
}

/* The bulk socket for a dump that was large last time (see BULK_AFTER);
 * the main one for everything else, or when the bulk one cannot open. */
static Channel *
pick_channel (RtopNl *self, guint64 key, gboolean dump)
{
  if (!dump || !self->bulk_allowed || find_bulk_key (self, key) < 0)
    return &self->main;
  if (self->bulk.fd < 0)
    {
      g_autoptr(GError) local = NULL;

      self->bulk.fd = open_socket (0, &self->bulk.portid, &local);
      if (self->bulk.fd < 0)
        {
          g_debug ("%s", local->message);
          self->bulk_allowed = FALSE;
          return &self->main;
        }
      rtop_nl_set_timeout_ms (self, self->timeout_ms);
    }
  return &self->bulk;
}

static void
learn_dump_size (RtopNl *self, guint64 key, gboolean dump, Channel *ch, guint n_datagrams,
                 gsize n_bytes)
{
  gint i;

  if (!dump || !self->bulk_allowed)
    return;
  if (ch == &self->main && n_datagrams > BULK_AFTER && n_bytes / n_datagrams >= BULK_FILL &&
      self->bulk_keys->len < MAX_BULK_KEYS && find_bulk_key (self, key) < 0)
    g_array_append_val (self->bulk_keys, key);
  else if (ch == &self->bulk && n_datagrams <= 1 && (i = find_bulk_key (self, key)) >= 0)
    g_array_remove_index_fast (self->bulk_keys, (guint) i);
}

static gboolean
query_one (RtopNl *self, guint16 cmd, gboolean dump, guint32 dev_index, guint32 port,
           RtopNlMsgFunc func, gpointer user_data, GError **error)
{
  guint64 key = ((guint64) cmd << 32) | dev_index;
  Channel *ch = pick_channel (self, key, dump);
  guint32 seq = next_seq (self);
  guint n_datagrams = 0;
  gsize n_bytes = 0;
  gboolean ok;

  ok = send_request (self, ch, cmd, dump, dev_index, port, seq, error) &&
       receive_reply (self, ch, seq, func, user_data, &n_datagrams, &n_bytes, error);
  learn_dump_size (self, key, dump, ch, n_datagrams, n_bytes);
  if (ok)
    return TRUE;

  if (dev_index != RTOP_NL_NO_INDEX)
    g_prefix_error (error, _("RDMA netlink %s for device %u, port %u failed: "),
                    rtop_nl_command_name (cmd), dev_index, port);
  else
    g_prefix_error (error, _("RDMA netlink %s failed: "), rtop_nl_command_name (cmd));
  return FALSE;
}

gboolean
rtop_nl_query (RtopNl *self, guint16 cmd, gboolean dump,
               guint32 dev_index, guint32 port,
               RtopNlMsgFunc func, gpointer user_data, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return query_one (self, cmd, dump, dev_index, port, func, user_data, error);
}

gboolean
rtop_nl_query_message (RtopNl *self, guint16 type, gboolean dump,
                       const void *header, gsize header_len,
                       guint16 attr_type, guint32 attr_value,
                       RtopNlMsgFunc func, gpointer user_data, GError **error)
{
  union { guint8 bytes[128]; struct nlmsghdr align; } buf;
  struct nlmsghdr *nlh = &buf.align;
  guint32 seq;
  guint n_datagrams = 0;
  gsize n_bytes = 0;
  gssize n;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (header_len <= 64, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (&buf, 0, sizeof buf);
  nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
  nlh->nlmsg_seq = seq = next_seq (self);
  memcpy (mnl_nlmsg_put_extra_header (nlh, header_len), header, header_len);
  if (attr_type != 0)
    mnl_attr_put_u32 (nlh, attr_type, attr_value);
  do
    n = send (self->main.fd, nlh, nlh->nlmsg_len, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return socket_error (error, errno, _("Could not send to a netlink socket"));
  return receive_reply (self, &self->main, seq, func, user_data, &n_datagrams, &n_bytes, error);
}

gboolean
rtop_nl_read_monitor (RtopNl *self, RtopNlMsgFunc func, gpointer user_data,
                      gboolean *overrun, GError **error)
{
  GError *first = NULL;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (overrun != NULL, FALSE);

  *overrun = FALSE;
  for (guint i = 0; i < MONITOR_BATCH; i++)
    {
      gboolean done = FALSE;
      guint n_ours = 0;
      gsize len;
      int errsv;
      RecvStatus status = recv_datagram (self, &self->main, MSG_DONTWAIT, &len, &errsv);

      if (status == RECV_EMPTY)
        break;
      if (status == RECV_FOREIGN)
        continue;
      if (status == RECV_OVERRUN || status == RECV_TRUNCATED)
        {
          /* Events were lost: the caller has to look at everything again. */
          *overrun = TRUE;
          continue;
        }
      if (status != RECV_OK)
        {
          g_clear_error (&first);
          set_recv_error (self, status, errsv, len, error);
          return FALSE;
        }
      /* Events are unsolicited: sequence 0, port id 0 (the kernel). */
      process_datagram (self->buf, len, 0, 0, first ? NULL : func, user_data,
                        &done, &n_ours, first ? NULL : &first);
    }
  if (first != NULL)
    {
      g_propagate_error (error, first);
      return FALSE;
    }
  return TRUE;
}
