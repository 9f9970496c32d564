/* nl-test-msgs.h: builds RDMA netlink replies byte for byte as the kernel
 * does (drivers/infiniband/core/nldev.c), with libmnl, for the unit tests and
 * the fuzzer's seed corpus.  Every builder writes one message at buf (which
 * must be NlTestBuf-aligned and have room) and returns its header; chain
 * messages in one datagram with nl_test_next(). */
#pragma once

#include <glib.h>
#include <libmnl/libmnl.h>

G_BEGIN_DECLS

#define NL_TEST_BUF_SIZE (64 * 1024)

typedef union {
  guint8 bytes[NL_TEST_BUF_SIZE];
  struct nlmsghdr align;
} NlTestBuf;

typedef struct {
  const char *name;
  guint64 value;
} NlTestCounter;

/* Where the next message of the same datagram starts. */
void *nl_test_next (struct nlmsghdr *nlh);
/* Bytes from start up to the end of nlh (the datagram length). */
gsize nl_test_len (const void *start, const struct nlmsghdr *nlh);

struct nlmsghdr *nl_test_header (void *buf, guint16 cmd, guint32 seq, guint32 portid,
                                 gboolean multi);
void nl_test_put_handle (struct nlmsghdr *nlh, guint32 index, const char *name);

struct nlmsghdr *nl_test_device (void *buf, guint32 seq, guint32 portid,
                                 guint32 index, const char *name, guint32 ports);
/* The same with another firmware version. */
struct nlmsghdr *nl_test_device_fw (void *buf, guint32 seq, guint32 portid, guint32 index,
                                    const char *name, guint32 ports, const char *fw);
struct nlmsghdr *nl_test_port (void *buf, guint32 seq, guint32 portid, guint32 index,
                               const char *name, guint32 port, guint8 state,
                               guint8 phys_state, const char *ndev);
struct nlmsghdr *nl_test_stat (void *buf, guint32 seq, guint32 portid, guint32 index,
                               const char *name, guint32 port,
                               const NlTestCounter *counters, guint n_counters);
/* first_id, first_id + 1, ...: n entries owned by pid (0: kernel "ib_core"). */
struct nlmsghdr *nl_test_res_qp (void *buf, guint32 seq, guint32 portid, guint32 index,
                                 const char *name, guint32 first_id, guint n, guint32 pid);
/* With the QP type and state; rqpn (and rqpn + 1, ...) for RC and UC. */
struct nlmsghdr *nl_test_res_qp_full (void *buf, guint32 seq, guint32 portid, guint32 index,
                                      const char *name, guint32 first_id, guint n, guint32 pid,
                                      guint8 type, guint8 state, guint32 rqpn);
struct nlmsghdr *nl_test_res_ctx (void *buf, guint32 seq, guint32 portid, guint32 index,
                                  const char *name, guint32 first_id, guint n, guint32 pid);
struct nlmsghdr *nl_test_res_mr (void *buf, guint32 seq, guint32 portid, guint32 index,
                                 const char *name, guint32 first_id, guint n, guint32 pid,
                                 guint64 mr_len);
/* One rdma_cm ID per entry, as fill_res_cm_id_entry() writes it: lqpns[i]
 * its QP (0: none, a listening ID), the addresses as "a.b.c.d" or an IPv6
 * text with their ports (NULL dst: none, as before the ID resolves). */
typedef struct {
  guint32 cm_idn;
  guint32 lqpn;
  const char *src;
  guint16 src_port;
  const char *dst;
  guint16 dst_port;
} NlTestCmId;
struct nlmsghdr *nl_test_res_cm_id (void *buf, guint32 seq, guint32 portid, guint32 index,
                                    const char *name, const NlTestCmId *ids, guint n,
                                    guint32 pid);
struct nlmsghdr *nl_test_sys (void *buf, guint32 seq, guint32 portid, guint8 monitor_mode);
struct nlmsghdr *nl_test_event (void *buf, guint8 event_type, guint32 index,
                                const char *name, guint32 port, const char *ndev);
struct nlmsghdr *nl_test_done (void *buf, guint32 seq, guint32 portid);
/* errnum > 0 is sent as -errnum; 0 is an ACK.  ext_ack may be NULL. */
struct nlmsghdr *nl_test_error (void *buf, guint32 seq, guint32 portid, int errnum,
                                const char *ext_ack);

G_END_DECLS
