/* rec-synth.c: realistic synthetic snapshots (see rec-synth.h). */
#include "config.h"

#include "rec-synth.h"

typedef struct {
  guint64 value[RTOP_METRIC_N];
} PortCounters;

struct _RecSynth {
  RecSynthOptions options;
  GRand *rand;
  guint64 sequence;
  gint64 monotonic_us;
  gint64 realtime_us;
  PortCounters *ports;         /* n_devices * ports_per_device */
};

static const char * const providers[] = { "mlx5", "efa", "rxe" };

/* Which metrics each provider has, simplified from the provider table
 * (rtop-providers.c): only efa counts RDMA read and write bytes, and rxe
 * counts neither drops nor congestion. */
static gboolean
provider_has (guint provider, RtopMetricId metric)
{
  switch (metric)
    {
    case RTOP_METRIC_RDMA_READ_BYTES:
    case RTOP_METRIC_RDMA_WRITE_BYTES:
      return provider == 1;
    case RTOP_METRIC_CONGESTION:
      return provider != 2;
    case RTOP_METRIC_DROPS:
      return provider != 2;
    default:
      return TRUE;
    }
}

char *
rec_synth_device_name (guint i)
{
  static const char * const prefixes[] = { "mlx5_", "efa_", "rxe" };

  return g_strdup_printf ("%s%u", prefixes[i % 3], i);
}

RecSynth *
rec_synth_new (const RecSynthOptions *options)
{
  RecSynth *self = g_new0 (RecSynth, 1);

  self->options = *options;
  if (self->options.ports_per_device == 0)
    self->options.ports_per_device = 1;
  if (self->options.interval_s <= 0)
    self->options.interval_s = 1.0;
  self->rand = g_rand_new_with_seed (options->seed);
  self->monotonic_us = G_GINT64_CONSTANT (5000000000);   /* an uptime of ~83 min */
  self->realtime_us = G_GINT64_CONSTANT (1767225600000000); /* 2026-01-01 UTC */
  self->ports = g_new0 (PortCounters, self->options.n_devices * self->options.ports_per_device);
  return self;
}

void
rec_synth_free (RecSynth *self)
{
  if (self == NULL)
    return;
  g_rand_free (self->rand);
  g_free (self->ports);
  g_free (self);
}

/* Bytes per second a port moves this interval. */
static double
port_bytes_per_s (RecSynth *self, guint dev, guint port)
{
  if (!(self->options.busy_all || (dev == 0 && port == 1)))
    return 0;
  /* 40-90 Gbps with some jitter. */
  return g_rand_double_range (self->rand, 40e9, 90e9) / 8;
}

static void
advance (RecSynth *self, PortCounters *pc, RtopPort *port, guint provider,
         double bytes_per_s, gboolean first)
{
  double dt = self->options.interval_s;
  guint64 delta[RTOP_METRIC_N] = { 0 };

  delta[RTOP_METRIC_TX_BYTES] = (guint64) (bytes_per_s * dt);
  delta[RTOP_METRIC_RX_BYTES] = (guint64) (bytes_per_s * 0.97 * dt);
  delta[RTOP_METRIC_TX_PACKETS] = delta[RTOP_METRIC_TX_BYTES] / 4096;
  delta[RTOP_METRIC_RX_PACKETS] = delta[RTOP_METRIC_RX_BYTES] / 4096;
  delta[RTOP_METRIC_RDMA_WRITE_BYTES] = delta[RTOP_METRIC_TX_BYTES] / 2;
  delta[RTOP_METRIC_RDMA_READ_BYTES] = delta[RTOP_METRIC_RX_BYTES] / 3;
  if (bytes_per_s > 0 && g_rand_int_range (self->rand, 0, 10) == 0)
    {
      delta[RTOP_METRIC_RETRANSMITS] = g_rand_int_range (self->rand, 1, 50);
      delta[RTOP_METRIC_TRANSPORT_ERRORS] = 1;
      delta[RTOP_METRIC_ERRORS] = 1;
      delta[RTOP_METRIC_CONGESTION] = g_rand_int_range (self->rand, 1, 500);
    }

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      RtopMetric *metric = &port->metrics[m];

      if (!provider_has (provider, m))
        continue;
      if (!first)
        pc->value[m] += delta[m];
      metric->present = TRUE;
      metric->value = pc->value[m];
      metric->has_rate = !first;
      metric->rate = first ? 0 : delta[m] / dt;
      metric->source = g_strdup ("synthetic");
    }
  port->elapsed_s = first ? 0 : dt;
}

