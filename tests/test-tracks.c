/* test-tracks.c: counter samples to counter-track points (RtopTracks), and
 * a synthetic capture feeding them on its thread.  No RDMA. */
#include "config.h"

#include "rtop-capture.h"
#include "rtop-error.h"
#include "rtop-tracks-private.h"

#define REAL0 G_GINT64_CONSTANT (1796000000000000000)
#define MONO0 G_GINT64_CONSTANT (5000000000)
#define MS G_GINT64_CONSTANT (1000000)

/* values[i] of one counter, one a millisecond, as a capture reads them. */
static GArray *
samples (const char *device, guint32 port, const char *counter, const guint64 *values, guint n)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (RtopTrackSample));

  for (guint i = 0; i < n; i++)
    g_array_append_vals (a, &(RtopTrackSample) {
      REAL0 + i * MS, MONO0 + i * MS, device, port, counter, values[i] }, 1);
  return a;
}

static RtopTracks *
tracks_new (RtopTracksClock clock, gboolean compact)
{
  g_autoptr(GError) error = NULL;
  RtopTracks *t = rtop_tracks_new (clock, compact, 0, &error);

  g_assert_no_error (error);
  return t;
}

static void
feed (RtopTracks *t, GArray *s)
{
  rtop_tracks_feed (t, (RtopTrackSample *) (void *) s->data, s->len);
}

/* Every point, as from a window wider than any test's data. */
static RtopTrackPoint *
all_points (RtopTracks *t, gsize *n)
{
  return rtop_tracks_clip (t, G_MININT64, G_MAXINT64, n);
}

static void
test_rate_per_second (void)
{
  const guint64 v[] = { 10, 20, 40 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "sent_pkts", v, 3);
  g_autoptr(RtopTracks) real = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autoptr(RtopTracks) mono = tracks_new (RTOP_TRACKS_CLOCK_MONOTONIC, FALSE);
  g_autofree RtopTrackPoint *p = NULL, *m = NULL;
  gsize n, nm;

  feed (real, s);
  feed (mono, s);
  p = all_points (real, &n);
  m = all_points (mono, &nm);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (p[0].rate, ==, 10000.0);
  g_assert_cmpfloat (p[1].rate, ==, 20000.0);
  /* At the later sample's time, on the clock asked for. */
  g_assert_cmpint (p[0].time_ns, ==, REAL0 + MS);
  g_assert_cmpint (p[1].time_ns, ==, REAL0 + 2 * MS);
  g_assert_cmpuint (nm, ==, 2);
  g_assert_cmpint (m[0].time_ns, ==, MONO0 + MS);
  g_assert_cmpfloat (m[1].rate, ==, 20000.0);
}

static void
test_uneven_intervals (void)
{
  const guint64 v[] = { 0, 100 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 2);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  g_array_index (s, RtopTrackSample, 1).monotonic_ns = MONO0 + 4 * MS;
  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpfloat (p[0].rate, ==, 25000.0);
}

static void
test_reset_gives_no_point (void)
{
  const guint64 v[] = { 100, 200, 5, 15 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 4);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpfloat (p[0].rate, ==, 100000.0);
  g_assert_cmpfloat (p[1].rate, ==, 10000.0);
}

static void
test_same_time_twice_and_empty (void)
{
  const guint64 v[] = { 0, 10, 20 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 3);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autoptr(RtopTracks) one = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autofree RtopTrackPoint *p = NULL, *q = NULL;
  gsize n;

  g_array_index (s, RtopTrackSample, 2).monotonic_ns = MONO0 + MS;
  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 1);
  rtop_tracks_feed (one, (RtopTrackSample *) (void *) s->data, 1);
  rtop_tracks_feed (one, NULL, 0);
  q = all_points (one, &n);
  g_assert_cmpuint (n, ==, 0);
}

/* Samples of three tracks shuffled within one call: each track's rates as
 * if in order, and the points sorted by time. */
