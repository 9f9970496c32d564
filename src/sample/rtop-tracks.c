/* rtop-tracks.c: counter samples to counter-track points (rtop-tracks.h). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-tracks-private.h"

/* One port's counter: what the next sample's rate is taken against, and
 * what compaction holds back. */
typedef struct {
  char *device;
  char *counter;
  guint32 port;
  gboolean have_last, have_rate, have_held;
  gint64 last_mono_ns;
  guint64 last_value;
  double rate;               /* of the newest point kept */
  RtopTrackPoint held;       /* the newest repeat of rate, not yet kept */
} Track;

struct _RtopTracks {
  RtopTracksClock clock;
  gboolean compact;
  gsize max_points;
  GMutex lock;               /* guards all that follows */
  GPtrArray *tracks;         /* Track*, by index */
  GHashTable *index;         /* Track* (its key) -> index + 1 */
  GArray *points;            /* RtopTrackPoint, in the order made */
  guint64 dropped;
};

static guint
track_hash (gconstpointer key)
{
  const Track *t = key;

  return (g_str_hash (t->device) * 31 + g_str_hash (t->counter)) * 31 + t->port;
}

static gboolean
track_equal (gconstpointer a, gconstpointer b)
{
  const Track *x = a, *y = b;

  return x->port == y->port && strcmp (x->device, y->device) == 0
         && strcmp (x->counter, y->counter) == 0;
}

static void
track_free (gpointer data)
{
  Track *t = data;

  g_free (t->device);
  g_free (t->counter);
  g_free (t);
}

RtopTracks *
rtop_tracks_new (RtopTracksClock clock, gboolean compact, gsize max_points, GError **error)
{
  RtopTracks *self;

  if (clock != RTOP_TRACKS_CLOCK_REALTIME && clock != RTOP_TRACKS_CLOCK_MONOTONIC)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("Unknown clock %d: tracks use CLOCK_REALTIME (0) or CLOCK_MONOTONIC (1)"),
                   (int) clock);
      return NULL;
    }
  if (max_points > RTOP_TRACKS_MAX_POINTS)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("Tracks keep at most %u points, not %lu"),
                   RTOP_TRACKS_MAX_POINTS, (gulong) max_points);
      return NULL;
    }
  self = g_new0 (RtopTracks, 1);
  self->clock = clock;
  self->compact = compact;
  self->max_points = max_points ? max_points : RTOP_TRACKS_DEFAULT_MAX_POINTS;
  g_mutex_init (&self->lock);
  self->tracks = g_ptr_array_new_with_free_func (track_free);
  self->index = g_hash_table_new (track_hash, track_equal);
  self->points = g_array_new (FALSE, FALSE, sizeof (RtopTrackPoint));
  return self;
}

void
rtop_tracks_free (RtopTracks *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->index);
  g_ptr_array_unref (self->tracks);
  g_array_unref (self->points);
  g_mutex_clear (&self->lock);
  g_free (self);
}

/* The track of s, made on first sight; NULL past RTOP_TRACKS_MAX_TRACKS. */
static Track *
track_of (RtopTracks *self, const RtopTrackSample *s, guint *index)
{
  Track key = { (char *) s->device, (char *) s->counter, s->port };
  gpointer found = g_hash_table_lookup (self->index, &key);
  Track *t;

  if (found != NULL)
    {
      *index = GPOINTER_TO_UINT (found) - 1;
      return g_ptr_array_index (self->tracks, *index);
    }
  if (self->tracks->len >= RTOP_TRACKS_MAX_TRACKS)
    return NULL;
  t = g_new0 (Track, 1);
  t->device = g_strdup (s->device);
  t->counter = g_strdup (s->counter);
  t->port = s->port;
  g_ptr_array_add (self->tracks, t);
  *index = self->tracks->len - 1;
  g_hash_table_insert (self->index, t, GUINT_TO_POINTER (*index + 1));
  return t;
}

static void
keep_point (RtopTracks *self, const RtopTrackPoint *p)
{
  if (self->points->len >= self->max_points)
    self->dropped++;
  else
    g_array_append_val (self->points, *p);
}

