/* rtop-providers-private.h: what only rtop-providers.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-providers.h"

G_BEGIN_DECLS

/* Class of a counter for health rules. */
RtopCounterClass rtop_provider_classify (const char *provider, const char *counter);

/* Fills port->metrics from port->counters (which already carry delta/rate/
 * has_rate) and sets each counter's klass. Sum metrics (drops, errors) add
 * the rates of their parts; a metric has_rate only when all parts have. When
 * a provider has no byte counters (rxe), netdev counters are used and the
 * source says so. */
void rtop_provider_apply (const char *provider, RtopPort *port);

/* The number of counters the plan was made for. */
guint rtop_provider_plan_get_n_counters (const RtopProviderPlan *plan);

/* The whole table, for docs and tests. */
const RtopProviderRule *rtop_provider_rules (guint *n_rules);

G_END_DECLS