static void
test_tracks_separate_order_free (void)
{
  const guint64 a[] = { 0, 1, 2 }, b[] = { 0, 0, 0 }, c[] = { 0, 5, 10 };
  g_autoptr(GArray) sa = samples ("rxe0", 1, "x", a, 3);
  g_autoptr(GArray) sb = samples ("rxe1", 1, "x", b, 3);
  g_autoptr(GArray) sc = samples ("rxe0", 2, "x", c, 3);
  g_autoptr(GArray) mixed = g_array_new (FALSE, FALSE, sizeof (RtopTrackSample));
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  const GArray *from[] = { sa, sb, sc, sa, sb, sc, sa, sb, sc };
  const guint at[] = { 2, 1, 0, 0, 0, 2, 1, 2, 1 };
  g_autofree RtopTrackPoint *p = NULL;
  double want[] = { 1000.0, 0.0, 5000.0 };
  gsize n;

  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    g_array_append_val (mixed, g_array_index ((GArray *) from[i], RtopTrackSample, at[i]));
  feed (t, mixed);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 6);
  g_assert_cmpuint (rtop_tracks_get_n_tracks (t), ==, 3);
  for (gsize i = 0; i < n; i++)
    {
      const char *dev, *ctr;
      guint32 port;
      g_assert_true (rtop_tracks_get_track (t, p[i].track, &dev, &port, &ctr));
      g_assert_cmpfloat (p[i].rate, ==, want[g_str_equal (dev, "rxe1") ? 1 : port == 2 ? 2 : 0]);
      if (i > 0)
        g_assert_cmpint (p[i].time_ns, >=, p[i - 1].time_ns);
    }
  g_assert_false (rtop_tracks_get_track (t, 3, &(const char *) { NULL }, &(guint32) { 0 },
                                         &(const char *) { NULL }));
}

static void
test_compact_idle_keeps_first_and_last (void)
{
  const guint64 v[] = { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5 };
  g_autoptr(GArray) s = samples ("rxe2", 1, "x", v, 10);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, TRUE);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (p[0].time_ns, ==, REAL0 + MS);
  g_assert_cmpint (p[1].time_ns, ==, REAL0 + 9 * MS);
  g_assert_cmpfloat (p[0].rate, ==, 0.0);
  g_assert_cmpfloat (p[1].rate, ==, 0.0);
}

static void
test_compact_keeps_changes (void)
{
  const guint64 v[] = { 0, 1, 2, 2, 2, 3 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 6);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, TRUE);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (p[0].rate, ==, 1000.0);
  g_assert_cmpfloat (p[1].rate, ==, 0.0);
  g_assert_cmpfloat (p[2].rate, ==, 1000.0);
}

/* Fed in batches of 3 or at once: the same points, compacted or not. */
static void
test_batches_give_one_pass (void)
{
  const guint64 v[] = { 0, 1, 2, 2, 2, 2, 9, 9, 10, 20 }, idle[10] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
  g_autoptr(GArray) a = samples ("rxe0", 1, "x", v, 10);
  g_autoptr(GArray) b = samples ("rxe2", 1, "x", idle, 10);
  g_autoptr(GArray) s = g_array_new (FALSE, FALSE, sizeof (RtopTrackSample));

  for (guint i = 0; i < 10; i++)
    {
      g_array_append_val (s, g_array_index (a, RtopTrackSample, i));
      g_array_append_val (s, g_array_index (b, RtopTrackSample, i));
    }
  for (int compact = 0; compact <= 1; compact++)
    {
      g_autoptr(RtopTracks) whole = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, compact);
      g_autoptr(RtopTracks) parts = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, compact);
      g_autofree RtopTrackPoint *pw = NULL, *pp = NULL;
      gsize nw, np;

      feed (whole, s);
      for (guint i = 0; i < s->len; i += 3)
        rtop_tracks_feed (parts, &g_array_index (s, RtopTrackSample, i), MIN (3, s->len - i));
      pw = all_points (whole, &nw);
      pp = all_points (parts, &np);
      g_assert_cmpuint (nw, ==, np);
      g_assert_cmpmem (pw, nw * sizeof *pw, pp, np * sizeof *pp);
      /* 9 points a track uncompacted; compacted the busy one's changes
       * (1, 1 held, 0 0 0, 7, 0, 1, 10) and the idle one's two ends. */
      g_assert_cmpuint (nw, ==, compact ? 6 + 2 : 18);
    }
}

static void
test_clip_inclusive_bounds (void)
{
  const guint64 v[] = { 0, 1, 3, 6, 10 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 5);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  feed (t, s);
  p = rtop_tracks_clip (t, REAL0 + 2 * MS, REAL0 + 3 * MS, &n);
  /* The rate held at the window's start is the point at it; the track
   * goes on past the end, which holds 3000 from the point at it. */
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (p[0].time_ns, ==, REAL0 + 2 * MS);
  g_assert_cmpfloat (p[0].rate, ==, 2000.0);
  g_assert_cmpint (p[1].time_ns, ==, REAL0 + 3 * MS);
  g_assert_cmpfloat (p[1].rate, ==, 3000.0);
}

