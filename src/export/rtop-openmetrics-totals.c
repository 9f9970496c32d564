/* rtop-openmetrics-totals.c: the exporter's state, the wrap-corrected
 * totals of every counter and canonical metric, updated once per pass.
 *
 * Totals: a counter's total starts at the kernel's value when the exporter
 * first sees it and then adds the pass's delta, which the rates already
 * corrected for a 32-bit wrap.  So a total equals the kernel's value until
 * that counter first wraps, and then keeps counting up where the kernel's
 * value went back to a small number; Prometheus, which takes every decrease
 * for a reset, sees no false reset.  Where the counter really reset (the
 * rates say so: it went back without being a wrap, or its device was
 * re-added under the same name) the total restarts at the kernel's value,
 * and Prometheus sees the reset it should.  Canonical metrics do the same
 * over their parts (a counter times its scale, as the provider table says). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rtop-openmetrics-totals-private.h"
#include "rtop-port-key.h"
#include "rtop-saturate.h"

static void
counter_total_free (gpointer data)
{
  CounterTotal *ct = data;

  g_free (ct->name);
  g_free (ct);
}

static void
port_totals_free (gpointer data)
{
  PortTotals *pt = data;

  g_hash_table_unref (pt->counters);
  g_ptr_array_unref (pt->order);
  rtop_provider_plan_free (pt->plan);
  g_free (pt->provider);
  g_free (pt);
}

RtopOpenMetrics *
rtop_openmetrics_new (const RtopOpenMetricsOptions *options)
{
  RtopOpenMetrics *self = g_new0 (RtopOpenMetrics, 1);

  if (options != NULL)
    self->options = *options;
  if (self->options.max_process_series == 0)
    self->options.max_process_series = RTOP_OPENMETRICS_DEFAULT_MAX_PROCESS_SERIES;
  self->options.host = g_strdup (self->options.host);
  self->options.version = g_strdup (self->options.version);
  self->ports = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, port_totals_free);
  self->last_pass_seconds = -1;
  return self;
}

void
rtop_openmetrics_free (RtopOpenMetrics *self)
{
  if (self == NULL)
    return;
  g_free ((char *) self->options.host);
  g_free ((char *) self->options.version);
  g_hash_table_unref (self->ports);
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  g_free (self);
}

static PortTotals *
port_totals_for (RtopOpenMetrics *self, const char *device, guint32 port)
{
  char key[RTOP_PORT_KEY_SIZE];
  PortTotals *pt = g_hash_table_lookup (self->ports, rtop_port_key (key, device, port));

  if (pt == NULL)
    {
      pt = g_new0 (PortTotals, 1);
      pt->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, counter_total_free);
      pt->order = g_ptr_array_new ();
      g_hash_table_insert (self->ports, g_strdup (key), pt);
    }
  pt->pass = self->pass;
  return pt;
}

/* The total of the counter at position i, by position while the names
 * stay where they were (drivers list counters in a fixed order). */
static CounterTotal *
counter_total_for (PortTotals *pt, guint i, const RtopCounter *c, gboolean *is_new)
{
  g_autofree char *key = NULL;
  CounterTotal *ct;

  *is_new = FALSE;
  if (i < pt->order->len)
    {
      ct = g_ptr_array_index (pt->order, i);
      if (ct->source == c->source && strcmp (ct->name, c->name) == 0)
        return ct;
    }
  key = g_strdup_printf ("%d:%s", c->source, c->name);
  ct = g_hash_table_lookup (pt->counters, key);
  if (ct == NULL)
    {
      ct = g_new0 (CounterTotal, 1);
      ct->name = g_strdup (c->name);
      ct->source = c->source;
      g_hash_table_insert (pt->counters, g_steal_pointer (&key), ct);
      *is_new = TRUE;
    }
  if (i < pt->order->len)
    g_ptr_array_index (pt->order, i) = ct;
  else
    g_ptr_array_add (pt->order, ct);
  return ct;
}

static gboolean
counter_is_stale_cb (gpointer key, gpointer value, gpointer data)
{
  return ((CounterTotal *) value)->pass != GPOINTER_TO_UINT (data);
}

