/* gui-fixtures.h: snapshots for the GUI tests and benchmark, built with the
 * rtop-snapshot.h builders the collector and the recording reader use. */
#pragma once

#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  const char *device;
  guint32 port;
  const char *provider;      /* "rxe", "mlx5", "efa" */
  const char *protocol;      /* "roce", "ib", ... */
  guint8 state;              /* 4 = ACTIVE */
  double link_gbps;
  double tx_bps, rx_bps;     /* bits per second */
  double tx_pps, rx_pps;
  double drops, retrans, errors;   /* per second */
  gboolean rdma;             /* has RDMA read/write byte metrics */
} GuiPortSpec;

/* A sealed snapshot with these ports; sequence numbers the pass (rates are
 * "has_rate" from the second on, like the collector's), time is
 * start + sequence * interval. */
RtopSnapshot *gui_fixture_snapshot (guint64 sequence, double interval_s,
                                    const GuiPortSpec *ports, guint n_ports);
/* Adds a process using one device (before sealing: call on an unsealed one). */
RtopProcess *gui_fixture_add_process (RtopSnapshot *snapshot, gint32 pid, const char *comm,
                                      const char *user, const char *device,
                                      guint32 qps, guint32 mrs, guint64 mr_bytes);
RtopEvent *gui_fixture_add_event (RtopSnapshot *snapshot, RtopSeverity severity,
                                  const char *device, guint32 port, const char *message);
/* Base of the fixture clock (monotonic us). */
#define GUI_FIXTURE_T0 (G_GINT64_CONSTANT (1000) * G_USEC_PER_SEC)

G_END_DECLS
