/* rtop-port-item.h: one device port as the UI sees it: identity, state,
 * newest rates, 60 minutes of history and the counters table.  Updated in
 * place by RtopHistory, so rows and graphs bound to it stay put. */
#pragma once

#include <gio/gio.h>
#include "rtop-snapshot.h"
#include "rtop-series.h"

G_BEGIN_DECLS

/* The channels of a port's series.  Throughput is in bits/s. */
typedef enum {
  RTOP_PORT_CH_TX_BPS,
  RTOP_PORT_CH_RX_BPS,
  RTOP_PORT_CH_TX_PPS,
  RTOP_PORT_CH_RX_PPS,
  RTOP_PORT_CH_READ_BPS,     /* RDMA read bytes/s */
  RTOP_PORT_CH_WRITE_BPS,    /* RDMA write bytes/s */
  RTOP_PORT_CH_RETRANS,
  RTOP_PORT_CH_DROPS,
  RTOP_PORT_CH_ERRORS,
  RTOP_PORT_CH_CONGESTION,   /* CNPs sent and handled, ECN marks */
  RTOP_PORT_CH_N
} RtopPortChannel;

#define RTOP_TYPE_PORT_ITEM (rtop_port_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopPortItem, rtop_port_item, RTOP, PORT_ITEM, GObject)

/* host: as a remote source names it, NULL for this computer. */
RtopPortItem *rtop_port_item_new (const char *host, const char *device, guint32 port,
                                  guint capacity);
/* "rxe0/1" here, "node1:rxe0/1" on a remote host. */
char *rtop_port_item_key_for (const char *host, const char *device, guint32 port);
/* Emits "updated". */
void rtop_port_item_update (RtopPortItem *self, const RtopSnapshot *snapshot,
                            const RtopDevice *device, const RtopPort *port);
void rtop_port_item_set_vanished (RtopPortItem *self);
/* Its host went out of reach: no rates until it is back. */
void rtop_port_item_set_offline (RtopPortItem *self);

const char *rtop_port_item_get_host (RtopPortItem *self);   /* NULL: this computer */
const char *rtop_port_item_get_device (RtopPortItem *self);
guint32 rtop_port_item_get_port (RtopPortItem *self);
const char *rtop_port_item_get_key (RtopPortItem *self);   /* "rxe0/1", "node1:rxe0/1" */
const char *rtop_port_item_get_provider (RtopPortItem *self);
const char *rtop_port_item_get_protocol (RtopPortItem *self);
const char *rtop_port_item_get_netdev (RtopPortItem *self);
const char *rtop_port_item_get_error (RtopPortItem *self);
const char *rtop_port_item_get_fw_version (RtopPortItem *self);
const char *rtop_port_item_get_node_guid (RtopPortItem *self);
/* A GPU interconnect port (rtop-snapshot.h): port 0 is the GPU's "all
 * links" port, whose throughput is a GPU-wide total; port N is link N - 1. */
gboolean rtop_port_item_get_is_gpu (RtopPortItem *self);
gboolean rtop_port_item_get_is_all_links (RtopPortItem *self);
const char *rtop_port_item_get_remote (RtopPortItem *self);   /* the link's other end, or NULL */
const char *rtop_port_item_get_gpu_text (RtopPortItem *self); /* the GPU's gauges, or NULL */
/* The link rate while the port is up; 0 when it is not (a Down port's
 * rate is not live), or unknown. */
double rtop_port_item_get_link_gbps (RtopPortItem *self);
/* An Active port with its physical link up. */
gboolean rtop_port_item_get_link_up (RtopPortItem *self);
guint8 rtop_port_item_get_state (RtopPortItem *self);
gboolean rtop_port_item_get_vanished (RtopPortItem *self);
/* Newest per-second rate of a channel; NAN when there is none. */
double rtop_port_item_get_rate (RtopPortItem *self, RtopPortChannel channel);
/* The provider reports the metrics behind this channel. */
gboolean rtop_port_item_has_channel (RtopPortItem *self, RtopPortChannel channel);
const char *rtop_port_item_get_channel_source (RtopPortItem *self, RtopPortChannel channel);
/* max(tx, rx) / link rate; NAN when the link rate is unknown. */
double rtop_port_item_get_utilisation (RtopPortItem *self);
/* The verdict and why (translated, NULL when OK).  A vanished port is OK:
 * it is gone, not in trouble. */
RtopPortHealth rtop_port_item_get_health (RtopPortItem *self, const char **reason);
RtopSeries *rtop_port_item_get_series (RtopPortItem *self);
GListModel *rtop_port_item_get_counters (RtopPortItem *self);

G_END_DECLS