static void
update_counters (RtopOpenMetrics *self, PortTotals *pt, GPtrArray *counters)
{
  guint n = counters != NULL ? counters->len : 0;

  for (guint i = 0; i < n; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      gboolean is_new;
      CounterTotal *ct = counter_total_for (pt, i, c, &is_new);

      if (is_new || c->reset)
        ct->total = c->value;
      else
        ct->total = rtop_add_saturating (ct->total, c->delta);
      ct->pass = self->pass;
    }
  g_ptr_array_set_size (pt->order, n);
  /* Counters that went away take their totals with them. */
  if (g_hash_table_size (pt->counters) > n)
    g_hash_table_foreach_remove (pt->counters, counter_is_stale_cb, GUINT_TO_POINTER (self->pass));
}

/* The provider plan for the port's counters: the same one the collector
 * made, so the parts are the ones the metric's value was summed from. */
static const RtopProviderPlan *
plan_for (PortTotals *pt, const RtopDevice *dev, RtopPort *port)
{
  gboolean same = pt->plan != NULL && port->counter_layout != 0 &&
                  pt->layout == port->counter_layout &&
                  g_strcmp0 (pt->provider, dev->provider) == 0 &&
                  rtop_provider_plan_get_n_counters (pt->plan) == port->counters->len;

  if (!same)
    {
      rtop_provider_plan_free (pt->plan);
      pt->plan = rtop_provider_plan_new (dev->provider, port->counters, port->netdev);
      pt->layout = port->counter_layout;
      g_free (pt->provider);
      pt->provider = g_strdup (dev->provider);
    }
  return pt->plan;
}

static void
update_metric (PortTotals *pt, const RtopProviderPlan *plan, RtopPort *port, RtopMetricId m)
{
  guint64 delta = 0;
  gboolean reset = FALSE;
  guint index;
  guint32 scale;

  if (!port->metrics[m].present)
    {
      pt->metric_seen[m] = FALSE;
      return;
    }
  for (guint n = 0; rtop_provider_plan_get_part (plan, m, n, &index, &scale); n++)
    {
      const RtopCounter *c = g_ptr_array_index (port->counters, index);

      reset = reset || c->reset;
      delta = rtop_add_saturating (delta, rtop_scale_saturating (c->delta, scale));
    }
  if (!pt->metric_seen[m] || reset)
    pt->metric_total[m] = port->metrics[m].value;
  else
    pt->metric_total[m] = rtop_add_saturating (pt->metric_total[m], delta);
  pt->metric_seen[m] = TRUE;
}

static void
update_port (RtopOpenMetrics *self, const RtopDevice *dev, RtopPort *port)
{
  PortTotals *pt = port_totals_for (self, dev->name, port->index);
  const RtopProviderPlan *plan;

  if (port->error != NULL)
    {
      /* Kept as they were: the next good read's deltas span the gap. */
      self->port_read_errors++;
      return;
    }
  update_counters (self, pt, port->counters);
  plan = plan_for (pt, dev, port);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    if (m != RTOP_METRIC_ERRORS)
      update_metric (pt, plan, port, m);
}

static gboolean
port_is_stale_cb (gpointer key, gpointer value, gpointer data)
{
  return ((PortTotals *) value)->pass != GPOINTER_TO_UINT (data);
}

void
rtop_openmetrics_update (RtopOpenMetrics *self, RtopSnapshot *snap, double pass_seconds)
{
  g_return_if_fail (self != NULL && snap != NULL);

  self->pass++;
  self->passes++;
  if (pass_seconds >= 0 && isfinite (pass_seconds))
    self->pass_seconds_total += pass_seconds;
  self->last_pass_seconds = isfinite (pass_seconds) ? pass_seconds : -1;
  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if ((guint) ev->kind < G_N_ELEMENTS (self->events))
        self->events[ev->kind]++;
    }
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  self->latest = rtop_snapshot_ref (snap);
  /* Without RDMA a pass can still carry GPU links: their totals go on. */
  if (snap->status != RTOP_STATUS_OK && rtop_snapshot_get_n_ports (snap) == 0)
    {
      /* Totals stay: when the collection recovers, it goes on from them. */
      self->failed_passes++;
      return;
    }
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      if (dev->counters != NULL && dev->counters->len > 0)
        update_counters (self, port_totals_for (self, dev->name, 0), dev->counters);
      for (guint j = 0; j < dev->ports->len; j++)
        update_port (self, dev, g_ptr_array_index (dev->ports, j));
    }
  g_hash_table_foreach_remove (self->ports, port_is_stale_cb, GUINT_TO_POINTER (self->pass));
}
