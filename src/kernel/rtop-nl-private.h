/* rtop-nl-private.h: what only rtop-nl.c, rtop-nl-parse.c and the tests
 * use (test hooks, and internals the tests check). */
#pragma once

#include "rtop-nl.h"
#include "uapi/rdma/rdma_netlink.h"

G_BEGIN_DECLS

/* Wraps an existing datagram fd (tests feed replies through a socketpair).
 * Takes ownership of fd. */
RtopNl *rtop_nl_new_for_fd (int fd, guint32 portid);

/* The socket's netlink port id (what the kernel puts in nlmsg_pid). */
guint32 rtop_nl_get_portid (RtopNl *self);

void rtop_nl_set_timeout_ms (RtopNl *self, guint timeout_ms);  /* default 2000 */

/* The iov length reads start with: MNL_SOCKET_BUFFER_SIZE for the sockets
 * rtop_nl_open*() make (see rtop-nl.c for why), the largest for one from
 * rtop_nl_new_for_fd().  A datagram that does not fit is lost with an
 * error, and later ones of its size are read whole. */
void rtop_nl_set_receive_size (RtopNl *self, gsize size);

/* Processes one received datagram of a reply: validates every header,
 * skips messages whose seq/portid differ (0 accepts any: events carry 0),
 * turns NLMSG_ERROR and a failed NLMSG_DONE (with ext-ack text) into an
 * error, sets *done on NLMSG_DONE, an ACK or an error.  After the first
 * error, func is no longer called but the end is still detected.
 * Exposed for tests and fuzzing. */
gboolean rtop_nl_process_buffer (const void *buf, gsize len, guint32 seq, guint32 portid,
                                 RtopNlMsgFunc func, gpointer user_data,
                                 gboolean *done, GError **error);

/* "GET", "PORT_GET", ... for messages; "?" for commands we do not know.
 * Inline, so that the transport and the parsers, which both name commands
 * in their errors, need nothing of each other. */
static inline const char *
rtop_nl_command_name (guint16 cmd)
{
  static const char *const command_names[] = {
    [RDMA_NLDEV_CMD_GET] = "GET",
    [RDMA_NLDEV_CMD_PORT_GET] = "PORT_GET",
    [RDMA_NLDEV_CMD_SYS_GET] = "SYS_GET",
    [RDMA_NLDEV_CMD_RES_GET] = "RES_GET",
    [RDMA_NLDEV_CMD_RES_QP_GET] = "RES_QP_GET",
    [RDMA_NLDEV_CMD_RES_CQ_GET] = "RES_CQ_GET",
    [RDMA_NLDEV_CMD_RES_MR_GET] = "RES_MR_GET",
    [RDMA_NLDEV_CMD_RES_PD_GET] = "RES_PD_GET",
    [RDMA_NLDEV_CMD_STAT_GET] = "STAT_GET",
    [RDMA_NLDEV_CMD_RES_CTX_GET] = "RES_CTX_GET",
    [RDMA_NLDEV_CMD_MONITOR] = "MONITOR",
  };

  if (cmd < G_N_ELEMENTS (command_names) && command_names[cmd] != NULL)
    return command_names[cmd];
  return "?";
}

/* A device's GET reply with its strings copied; the sampling pass reads
 * it with rtop_nl_parse_device_view() instead. */
typedef struct {
  guint32 index;
  char *name;
  guint32 port_count;        /* PORT_INDEX in a GET reply */
  guint8 node_type;          /* 0 when absent */
  char *fw_version;          /* NULL when absent */
  guint64 node_guid;
  guint64 sys_image_guid;
  char *protocol;            /* DEV_PROTOCOL, NULL when absent */
} RtopNlDevice;

gboolean rtop_nl_parse_device (const struct nlmsghdr *nlh, RtopNlDevice *out, GError **error);
void rtop_nl_device_clear (RtopNlDevice *d);

G_END_DECLS
