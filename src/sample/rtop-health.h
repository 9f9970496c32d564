/* rtop-health.h: turns successive snapshots into health events and
 * per-port health verdicts.
 *
 * Device added/removed/renamed, port state, physical state, link rate and
 * netdev changes, counter resets and collection errors are one event each.
 * Counters that rise are episodes: one event when a rise is confirmed
 * (rising in two passes within the settle time, or at once for error
 * classes), completed in place (the same episode id) when the counters
 * have been quiet for the settle time, with how long, how much and the
 * peak rate.  An Active port that goes down is one Error episode that
 * folds in what follows from it (state, physical state, rate, counters)
 * until it is Active again.  A queue pair that enters the error state is
 * an event naming its process. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct _RtopHealth RtopHealth;

RtopHealth *rtop_health_new (void);
void rtop_health_free (RtopHealth *self);

/* Compares snap (sealed or not, counters carrying delta/reset) with what was
 * seen before, appends events to snap->events and sets each port's health
 * and health_reason.  The first call records the baseline and raises only
 * collection errors. */
void rtop_health_process (RtopHealth *self, RtopSnapshot *snap);

/* What a port's state alone says, and, with with_counters, what its
 * metrics and counters' rises in this one pass say (for snapshots no
 * RtopHealth saw, such as a recording's).  reason: translated static text,
 * NULL when OK. */
RtopPortHealth rtop_health_port_verdict (const char *provider, const RtopPort *port,
                                         gboolean with_counters, const char **reason);
/* An Active port with its physical link up (or not reported). */
gboolean rtop_health_port_is_up (const RtopPort *port);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopHealth, rtop_health_free)

G_END_DECLS