static void
test_clip_carries_held_values (void)
{
  g_autofree guint64 *v = g_new (guint64, 100);
  g_autoptr(GArray) s = NULL;
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, TRUE);
  g_autofree RtopTrackPoint *all = NULL, *p = NULL;
  gint64 lo = REAL0 + 10 * MS, hi = REAL0 + 20 * MS;
  gsize n;

  for (guint i = 0; i < 100; i++)
    v[i] = 3 * i;
  s = samples ("rxe0", 1, "x", v, 100);
  feed (t, s);
  all = all_points (t, &n);
  g_assert_cmpuint (n, ==, 2);
  p = rtop_tracks_clip (t, lo, hi, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (p[0].time_ns, ==, lo);
  g_assert_cmpint (p[1].time_ns, ==, hi);
  g_assert_cmpfloat (p[0].rate, ==, 3000.0);
  g_assert_cmpfloat (p[1].rate, ==, 3000.0);
}

static void
test_clip_makes_nothing_up_past_the_data (void)
{
  const guint64 v[] = { 0, 1, 2 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 3);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE);
  g_autofree RtopTrackPoint *p = NULL, *q = NULL, *r = NULL;
  gsize n;

  feed (t, s);
  p = rtop_tracks_clip (t, REAL0, REAL0 + 100 * MS, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (p[1].time_ns, ==, REAL0 + 2 * MS);
  q = rtop_tracks_clip (t, REAL0 + 50 * MS, REAL0 + 60 * MS, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (q[0].time_ns, ==, REAL0 + 50 * MS);
  g_assert_cmpfloat (q[0].rate, ==, 1000.0);
  r = rtop_tracks_clip (t, REAL0 + 60 * MS, REAL0 + 50 * MS, &n);
  g_assert_cmpuint (n, ==, 0);
}

/* The clip in one pass and the sorting one agree on every window, edges
 * on points included, also where the realtime clock steps back. */
static void
test_clip_paths_agree (void)
{
  for (int step_back = 0; step_back <= 1; step_back++)
    {
      g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_REALTIME, TRUE);
      g_autoptr(GArray) s = g_array_new (FALSE, FALSE, sizeof (RtopTrackSample));
      const char *ports[] = { "a", "b", "c" };
      guint64 v[3] = { 0 };

      for (guint i = 0; i < 60; i++)
        for (guint p = 0; p < 3; p++)
          {
            gint64 real = REAL0 + i * MS + p * 1000 - (step_back && i >= 30 ? 20 * MS : 0);
            v[p] += p == 2 ? 0 : (i / 7 + p) % 3;
            g_array_append_vals (s, &(RtopTrackSample) {
              real, MONO0 + i * MS + p * 1000, ports[p], 1, "x", v[p] }, 1);
          }
      feed (t, s);
      for (gint64 lo = -2; lo < 64; lo += 3)
        for (gint64 hi = lo - 1; hi < 66; hi += 4)
          {
            g_autofree RtopTrackPoint *a = NULL, *b = NULL;
            gsize na, nb;
            a = rtop_tracks_clip (t, REAL0 + lo * MS, REAL0 + hi * MS + (hi % 2) * 1000, &na);
            b = rtop_tracks_clip_sorting (t, REAL0 + lo * MS, REAL0 + hi * MS + (hi % 2) * 1000, &nb);
            g_assert_cmpuint (na, ==, nb);
            g_assert_cmpmem (a, na * sizeof *a, b, nb * sizeof *b);
          }
    }
}

