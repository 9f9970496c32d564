/* rtop-nl.h: RDMA netlink (NLDEV) transport and parsers, no GTK.
 *
 * RtopNl owns one long-lived NETLINK_RDMA socket with NETLINK_EXT_ACK and
 * NETLINK_CAP_ACK set, increasing sequence numbers and a receive timeout.
 * The parsers turn one reply message into plain structs; they skip unknown
 * attributes, and reject malformed ones with RTOP_ERROR_MALFORMED, never crash.
 * Numbers come from the vendored uAPI header rdma_netlink.h. */
#pragma once

#include <glib.h>
#include <linux/netlink.h>

G_BEGIN_DECLS

typedef struct _RtopNl RtopNl;

/* Called for each data message of a reply (not for DONE/ERROR/ACK). Return
 * FALSE with error set to abort; the rest of the reply is still drained. */
typedef gboolean (*RtopNlMsgFunc) (const struct nlmsghdr *nlh, gpointer user_data, GError **error);

#define RTOP_NL_NO_INDEX G_MAXUINT32

/* Opens NETLINK_RDMA. RTOP_ERROR_NO_NETLINK when the kernel lacks it. */
RtopNl *rtop_nl_open (GError **error);
/* A routing (NETLINK_ROUTE) socket, for netdev statistics. */
RtopNl *rtop_nl_open_route (GError **error);
/* Joins RDMA_NL_GROUP_NOTIFY on a separate non-blocking socket for monitor
 * events. RTOP_ERROR_NO_NETLINK / _FAILED when not supported. */
RtopNl *rtop_nl_open_monitor (GError **error);
void rtop_nl_free (RtopNl *self);
int rtop_nl_get_fd (RtopNl *self);

/* cmd is an RDMA_NLDEV_CMD_*; dev_index/port are added as attributes unless
 * RTOP_NL_NO_INDEX / 0.  dump=TRUE sets NLM_F_DUMP, otherwise NLM_F_ACK is set
 * so the reply ends with an ACK.  The kernel answers PORT_GET and RES_*_GET
 * dumps for one device only (EINVAL without DEV_INDEX): ask them device by
 * device, with its index.  Blocks at most the timeout per silent gap: a reply
 * that stops without DONE ends with RTOP_ERROR_TIMEOUT.  Replies to other
 * (earlier, timed-out) requests are ignored.  Not thread-safe: one RtopNl per
 * thread. */
gboolean rtop_nl_query (RtopNl *self, guint16 cmd, gboolean dump,
                        guint32 dev_index, guint32 port,
                        RtopNlMsgFunc func, gpointer user_data, GError **error);
/* Any other request: a message of type with the family header given
 * (header_len bytes) and, unless attr_type is 0, one u32 attribute; the
 * reply is read as rtop_nl_query() reads one (func per data message). */
gboolean rtop_nl_query_message (RtopNl *self, guint16 type, gboolean dump,
                                const void *header, gsize header_len,
                                guint16 attr_type, guint32 attr_value,
                                RtopNlMsgFunc func, gpointer user_data, GError **error);

/* Reads whatever monitor messages are queued (non-blocking; at most a batch
 * per call, the fd stays readable if more wait) and calls func for each.
 * Returns FALSE on socket errors or a message func rejected (after
 * draining); ENOBUFS or a cut datagram (lost events) sets *overrun: the
 * caller then re-discovers everything. */
gboolean rtop_nl_read_monitor (RtopNl *self, RtopNlMsgFunc func, gpointer user_data,
                               gboolean *overrun, GError **error);

/* ---- Parsed replies ---- */

/* A device's GET reply, with strings pointing into the message (for the
 * sampling pass, which keeps a device's strings from pass to pass). */
typedef struct {
  guint32 index;
  const char *name;
  guint32 port_count;
  guint8 node_type;
  const char *fw_version;
  guint64 node_guid;
  guint64 sys_image_guid;
  const char *protocol;
} RtopNlDeviceView;

