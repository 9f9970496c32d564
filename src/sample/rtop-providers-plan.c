/* rtop-providers-plan.c: a port's canonical metrics from its counters, by
 * the rows of the provider table (rtop-providers.c, whose opening comment
 * says how nothing is counted twice): which counters make each metric, from
 * which tier, and their sums every pass. */
#include "config.h"

#include <string.h>

#include "rtop-providers-private.h"
#include "rtop-saturate.h"

/* The table's short names that rule_tier() uses. */
#define ANY RTOP_PROVIDER_ANY
#define NETDEV RTOP_COUNTER_SOURCE_NETDEV

/* Metric assembly.  Tiers, best first: the provider's own rows, generic
 * rows (PMA), the netdev. */
enum { TIER_PROVIDER, TIER_GENERIC, TIER_NETDEV, N_TIERS };

/* The source string names this many parts, then "+ N more". */
#define NAMED_PARTS 3

typedef struct {
  guint n_parts;
  guint64 value;
  double rate;
  gboolean all_rates;
  const RtopCounter *parts[NAMED_PARTS];
  guint32 scales[NAMED_PARTS];
} Sum;

/* Metrics that count the same traffic whichever tier reports it. */
static gboolean
metric_is_traffic (RtopMetricId id)
{
  switch (id)
    {
    case RTOP_METRIC_TX_BYTES:
    case RTOP_METRIC_RX_BYTES:
    case RTOP_METRIC_TX_PACKETS:
    case RTOP_METRIC_RX_PACKETS:
    case RTOP_METRIC_RDMA_READ_BYTES:
    case RTOP_METRIC_RDMA_WRITE_BYTES:
      return TRUE;
    case RTOP_METRIC_DROPS:
    case RTOP_METRIC_RETRANSMITS:
    case RTOP_METRIC_ERRORS:
    case RTOP_METRIC_LINK_ERRORS:
    case RTOP_METRIC_TRANSPORT_ERRORS:
    case RTOP_METRIC_OPERATION_ERRORS:
    case RTOP_METRIC_CONGESTION:
    case RTOP_METRIC_N:
    default:
      return FALSE;
    }
}

static guint
rule_tier (const RtopProviderRule *rule)
{
  if (strcmp (rule->provider, ANY) != 0)
    return TIER_PROVIDER;
  return rule->source == NETDEV ? TIER_NETDEV : TIER_GENERIC;
}

static void
sum_add (Sum *sum, const RtopCounter *counter, guint32 scale)
{
  if (scale == 0)
    scale = 1;
  if (sum->n_parts == 0)
    sum->all_rates = TRUE;
  if (sum->n_parts < NAMED_PARTS)
    {
      sum->parts[sum->n_parts] = counter;
      sum->scales[sum->n_parts] = scale;
    }
  sum->n_parts++;
  sum->value = rtop_add_saturating (sum->value, rtop_scale_saturating (counter->value, scale));
  if (counter->has_rate)
    sum->rate += counter->rate * scale;
  else
    sum->all_rates = FALSE;
}

/* Adds the parts of src to dst (for event metrics, whose tiers add up). */
static void
sum_merge (Sum *dst, const Sum *src)
{
  if (src->n_parts == 0)
    return;
  if (dst->n_parts == 0)
    {
      *dst = *src;
      return;
    }
  for (guint i = 0; i < MIN (src->n_parts, NAMED_PARTS) && dst->n_parts + i < NAMED_PARTS; i++)
    {
      dst->parts[dst->n_parts + i] = src->parts[i];
      dst->scales[dst->n_parts + i] = src->scales[i];
    }
  dst->n_parts += src->n_parts;
  dst->value = rtop_add_saturating (dst->value, src->value);
  dst->rate += src->rate;
  dst->all_rates = dst->all_rates && src->all_rates;
}

static const char *
source_word (RtopCounterSource source)
{
  switch (source)
    {
    case RTOP_COUNTER_SOURCE_NETLINK:
      return "netlink";
    case RTOP_COUNTER_SOURCE_SYSFS_PORT:
    case RTOP_COUNTER_SOURCE_SYSFS_HW:
    case RTOP_COUNTER_SOURCE_SYSFS_DEVICE:
      return "sysfs";
    case RTOP_COUNTER_SOURCE_GPU:
      return "gpu";
    case RTOP_COUNTER_SOURCE_NETDEV:
    case RTOP_COUNTER_SOURCE_N:
    default:
      return "netdev";
    }
}

/* "netlink tx_bytes", "sysfs port_xmit_data x4", "netdev d0 tx_bytes",
 * "netlink ip4OutOctets + netlink ip6OutOctets". */
