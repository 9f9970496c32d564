/* rtop-series-private.h: what only rtop-series.c and the tests use. */
#pragma once

#include "rtop-series.h"

G_BEGIN_DECLS

guint rtop_series_get_capacity (RtopSeries *self);

G_END_DECLS
