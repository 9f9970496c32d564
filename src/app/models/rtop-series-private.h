/* rtop-series-private.h: what only rtop-series.c and the tests use. */
#pragma once

#include "rtop-series.h"

G_BEGIN_DECLS

guint rtop_series_get_capacity (RtopSeries *self);
/* Minimum and maximum over a time range; FALSE when it holds no value. */
gboolean rtop_series_get_extremes (RtopSeries *self, guint channel,
                                   gint64 start_us, gint64 end_us,
                                   double *min, double *max);

G_END_DECLS
