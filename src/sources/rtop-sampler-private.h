/* rtop-sampler-private.h: what only rtop-sampler.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-sampler.h"

G_BEGIN_DECLS

double rtop_sampler_get_interval (RtopSampler *self);

/* The newest snapshot delivered so far (transfer none), or NULL. */
RtopSnapshot *rtop_sampler_get_latest (RtopSampler *self);

gboolean rtop_sampler_is_running (RtopSampler *self);

/* Asks for a pass now (e.g. the user pressed Refresh). */
void rtop_sampler_refresh (RtopSampler *self);

G_END_DECLS
