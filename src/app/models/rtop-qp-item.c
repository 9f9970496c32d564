/* rtop-qp-item.c: one queue pair of a process, as a process page shows it. */
#include "config.h"

#include "rtop-qp-item.h"

struct _RtopQpItem {
  GObject parent_instance;

  RtopQp qp;                 /* device owned: a copy */
  char *location;
};

G_DEFINE_FINAL_TYPE (RtopQpItem, rtop_qp_item, G_TYPE_OBJECT)

static void
rtop_qp_item_finalize (GObject *object)
{
  RtopQpItem *self = RTOP_QP_ITEM (object);

  g_free ((char *) self->qp.device);
  g_free ((char *) self->qp.peer_addr);
  g_free (self->location);
  G_OBJECT_CLASS (rtop_qp_item_parent_class)->finalize (object);
}

static void
rtop_qp_item_class_init (RtopQpItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_qp_item_finalize;
}

static void
rtop_qp_item_init (RtopQpItem *self)
{
}

RtopQpItem *
rtop_qp_item_new (const RtopQp *qp)
{
  RtopQpItem *self = g_object_new (RTOP_TYPE_QP_ITEM, NULL);

  self->qp = *qp;
  self->qp.device = g_strdup (qp->device != NULL ? qp->device : "");
  self->qp.peer_addr = g_strdup (qp->peer_addr);
  self->location = qp->port != 0 ? g_strdup_printf ("%s/%u", self->qp.device, qp->port)
                                 : g_strdup (self->qp.device);
  return self;
}



const char *
rtop_qp_item_get_location (RtopQpItem *self)
{
  return self->location;
}

guint32
rtop_qp_item_get_qpn (RtopQpItem *self)
{
  return self->qp.lqpn;
}

const char *
rtop_qp_item_get_type_name (RtopQpItem *self)
{
  return rtop_qp_type_to_string (self->qp.type);
}

const char *
rtop_qp_item_get_state_name (RtopQpItem *self)
{
  return rtop_qp_state_to_string (self->qp.state);
}

gboolean
rtop_qp_item_get_peer_qpn (RtopQpItem *self, guint32 *qpn)
{
  if (qpn != NULL)
    *qpn = self->qp.rqpn;
  return self->qp.has_rqpn;
}

const char *
rtop_qp_item_get_peer_addr (RtopQpItem *self)
{
  return self->qp.peer_addr;
}

gboolean
rtop_qp_item_get_in_error (RtopQpItem *self)
{
  return self->qp.state == RTOP_QP_STATE_ERR;
}

gboolean
rtop_qp_item_equals (RtopQpItem *self, const RtopQp *qp)
{
  return self->qp.lqpn == qp->lqpn && self->qp.port == qp->port &&
         self->qp.rqpn == qp->rqpn && self->qp.has_rqpn == qp->has_rqpn &&
         self->qp.type == qp->type && self->qp.state == qp->state &&
         g_strcmp0 (self->qp.device, qp->device) == 0 &&
         g_strcmp0 (self->qp.peer_addr, qp->peer_addr) == 0;
}
