/* rtop-saturate.h: guint64 arithmetic that stops at G_MAXUINT64 instead of
 * wrapping, for sums of counters, where a sum that wrapped would read as a
 * counter reset.  The provider table's metrics and the exporter's totals
 * both add up this way. */
#pragma once

#include <glib.h>

/* a + b, or G_MAXUINT64 when the sum does not fit. */
static inline guint64
rtop_add_saturating (guint64 a, guint64 b)
{
  return a > G_MAXUINT64 - b ? G_MAXUINT64 : a + b;
}

/* value * scale, or G_MAXUINT64 when the product does not fit. */
static inline guint64
rtop_scale_saturating (guint64 value, guint32 scale)
{
  return scale != 0 && value > G_MAXUINT64 / scale ? G_MAXUINT64 : value * scale;
}
