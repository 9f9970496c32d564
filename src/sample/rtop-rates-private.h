/* rtop-rates-private.h: what only rtop-rates.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-rates.h"

G_BEGIN_DECLS

guint rtop_rates_get_n_ports (RtopRates *self);


G_END_DECLS
