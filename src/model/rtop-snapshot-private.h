/* rtop-snapshot-private.h: what only rtop-snapshot.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* Binary search in a sorted RtopCounter* array. */
RtopCounter *rtop_counters_find (GPtrArray *counters, const char *name);



RtopProcess *rtop_snapshot_find_process (const RtopSnapshot *self, gint32 pid);


RtopCounter *rtop_counter_copy (const RtopCounter *self);

gboolean rtop_metric_id_from_string (const char *s, RtopMetricId *out);


G_END_DECLS
