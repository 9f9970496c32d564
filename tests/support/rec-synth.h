/* rec-synth.h: realistic synthetic snapshots for the recording tests, the
 * fuzz seed and the memory benchmark.
 *
 * Devices take turns between three providers with different metric sets
 * (mlx5: no RDMA byte counters; efa: RDMA read/write bytes; rxe: no
 * congestion), one port each unless asked otherwise.  Counters are
 * cumulative and rates are their deltas over the synthetic elapsed time,
 * like the collector's.  Port 1 of the first device is busy, the others
 * idle unless busy_all is set. */
#pragma once

#include "rtop-snapshot.h"

typedef struct _RecSynth RecSynth;

typedef struct {
  guint n_devices;
  guint ports_per_device;
  double interval_s;
  gboolean busy_all;           /* every port moves traffic */
  gboolean processes;          /* a process on device 0 from sample 3 to 8 */
  gboolean events;             /* a device-added and a port-state event */
  gboolean last_down;          /* the last device's port 1 is DOWN throughout */
  guint32 seed;
} RecSynthOptions;

RecSynth *rec_synth_new (const RecSynthOptions *options);
void rec_synth_free (RecSynth *self);
/* The next pass (sealed); time advances by interval_s each call. */
RtopSnapshot *rec_synth_next (RecSynth *self);
/* Device name i: the names sort naturally differently from strcmp
 * ("dev2" < "dev10"). */
char *rec_synth_device_name (guint i);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RecSynth, rec_synth_free)
