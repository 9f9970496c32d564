/* stream-synth.c: collector-like snapshots (see stream-synth.h). */
#include "config.h"

#include <string.h>

#include "rtop-health.h"
#include "rtop-providers.h"
#include "rtop-rates.h"
#include "stream-synth.h"

#define MAX_COUNTERS 24

typedef struct {
  const char *name;
  RtopCounterSource source;
  guint busy_step;          /* typical increase per second when busy (0: an error counter) */
} CounterSpec;

/* What rdmatop reads from a Soft-RoCE port (hw counters and the netdev's)
 * and from a ConnectX port (PMA counters and hw counters). */
static const CounterSpec rxe_counters[] = {
  { "ack_deferred", RTOP_COUNTER_SOURCE_NETLINK, 3 },
  { "completer_retry_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "duplicate_request", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "link_downed", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "out_of_seq_request", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "rcvd_pkts", RTOP_COUNTER_SOURCE_NETLINK, 90000 },
  { "rcvd_rnr_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "rcvd_seq_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "rdma_recvs", RTOP_COUNTER_SOURCE_NETLINK, 40 },
  { "rdma_sends", RTOP_COUNTER_SOURCE_NETLINK, 40 },
  { "retry_exceeded_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "retry_rnr_exceeded_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "rx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 95000000 },
  { "rx_packets", RTOP_COUNTER_SOURCE_NETDEV, 90000 },
  { "send_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "send_rnr_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "sent_pkts", RTOP_COUNTER_SOURCE_NETLINK, 90000 },
  { "tx_bytes", RTOP_COUNTER_SOURCE_NETDEV, 95000000 },
  { "tx_packets", RTOP_COUNTER_SOURCE_NETDEV, 90000 },
};

static const CounterSpec mlx5_counters[] = {
  { "link_downed", RTOP_COUNTER_SOURCE_SYSFS_PORT, 0 },
  { "local_ack_timeout_err", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "np_cnp_sent", RTOP_COUNTER_SOURCE_NETLINK, 5 },
  { "out_of_buffer", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "out_of_sequence", RTOP_COUNTER_SOURCE_NETLINK, 0 },
  { "port_rcv_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, 300000000 },
  { "port_rcv_errors", RTOP_COUNTER_SOURCE_SYSFS_PORT, 0 },
  { "port_rcv_packets", RTOP_COUNTER_SOURCE_SYSFS_PORT, 2400000 },
  { "port_xmit_data", RTOP_COUNTER_SOURCE_SYSFS_PORT, 300000000 },
  { "port_xmit_packets", RTOP_COUNTER_SOURCE_SYSFS_PORT, 2400000 },
  { "rp_cnp_handled", RTOP_COUNTER_SOURCE_NETLINK, 5 },
  { "rx_read_requests", RTOP_COUNTER_SOURCE_NETLINK, 1000 },
  { "rx_write_requests", RTOP_COUNTER_SOURCE_NETLINK, 300000 },
  { "symbol_error", RTOP_COUNTER_SOURCE_SYSFS_PORT, 0 },
};

typedef struct {
  guint64 values[MAX_COUNTERS];
  gboolean present;
  guint32 index;            /* the kernel's device index: a re-added device gets a new one */
} DeviceState;

struct _StreamSynth {
  StreamSynthOptions options;
  GRand *rand;
  RtopRates *rates;
  RtopHealth *health;
  guint64 sequence;
  gint64 monotonic_us;
  gint64 realtime_us;
  DeviceState *devices;     /* n_devices * ports_per_device value sets, one per port */
  guint32 next_index;
  GPtrArray *procs;         /* RtopProcess* alive now */
  gint32 next_pid;
};

StreamSynth *
stream_synth_new (const StreamSynthOptions *options)
{
  StreamSynth *self = g_new0 (StreamSynth, 1);

  self->options = *options;
  if (self->options.ports_per_device == 0)
    self->options.ports_per_device = 1;
  self->rand = g_rand_new_with_seed (options->seed);
  self->rates = rtop_rates_new ();
  self->health = rtop_health_new ();
  self->monotonic_us = G_GINT64_CONSTANT (5000000000);
  self->realtime_us = G_GINT64_CONSTANT (1767225600000000);
  self->devices = g_new0 (DeviceState, self->options.n_devices * self->options.ports_per_device);
  for (guint i = 0; i < self->options.n_devices; i++)
    {
      self->devices[i * self->options.ports_per_device].present = TRUE;
      self->devices[i * self->options.ports_per_device].index = ++self->next_index;
    }
  self->procs = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_process_free);
  self->next_pid = 4000;
  return self;
}

void
stream_synth_free (StreamSynth *self)
{
  if (self == NULL)
    return;
  g_rand_free (self->rand);
  rtop_rates_free (self->rates);
  rtop_health_free (self->health);
  g_free (self->devices);
  g_ptr_array_unref (self->procs);
  g_free (self);
}

static gboolean
is_rxe (guint dev)
{
  return dev % 2 == 0;
}

static char *
device_name (guint dev)
{
  return is_rxe (dev) ? g_strdup_printf ("rxe%u", dev) : g_strdup_printf ("mlx5_%u", dev);
}

static const CounterSpec *
specs_of (guint dev, guint *n)
{
  *n = is_rxe (dev) ? G_N_ELEMENTS (rxe_counters) : G_N_ELEMENTS (mlx5_counters);
  return is_rxe (dev) ? rxe_counters : mlx5_counters;
}

static void
advance_counters (StreamSynth *self, guint dev, DeviceState *st)
{
  guint n;
  const CounterSpec *specs = specs_of (dev, &n);

  for (guint i = 0; i < n; i++)
    {
      if (specs[i].busy_step > 0 && self->options.busy)
        st->values[i] += g_rand_int_range (self->rand, specs[i].busy_step / 2 + 1,
                                           specs[i].busy_step + 2);
      else if (specs[i].busy_step > 0 && g_rand_int_range (self->rand, 0, 8) == 0)
        st->values[i] += g_rand_int_range (self->rand, 1, 100);   /* neighbour discovery */
      else if (specs[i].busy_step == 0 && g_rand_int_range (self->rand, 0, 40) == 0)
        st->values[i] += g_rand_int_range (self->rand, 1, 4);     /* an error now and then */
    }
  if (!self->options.churn)
    return;
  /* A 32-bit counter near its top, so it wraps, and a reset. */
  if (g_rand_int_range (self->rand, 0, 30) == 0)
    st->values[1] = G_MAXUINT32 - g_rand_int_range (self->rand, 0, 5);
  if (g_rand_int_range (self->rand, 0, 50) == 0)
    st->values[n - 1] /= 3;
}

static RtopPort *
make_port (StreamSynth *self, RtopDevice *dev, guint d, guint p, DeviceState *st, gint64 read_time)
{
  RtopPort *port = rtop_port_new (p + 1);
  const char *provider = is_rxe (d) ? "rxe" : "mlx5";
  guint n;
  const CounterSpec *specs = specs_of (d, &n);

  port->state = 4;
  port->phys_state = 5;
  if (is_rxe (d))
    {
      port->netdev = g_strdup_printf ("d%u", d);
      port->netdev_index = 10 + d;
      port->link_layer = g_strdup ("Ethernet");
      port->rate_text = g_strdup ("100 Gb/sec (4X EDR)");
      port->rate_gbps = 100;
    }
  else
    {
      port->link_layer = g_strdup ("InfiniBand");
      port->rate_text = g_strdup ("400 Gb/sec (4X NDR)");
      port->rate_gbps = 400;
    }
  if (self->options.churn && g_rand_int_range (self->rand, 0, 40) == 0)
    port->state = 1;
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (port->counters, rtop_counter_new (specs[i].name, st->values[i], specs[i].source));
  rtop_counters_sort (port->counters);
  port->read_time_us = read_time;
  port->elapsed_s = rtop_rates_update (self->rates, dev->name, dev->index, port->index,
                                       read_time, port->counters, NULL);
  rtop_provider_apply (provider, port);
  port->counter_layout = 1 + d % 2;
  if (self->options.churn && g_rand_int_range (self->rand, 0, 60) == 0)
    port->error = g_strdup ("Reading the port's counters failed: No such device");
  return port;
}

static RtopDevice *
make_device (StreamSynth *self, guint d, gint64 mono)
{
  guint ppd = self->options.ports_per_device;
  DeviceState *st = &self->devices[d * ppd];
  g_autofree char *name = device_name (d);
  RtopDevice *dev = rtop_device_new (st->index, name);

  dev->provider = g_strdup (is_rxe (d) ? "rxe" : "mlx5");
  dev->node_type = g_strdup ("ca");
  dev->protocol = g_strdup (is_rxe (d) ? "roce" : "ib");
  dev->fw_version = is_rxe (d) ? NULL : g_strdup ("28.39.1002");
  dev->node_guid = g_strdup_printf ("0011:2233:4455:%04x", d);
  dev->port_count = ppd;
  if (!is_rxe (d))
    {
      /* Device-level counters, as EFA has them. */
      g_ptr_array_add (dev->counters, rtop_counter_new ("lifespan", mono / 1000000,
                                                        RTOP_COUNTER_SOURCE_SYSFS_DEVICE));
      rtop_rates_update (self->rates, dev->name, dev->index, 0, mono, dev->counters, NULL);
      rtop_provider_classify_counters (dev->provider, dev->counters);
    }
  for (guint p = 0; p < ppd; p++)
    {
      advance_counters (self, d, &self->devices[d * ppd + p]);
      g_ptr_array_add (dev->ports, make_port (self, dev, d, p, &self->devices[d * ppd + p],
                                              mono + 37 * (d * ppd + p) +
                                              g_rand_int_range (self->rand, 0, 300)));
    }
  return dev;
}

static void
churn_devices (StreamSynth *self)
{
  guint ppd = self->options.ports_per_device;

  for (guint d = 0; d < self->options.n_devices; d++)
    {
      DeviceState *st = &self->devices[d * ppd];

      if (g_rand_int_range (self->rand, 0, 25) != 0)
        continue;
      st->present = !st->present;
      if (st->present)
        {
          /* Re-added: a new kernel index and counters from zero. */
          st->index = ++self->next_index;
          for (guint p = 0; p < ppd; p++)
            memset (self->devices[d * ppd + p].values, 0, sizeof st->values);
        }
    }
}

static RtopProcess *
new_process (StreamSynth *self)
{
  RtopProcess *proc = rtop_process_new (self->next_pid++);
  RtopProcessDevice pd = { 0 };

  proc->start_time = 100000 + proc->pid;
  proc->comm = g_strdup (proc->pid % 3 == 0 ? "ib_write_bw" : "python3");
  proc->cmdline = g_strdup_printf ("%s --size 65536 -d rxe0 --run %d", proc->comm, proc->pid);
  proc->user = g_strdup ("alice");
  proc->uid = 1000;
  if (proc->pid % 2 == 0)
    {
      g_autofree char *id = g_strdup_printf ("%d", 1000 + proc->pid / 4);

      rtop_job_set (&proc->job, RTOP_JOB_SLURM, id, proc->pid % 4 == 0 ? "0" : "batch");
    }
  proc->rss_bytes = 50 << 20;
  proc->threads = 4;
  proc->state = 'S';
  pd.device = g_strdup ("rxe0");
  pd.qps = 2;
  pd.contexts = 1;
  pd.mrs = 3;
  pd.mr_bytes = 1 << 20;
  g_array_append_val (proc->devices, pd);
  proc->qps = 2;
  proc->contexts = 1;
  proc->mrs = 3;
  proc->mr_bytes = 1 << 20;
  return proc;
}

static RtopProcess *
copy_process (const RtopProcess *p)
{
  RtopProcess *c = rtop_process_new (p->pid);

  c->start_time = p->start_time;
  c->kernel = p->kernel;
  c->comm = g_strdup (p->comm);
  c->cmdline = g_strdup (p->cmdline);
  c->user = g_strdup (p->user);
  rtop_job_copy (&c->job, &p->job);
  c->uid = p->uid;
  c->rss_bytes = p->rss_bytes;
  c->threads = p->threads;
  c->state = p->state;
  c->qps = p->qps;
  c->contexts = p->contexts;
  c->mrs = p->mrs;
  c->mr_bytes = p->mr_bytes;
  for (guint i = 0; i < p->devices->len; i++)
    {
      RtopProcessDevice pd = g_array_index (p->devices, RtopProcessDevice, i);

      pd.device = g_strdup (pd.device);
      g_array_append_val (c->devices, pd);
    }
  return c;
}

static void
step_processes (StreamSynth *self, RtopSnapshot *snap)
{
  if (self->procs->len < 6 && g_rand_int_range (self->rand, 0, 3) == 0)
    g_ptr_array_add (self->procs, new_process (self));
  if (self->procs->len > 0 && g_rand_int_range (self->rand, 0, 5) == 0)
    g_ptr_array_remove_index (self->procs, g_rand_int_range (self->rand, 0, self->procs->len));
  for (guint i = 0; i < self->procs->len; i++)
    {
      RtopProcess *p = g_ptr_array_index (self->procs, i);

      if (g_rand_int_range (self->rand, 0, 3) == 0)
        p->rss_bytes += g_rand_int_range (self->rand, -4096, 8192) * 4096;
      if (g_rand_int_range (self->rand, 0, 6) == 0)
        {
          p->qps++;
          g_array_index (p->devices, RtopProcessDevice, 0).qps++;
        }
      g_ptr_array_add (snap->processes, copy_process (p));
    }
  if (g_rand_int_range (self->rand, 0, 4) == 0)
    {
      /* A kernel consumer. */
      RtopProcess *k = rtop_process_new (0);

      k->kernel = TRUE;
      k->comm = g_strdup ("rdma_cm");
      k->qps = 1;
      g_ptr_array_add (snap->processes, k);
    }
}

RtopSnapshot *
stream_synth_next (StreamSynth *self)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  self->monotonic_us += G_USEC_PER_SEC + g_rand_int_range (self->rand, -2000, 2000);
  self->realtime_us += G_USEC_PER_SEC + g_rand_int_range (self->rand, -2000, 2000);
  snap->sequence = ++self->sequence;
  snap->monotonic_us = self->monotonic_us;
  snap->realtime_us = self->realtime_us;
  snap->interval_s = 1.0;
  snap->hotplug_events = TRUE;
  if (self->options.churn && g_rand_int_range (self->rand, 0, 30) == 0)
    {
      snap->status = RTOP_STATUS_NO_NETLINK;
      snap->status_message = g_strdup ("This computer has no RDMA netlink: load ib_core.");
      rtop_snapshot_seal (snap);
      return snap;
    }
  if (self->options.churn)
    churn_devices (self);
  rtop_rates_begin_pass (self->rates);
  for (guint d = 0; d < self->options.n_devices; d++)
    if (self->devices[d * self->options.ports_per_device].present)
      g_ptr_array_add (snap->devices, make_device (self, d, self->monotonic_us));
  rtop_rates_end_pass (self->rates);
  if (self->options.processes)
    step_processes (self, snap);
  if (self->options.processes && g_rand_int_range (self->rand, 0, 10) == 0)
    snap->processes_error = g_strdup ("Some processes could not be read: Permission denied");
  rtop_snapshot_seal (snap);
  if (self->options.events)
    rtop_health_process (self->health, snap);
  return snap;
}

/* ---- Comparison ---- */

static void
assert_same_double (double a, double b)
{
  g_assert_true (memcmp (&a, &b, sizeof a) == 0);
}

static void
assert_counters_equal (const GPtrArray *a, const GPtrArray *b)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    {
      const RtopCounter *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);

      g_assert_cmpstr (x->name, ==, y->name);
      g_assert_cmpuint (x->value, ==, y->value);
      g_assert_cmpuint (x->delta, ==, y->delta);
      assert_same_double (x->rate, y->rate);
      g_assert_cmpint (!x->has_rate, ==, !y->has_rate);
      g_assert_cmpint (!x->reset, ==, !y->reset);
      g_assert_cmpint (x->source, ==, y->source);
      g_assert_cmpint (x->klass, ==, y->klass);
    }
}

