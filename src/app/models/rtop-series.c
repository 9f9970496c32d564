/* rtop-series.c: ring buffer + min/max pyramid.
 *
 * Sample i (an absolute index that only grows) lives in slot i % capacity of
 * the time ring and of level 0.  Level L > 0 holds one min/max cell per
 * aligned block of 2^L samples, in a ring large enough to cover every block
 * that overlaps the retained samples.  A range query walks the range from
 * the left, taking at each step the largest aligned block that fits, so it
 * reads O(log range) cells whatever the range's length.
 *
 * Each slot holds all channels side by side: one sample's values, and its
 * cells at one level, are adjacent in memory, so that appending a sample
 * touches a few cache lines per level rather than one per channel and
 * level (with 64 ports of 10 channels, the appends' cache misses were a
 * tenth of a window's CPU). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "rtop-series-private.h"

typedef struct {
  float min;
  float max;
} Cell;

struct _RtopSeries {
  GObject parent_instance;

  guint n_channels;
  guint capacity;
  guint n_levels;
  guint64 total;          /* samples appended since the last reset */
  gint64 realtime_offset; /* realtime - monotonic of the newest sample */

  gint64 *times;          /* [capacity] */
  float *raw;             /* [capacity][n_channels], level 0 */
  Cell **levels;          /* [n_levels][level_cap[L]][n_channels], L >= 1 */
  guint *level_cap;       /* [n_levels] */
};

/* Sample i's value of channel c, and its cell at level l >= 1. */
#define RAW(self, i, c) ((self)->raw[((i) % (self)->capacity) * (self)->n_channels + (c)])
#define CELL(self, l, i, c) \
  ((self)->levels[l][(((i) >> (l)) % (self)->level_cap[l]) * (self)->n_channels + (c)])

G_DEFINE_FINAL_TYPE (RtopSeries, rtop_series, G_TYPE_OBJECT)

