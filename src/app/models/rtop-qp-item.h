/* rtop-qp-item.h: one queue pair of a process, as a process page shows it
 * (immutable: a changed QP list makes new items). */
#pragma once

#include <glib-object.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_TYPE_QP_ITEM (rtop_qp_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopQpItem, rtop_qp_item, RTOP, QP_ITEM, GObject)

/* The QP is copied (its device name too). */
RtopQpItem *rtop_qp_item_new (const RtopQp *qp);
/* "rxe0/1", or "rxe0" for a QP not bound to a port yet. */
const char *rtop_qp_item_get_location (RtopQpItem *self);
guint32 rtop_qp_item_get_qpn (RtopQpItem *self);
/* "RC", "UD", ... and "RTS", "ERR", ... as `rdma res show qp` writes them. */
const char *rtop_qp_item_get_type_name (RtopQpItem *self);
const char *rtop_qp_item_get_state_name (RtopQpItem *self);
/* The peer QP number; FALSE when the kernel reports none (UD, unconnected). */
gboolean rtop_qp_item_get_peer_qpn (RtopQpItem *self, guint32 *qpn);
/* "192.0.2.2:18515" where rdma_cm connected the QP; NULL when the kernel
 * names no address (a QP connected without rdma_cm, UD). */
const char *rtop_qp_item_get_peer_addr (RtopQpItem *self);
gboolean rtop_qp_item_get_in_error (RtopQpItem *self);
/* TRUE when the item shows this QP as it is. */
gboolean rtop_qp_item_equals (RtopQpItem *self, const RtopQp *qp);

G_END_DECLS
