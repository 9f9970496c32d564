/* rtop-error.h: the project's GError domain.
 *
 * Every error a user can meet carries a sentence the user can act on; the
 * kernel's extended-ack text, when there is one, is kept in the message. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RTOP_ERROR (rtop_error_quark ())

typedef enum {
  RTOP_ERROR_FAILED,          /* anything else */
  RTOP_ERROR_NO_NETLINK,      /* the kernel has no RDMA netlink (no ib_core) */
  RTOP_ERROR_PERMISSION,      /* EPERM/EACCES from the kernel or a file */
  RTOP_ERROR_KERNEL,          /* an NLMSG_ERROR reply; message holds errno text + ext ack */
  RTOP_ERROR_MALFORMED,       /* a netlink reply, sysfs or /proc file that does not parse */
  RTOP_ERROR_TIMEOUT,         /* the kernel did not answer (e.g. a dump without DONE) */
  RTOP_ERROR_NO_DEVICE,       /* the device or port named does not exist (any more) */
  RTOP_ERROR_IO,              /* a file could not be read or written */
  RTOP_ERROR_INVALID_RECORDING, /* a file that is not an rdmatop recording */
  RTOP_ERROR_INVALID_ARGUMENT,
  RTOP_ERROR_PROTOCOL,        /* a snapshot stream that is garbled, cut short or over a limit */
  RTOP_ERROR_VERSION,         /* a snapshot stream of another protocol version */
  RTOP_ERROR_REMOTE,          /* the other side's own error sentence */
  RTOP_ERROR_NO_PROCESS,      /* the process named does not exist (any more) */
} RtopErrorCode;

GQuark rtop_error_quark (void);

G_END_DECLS
