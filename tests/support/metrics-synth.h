/* metrics-synth.h: snapshots for the exporter's tests, built from counter
 * values and passed through the collector's own rates, provider table and
 * health code, as a live pass is. */
#pragma once

#include "rtop-health.h"
#include "rtop-rates.h"
#include "rtop-snapshot.h"

typedef struct {
  RtopRates *rates;
  RtopHealth *health;
  guint64 sequence;
} MetricsSynth;

typedef struct {
  const char *name;
  RtopCounterSource source;
  guint64 value;
} SynthCounter;

MetricsSynth *metrics_synth_new (void);
void metrics_synth_free (MetricsSynth *self);

/* A device of provider with no ports yet, added to snap. */
RtopDevice *synth_device (RtopSnapshot *snap, const char *name, guint32 index,
                          const char *provider);
/* An ACTIVE / LINK_UP port with these counters. */
RtopPort *synth_port (RtopDevice *dev, guint32 index, const SynthCounter *counters, guint n);

/* Runs rates (read at t seconds), the provider table and health over every
 * port, and seals the snapshot. */
void metrics_synth_finish (MetricsSynth *self, RtopSnapshot *snap, double t);

/* n_ports ports of mlx5-like devices (one port each, about fifty counters:
 * netlink hw counters and sysfs PMA counters) whose values grow with pass;
 * the first port is busy, the rest idle. */
RtopSnapshot *synth_mlx5_fleet (MetricsSynth *self, guint n_ports, guint pass, double t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MetricsSynth, metrics_synth_free)
