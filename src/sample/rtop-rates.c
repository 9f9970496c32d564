/* rtop-rates.c: deltas and rates per port and counter. */
#include "config.h"

#include <string.h>

#include "rtop-rates-private.h"
#include "rtop-port-key.h"
#include "rtop-sysfs.h"

typedef struct {
  guint64 value;
  RtopCounterSource source;
  char *name;
} CounterState;

typedef struct {
  guint32 dev_index;
  gint64 last_read_us;
  gboolean has_read;
  guint64 pass;              /* last pass this port was seen or kept */
  GHashTable *counters;      /* "source:name" -> CounterState */
  GPtrArray *order;          /* CounterState of the last read, in its order */
  guint64 layout;            /* of the last read, 0 when unknown */
} PortState;

struct _RtopRates {
  GHashTable *ports;         /* "device/port" -> PortState */
  guint64 pass;
};

static void
counter_state_free (gpointer data)
{
  CounterState *cs = data;

  g_free (cs->name);
  g_free (cs);
}

static void
port_state_free (gpointer data)
{
  PortState *ps = data;

  g_ptr_array_unref (ps->order);
  g_hash_table_unref (ps->counters);
  g_free (ps);
}

RtopRates *
rtop_rates_new (void)
{
  RtopRates *self = g_new0 (RtopRates, 1);

  self->ports = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, port_state_free);
  return self;
}

void
rtop_rates_free (RtopRates *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->ports);
  g_free (self);
}

void
rtop_rates_begin_pass (RtopRates *self)
{
  self->pass++;
}

/* A counter that goes backwards is a 32-bit wrap only when its previous
 * value sat in the upper half of the 32-bit range: such counters (mlx5
 * queue counters) wrap from near 2^32 to near 0.  Anything else that goes
 * backwards was reset, and a reset must never be shown as a huge rate. */
gboolean
rtop_rates_delta (guint64 prev, guint64 cur, guint64 *delta)
{
  if (cur >= prev)
    {
      *delta = cur - prev;
      return TRUE;
    }
  if (prev <= G_MAXUINT32 && prev >= (G_GUINT64_CONSTANT (1) << 31))
    {
      *delta = (G_GUINT64_CONSTANT (1) << 32) - prev + cur;
      return TRUE;
    }
  *delta = 0;
  return FALSE;
}

static PortState *
lookup_port (RtopRates *self, const char *device, guint32 port, guint32 dev_index,
             gboolean *fresh)
{
  char key[RTOP_PORT_KEY_SIZE];
  PortState *ps = g_hash_table_lookup (self->ports, rtop_port_key (key, device, port));

  *fresh = FALSE;
  if (ps != NULL && ps->dev_index != dev_index)
    {
      /* Same name, new kernel device: every counter it had is reset and
       * restarts from a baseline, whatever its value. */
      ps->dev_index = dev_index;
      ps->has_read = FALSE;
      *fresh = TRUE;
    }
  if (ps == NULL)
    {
      ps = g_new0 (PortState, 1);
      ps->dev_index = dev_index;
      ps->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, counter_state_free);
      ps->order = g_ptr_array_new ();
      g_hash_table_insert (self->ports, g_strdup (key), ps);
    }
  return ps;
}

/* Drivers list their counters in the same order every time, so the state
 * of the counter at the same position is almost always the one wanted:
 * the hash table (and building its key) is only for the first read and for
 * a changed layout. */
static CounterState *
counter_state_for (PortState *ps, guint i, const RtopCounter *c, gboolean *is_new)
{
  char key[256];
  CounterState *cs;

  *is_new = FALSE;
  if (i < ps->order->len)
    {
      cs = g_ptr_array_index (ps->order, i);
      if (cs->source == c->source && strcmp (cs->name, c->name) == 0)
        return cs;
    }
  g_snprintf (key, sizeof key, "%d:%s", c->source, c->name);
  cs = g_hash_table_lookup (ps->counters, key);
  if (cs == NULL)
    {
      /* A counter that appears later starts from its own baseline. */
      cs = g_new0 (CounterState, 1);
      cs->source = c->source;
      cs->name = g_strdup (c->name);
      g_hash_table_insert (ps->counters, g_strdup (key), cs);
      *is_new = TRUE;
    }
  if (i < ps->order->len)
    g_ptr_array_index (ps->order, i) = cs;
  else
    g_ptr_array_add (ps->order, cs);
  return cs;
}