static void
test_bounds (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopTracks) t = NULL;
  const guint64 v[] = { 0, 1, 2, 3, 4, 5 };
  g_autoptr(GArray) s = samples ("rxe0", 1, "x", v, 6);
  g_autofree RtopTrackPoint *p = NULL;
  gsize n;

  g_assert_null (rtop_tracks_new ((RtopTracksClock) 7, TRUE, 0, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (rtop_tracks_new (RTOP_TRACKS_CLOCK_REALTIME, TRUE, RTOP_TRACKS_MAX_POINTS + 1,
                                  &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  t = rtop_tracks_new (RTOP_TRACKS_CLOCK_REALTIME, FALSE, 3, &error);
  g_assert_no_error (error);
  g_array_index (s, RtopTrackSample, 4).device = NULL;
  feed (t, s);
  p = all_points (t, &n);
  g_assert_cmpuint (n, ==, 3);
  /* The sample with no device, and the fourth point (5 against 3). */
  g_assert_cmpuint (rtop_tracks_get_dropped (t), ==, 2);
  g_assert_cmpuint (rtop_tracks_get_size (t), >=, 3 * sizeof (RtopTrackPoint));
}

/* 8 ports x 15 counters made up on the capture's thread, straight into
 * tracks: every track there, the idle ones (every third counter) two
 * points, nothing left for rtop_capture_read(). */
static void
test_synthetic_capture_feeds_tracks (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopCapture) cap = rtop_capture_new_synthetic (8, 15, 1000000, 0, &error);
  g_autoptr(RtopTracks) t = tracks_new (RTOP_TRACKS_CLOCK_MONOTONIC, TRUE);
  g_autofree RtopTrackPoint *p = NULL;
  RtopCaptureStats st;
  RtopCaptureSample one;
  guint per_track[8 * 15] = { 0 };
  gsize n;

  g_assert_no_error (error);
  g_assert_true (rtop_capture_set_tracks (cap, t, &error));
  g_assert_true (rtop_capture_start (cap, &error));
  g_assert_false (rtop_capture_set_tracks (cap, t, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  do
    {
      g_usleep (2000);
      rtop_capture_get_stats (cap, &st);
    }
  while (st.taken < 5);
  rtop_capture_stop (cap);
  rtop_capture_get_stats (cap, &st);
  g_assert_cmpuint (st.samples, ==, st.taken * 8 * 15);
  g_assert_cmpuint (rtop_capture_read (cap, &one, 1), ==, 0);
  g_assert_cmpuint (rtop_tracks_get_n_tracks (t), ==, 8 * 15);
  p = all_points (t, &n);
  for (gsize i = 0; i < n; i++)
    per_track[p[i].track]++;
  for (guint i = 0; i < 8 * 15; i++)
    {
      const char *dev, *ctr;
      guint32 port;
      g_assert_true (rtop_tracks_get_track (t, i, &dev, &port, &ctr));
      g_assert_cmpstr (dev, ==, "synth0");
      if (g_str_equal (ctr, "duplicate_request") || g_str_equal (ctr, "send_rnr_err"))
        g_assert_cmpuint (per_track[i], ==, 2);
      else if (g_str_equal (ctr, "sent_pkts"))
        g_assert_cmpuint (per_track[i], >, 2);
    }
}

static void
test_synthetic_bounds (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (rtop_capture_new_synthetic (0, 15, 1000000, 0, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (rtop_capture_new_synthetic (8, 65, 1000000, 0, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (rtop_capture_new_synthetic (8, 15, 1000, 0, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tracks/rate-per-second", test_rate_per_second);
  g_test_add_func ("/tracks/uneven-intervals", test_uneven_intervals);
  g_test_add_func ("/tracks/reset-gives-no-point", test_reset_gives_no_point);
  g_test_add_func ("/tracks/same-time-twice-and-empty", test_same_time_twice_and_empty);
  g_test_add_func ("/tracks/separate-and-order-free", test_tracks_separate_order_free);
  g_test_add_func ("/tracks/compact/idle-first-and-last", test_compact_idle_keeps_first_and_last);
  g_test_add_func ("/tracks/compact/changes-kept", test_compact_keeps_changes);
  g_test_add_func ("/tracks/batches-give-one-pass", test_batches_give_one_pass);
  g_test_add_func ("/tracks/clip/inclusive-bounds", test_clip_inclusive_bounds);
  g_test_add_func ("/tracks/clip/held-values", test_clip_carries_held_values);
  g_test_add_func ("/tracks/clip/nothing-past-the-data", test_clip_makes_nothing_up_past_the_data);
  g_test_add_func ("/tracks/clip/paths-agree", test_clip_paths_agree);
  g_test_add_func ("/tracks/bounds", test_bounds);
  g_test_add_func ("/tracks/synthetic-capture", test_synthetic_capture_feeds_tracks);
  g_test_add_func ("/tracks/synthetic-bounds", test_synthetic_bounds);
  return g_test_run ();
}
