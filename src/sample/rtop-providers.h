/* rtop-providers.h: the one table that maps each provider's counter names to
 * canonical metrics and health classes: drivers name and scale the same
 * count differently (the PMA's port_xmit_data counts 4-byte words, efa's
 * tx_bytes counts bytes), so only the table knows both are bytes sent.
 * Counters that are not in the table keep their raw name and
 * RTOP_COUNTER_CLASS_INFO (or a class guessed from a small suffix table:
 * *_err, *_errors, *drop*). */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  const char *provider;      /* "mlx5", "efa", ... or "*" for any provider */
  const char *counter;       /* kernel counter name */
  RtopCounterSource source;  /* where that name is found */
  RtopMetricId metric;       /* RTOP_METRIC_N when it feeds no metric */
  guint32 scale;             /* multiply raw values by this (port_xmit_data: 4) */
  RtopCounterClass klass;
  gboolean optional;         /* off unless an administrator turns it on: the provider
                                cannot be counted on to have it */
} RtopProviderRule;

/* "mlx5", "efa", "erdma", "rxe", "bnxt_re", "irdma", "hns", "mana", "siw",
 * "qedr", "ionic", or "unknown" (also "mlx4", "hfi1", "qib", "cxgb4",
 * "pvrdma", which have no rows of their own). driver may be NULL (rxe has
 * no device link); a driver name is matched up to its first '.', so the
 * auxiliary-bus form "mlx5_ib.rdma" works too.  The driver decides; the
 * device name prefix is the fallback (devices can be renamed). */
const char *rtop_provider_detect (const char *dev_name, const char *driver);
/* Fills port->metrics from port->counters (which already carry delta/rate/
 * has_rate) and sets each counter's klass. Sum metrics (drops, errors) add
 * the rates of their parts; a metric has_rate only when all parts have. When
 * a provider has no byte counters (rxe), netdev counters are used and the
 * source says so. */
void rtop_provider_apply (const char *provider, RtopPort *port);

/* What rtop_provider_apply() decides from the counters' names and sources
 * alone: each counter's class, which counters (by position) make each
 * metric, and the metrics' source texts.  A caller whose counters keep their
 * names, sources and order from pass to pass (the collector) makes the plan
 * once and runs it every pass, without table lookups or string building. */
typedef struct _RtopProviderPlan RtopProviderPlan;

/* counters: sorted like a port's (rtop_counters_sort()); only names and
 * sources are read.  netdev names the netdev in source texts. */
RtopProviderPlan *rtop_provider_plan_new (const char *provider, GPtrArray *counters,
                                          const char *netdev);
void rtop_provider_plan_free (RtopProviderPlan *plan);
/* rtop_provider_apply() for a port whose counters match the plan's (same
 * number, names, sources and order).  With borrow_sources the metrics'
 * source strings point into the plan, which must then outlive the port and
 * the port must not free them (see rtop_port_set_shared()). */
void rtop_provider_plan_run (const RtopProviderPlan *plan, RtopPort *port,
                             gboolean borrow_sources);

/* The parts of metric m in a plan: the n-th is the counter at *index (a
 * position in the port's counters) times *scale.  FALSE past the last part;
 * ERRORS has none of its own (it is the sum of the three error metrics). */
/* The number of counters the plan was made for. */
guint rtop_provider_plan_get_n_counters (const RtopProviderPlan *plan);
gboolean rtop_provider_plan_get_part (const RtopProviderPlan *plan, RtopMetricId m, guint n,
                                      guint *index, guint32 *scale);

/* Added by the providers owner (the functions above keep their meaning). */

/* Sets klass on each counter of an array (device-level counters, which
 * rtop_provider_apply does not see), matching rows on name and source. */
void rtop_provider_classify_counters (const char *provider, GPtrArray *counters);

/* TRUE when the provider's own rows include byte counters it always has
 * (optional rows, which an administrator may leave off, do not count).  When FALSE and
 * the port has no PMA counters/ directory, read the attached netdev's
 * statistics (RTOP_COUNTER_SOURCE_NETDEV): rtop_provider_apply uses them
 * only for metrics nothing better provides. */
gboolean rtop_provider_has_byte_counters (const char *provider);
/* TRUE when the provider's own rows, optional ones aside, feed this metric. */
gboolean rtop_provider_has_metric (const char *provider, RtopMetricId metric);

/* TRUE for a counter that a port counts when its peer's packets were
 * lost on the way to it: the responder's out-of-sequence and duplicate
 * requests.  The loss belongs to the sender, whose own counters
 * (retransmits, sequence-error NAKs received, ack timeouts) carry it; these
 * feed no metric and do not make the receiving port unhealthy. */
gboolean rtop_provider_is_peer_loss (const char *provider, const RtopCounter *counter);

G_END_DECLS
