/* rtop-rates-private.h: what only rtop-rates.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-rates.h"

G_BEGIN_DECLS

guint rtop_rates_get_n_ports (RtopRates *self);

/* The delta from prev to cur, and whether it was a reset. Exposed for tests. */
gboolean rtop_rates_delta (guint64 prev, guint64 cur, guint64 *delta);

G_END_DECLS