static void
assert_ports_equal (const RtopPort *a, const RtopPort *b)
{
  g_assert_cmpuint (a->index, ==, b->index);
  g_assert_cmpuint (a->state, ==, b->state);
  g_assert_cmpuint (a->phys_state, ==, b->phys_state);
  g_assert_cmpstr (a->netdev, ==, b->netdev);
  g_assert_cmpuint (a->netdev_index, ==, b->netdev_index);
  g_assert_cmpstr (a->link_layer, ==, b->link_layer);
  g_assert_cmpstr (a->rate_text, ==, b->rate_text);
  assert_same_double (a->rate_gbps, b->rate_gbps);
  g_assert_cmpint (a->read_time_us, ==, b->read_time_us);
  assert_same_double (a->elapsed_s, b->elapsed_s);
  g_assert_cmpuint (a->counter_layout, ==, b->counter_layout);
  g_assert_cmpstr (a->error, ==, b->error);
  assert_counters_equal (a->counters, b->counters);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const RtopMetric *x = &a->metrics[m], *y = &b->metrics[m];

      g_assert_cmpint (!x->present, ==, !y->present);
      g_assert_cmpuint (x->value, ==, y->value);
      assert_same_double (x->rate, y->rate);
      g_assert_cmpint (!x->has_rate, ==, !y->has_rate);
      g_assert_cmpstr (x->source, ==, y->source);
    }
}

