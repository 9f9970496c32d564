/* rtop-heat-value.h: a short number at the end of a rails row ("65.3 %",
 * "250 /s"), drawn at a fixed width.
 *
 * A GtkLabel asks its parents for a new layout whenever its text changes;
 * sixty-four of them changing every second cost the rails view more than
 * its heatmap.  This one is as wide as the widest text it is made for, so
 * a new text is only a redraw.  The row around it carries the text in its
 * accessible name. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RTOP_TYPE_HEAT_VALUE (rtop_heat_value_get_type ())
G_DECLARE_FINAL_TYPE (RtopHeatValue, rtop_heat_value, RTOP, HEAT_VALUE, GtkWidget)

/* widest: the widest text it will show, for its width ("100.0 %"). */
GtkWidget *rtop_heat_value_new (const char *widest);
void rtop_heat_value_set_text (RtopHeatValue *self, const char *text);
const char *rtop_heat_value_get_text (RtopHeatValue *self);

G_END_DECLS
