/* rtop-sampler.h: runs collector passes on a worker thread at a fixed period
 * (no drift from the pass's own cost) and delivers each immutable snapshot
 * with the "snapshot" signal on the GMainContext that was the thread-default
 * when rtop_sampler_start() was called.  The caller's thread never touches
 * netlink, sysfs or /proc. */
#pragma once

#include <glib-object.h>
#include "rtop-collector.h"
#include "rtop-source.h"

G_BEGIN_DECLS

#define RTOP_SAMPLER_MIN_INTERVAL 0.1
#define RTOP_SAMPLER_MAX_INTERVAL 60.0

#define RTOP_TYPE_SAMPLER (rtop_sampler_get_type ())
G_DECLARE_FINAL_TYPE (RtopSampler, rtop_sampler, RTOP, SAMPLER, GObject)

/* options are copied. */
RtopSampler *rtop_sampler_new (const RtopCollectorOptions *options);
/* Clamped to [0.1, 60]; takes effect at the next period. Property "interval". */
void rtop_sampler_set_interval (RtopSampler *self, double seconds);
/* Starts the worker; the first pass runs at once.  If the collector cannot be
 * created, a snapshot with status NO_NETLINK/PERMISSION is delivered and the
 * worker retries every interval. */
void rtop_sampler_start (RtopSampler *self);
/* Stops and joins the worker; no signal is emitted after it returns. */
void rtop_sampler_stop (RtopSampler *self);

/* An RtopSource: the "snapshot" signal, and "name" ("This computer"),
 * "state" (connecting after start, running from the first delivery,
 * stopped after stop) and "error" (the newest snapshot's status message
 * while collection fails; the sampler keeps retrying). */

G_END_DECLS