static void
assert_devices_equal (const RtopDevice *a, const RtopDevice *b)
{
  g_assert_cmpuint (a->index, ==, b->index);
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->provider, ==, b->provider);
  g_assert_cmpstr (a->node_type, ==, b->node_type);
  g_assert_cmpstr (a->fw_version, ==, b->fw_version);
  g_assert_cmpstr (a->node_guid, ==, b->node_guid);
  g_assert_cmpstr (a->protocol, ==, b->protocol);
  g_assert_cmpuint (a->port_count, ==, b->port_count);
  assert_counters_equal (a->counters, b->counters);
  g_assert_cmpuint (a->ports->len, ==, b->ports->len);
  for (guint i = 0; i < a->ports->len; i++)
    assert_ports_equal (g_ptr_array_index (a->ports, i), g_ptr_array_index (b->ports, i));
}

static void
assert_processes_equal (const RtopProcess *a, const RtopProcess *b, gboolean shared)
{
  /* Without --processes only the resources and kernel names cross. */
  g_assert_cmpint (b->pid, ==, shared ? a->pid : 0);
  g_assert_cmpuint (b->start_time, ==, shared ? a->start_time : 0);
  g_assert_cmpint (!a->kernel, ==, !b->kernel);
  g_assert_cmpstr (b->comm, ==, shared || a->kernel ? a->comm : NULL);
  g_assert_cmpstr (b->cmdline, ==, shared ? a->cmdline : NULL);
  g_assert_cmpstr (b->user, ==, shared ? a->user : NULL);
  g_assert_cmpint (b->job.kind, ==, shared ? a->job.kind : RTOP_JOB_NONE);
  g_assert_cmpstr (b->job.id, ==, shared ? a->job.id : NULL);
  g_assert_cmpstr (b->job.detail, ==, shared ? a->job.detail : NULL);
  g_assert_cmpstr (b->job.name, ==, shared ? a->job.name : NULL);
  g_assert_cmpuint (b->uid, ==, shared ? a->uid : 0);
  g_assert_cmpuint (b->rss_bytes, ==, shared ? a->rss_bytes : 0);
  g_assert_cmpuint (b->threads, ==, shared ? a->threads : 0);
  g_assert_cmpint (b->state, ==, shared ? a->state : '?');
  g_assert_cmpuint (a->qps, ==, b->qps);
  g_assert_cmpuint (a->contexts, ==, b->contexts);
  g_assert_cmpuint (a->mrs, ==, b->mrs);
  g_assert_cmpuint (a->mr_bytes, ==, b->mr_bytes);
  g_assert_cmpuint (a->devices->len, ==, b->devices->len);
  for (guint i = 0; i < a->devices->len; i++)
    {
      const RtopProcessDevice *x = &g_array_index (a->devices, RtopProcessDevice, i);
      const RtopProcessDevice *y = &g_array_index (b->devices, RtopProcessDevice, i);

      g_assert_cmpstr (x->device, ==, y->device);
      g_assert_cmpuint (x->qps, ==, y->qps);
      g_assert_cmpuint (x->contexts, ==, y->contexts);
      g_assert_cmpuint (x->mrs, ==, y->mrs);
      g_assert_cmpuint (x->mr_bytes, ==, y->mr_bytes);
    }
}

