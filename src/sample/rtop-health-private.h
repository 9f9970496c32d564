/* rtop-health-private.h: what only rtop-health.c, rtop-health-rules.c and
 * the tests use (test hooks, and internals the tests check). */
#pragma once

#include "rtop-health.h"

G_BEGIN_DECLS

/* Severity of a rising counter of this class (the classification table). */
RtopSeverity rtop_health_class_severity (RtopCounterClass klass);

/* Whether counters of this class make episodes. */
gboolean rtop_health_class_is_watched (RtopCounterClass klass);

G_END_DECLS
