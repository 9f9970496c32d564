/* rtop-counter-item.h: one row of a port's counters table. */
#pragma once

#include <glib-object.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_TYPE_COUNTER_ITEM (rtop_counter_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopCounterItem, rtop_counter_item, RTOP, COUNTER_ITEM, GObject)

RtopCounterItem *rtop_counter_item_new (const char *name, gboolean device_level);
/* Takes the newest values.  Emits "updated". */
void rtop_counter_item_update (RtopCounterItem *self, const RtopCounter *counter);
/* The counter was not in this pass (driver stopped reporting it). */
void rtop_counter_item_set_missing (RtopCounterItem *self);
/* Its device is gone: the last value stays (present), with no rate. */
void rtop_counter_item_set_frozen (RtopCounterItem *self);

const char *rtop_counter_item_get_name (RtopCounterItem *self);
guint64 rtop_counter_item_get_value (RtopCounterItem *self);
guint64 rtop_counter_item_get_delta (RtopCounterItem *self);
double rtop_counter_item_get_rate (RtopCounterItem *self);    /* NAN without a rate */
RtopCounterClass rtop_counter_item_get_class (RtopCounterItem *self);
RtopCounterSource rtop_counter_item_get_source (RtopCounterItem *self);
gboolean rtop_counter_item_get_present (RtopCounterItem *self);
/* An error, drop or retransmit counter whose delta (this pass) is not 0. */
gboolean rtop_counter_item_get_rising (RtopCounterItem *self);

G_END_DECLS
