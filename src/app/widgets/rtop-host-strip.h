/* rtop-host-strip.h: one card per source above the overview's table when
 * several feed the window (this computer and remote hosts): its name, its
 * state (connecting, live, lost and retrying, failed) with the source's
 * reason, and its own totals or empty state ("No RDMA devices"), so that
 * one host without RDMA, or out of reach, is one card among live ones.
 * Hidden while only one source feeds the window. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-session.h"

G_BEGIN_DECLS

#define RTOP_TYPE_HOST_STRIP (rtop_host_strip_get_type ())
G_DECLARE_FINAL_TYPE (RtopHostStrip, rtop_host_strip, RTOP, HOST_STRIP, GtkBox)

void rtop_host_strip_bind (RtopHostStrip *self, RtopSession *session);
void rtop_host_strip_update (RtopHostStrip *self);
/* Sources that feed the window now. */
guint rtop_host_strip_get_n_sources (RtopHostStrip *self);
/* One "host\tNAME\tstate=...\tdetail=..." line per card (for the window's dump). */
void rtop_host_strip_dump (RtopHostStrip *self, GString *out);

G_END_DECLS
