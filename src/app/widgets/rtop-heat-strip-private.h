/* rtop-heat-strip-private.h: what only rtop-heat-strip.c and the tests use. */
#pragma once

#include "rtop-heat-strip.h"

G_BEGIN_DECLS

/* What the strip shows: its cells' levels, 0..1 (-1: no value), cells
 * written to n_cells. */
double *rtop_heat_strip_get_levels (RtopHeatStrip *self, guint *n_cells);
/* The tooltip text for x pixels from the strip's left edge, or NULL. */
char *rtop_heat_strip_describe_at (RtopHeatStrip *self, double x);
/* Whether a mark covers x pixels from the strip's left edge. */
gboolean rtop_heat_strip_mark_at (RtopHeatStrip *self, double x);

G_END_DECLS
