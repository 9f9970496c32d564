/* rtop-port-text.h: how a port's fields read in every view (one table each). */
#pragma once

#include <glib.h>
#include "rtop-port-item.h"

G_BEGIN_DECLS

/* "RoCE", "InfiniBand", ... or the raw protocol string. */
const char *rtop_protocol_label (const char *protocol);
/* "Active", "Down", ... translated; "Vanished" when gone. */
const char *rtop_port_item_state_label (RtopPortItem *item);
/* CSS class for the state: state-ok, state-warn, state-bad, state-gone. */
const char *rtop_port_item_state_class (RtopPortItem *item);
/* "OK", "✖ Port not active" (an Error) or "⚠ Packet loss" (a Warning):
 * the port's verdict, by a sign and words, not colour alone. */
char *rtop_port_item_health_text (RtopPortItem *item);
/* CSS class for the verdict: state-ok, state-warn, state-bad, state-gone. */
const char *rtop_port_item_health_class (RtopPortItem *item);
/* "100 Gb/s", "Down" for a port that is not up (its rate is not live), or "—". */
char *rtop_port_item_link_text (RtopPortItem *item);
/* The overview's row name: "rxe0/1"; for GPUs "nvidia0 link 3" or
 * "nvidia0 all links". */
char *rtop_port_item_row_label (RtopPortItem *item);
/* The detail page's title: "rxe0 port 1", "nvidia0 link 3". */
char *rtop_port_item_title (RtopPortItem *item);
/* For a GPU's "all links" port, the sentence that says its throughput is
 * GPU-wide; NULL otherwise. */
const char *rtop_port_item_scope_note (RtopPortItem *item);

G_END_DECLS
