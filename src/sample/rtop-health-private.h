/* rtop-health-private.h: what only rtop-health.c, rtop-health-rules.c,
 * rtop-health-rails.c and the tests use (test hooks, and internals the tests check). */
#pragma once

#include "rtop-health.h"

G_BEGIN_DECLS

/* Severity of a rising counter of this class (the classification table). */
RtopSeverity rtop_health_class_severity (RtopCounterClass klass);

/* Whether counters of this class make episodes. */
gboolean rtop_health_class_is_watched (RtopCounterClass klass);

/* Rails that move together (the ports one job's queue pairs use, or those
 * a host's RDMA processes use when no job is known): a port whose throughput stays
 * below low_share of its peers' median for confirm_us is a Warning, an
 * episode that ends once it has been at recover_share or more for
 * recover_us (the band between is hysteresis).  Peers whose median is below
 * min_peer_bytes_s are idle, and nothing is judged. */
typedef struct {
  double min_peer_bytes_s;
  double low_share, recover_share;
  gint64 confirm_us, recover_us;
} ImbalanceRule;

extern const ImbalanceRule rtop_health_imbalance_rule;

/* "4 s", "3 min 20 s", "2 h 5 min": how long an episode lasted. */
char *rtop_health_format_duration (gint64 usec);

G_END_DECLS
