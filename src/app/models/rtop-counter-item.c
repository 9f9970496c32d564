/* rtop-counter-item.c: one row of a port's counters table: a counter's name,
 * value and rate, updated in place. */
#include "config.h"

#include <math.h>

#include "rtop-counter-item-private.h"

static gboolean rtop_counter_class_is_problem (RtopCounterClass klass);

struct _RtopCounterItem {
  GObject parent_instance;

  char *name;
  gboolean device_level;
  guint64 value;
  guint64 delta;
  double rate;
  RtopCounterClass klass;
  RtopCounterSource source;
  gboolean present;
  gboolean rising;
  gboolean frozen;           /* last value of a device that went away */
};

G_DEFINE_FINAL_TYPE (RtopCounterItem, rtop_counter_item, G_TYPE_OBJECT)

enum { UPDATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
rtop_counter_item_finalize (GObject *object)
{
  g_free (RTOP_COUNTER_ITEM (object)->name);
  G_OBJECT_CLASS (rtop_counter_item_parent_class)->finalize (object);
}

static void
rtop_counter_item_class_init (RtopCounterItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_counter_item_finalize;
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
rtop_counter_item_init (RtopCounterItem *self)
{
  self->rate = NAN;
}

RtopCounterItem *
rtop_counter_item_new (const char *name, gboolean device_level)
{
  RtopCounterItem *self = g_object_new (RTOP_TYPE_COUNTER_ITEM, NULL);

  self->name = g_strdup (name);
  self->device_level = device_level;
  return self;
}

static gboolean
rtop_counter_class_is_problem (RtopCounterClass klass)
{
  switch (klass)
    {
    case RTOP_COUNTER_CLASS_DROP:
    case RTOP_COUNTER_CLASS_RETRANSMIT:
    case RTOP_COUNTER_CLASS_LINK_ERROR:
    case RTOP_COUNTER_CLASS_TRANSPORT_ERROR:
    case RTOP_COUNTER_CLASS_OPERATION_ERROR:
      return TRUE;
    default:
      return FALSE;
    }
}

void
rtop_counter_item_update (RtopCounterItem *self, const RtopCounter *counter)
{
  g_return_if_fail (RTOP_IS_COUNTER_ITEM (self));

  self->value = counter->value;
  self->delta = counter->delta;
  self->rate = counter->has_rate ? counter->rate : NAN;
  self->klass = counter->klass;
  self->source = counter->source;
  self->present = TRUE;
  self->frozen = FALSE;
  /* Rising is what the Delta column shows: never beside a delta of 0. */
  self->rising = rtop_counter_class_is_problem (counter->klass) && counter->delta > 0;
  g_signal_emit (self, signals[UPDATED], 0);
}

void
rtop_counter_item_set_frozen (RtopCounterItem *self)
{
  if (self->frozen || !self->present)
    return;
  self->frozen = TRUE;
  self->rising = FALSE;
  self->rate = NAN;
  self->delta = 0;
  g_signal_emit (self, signals[UPDATED], 0);
}

gboolean
rtop_counter_item_get_frozen (RtopCounterItem *self)
{
  return self->frozen;
}

void
rtop_counter_item_set_missing (RtopCounterItem *self)
{
  if (!self->present)
    return;
  self->present = FALSE;
  self->rising = FALSE;
  self->rate = NAN;
  self->delta = 0;
  g_signal_emit (self, signals[UPDATED], 0);
}

const char *
rtop_counter_item_get_name (RtopCounterItem *self)
{
  return self->name;
}


guint64
rtop_counter_item_get_value (RtopCounterItem *self)
{
  return self->value;
}

guint64
rtop_counter_item_get_delta (RtopCounterItem *self)
{
  return self->delta;
}

double
rtop_counter_item_get_rate (RtopCounterItem *self)
{
  return self->rate;
}

RtopCounterClass
rtop_counter_item_get_class (RtopCounterItem *self)
{
  return self->klass;
}

RtopCounterSource
rtop_counter_item_get_source (RtopCounterItem *self)
{
  return self->source;
}

gboolean
rtop_counter_item_get_present (RtopCounterItem *self)
{
  return self->present;
}

gboolean
rtop_counter_item_get_rising (RtopCounterItem *self)
{
  return self->rising;
}