enum { CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
storage_free (RtopSeries *self)
{
  for (guint l = 1; l < self->n_levels && self->levels; l++)
    g_free (self->levels[l]);
  g_clear_pointer (&self->raw, g_free);
  g_clear_pointer (&self->levels, g_free);
  g_clear_pointer (&self->times, g_free);
  g_clear_pointer (&self->level_cap, g_free);
}

static void
storage_alloc (RtopSeries *self, guint capacity)
{
  self->capacity = MAX (capacity, 2);
  self->n_levels = 1;
  while (self->n_levels < 31 && (1u << self->n_levels) <= self->capacity)
    self->n_levels++;
  self->level_cap = g_new0 (guint, self->n_levels);
  for (guint l = 0; l < self->n_levels; l++)
    self->level_cap[l] = (self->capacity >> l) + 2;
  self->times = g_new0 (gint64, self->capacity);
  self->raw = g_new (float, (gsize) self->capacity * self->n_channels);
  self->levels = g_new0 (Cell *, self->n_levels);
  for (guint l = 1; l < self->n_levels; l++)
    self->levels[l] = g_new (Cell, (gsize) self->level_cap[l] * self->n_channels);
  self->total = 0;
}

static void
rtop_series_finalize (GObject *object)
{
  storage_free (RTOP_SERIES (object));
  G_OBJECT_CLASS (rtop_series_parent_class)->finalize (object);
}

static void
rtop_series_class_init (RtopSeriesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_series_finalize;

  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
rtop_series_init (RtopSeries *self)
{
}

RtopSeries *
rtop_series_new (guint n_channels, guint capacity)
{
  RtopSeries *self;

  g_return_val_if_fail (n_channels > 0, NULL);

  self = g_object_new (RTOP_TYPE_SERIES, NULL);
  self->n_channels = n_channels;
  storage_alloc (self, MIN (capacity, RTOP_SERIES_MAX_CAPACITY));
  return self;
}


guint
rtop_series_get_capacity (RtopSeries *self)
{
  return self->capacity;
}

guint
rtop_series_capacity_for_interval (double interval_s)
{
  double n;

  if (!(interval_s > 0))
    interval_s = 1.0;
  n = ceil (RTOP_SERIES_SPAN_S / interval_s) + 1;
  return (guint) CLAMP (n, 2, RTOP_SERIES_MAX_CAPACITY);
}

static guint64
first_index (RtopSeries *self)
{
  return self->total > self->capacity ? self->total - self->capacity : 0;
}

guint
rtop_series_get_length (RtopSeries *self)
{
  return (guint) (self->total - first_index (self));
}

static inline Cell
cell_of (float v)
{
  Cell c = { v, v };

  if (isnan (v))
    c.min = INFINITY, c.max = -INFINITY;
  return c;
}

static void
store (RtopSeries *self, guint64 i, gint64 time_us, const float *values)
{
  self->times[i % self->capacity] = time_us;
  for (guint c = 0; c < self->n_channels; c++)
    RAW (self, i, c) = values[c];
  for (guint l = 1; l < self->n_levels; l++)
    {
      gboolean first = (i & ((G_GUINT64_CONSTANT (1) << l) - 1)) == 0;

      for (guint c = 0; c < self->n_channels; c++)
        {
          Cell v = cell_of (values[c]);
          Cell *cell = &CELL (self, l, i, c);

          if (first)
            *cell = v;
          else
            {
              cell->min = MIN (cell->min, v.min);
              cell->max = MAX (cell->max, v.max);
            }
        }
    }
}

void
rtop_series_append (RtopSeries *self, gint64 time_us, gint64 realtime_us,
                    const double *values)
{
  float v[16];
  g_autofree float *heap = NULL;
  float *vals = v;

  g_return_if_fail (RTOP_IS_SERIES (self));

  /* Time must not go backwards: a clock that did is clamped to the newest. */
  if (self->total > 0)
    time_us = MAX (time_us, self->times[(self->total - 1) % self->capacity]);
  if (self->n_channels > G_N_ELEMENTS (v))
    vals = heap = g_new (float, self->n_channels);
  for (guint c = 0; c < self->n_channels; c++)
    vals[c] = (float) values[c];
  store (self, self->total, time_us, vals);
  self->total++;
  self->realtime_offset = realtime_us - time_us;
  g_signal_emit (self, signals[CHANGED], 0);
}


void
rtop_series_set_capacity (RtopSeries *self, guint capacity)
{
  guint64 first, total = self->total;
  guint old_cap = self->capacity;
  gint64 *times;
  float *raw;

  capacity = CLAMP (capacity, 2, RTOP_SERIES_MAX_CAPACITY);
  if (capacity == self->capacity)
    return;

  /* Take the old storage and replay its newest samples into the new one, which
   * rebuilds the pyramid with the new alignment. */
  first = first_index (self);
  if (total - first > capacity)
    first = total - capacity;
  times = g_steal_pointer (&self->times);
  raw = g_steal_pointer (&self->raw);
  storage_free (self);

  storage_alloc (self, capacity);
  for (guint64 i = first; i < total; i++)
    store (self, self->total++, times[i % old_cap], raw + (i % old_cap) * self->n_channels);

  g_free (raw);
  g_free (times);
}

static gint64
time_at (RtopSeries *self, guint64 i)
{
  return self->times[i % self->capacity];
}

gboolean
rtop_series_get_time_range (RtopSeries *self, gint64 *first_us, gint64 *last_us)
{
  if (self->total == 0)
    return FALSE;
  if (first_us)
    *first_us = time_at (self, first_index (self));
  if (last_us)
    *last_us = time_at (self, self->total - 1);
  return TRUE;
}

gint64
rtop_series_to_realtime (RtopSeries *self, gint64 time_us)
{
  return time_us + self->realtime_offset;
}

double
rtop_series_get_last (RtopSeries *self, guint channel)
{
  g_return_val_if_fail (channel < self->n_channels, NAN);

  if (self->total == 0)
    return NAN;
  return RAW (self, self->total - 1, channel);
}

/* First absolute index in [lo, hi) whose time is >= t (hi when none). */
static guint64
lower_bound (RtopSeries *self, guint64 lo, guint64 hi, gint64 t)
{
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;

      if (time_at (self, mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Min/max over absolute indices [a, b); returns the cells read. */
static guint
range_extremes (RtopSeries *self, guint channel, guint64 a, guint64 b,
                float *min, float *max)
{
  guint reads = 0;

  *min = INFINITY;
  *max = -INFINITY;
  while (a < b)
    {
      guint l = 0;
      Cell cell;

      while (l + 1 < self->n_levels &&
             (a & ((G_GUINT64_CONSTANT (1) << (l + 1)) - 1)) == 0 &&
             a + (G_GUINT64_CONSTANT (1) << (l + 1)) <= b)
        l++;
      if (l == 0)
        cell = cell_of (RAW (self, a, channel));
      else
        cell = CELL (self, l, a, channel);
      *min = MIN (*min, cell.min);
      *max = MAX (*max, cell.max);
      a += G_GUINT64_CONSTANT (1) << l;
      reads++;
    }
  return reads;
}

guint
rtop_series_decimate (RtopSeries *self, guint channel,
                      gint64 start_us, gint64 end_us, guint n_columns,
                      double *mins, double *maxs)
{
  guint64 first = first_index (self), total = self->total, a;
  double span = (double) (end_us - start_us);
  guint reads = 0;

  g_return_val_if_fail (channel < self->n_channels, 0);

  if (n_columns == 0)
    return 0;
  a = lower_bound (self, first, total, start_us);
  for (guint col = 0; col < n_columns; col++)
    {
      gint64 col_end = start_us + (gint64) (span * (col + 1) / n_columns);
      guint64 b = col + 1 == n_columns ? lower_bound (self, a, total, end_us)
                                      : lower_bound (self, a, total, col_end);
      float lo, hi;

      reads += range_extremes (self, channel, a, b, &lo, &hi);
      mins[col] = lo <= hi ? lo : NAN;
      maxs[col] = lo <= hi ? hi : NAN;
      a = b;
    }
  return reads;
}

gboolean
rtop_series_get_extremes (RtopSeries *self, guint channel,
                          gint64 start_us, gint64 end_us,
                          double *min, double *max)
{
  guint64 first = first_index (self);
  guint64 a = lower_bound (self, first, self->total, start_us);
  guint64 b = lower_bound (self, a, self->total, end_us);
  float lo, hi;

  g_return_val_if_fail (channel < self->n_channels, FALSE);

  range_extremes (self, channel, a, b, &lo, &hi);
  if (lo > hi)
    return FALSE;
  *min = lo;
  *max = hi;
  return TRUE;
}

/* The spacing of samples around absolute index i: the larger gap to a
 * neighbour that is not itself a gap (twice the smaller one at most). */
static gint64
sample_spacing (RtopSeries *self, guint64 first, guint64 i)
{
  gint64 before = i > first ? time_at (self, i) - time_at (self, i - 1) : -1;
  gint64 after = i + 1 < self->total ? time_at (self, i + 1) - time_at (self, i) : -1;

  if (before < 0 && after < 0)
    return G_USEC_PER_SEC / 2;     /* one sample: half a second either side */
  if (before < 0 || after < 0)
    return MAX (before, after);
  return MIN (MAX (before, after), 2 * MIN (before, after));
}

gboolean
rtop_series_sample_at (RtopSeries *self, guint channel, gint64 time_us,
                       gint64 *sample_time_us, double *value)
{
  guint64 first = first_index (self), i;

  g_return_val_if_fail (channel < self->n_channels, FALSE);

  if (self->total == 0)
    return FALSE;
  i = lower_bound (self, first, self->total, time_us);
  if (i == self->total)
    i--;
  else if (i > first && time_us - time_at (self, i - 1) < time_at (self, i) - time_us)
    i--;
  /* Over empty history (before the first sample, after the last, or in a
   * gap wider than the sampling), no sample is "at" the time: a readout
   * there would show another moment's time and values. */
  if (llabs (time_us - time_at (self, i)) > sample_spacing (self, first, i))
    return FALSE;
  *sample_time_us = time_at (self, i);
  *value = RAW (self, i, channel);
  return TRUE;
}