static void
feed_one (RtopTracks *self, const RtopTrackSample *s)
{
  guint index;
  Track *t = s->device && s->counter ? track_of (self, s, &index) : NULL;
  RtopTrackPoint p = { 0 };
  gint64 dt;
  gboolean usable;

  if (t == NULL)
    {
      self->dropped++;
      return;
    }
  dt = s->monotonic_ns - t->last_mono_ns;
  usable = t->have_last && dt > 0 && s->value >= t->last_value;
  if (usable)
    {
      p.time_ns = self->clock == RTOP_TRACKS_CLOCK_MONOTONIC ? s->monotonic_ns : s->realtime_ns;
      p.track = index;
      p.rate = (double) (s->value - t->last_value) * 1e9 / (double) dt;
    }
  t->have_last = TRUE;
  t->last_mono_ns = s->monotonic_ns;
  t->last_value = s->value;
  if (!usable)
    return;
  if (self->compact && t->have_rate && t->rate == p.rate)
    {
      /* Held: only the newest repeat matters, as the track's end. */
      t->held = p;
      t->have_held = TRUE;
      return;
    }
  t->have_held = FALSE;
  t->have_rate = TRUE;
  t->rate = p.rate;
  keep_point (self, &p);
}

static gboolean
in_order (const RtopTrackSample *samples, gsize n)
{
  for (gsize i = 1; i < n; i++)
    if (samples[i].monotonic_ns < samples[i - 1].monotonic_ns)
      return FALSE;
  return TRUE;
}

typedef struct {
  gint64 key;
  gsize seq;
} Order;