static char *
describe_sum (const Sum *sum, const char *netdev)
{
  /* Built every pass for every metric: plain appends, printf only for
   * the rare numbers. */
  GString *text = g_string_sized_new (64);
  guint named = MIN (sum->n_parts, NAMED_PARTS);

  for (guint i = 0; i < named; i++)
    {
      const RtopCounter *part = sum->parts[i];

      if (i > 0)
        g_string_append (text, " + ");
      g_string_append (text, source_word (part->source));
      if (part->source == RTOP_COUNTER_SOURCE_NETDEV && netdev != NULL)
        {
          g_string_append_c (text, ' ');
          g_string_append (text, netdev);
        }
      g_string_append_c (text, ' ');
      g_string_append (text, part->name);
      if (sum->scales[i] != 1)
        g_string_append_printf (text, " x%u", sum->scales[i]);
    }
  if (sum->n_parts > named)
    g_string_append_printf (text, " + %u more", sum->n_parts - named);
  return g_string_free (text, FALSE);
}

static void
clear_metrics (RtopPort *port)
{
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      g_free (port->metrics[m].source);
      memset (&port->metrics[m], 0, sizeof port->metrics[m]);
    }
}

/* One counter of a metric in a plan. */
typedef struct {
  guint index;               /* position in the port's counters */
  guint32 scale;             /* >= 1 */
  gboolean merged;           /* a generic-tier part added to the provider tier's */
} PlanPart;

typedef struct {
  gboolean present;
  guint first;               /* into parts */
  guint n;
  char *source;
} PlanMetric;

struct _RtopProviderPlan {
  guint n_counters;
  RtopCounterClass *klass;   /* per counter */
  PlanPart *parts;
  PlanMetric metrics[RTOP_METRIC_N];
};

/* The tier a metric is taken from, as rtop_provider_apply() always did:
 * event metrics (drops, errors, ...) add the provider's and the generic
 * rows; traffic takes the best tier that has the metric. */
static gboolean
plan_takes (RtopMetricId m, guint chosen, guint tier, gboolean *merged)
{
  *merged = FALSE;
  if (tier == chosen)
    return TRUE;
  if (!metric_is_traffic (m) && chosen == TIER_PROVIDER && tier == TIER_GENERIC)
    {
      *merged = TRUE;
      return TRUE;
    }
  return FALSE;
}

RtopProviderPlan *
rtop_provider_plan_new (const char *provider, GPtrArray *counters, const char *netdev)
{
  static const RtopMetricId error_parts[] = {
    RTOP_METRIC_LINK_ERRORS, RTOP_METRIC_TRANSPORT_ERRORS, RTOP_METRIC_OPERATION_ERRORS,
  };
  RtopProviderPlan *plan = g_new0 (RtopProviderPlan, 1);
  guint n = counters != NULL ? counters->len : 0;
  g_autofree const RtopProviderRule **rule_of = g_new0 (const RtopProviderRule *, MAX (n, 1));
  Sum sums[RTOP_METRIC_N][N_TIERS];
  guint chosen[RTOP_METRIC_N];
  g_autoptr(GArray) parts = g_array_new (FALSE, FALSE, sizeof (PlanPart));
  g_autoptr(GString) errors = g_string_new (NULL);

  memset (sums, 0, sizeof sums);
  plan->n_counters = n;
  plan->klass = g_new0 (RtopCounterClass, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const RtopCounter *counter = g_ptr_array_index (counters, i);
      const RtopProviderRule *rule = rtop_provider_find_rule (provider, counter->name,
                                                              counter->source, FALSE);

      plan->klass[i] = rule != NULL ? rule->klass
                                    : rtop_provider_classify_by_pattern (counter->name);
      /* Unknown counters stay raw: guessing a unit would make up a metric. */
      if (rule != NULL && rule->metric < RTOP_METRIC_N && rule->metric != RTOP_METRIC_ERRORS)
        {
          rule_of[i] = rule;
          sum_add (&sums[rule->metric][rule_tier (rule)], counter, rule->scale);
        }
    }

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      PlanMetric *pm = &plan->metrics[m];

      chosen[m] = N_TIERS;
      if (!metric_is_traffic (m))
        sum_merge (&sums[m][TIER_PROVIDER], &sums[m][TIER_GENERIC]);
      for (guint t = 0; t < N_TIERS && chosen[m] == N_TIERS; t++)
        if (sums[m][t].n_parts > 0)
          chosen[m] = t;
      if (chosen[m] == N_TIERS)
        continue;
      pm->present = TRUE;
      pm->source = describe_sum (&sums[m][chosen[m]], netdev);
      pm->first = parts->len;
      for (guint i = 0; i < n; i++)
        {
          PlanPart part = { i, 1, FALSE };

          if (rule_of[i] == NULL || rule_of[i]->metric != m ||
              !plan_takes (m, chosen[m], rule_tier (rule_of[i]), &part.merged))
            continue;
          part.scale = rule_of[i]->scale != 0 ? rule_of[i]->scale : 1;
          g_array_append_val (parts, part);
        }
      pm->n = parts->len - pm->first;
    }

  /* ERRORS is the sum of the three error metrics that are present. */
  for (guint i = 0; i < G_N_ELEMENTS (error_parts); i++)
    if (plan->metrics[error_parts[i]].present)
      {
        if (errors->len > 0)
          g_string_append (errors, " + ");
        g_string_append (errors, rtop_metric_id_to_string (error_parts[i]));
      }
  if (errors->len > 0)
    {
      plan->metrics[RTOP_METRIC_ERRORS].present = TRUE;
      plan->metrics[RTOP_METRIC_ERRORS].source = g_strdup (errors->str);
    }
  plan->parts = (PlanPart *) g_array_free (g_steal_pointer (&parts), FALSE);
  return plan;
}

