/* rtop-history.h: the model layer between snapshots and widgets.
 *
 * Ingests immutable snapshots on the main thread and keeps list models that
 * the views bind to: ports (natural order; vanished ones stay, marked), the
 * processes using RDMA, and a bounded log of health events (newest first).
 * No widgets here, so it is tested without a window. */
#pragma once

#include <gio/gio.h>
#include "rtop-snapshot.h"
#include "rtop-port-item.h"

G_BEGIN_DECLS

#define RTOP_HISTORY_MAX_EVENTS 10000
/* The ranked list of recent events keeps this many. */
#define RTOP_HISTORY_RECENT_MAX 50

typedef struct {
  guint n_devices;
  guint n_ports;
  guint n_active;
  guint n_vanished;
  guint n_problem_ports;     /* ports whose verdict is not OK */
  guint n_error_ports;       /* ... of them Error (down, failed, errors rising) */
  guint n_warning_ports;     /* ... Warning (loss) */
  double tx_bps, rx_bps;     /* sums over RDMA ports with a rate (not GPU links) */
  double tx_pps, rx_pps;
  double errors_ps;          /* errors + drops + retransmits per second; counts one loss
                                at several places: the problems summary is the count */
} RtopTotals;

#define RTOP_TYPE_HISTORY (rtop_history_get_type ())
G_DECLARE_FINAL_TYPE (RtopHistory, rtop_history, RTOP, HISTORY, GObject)

RtopHistory *rtop_history_new (void);
/* Takes what it needs from the snapshot (kept as "latest").  Emits "updated". */
void rtop_history_ingest (RtopHistory *self, RtopSnapshot *snapshot);
/* Forgets everything (e.g. before replaying a recording). */
void rtop_history_reset (RtopHistory *self);
/* Keep at least this many samples per port (a replayed recording's whole
 * length); 0: as many as an hour at the sampling interval. */
void rtop_history_set_min_capacity (RtopHistory *self, guint samples);

GListModel *rtop_history_get_ports (RtopHistory *self);      /* RtopPortItem */
GListModel *rtop_history_get_processes (RtopHistory *self);  /* RtopProcessItem */
/* RtopEventItem, newest first.  An episode is one item, updated in place
 * (its "updated" signal, and items-changed at its position) when it is
 * completed. */
GListModel *rtop_history_get_events (RtopHistory *self);
/* RtopEventItem, at most RTOP_HISTORY_RECENT_MAX: by severity, then the
 * newest (start or completion) first, so that an Error stays in a short
 * list while Info and Warning come and go. */
GListModel *rtop_history_get_recent_events (RtopHistory *self);
/* "No problems", or "2 ports in trouble: rxe0/1 (Port not active),
 * rxe1/1 (Packet loss)" (translated, names the first few). */
char *rtop_history_dup_problems_text (RtopHistory *self);
/* The ports in trouble, Errors first, as RtopPortItem (transfer none; valid
 * until the next ingest). */
GPtrArray *rtop_history_get_problem_ports (RtopHistory *self);
RtopPortItem *rtop_history_find_port_by_key (RtopHistory *self, const char *key);
void rtop_history_get_totals (RtopHistory *self, RtopTotals *totals);

/* Device names ever seen, natural order, NULL-terminated (for filters).
 * Signal "devices-changed" when a name is added. */
const char * const *rtop_history_get_device_names (RtopHistory *self);
RtopSnapshot *rtop_history_get_latest (RtopHistory *self);   /* transfer none, may be NULL */

/* Hosts: every snapshot says where it was taken (RtopSnapshot.host, NULL
 * for this computer).  Ports, processes and events are kept per host (keys
 * "node1:rxe0/1"), a snapshot marks only its own host's ports vanished, and
 * the totals above are over all hosts. */
guint rtop_history_get_n_hosts (RtopHistory *self);
/* Whether a host within reach has an RDMA device now (what Record needs). */
gboolean rtop_history_has_devices (RtopHistory *self);
/* The i-th host, in the order they first sent (NULL: this computer). */
const char *rtop_history_get_host_name (RtopHistory *self, guint i);
/* The newest snapshot from host (transfer none), NULL before its first. */
RtopSnapshot *rtop_history_get_host_latest (RtopHistory *self, const char *host);
/* FALSE (and zeros) when nothing came from host yet. */
gboolean rtop_history_get_host_totals (RtopHistory *self, const char *host, RtopTotals *totals);
/* host is out of reach (lost, failed, stopped): its ports keep their
 * history but show no rates, its processes are not listed, until its next
 * snapshot.  Emits "updated". */
void rtop_history_set_host_offline (RtopHistory *self, const char *host);
/* host is no longer watched: its ports and processes go (its events stay). */
void rtop_history_forget_host (RtopHistory *self, const char *host);

G_END_DECLS
