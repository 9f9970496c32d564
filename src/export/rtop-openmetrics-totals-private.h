/* rtop-openmetrics-totals-private.h: the exporter's state, which
 * rtop-openmetrics-totals.c keeps and rtop-openmetrics.c writes out;
 * nothing else includes it. */
#pragma once

#include "rtop-openmetrics.h"
#include "rtop-providers.h"

G_BEGIN_DECLS

typedef struct {
  char *name;
  RtopCounterSource source;
  guint64 total;
  guint pass;                /* the last pass that saw it */
} CounterTotal;

typedef struct {
  GHashTable *counters;      /* "source:name" -> CounterTotal* (owned) */
  GPtrArray *order;          /* CounterTotal* by the position of the last read */
  guint64 layout;            /* of plan; 0 when plan was made for an unknown layout */
  RtopProviderPlan *plan;
  char *provider;
  guint64 metric_total[RTOP_METRIC_N];
  gboolean metric_seen[RTOP_METRIC_N];
  guint pass;
} PortTotals;

struct _RtopOpenMetrics {
  RtopOpenMetricsOptions options;
  GHashTable *ports;         /* rtop_port_key() -> PortTotals* (port 0: the device's counters) */
  RtopSnapshot *latest;
  guint pass;
  guint64 passes;
  guint64 failed_passes;
  guint64 port_read_errors;
  guint64 events[RTOP_EVENT_COLLECTION_RECOVERED + 1];
  double pass_seconds_total;
  double last_pass_seconds;  /* < 0: unknown */
};

G_END_DECLS
