/* stream-synth.h: snapshots as the collector makes them, for the stream's
 * tests, its fuzz seeds and its benchmark.
 *
 * Raw counter values of rxe and mlx5 ports move by random amounts (with
 * 32-bit wraps and resets now and then), and the collector's own code
 * (rtop-rates.c, rtop-providers.c) turns them into deltas, rates and
 * metrics, so the stream is tested against the numbers it will really
 * carry.  Devices come and go, processes start and exit, events are
 * raised, and a pass can fail as a whole (no RDMA netlink). */
#pragma once

#include "rtop-snapshot.h"

typedef struct _StreamSynth StreamSynth;

typedef struct {
  guint n_devices;             /* rxe0.. and mlx5_N.., alternating */
  guint ports_per_device;
  gboolean busy;               /* every port moves traffic */
  gboolean churn;              /* devices come and go, counters reset, passes fail */
  gboolean processes;
  gboolean events;
  guint32 seed;
} StreamSynthOptions;

StreamSynth *stream_synth_new (const StreamSynthOptions *options);
void stream_synth_free (StreamSynth *self);
/* The next pass, one second after the last (sealed). */
RtopSnapshot *stream_synth_next (StreamSynth *self);

/* Compares every field; processes as the stream shows them without
 * --processes when !shared. */
void stream_synth_assert_equal (const RtopSnapshot *expected, const RtopSnapshot *got,
                                gboolean shared);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (StreamSynth, stream_synth_free)
