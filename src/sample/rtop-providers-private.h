/* rtop-providers-private.h: what only rtop-providers.c, rtop-providers-plan.c
 * and the tests use (test hooks, and internals the tests check). */
#pragma once

#include "rtop-providers.h"

G_BEGIN_DECLS

/* Class of a counter for health rules. */
RtopCounterClass rtop_provider_classify (const char *provider, const char *counter);


/* The whole table, for docs and tests. */
const RtopProviderRule *rtop_provider_rules (guint *n_rules);

/* The provider of a generic row, one every provider of its kind has. */
#define RTOP_PROVIDER_ANY "*"

/* The row of a provider's counter read from source, or NULL: the provider's
 * own row wins over a generic one.  any_source ignores where the counter was
 * read (for rtop_provider_classify(), which is not told). */
const RtopProviderRule *rtop_provider_find_rule (const char *provider, const char *counter,
                                                 RtopCounterSource source, gboolean any_source);

/* The class of a counter outside the table, guessed from its name. */
RtopCounterClass rtop_provider_classify_by_pattern (const char *counter);

G_END_DECLS