static void
add_device (RecSynth *self, RtopSnapshot *snap, guint d, gboolean first)
{
  g_autofree char *name = rec_synth_device_name (d);
  RtopDevice *dev = rtop_device_new (d + 1, name);
  guint provider = d % 3;

  dev->provider = g_strdup (providers[provider]);
  dev->protocol = g_strdup (provider == 0 ? "ib" : "roce");
  dev->port_count = self->options.ports_per_device;
  for (guint p = 1; p <= self->options.ports_per_device; p++)
    {
      RtopPort *port = rtop_port_new (p);
      PortCounters *pc = &self->ports[d * self->options.ports_per_device + p - 1];

      port->state = 4;
      port->phys_state = 5;
      if (self->options.last_down && d + 1 == self->options.n_devices && p == 1)
        port->state = 1, port->phys_state = 3;
      port->link_layer = g_strdup (provider == 0 ? "InfiniBand" : "Ethernet");
      port->rate_gbps = 100;
      port->rate_text = g_strdup ("100 Gb/sec (4X EDR)");
      if (provider == 2)
        port->netdev = g_strdup_printf ("d%u", d);
      port->read_time_us = snap->monotonic_us + 50;
      advance (self, pc, port, provider, port_bytes_per_s (self, d, p), first);
      g_ptr_array_add (dev->ports, port);
    }
  g_ptr_array_add (snap->devices, dev);
}

static void
add_process (RtopSnapshot *snap)
{
  RtopProcess *proc = rtop_process_new (4242);
  RtopProcessDevice pd = { 0 };

  proc->start_time = 123456;
  proc->comm = g_strdup ("ib_write_bw");
  proc->cmdline = g_strdup ("ib_write_bw -d mlx5_0 --report_gbits 10.0.0.2");
  proc->user = g_strdup ("alice");
  proc->uid = 1000;
  rtop_job_set (&proc->job, RTOP_JOB_KUBERNETES, "0f7f8fa5-9d3b-4b8c-a2b5-6c9a1e9c3d21",
                "3d2ae0c5b6d4e5f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718");
  proc->state = 'S';
  pd.device = rec_synth_device_name (0);
  pd.qps = 2;
  pd.contexts = 1;
  pd.mrs = 4;
  pd.mr_bytes = 1 << 20;
  g_array_append_val (proc->devices, pd);
  proc->qps = 2;
  proc->contexts = 1;
  proc->mrs = 4;
  proc->mr_bytes = 1 << 20;
  g_ptr_array_add (snap->processes, proc);
}

static void
add_events (RecSynth *self, RtopSnapshot *snap)
{
  g_autofree char *dev0 = rec_synth_device_name (0);
  RtopEvent *event;

  if (self->sequence == 1)
    {
      event = rtop_event_new (RTOP_EVENT_DEVICE_ADDED, RTOP_SEVERITY_INFO, dev0, 0,
                              "Device mlx5_0 appeared.");
      event->monotonic_us = snap->monotonic_us;
      event->realtime_us = snap->realtime_us;
      g_ptr_array_add (snap->events, event);
    }
  if (self->sequence == 5 && self->options.n_devices > 1)
    {
      g_autofree char *dev1 = rec_synth_device_name (1);

      event = rtop_event_new (RTOP_EVENT_PORT_STATE, RTOP_SEVERITY_WARNING, dev1, 1,
                              "Port efa_1/1 went from ACTIVE to \"DOWN\".");
      event->old_value = g_strdup ("ACTIVE");
      event->new_value = g_strdup ("DOWN");
      /* As one an episode's start: the id comes back from the trace. */
      event->episode = 7;
      event->ongoing = TRUE;
      event->monotonic_us = snap->monotonic_us - 1000;
      event->realtime_us = snap->realtime_us - 1000;
      g_ptr_array_add (snap->events, event);
    }
}

RtopSnapshot *
rec_synth_next (RecSynth *self)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  gboolean first = self->sequence == 0;

  snap->sequence = ++self->sequence;
  snap->monotonic_us = self->monotonic_us;
  snap->realtime_us = self->realtime_us;
  snap->interval_s = self->options.interval_s;
  for (guint d = 0; d < self->options.n_devices; d++)
    add_device (self, snap, d, first);
  if (self->options.processes && snap->sequence >= 3 && snap->sequence <= 8)
    add_process (snap);
  if (self->options.events)
    add_events (self, snap);
  rtop_snapshot_seal (snap);

  self->monotonic_us += (gint64) (self->options.interval_s * G_USEC_PER_SEC);
  self->realtime_us += (gint64) (self->options.interval_s * G_USEC_PER_SEC);
  return snap;
}
