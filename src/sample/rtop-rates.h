/* rtop-rates.h: turns successive counter reads into deltas and rates.
 *
 * Per port, per counter: delta over the elapsed monotonic time of that
 * port's own read.  The first read of a counter is its baseline (no rate).
 * A 32-bit counter that wraps is handled; a counter that otherwise goes
 * backwards, or a device whose kernel index changed (removed and re-added,
 * driver reloaded), is a reset: no spike, no negative rate, a new baseline. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct _RtopRates RtopRates;

RtopRates *rtop_rates_new (void);
void rtop_rates_free (RtopRates *self);

/* Marks the start of a pass: state of ports not seen until end_pass is dropped. */
void rtop_rates_begin_pass (RtopRates *self);

/* Fills delta, rate, has_rate and reset of every RtopCounter in counters,
 * which were read at read_time_us (monotonic).  port 0 is the device level.
 * Returns the seconds elapsed since this port's previous read, 0 for the
 * first.  *n_resets (may be NULL) counts counters that reset. */
double rtop_rates_update (RtopRates *self, const char *device, guint32 dev_index,
                          guint32 port, gint64 read_time_us, GPtrArray *counters,
                          guint *n_resets);

/* The same for counters whose layout id (RtopPort.counter_layout) is
 * known: while it stays the same, each counter's state is the one at its
 * position, found without comparing names.  0 means unknown. */
double rtop_rates_update_layout (RtopRates *self, const char *device, guint32 dev_index,
                                 guint32 port, gint64 read_time_us, guint64 layout,
                                 GPtrArray *counters, guint *n_resets);

/* Keeps a port's state through a pass in which its read failed, so the next
 * good read measures over the whole gap instead of restarting. */
void rtop_rates_keep (RtopRates *self, const char *device, guint32 port);

void rtop_rates_end_pass (RtopRates *self);

/* The delta from prev to cur, and whether it was a reset. Exposed for tests. */
gboolean rtop_rates_delta (guint64 prev, guint64 cur, guint64 *delta);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopRates, rtop_rates_free)

G_END_DECLS