void
rtop_provider_plan_free (RtopProviderPlan *plan)
{
  if (plan == NULL)
    return;
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    g_free (plan->metrics[m].source);
  g_free (plan->klass);
  g_free (plan->parts);
  g_free (plan);
}

guint
rtop_provider_plan_get_n_counters (const RtopProviderPlan *plan)
{
  return plan->n_counters;
}

gboolean
rtop_provider_plan_get_part (const RtopProviderPlan *plan, RtopMetricId m, guint n,
                             guint *index, guint32 *scale)
{
  const PlanMetric *pm;

  g_return_val_if_fail (plan != NULL && m < RTOP_METRIC_N, FALSE);
  pm = &plan->metrics[m];
  if (!pm->present || m == RTOP_METRIC_ERRORS || n >= pm->n)
    return FALSE;
  *index = plan->parts[pm->first + n].index;
  *scale = plan->parts[pm->first + n].scale;
  return TRUE;
}

/* ERRORS is the sum of the three error metrics that are present. */
static void
run_errors_metric (RtopPort *port)
{
  static const RtopMetricId parts[] = {
    RTOP_METRIC_LINK_ERRORS, RTOP_METRIC_TRANSPORT_ERRORS, RTOP_METRIC_OPERATION_ERRORS,
  };
  RtopMetric *errors = &port->metrics[RTOP_METRIC_ERRORS];
  gboolean all_rates = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      const RtopMetric *part = &port->metrics[parts[i]];

      if (!part->present)
        continue;
      errors->value = rtop_add_saturating (errors->value, part->value);
      errors->rate += part->rate;
      errors->saturated = errors->saturated || part->saturated;
      all_rates = all_rates && part->has_rate;
    }
  errors->has_rate = all_rates;
  if (!all_rates)
    errors->rate = 0;
}

void
rtop_provider_plan_run (const RtopProviderPlan *plan, RtopPort *port, gboolean borrow_sources)
{
  g_return_if_fail (plan != NULL && port != NULL);
  g_return_if_fail ((port->counters != NULL ? port->counters->len : 0) == plan->n_counters);

  if (borrow_sources)
    memset (port->metrics, 0, sizeof port->metrics);
  else
    clear_metrics (port);
  for (guint i = 0; i < plan->n_counters; i++)
    ((RtopCounter *) g_ptr_array_index (port->counters, i))->klass = plan->klass[i];

  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const PlanMetric *pm = &plan->metrics[m];
      RtopMetric *metric = &port->metrics[m];
      double rate = 0, merged_rate = 0;
      gboolean all_rates = TRUE, any_merged = FALSE;

      if (!pm->present)
        continue;
      metric->present = TRUE;
      metric->source = borrow_sources ? pm->source : g_strdup (pm->source);
      if (m == RTOP_METRIC_ERRORS)
        continue;     /* from the three error metrics, below */
      for (guint p = pm->first; p < pm->first + pm->n; p++)
        {
          const PlanPart *part = &plan->parts[p];
          const RtopCounter *counter = g_ptr_array_index (port->counters, part->index);

          metric->value = rtop_add_saturating (metric->value,
                                               rtop_scale_saturating (counter->value, part->scale));
          metric->saturated = metric->saturated || counter->saturated;
          if (!counter->has_rate)
            all_rates = FALSE;
          /* The same additions, in the same order, as the tiers' sums. */
          else if (part->merged)
            merged_rate += counter->rate * part->scale;
          else
            rate += counter->rate * part->scale;
          any_merged = any_merged || part->merged;
        }
      if (any_merged)
        rate += merged_rate;
      metric->has_rate = all_rates;
      metric->rate = all_rates ? rate : 0;
    }
  if (plan->metrics[RTOP_METRIC_ERRORS].present)
    run_errors_metric (port);
}

void
rtop_provider_apply (const char *provider, RtopPort *port)
{
  RtopProviderPlan *plan;

  g_return_if_fail (port != NULL);

  plan = rtop_provider_plan_new (provider, port->counters, port->netdev);
  rtop_provider_plan_run (plan, port, FALSE);
  rtop_provider_plan_free (plan);
}
