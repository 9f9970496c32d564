/* rtop-openmetrics-private.h: what only rtop-openmetrics.c and the tests
 * use. */
#pragma once

#include "rtop-openmetrics.h"

G_BEGIN_DECLS

/* The wrap-corrected total of a port's counter (port 0: the device's own
 * counters) and of a canonical metric; FALSE when not known.  For tests. */
gboolean rtop_openmetrics_get_counter_total (RtopOpenMetrics *self, const char *device,
                                             guint32 port, const char *counter,
                                             RtopCounterSource source, guint64 *total);
gboolean rtop_openmetrics_get_metric_total (RtopOpenMetrics *self, const char *device,
                                            guint32 port, RtopMetricId metric, guint64 *total);

G_END_DECLS
