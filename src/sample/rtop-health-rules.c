/* rtop-health-rules.c: the health rule table (which counter classes make
 * episodes, how loud they are, which episode they go to) and the verdict on
 * a port from its state and this pass's rates alone. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-health-rules-private.h"
#include "rtop-providers.h"

/* Each counter class's rule (rtop-health-rules-private.h says what a rule is). */
const ClassRule rtop_health_class_rules[RTOP_COUNTER_CLASS_N] = {
  [RTOP_COUNTER_CLASS_INFO] = { FALSE, RTOP_SEVERITY_INFO, NO_GROUP, N_("Other counters") },
  [RTOP_COUNTER_CLASS_DATA] = { FALSE, RTOP_SEVERITY_INFO, NO_GROUP, N_("Traffic") },
  [RTOP_COUNTER_CLASS_DROP] = { TRUE, RTOP_SEVERITY_WARNING, GROUP_LOSS, N_("Drops") },
  [RTOP_COUNTER_CLASS_RETRANSMIT] = { TRUE, RTOP_SEVERITY_WARNING, GROUP_LOSS, N_("Retransmits") },
  [RTOP_COUNTER_CLASS_LINK_ERROR] = { TRUE, RTOP_SEVERITY_ERROR, GROUP_LINK, N_("Link errors") },
  [RTOP_COUNTER_CLASS_TRANSPORT_ERROR] = { TRUE, RTOP_SEVERITY_WARNING, GROUP_LOSS, N_("Transport errors") },
  [RTOP_COUNTER_CLASS_OPERATION_ERROR] = { TRUE, RTOP_SEVERITY_ERROR, GROUP_OPERATION, N_("Operation errors") },
  [RTOP_COUNTER_CLASS_CONGESTION] = { TRUE, RTOP_SEVERITY_INFO, GROUP_CONGESTION, N_("Congestion") },
};

/* 100 Mb/s: below it a job's rails are idle, whatever their shares. */
const ImbalanceRule rtop_health_imbalance_rule = {
  .min_peer_bytes_s = 100e6 / 8,
  .low_share = 0.5,
  .recover_share = 0.75,
  .confirm_us = 5 * G_USEC_PER_SEC,
  .recover_us = 5 * G_USEC_PER_SEC,
};

const char * const rtop_health_group_labels[N_GROUPS] = {
  [GROUP_LOSS] = N_("Packet loss"),
  [GROUP_LINK] = N_("Link errors"),
  [GROUP_OPERATION] = N_("Failed operations"),
  [GROUP_CONGESTION] = N_("Congestion"),
  [GROUP_PEER] = N_("Packets the peer lost"),
};

RtopSeverity
rtop_health_class_severity (RtopCounterClass klass)
{
  g_return_val_if_fail (klass < RTOP_COUNTER_CLASS_N, RTOP_SEVERITY_INFO);
  return rtop_health_class_rules[klass].severity;
}

gboolean
rtop_health_class_is_watched (RtopCounterClass klass)
{
  g_return_val_if_fail (klass < RTOP_COUNTER_CLASS_N, FALSE);
  return rtop_health_class_rules[klass].watched;
}

/* The class's name for people ("Retransmits", "Link errors"), translated. */
const char *
rtop_counter_class_to_label (RtopCounterClass klass)
{
  g_return_val_if_fail (klass < RTOP_COUNTER_CLASS_N, "?");
  return _(rtop_health_class_rules[klass].label);
}

gboolean
rtop_health_port_is_up (const RtopPort *port)
{
  /* ACTIVE or ACTIVE_DEFER; a physical state of 0 is "not reported". */
  return (port->state == 4 || port->state == 5) &&
         (port->phys_state == 0 || port->phys_state == 5);
}

/* The metrics that say a port is in trouble, for snapshots no RtopHealth saw. */
static const struct {
  RtopMetricId metric;
  RtopSeverity severity;
  Group group;
} metric_rules[] = {
  { RTOP_METRIC_LINK_ERRORS, RTOP_SEVERITY_ERROR, GROUP_LINK },
  { RTOP_METRIC_OPERATION_ERRORS, RTOP_SEVERITY_ERROR, GROUP_OPERATION },
  { RTOP_METRIC_RETRANSMITS, RTOP_SEVERITY_WARNING, GROUP_LOSS },
  { RTOP_METRIC_DROPS, RTOP_SEVERITY_WARNING, GROUP_LOSS },
  { RTOP_METRIC_TRANSPORT_ERRORS, RTOP_SEVERITY_WARNING, GROUP_LOSS },
};

RtopPortHealth
rtop_health_port_verdict (const char *provider, const RtopPort *port, gboolean with_counters,
                          const char **reason)
{
  RtopPortHealth verdict = RTOP_PORT_HEALTH_OK;
  const char *why = NULL;

  if (port->error != NULL)
    verdict = RTOP_PORT_HEALTH_ERROR, why = _("Read failed");
  else if (port->state != 4 && port->state != 5)
    verdict = RTOP_PORT_HEALTH_ERROR, why = _("Port not active");
  else if (port->phys_state != 0 && port->phys_state != 5)
    verdict = RTOP_PORT_HEALTH_ERROR, why = _("Link down");
  /* The metrics leave the peer's loss out already; a recording has them
   * even where its counters carry no class. */
  for (guint i = 0; with_counters && verdict != RTOP_PORT_HEALTH_ERROR && i < G_N_ELEMENTS (metric_rules); i++)
    {
      const RtopMetric *m = &port->metrics[metric_rules[i].metric];

      if (!m->present || !m->has_rate || !(m->rate > 0))
        continue;
      if (metric_rules[i].severity == RTOP_SEVERITY_ERROR || verdict == RTOP_PORT_HEALTH_OK)
        {
          verdict = metric_rules[i].severity == RTOP_SEVERITY_ERROR ? RTOP_PORT_HEALTH_ERROR
                                                                     : RTOP_PORT_HEALTH_WARNING;
          why = _(rtop_health_group_labels[metric_rules[i].group]);
        }
    }
  for (guint i = 0; with_counters && verdict != RTOP_PORT_HEALTH_ERROR && i < port->counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (port->counters, i);
      RtopSeverity sev;

      if ((guint) c->klass >= RTOP_COUNTER_CLASS_N || !rtop_health_class_rules[c->klass].watched ||
          !c->has_rate || c->delta == 0)
        continue;
      sev = rtop_health_class_rules[c->klass].severity;
      if (sev == RTOP_SEVERITY_INFO || rtop_provider_is_peer_loss (provider, c))
        continue;
      if (sev == RTOP_SEVERITY_ERROR || verdict == RTOP_PORT_HEALTH_OK)
        {
          verdict = sev == RTOP_SEVERITY_ERROR ? RTOP_PORT_HEALTH_ERROR : RTOP_PORT_HEALTH_WARNING;
          why = _(rtop_health_group_labels[rtop_health_class_rules[c->klass].group]);
        }
    }
  if (reason != NULL)
    *reason = why;
  return verdict;
}
