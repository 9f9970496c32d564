/* rtop-providers-private.h: what only rtop-providers.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-providers.h"

G_BEGIN_DECLS

/* Class of a counter for health rules. */
RtopCounterClass rtop_provider_classify (const char *provider, const char *counter);


/* The whole table, for docs and tests. */
const RtopProviderRule *rtop_provider_rules (guint *n_rules);

G_END_DECLS