typedef struct {
  guint32 dev_index;
  char *dev_name;
  guint32 port;
  guint8 state;              /* 0 when absent */
  guint8 phys_state;
  guint32 ndev_index;        /* 0 when absent */
  char *ndev_name;           /* NULL when absent */
} RtopNlPort;

typedef struct {
  char *name;
  guint64 value;
} RtopNlCounter;

typedef struct {
  guint32 dev_index;
  char *dev_name;
  guint32 port;
  GArray *counters;          /* RtopNlCounter, in message order */
} RtopNlStat;

/* CM_ID: an rdma_cm identifier (RES_CM_ID_GET), which names its QP and
 * the addresses it connects; QP entries have no addresses. */
typedef enum { RTOP_NL_RES_QP, RTOP_NL_RES_CTX, RTOP_NL_RES_MR, RTOP_NL_RES_CM_ID } RtopNlResKind;

/* The size of a socket address attribute (struct __kernel_sockaddr_storage). */
#define RTOP_NL_SOCKADDR_SIZE 128

typedef struct {
  RtopNlResKind kind;
  guint32 dev_index;
  char *dev_name;
  guint32 id;                /* lqpn / ctxn / mrn / cm_idn */
  guint32 port;              /* QP and CM_ID, 0 when absent */
  guint8 qp_type, qp_state;  /* QP; a CM_ID's are its QP's type and its rdma_cm state */
  guint32 lqpn;              /* QP: id; CM_ID: its QP, valid when has_lqpn */
  gboolean has_lqpn;
  guint32 ps;                /* CM_ID only: the port space (RDMA_PS_TCP, ...) */
  const guint8 *src_addr;    /* CM_ID only: RTOP_NL_SOCKADDR_SIZE bytes, NULL when absent */
  const guint8 *dst_addr;    /* (into the message in the foreach walk, copies in parse_res) */
  guint32 rqpn;              /* QP only: the peer QP, valid when has_rqpn */
  gboolean has_rqpn;
  guint64 mr_len;            /* MR only */
  gboolean has_pid;
  guint32 pid;
  char *kern_name;           /* kernel owner, NULL for user resources */
} RtopNlRes;

typedef struct {
  gboolean has_monitor_mode;
  guint8 monitor_mode;
  gboolean has_netns_mode;
  guint8 netns_mode;
} RtopNlSys;

typedef struct {
  guint32 event_type;        /* enum rdma_nl_notify_event_type */
  guint32 dev_index;         /* RTOP_NL_NO_INDEX when absent */
  char *dev_name;
  guint32 port;
  guint32 ndev_index;        /* 0 when absent */
  char *ndev_name;           /* NULL when absent */
} RtopNlEvent;

/* Each parser checks the message type, validates every attribute it knows
 * (size, NUL-terminated UTF-8 strings, nesting) and skips unknown ones.  On
 * failure the output is left cleared (parse_res leaves the array as it was). */
gboolean rtop_nl_parse_device_view (const struct nlmsghdr *nlh, RtopNlDeviceView *out,
                                    GError **error);
gboolean rtop_nl_parse_port (const struct nlmsghdr *nlh, RtopNlPort *out, GError **error);
/* The same with dev_name and ndev_name pointing into the message (the
 * RtopNlPort is then not to be cleared). */
gboolean rtop_nl_parse_port_view (const struct nlmsghdr *nlh, RtopNlPort *out, GError **error);
gboolean rtop_nl_parse_stat (const struct nlmsghdr *nlh, RtopNlStat *out, GError **error);
/* The same without copies, for the sampling hot path: func gets each hw
 * counter in message order, name pointing into the message (valid during
 * the call only); dev_index/port (may be NULL) are set before the first
 * call.  Validation is the same, but done while walking: when it returns
 * FALSE, func may already have seen counters of this message; drop them.
 * func returns FALSE with error set to stop. */
typedef gboolean (*RtopNlCounterFunc) (const char *name, guint64 value,
                                       gpointer user_data, GError **error);
