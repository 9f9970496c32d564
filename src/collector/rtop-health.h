/* rtop-health.h: turns successive snapshots into health events.
 *
 * Device added/removed/renamed, port added/removed, state, physical state,
 * link rate and netdev changes, error/drop/retransmit counters that start
 * (and stop) increasing, counter resets, and collection errors.  A condition
 * raises one event when it starts and one when it ends, never one per pass. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct _RtopHealth RtopHealth;

RtopHealth *rtop_health_new (void);
void rtop_health_free (RtopHealth *self);

/* Compares snap (sealed or not, counters carrying delta/reset) with what was
 * seen before and appends events to snap->events.  The first call records
 * the baseline and raises only collection errors. */
void rtop_health_process (RtopHealth *self, RtopSnapshot *snap);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopHealth, rtop_health_free)

G_END_DECLS
