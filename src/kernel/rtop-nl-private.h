/* rtop-nl-private.h: what only rtop-nl.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-nl.h"

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

G_END_DECLS