/* A PMA counter at its maximum counts no more: it does not wrap from
 * there, it is cleared. */
static inline gboolean
pma_at_max (const RtopCounter *c, guint64 value)
{
  return c->source == RTOP_COUNTER_SOURCE_SYSFS_PORT &&
         rtop_sysfs_pma_counter_at_max (c->name, value);
}

static inline void
update_counter (PortState *ps, gboolean same_layout, guint i, RtopCounter *c, double elapsed,
                gboolean fresh, guint *n_resets)
{
  gboolean is_new = FALSE;
  CounterState *cs = same_layout ? g_ptr_array_index (ps->order, i)
                                 : counter_state_for (ps, i, c, &is_new);

  c->delta = 0;
  c->rate = 0;
  c->has_rate = FALSE;
  c->reset = FALSE;
  c->saturated = FALSE;
  if (is_new)
    {
      /* Baseline: nothing to compare with yet. */
    }
  else if (fresh || !rtop_rates_delta (cs->value, c->value, &c->delta) ||
           (c->value < cs->value && pma_at_max (c, cs->value)))
    {
      c->delta = 0;
      c->reset = TRUE;
      (*n_resets)++;
    }
  else if (c->delta == 0 && pma_at_max (c, c->value))
    {
      /* Stuck at its maximum: a rate of 0 would say the link is idle
       * while traffic may flow.  The rate is unknown. */
      c->saturated = TRUE;
    }
  else if (elapsed > 0)
    {
      c->rate = c->delta / elapsed;
      c->has_rate = TRUE;
    }
  cs->value = c->value;
}

double
rtop_rates_update (RtopRates *self, const char *device, guint32 dev_index,
                   guint32 port, gint64 read_time_us, GPtrArray *counters,
                   guint *n_resets)
{
  return rtop_rates_update_layout (self, device, dev_index, port, read_time_us, 0, counters,
                                   n_resets);
}

double
rtop_rates_update_layout (RtopRates *self, const char *device, guint32 dev_index,
                          guint32 port, gint64 read_time_us, guint64 layout,
                          GPtrArray *counters, guint *n_resets)
{
  gboolean fresh;
  PortState *ps = lookup_port (self, device, port, dev_index, &fresh);
  gboolean same_layout = layout != 0 && ps->layout == layout && ps->order->len == counters->len;
  double elapsed = 0;
  guint resets = 0;

  if (ps->has_read && read_time_us > ps->last_read_us)
    /* Later, so the difference fits unsigned (read times from a
     * recording can be anything: signed, it could overflow). */
    elapsed = ((guint64) read_time_us - (guint64) ps->last_read_us) / (double) G_USEC_PER_SEC;
  for (guint i = 0; i < counters->len; i++)
    update_counter (ps, same_layout, i, g_ptr_array_index (counters, i), elapsed, fresh,
                    &resets);
  g_ptr_array_set_size (ps->order, counters->len);
  ps->layout = layout;
  ps->last_read_us = read_time_us;
  ps->has_read = TRUE;
  ps->pass = self->pass;
  if (n_resets != NULL)
    *n_resets = resets;
  return elapsed;
}

void
rtop_rates_keep (RtopRates *self, const char *device, guint32 port)
{
  char key[RTOP_PORT_KEY_SIZE];
  PortState *ps = g_hash_table_lookup (self->ports, rtop_port_key (key, device, port));

  if (ps != NULL)
    ps->pass = self->pass;
}

static gboolean
is_stale_cb (gpointer key, gpointer value, gpointer user_data)
{
  const RtopRates *self = user_data;

  return ((PortState *) value)->pass != self->pass;
}

void
rtop_rates_end_pass (RtopRates *self)
{
  g_hash_table_foreach_remove (self->ports, is_stale_cb, self);
}

guint
rtop_rates_get_n_ports (RtopRates *self)
{
  return g_hash_table_size (self->ports);
}