static int
order_cmp (const void *a, const void *b)
{
  const Order *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
rtop_tracks_feed (RtopTracks *self, const RtopTrackSample *samples, gsize n)
{
  g_autofree Order *order = NULL;

  g_return_if_fail (self != NULL && (samples != NULL || n == 0));
  g_mutex_lock (&self->lock);
  if (in_order (samples, n))
    for (gsize i = 0; i < n; i++)
      feed_one (self, &samples[i]);
  else
    {
      /* A capture's passes come in order; other callers' samples may not. */
      order = g_new (Order, n);
      for (gsize i = 0; i < n; i++)
        order[i] = (Order) { samples[i].monotonic_ns, i };
      qsort (order, n, sizeof (Order), order_cmp);
      for (gsize i = 0; i < n; i++)
        feed_one (self, &samples[order[i].seq]);
    }
  g_mutex_unlock (&self->lock);
}

guint
rtop_tracks_get_n_tracks (RtopTracks *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = self->tracks->len;
  g_mutex_unlock (&self->lock);
  return n;
}

gboolean
rtop_tracks_get_track (RtopTracks *self, guint track, const char **device, guint32 *port,
                       const char **counter)
{
  const Track *t = NULL;

  g_mutex_lock (&self->lock);
  if (track < self->tracks->len)
    t = g_ptr_array_index (self->tracks, track);
  g_mutex_unlock (&self->lock);
  if (t == NULL)
    return FALSE;
  *device = t->device;
  *port = t->port;
  *counter = t->counter;
  return TRUE;
}

guint64
rtop_tracks_get_dropped (RtopTracks *self)
{
  guint64 n;

  g_mutex_lock (&self->lock);
  n = self->dropped;
  g_mutex_unlock (&self->lock);
  return n;
}

gsize
rtop_tracks_get_size (RtopTracks *self)
{
  gsize n;

  g_mutex_lock (&self->lock);
  n = sizeof *self + (gsize) self->points->len * sizeof (RtopTrackPoint)
      + (gsize) self->tracks->len * (sizeof (Track) + 64);
  g_mutex_unlock (&self->lock);
  return n;
}

/* ---- Clipping ---- */

typedef struct {
  RtopTrackPoint p;
  gsize seq;
} Ranked;

static int
by_track_then_time (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;

  if (x->p.track != y->p.track)
    return x->p.track < y->p.track ? -1 : 1;
  if (x->p.time_ns != y->p.time_ns)
    return x->p.time_ns < y->p.time_ns ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
by_time_then_track (const void *a, const void *b)
{
  const RtopTrackPoint *x = a, *y = b;

  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  return x->track < y->track ? -1 : x->track > y->track;
}

/* Every point kept and held, grouped by track, each track's in time order. */
static Ranked *
ranked_points (RtopTracks *self, gsize *n)
{
  gsize total = self->points->len, k = 0;
  Ranked *all;

  for (guint i = 0; i < self->tracks->len; i++)
    total += ((Track *) g_ptr_array_index (self->tracks, i))->have_held;
  all = g_new (Ranked, MAX (total, 1));
  for (guint i = 0; i < self->points->len; i++, k++)
    all[k] = (Ranked) { g_array_index (self->points, RtopTrackPoint, i), k };
  for (guint i = 0; i < self->tracks->len; i++)
    {
      const Track *t = g_ptr_array_index (self->tracks, i);
      if (t->have_held)
        all[k] = (Ranked) { t->held, k }, k++;
    }
  qsort (all, total, sizeof (Ranked), by_track_then_time);
  *n = total;
  return all;
}

/* One track's points [from, to) of all, clipped, appended to out. */
static void
clip_track (const Ranked *all, gsize from, gsize to, gint64 start_ns, gint64 end_ns,
            GArray *out)
{
  const RtopTrackPoint *before = NULL, *last_inside = NULL;
  gboolean after = FALSE;
  gsize first_out = out->len;

  for (gsize i = from; i < to; i++)
    {
      const RtopTrackPoint *p = &all[i].p;
      if (p->time_ns < start_ns)
        before = p;
      else if (p->time_ns > end_ns)
        after = TRUE;
      else
        {
          if (last_inside == NULL && before != NULL && p->time_ns != start_ns)
            g_array_append_vals (out, &(RtopTrackPoint) { start_ns, p->track, 0, before->rate }, 1);
          g_array_append_vals (out, p, 1);
          last_inside = p;
        }
    }
  if (last_inside == NULL && before != NULL)
    {
      g_array_append_vals (out, &(RtopTrackPoint) { start_ns, before->track, 0, before->rate }, 1);
      last_inside = &g_array_index (out, RtopTrackPoint, out->len - 1);
    }
  if (after && out->len > first_out
      && g_array_index (out, RtopTrackPoint, out->len - 1).time_ns < end_ns)
    {
      RtopTrackPoint end = g_array_index (out, RtopTrackPoint, out->len - 1);
      end.time_ns = end_ns;
      g_array_append_val (out, end);
    }
}

/* What a window needs of one track, found in one pass over its points. */
typedef struct {
  gboolean seen, before, at_start, inside, after;
  gint64 last_ns;            /* of the point before, to check the order */
  double before_rate;        /* of the newest point before the window */
  gint64 inside_ns;          /* of the newest point inside */
  double inside_rate;
} Window;

/* FALSE when p is older than its track's point before it (the realtime
 * clock stepped back): then the general, sorting clip is used. */
static gboolean
scan_point (Window *w, const RtopTrackPoint *p, gint64 start_ns, gint64 end_ns)
{
  if (w->seen && p->time_ns < w->last_ns)
    return FALSE;
  w->seen = TRUE;
  w->last_ns = p->time_ns;
  if (p->time_ns < start_ns)
    {
      w->before = TRUE;
      w->before_rate = p->rate;
    }
  else if (p->time_ns > end_ns)
    w->after = TRUE;
  else
    {
      w->at_start |= !w->inside && p->time_ns == start_ns;
      w->inside = TRUE;
      w->inside_ns = p->time_ns;
      w->inside_rate = p->rate;
    }
  return TRUE;
}

static gboolean
in_window (const RtopTrackPoint *p, gint64 start_ns, gint64 end_ns)
{
  return p->time_ns >= start_ns && p->time_ns <= end_ns;
}

/* The held points inside the window (at most one a track), sorted and
 * merged into out in place, from the back. */
static void
merge_held (RtopTracks *self, GArray *out, gint64 start_ns, gint64 end_ns)
{
  g_autoptr(GArray) held = g_array_new (FALSE, FALSE, sizeof (RtopTrackPoint));
  RtopTrackPoint *o, *h;
  gsize i, j, k;

  for (guint t = 0; t < self->tracks->len; t++)
    {
      const Track *tr = g_ptr_array_index (self->tracks, t);
      if (tr->have_held && in_window (&tr->held, start_ns, end_ns))
        g_array_append_val (held, tr->held);
    }
  if (held->len == 0)
    return;
  g_array_sort (held, by_time_then_track);
  i = out->len;
  j = held->len;
  g_array_set_size (out, out->len + held->len);
  o = (RtopTrackPoint *) (void *) out->data;
  h = (RtopTrackPoint *) (void *) held->data;
  for (k = out->len; j > 0; k--)
    {
      if (i > 0 && by_time_then_track (&o[i - 1], &h[j - 1]) > 0)
        o[k - 1] = o[--i];
      else
        o[k - 1] = h[--j];
    }
}

static gboolean
sorted (const GArray *a)
{
  for (guint i = 1; i < a->len; i++)
    if (by_time_then_track (&g_array_index (a, RtopTrackPoint, i - 1),
                            &g_array_index (a, RtopTrackPoint, i)) > 0)
      return FALSE;
  return TRUE;
}

/* The clip in passes over the points as kept, without sorting them: they
 * are kept in CLOCK_MONOTONIC order, which is each track's time order
 * unless the realtime clock stepped back (then NULL). */
static GArray *
clip_in_order (RtopTracks *self, gint64 start_ns, gint64 end_ns)
{
  g_autofree Window *w = g_new0 (Window, MAX (self->tracks->len, 1));
  /* Room for every point, held ones and both ends of each track: no growth. */
  g_autoptr(GArray) out = g_array_sized_new (FALSE, FALSE, sizeof (RtopTrackPoint),
                                             self->points->len + 3 * self->tracks->len);

  for (guint i = 0; i < self->points->len; i++)
    {
      const RtopTrackPoint *p = &g_array_index (self->points, RtopTrackPoint, i);
      if (!scan_point (&w[p->track], p, start_ns, end_ns))
        return NULL;
    }
  for (guint k = 0; k < self->tracks->len; k++)
    {
      const Track *t = g_ptr_array_index (self->tracks, k);
      if (t->have_held && !scan_point (&w[k], &t->held, start_ns, end_ns))
        return NULL;
    }
  /* The rate each track holds at the start, where no point is there. */
  for (guint k = 0; k < self->tracks->len; k++)
    if (w[k].before && !w[k].at_start)
      g_array_append_vals (out, &(RtopTrackPoint) { start_ns, k, 0, w[k].before_rate }, 1);
  for (guint i = 0; i < self->points->len; i++)
    {
      const RtopTrackPoint *p = &g_array_index (self->points, RtopTrackPoint, i);
      if (in_window (p, start_ns, end_ns))
        g_array_append_vals (out, p, 1);
    }
  merge_held (self, out, start_ns, end_ns);
  /* Where a track goes on past the window, the rate it holds at the end. */
  for (guint k = 0; k < self->tracks->len; k++)
    if (w[k].after && (w[k].inside || w[k].before)
        && (w[k].inside ? w[k].inside_ns : start_ns) < end_ns)
      g_array_append_vals (out, &(RtopTrackPoint) {
        end_ns, k, 0, w[k].inside ? w[k].inside_rate : w[k].before_rate }, 1);
  if (!sorted (out))
    g_array_sort (out, by_time_then_track);
  return g_steal_pointer (&out);
}

/* The general clip: every point sorted by track and time first. */
static GArray *
clip_sorting (RtopTracks *self, gint64 start_ns, gint64 end_ns)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (RtopTrackPoint));
  g_autofree Ranked *all = NULL;
  gsize total, from = 0;

  all = ranked_points (self, &total);
  while (from < total)
    {
      gsize to = from;
      while (to < total && all[to].p.track == all[from].p.track)
        to++;
      clip_track (all, from, to, start_ns, end_ns, out);
      from = to;
    }
  g_array_sort (out, by_time_then_track);
  return out;
}

static RtopTrackPoint *
clip_to (RtopTracks *self, gint64 start_ns, gint64 end_ns, gboolean in_order, gsize *n)
{
  GArray *out = NULL;

  g_mutex_lock (&self->lock);
  if (start_ns > end_ns)
    out = g_array_new (FALSE, FALSE, sizeof (RtopTrackPoint));
  else if (in_order)
    out = clip_in_order (self, start_ns, end_ns);
  if (out == NULL)
    out = clip_sorting (self, start_ns, end_ns);
  g_mutex_unlock (&self->lock);
  *n = out->len;
  return (RtopTrackPoint *) g_array_free (out, FALSE);
}

RtopTrackPoint *
rtop_tracks_clip (RtopTracks *self, gint64 start_ns, gint64 end_ns, gsize *n)
{
  return clip_to (self, start_ns, end_ns, TRUE, n);
}

RtopTrackPoint *
rtop_tracks_clip_sorting (RtopTracks *self, gint64 start_ns, gint64 end_ns, gsize *n)
{
  return clip_to (self, start_ns, end_ns, FALSE, n);
}