static void
assert_events_equal (const RtopEvent *a, const RtopEvent *b)
{
  g_assert_cmpint (a->realtime_us, ==, b->realtime_us);
  g_assert_cmpint (a->monotonic_us, ==, b->monotonic_us);
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpint (a->severity, ==, b->severity);
  g_assert_cmpstr (a->device, ==, b->device);
  g_assert_cmpuint (a->port, ==, b->port);
  g_assert_cmpstr (a->counter, ==, b->counter);
  g_assert_cmpstr (a->old_value, ==, b->old_value);
  g_assert_cmpstr (a->new_value, ==, b->new_value);
  g_assert_cmpstr (a->message, ==, b->message);
}

void
stream_synth_assert_equal (const RtopSnapshot *a, const RtopSnapshot *b, gboolean shared)
{
  g_assert_cmpuint (a->sequence, ==, b->sequence);
  g_assert_cmpint (a->monotonic_us, ==, b->monotonic_us);
  g_assert_cmpint (a->realtime_us, ==, b->realtime_us);
  assert_same_double (a->interval_s, b->interval_s);
  g_assert_cmpint (a->status, ==, b->status);
  g_assert_cmpstr (a->status_message, ==, b->status_message);
  g_assert_cmpstr (a->processes_error, ==, b->processes_error);
  g_assert_cmpint (!b->pids_hidden, ==, !(a->pids_hidden || (!shared && a->processes->len > 0)));
  g_assert_cmpint (!a->hotplug_events, ==, !b->hotplug_events);
  g_assert_cmpuint (a->devices->len, ==, b->devices->len);
  for (guint i = 0; i < a->devices->len; i++)
    assert_devices_equal (g_ptr_array_index (a->devices, i), g_ptr_array_index (b->devices, i));
  g_assert_cmpuint (a->processes->len, ==, b->processes->len);
  for (guint i = 0; i < a->processes->len; i++)
    assert_processes_equal (g_ptr_array_index (a->processes, i),
                            g_ptr_array_index (b->processes, i), shared);
  g_assert_cmpuint (a->events->len, ==, b->events->len);
  for (guint i = 0; i < a->events->len; i++)
    assert_events_equal (g_ptr_array_index (a->events, i), g_ptr_array_index (b->events, i));
}