gboolean rtop_nl_parse_stat_foreach (const struct nlmsghdr *nlh, guint32 *dev_index,
                                     guint32 *port, RtopNlCounterFunc func,
                                     gpointer user_data, GError **error);
/* TRUE when nlh equals the kept reply (len bytes, NULL for none) in every
 * byte but its sequence number and port id, which the transport checked:
 * then it parses as the kept one did, and its parse can be reused. */
gboolean rtop_nl_reply_equal (const guint8 *kept, guint32 len, const struct nlmsghdr *nlh);

/* A port's STAT_GET reply is the same bytes pass after pass but for the
 * counter values.  A template keeps a valid reply (NULL when it is not
 * one); match() is TRUE when a message equals it in every byte but its
 * sequence number, port id and the counter values, and then stores the
 * values in message order (get_n_counters() of them): the message parses to
 * the same counters, and the walk is skipped. */
typedef struct _RtopNlStatTemplate RtopNlStatTemplate;
RtopNlStatTemplate *rtop_nl_stat_template_new (const struct nlmsghdr *nlh);
guint rtop_nl_stat_template_get_n_counters (const RtopNlStatTemplate *t);
gboolean rtop_nl_stat_template_match (const RtopNlStatTemplate *t, const struct nlmsghdr *nlh,
                                      guint64 *values);
void rtop_nl_stat_template_free (RtopNlStatTemplate *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopNlStatTemplate, rtop_nl_stat_template_free)

/* Appends RtopNlRes entries of the nested RES_QP / RES_CTX / RES_MR list. */
gboolean rtop_nl_parse_res (const struct nlmsghdr *nlh, RtopNlResKind kind,
                            GArray *out, GError **error);
/* The same without copies (for the sampling pass): func gets each entry
 * in message order with dev_name and kern_name pointing into the message
 * (valid during the call only).  When it returns FALSE, func may already
 * have seen entries of this message. */
typedef gboolean (*RtopNlResFunc) (const RtopNlRes *res, gpointer user_data, GError **error);
gboolean rtop_nl_parse_res_foreach (const struct nlmsghdr *nlh, RtopNlResKind kind,
                                    RtopNlResFunc func, gpointer user_data, GError **error);
gboolean rtop_nl_parse_sys (const struct nlmsghdr *nlh, RtopNlSys *out, GError **error);
gboolean rtop_nl_parse_event (const struct nlmsghdr *nlh, RtopNlEvent *out, GError **error);

/* Routing netlink, for the netdevs of providers without byte counters:
 * an RTM_NEWSTATS message (RTM_GETSTATS with IFLA_STATS_LINK_64) gives the
 * link's index and, when it has them, its 64-bit counters (the same
 * numbers /sys/class/net/<nd>/statistics/ shows); an RTM_NEWLINK message
 * gives index and name (pointing into the message). */
typedef struct {
  guint32 ifindex;
  gboolean has_stats;
  guint64 rx_packets, tx_packets, rx_bytes, tx_bytes;
} RtopNlLinkStats;
gboolean rtop_nl_parse_link_stats (const struct nlmsghdr *nlh, RtopNlLinkStats *out,
                                   GError **error);
gboolean rtop_nl_parse_link_name (const struct nlmsghdr *nlh, guint32 *ifindex,
                                  const char **name, GError **error);

/* "192.0.2.1:18515", "[2001:db8::1]:18515" for an IPv4 or IPv6 socket
 * address (RTOP_NL_SOCKADDR_SIZE bytes); FALSE for other families. */
gboolean rtop_nl_format_sockaddr (const guint8 *sockaddr, char *buf, gsize size);

void rtop_nl_port_clear (RtopNlPort *p);
void rtop_nl_stat_clear (RtopNlStat *s);
void rtop_nl_res_clear (RtopNlRes *r);   /* also the GArray clear func */
void rtop_nl_event_clear (RtopNlEvent *e);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopNl, rtop_nl_free)

G_END_DECLS
