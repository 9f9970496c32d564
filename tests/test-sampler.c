/* test-sampler.c: the worker thread, delivery on the caller's context,
 * interval rules and stop semantics.  Runs with or without RDMA netlink:
 * without it every snapshot says so (status NO_NETLINK) and the sampler
 * keeps retrying; with it snapshots are real. */
#include "config.h"

#include <math.h>

#include "rtop-sampler-private.h"

typedef struct {
  GThread *main_thread;
  guint n;
  guint64 last_sequence;
  gboolean wrong_thread;
} Seen;

static void
snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  Seen *seen = data;

  if (g_thread_self () != seen->main_thread)
    seen->wrong_thread = TRUE;
  g_assert_cmpuint (snap->sequence, >, seen->last_sequence);
  seen->last_sequence = snap->sequence;
  if (snap->status == RTOP_STATUS_OK)
    g_assert_null (snap->status_message);
  else
    g_assert_nonnull (snap->status_message);
  g_assert_true (rtop_sampler_get_latest (sampler) == snap);
  seen->n++;
}

static gboolean
guard_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the default context until cond holds or a generous guard
 * expires (the guard only prevents a hang; nothing is timed). */
#define SPIN_UNTIL(cond)                                             \
  G_STMT_START {                                                     \
    gboolean expired = FALSE;                                        \
    guint guard = g_timeout_add_seconds (30, guard_cb, &expired);    \
    while (!(cond) && !expired)                                      \
      g_main_context_iteration (NULL, TRUE);                         \
    g_assert_false (expired);                                        \
    g_source_remove (guard);                                         \
  } G_STMT_END

static void
test_delivers_on_main_context (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  Seen seen = { g_thread_self (), 0, 0, FALSE };

  rtop_sampler_set_interval (sampler, 0.1);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &seen);
  g_assert_false (rtop_sampler_is_running (sampler));
  rtop_sampler_start (sampler);
  g_assert_true (rtop_sampler_is_running (sampler));
  SPIN_UNTIL (seen.n >= 3);
  rtop_sampler_stop (sampler);
  g_assert_false (seen.wrong_thread);
  g_assert_false (rtop_sampler_is_running (sampler));
}

static void
test_no_signal_after_stop (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  Seen seen = { g_thread_self (), 0, 0, FALSE };
  guint after;
  gboolean done = FALSE;

  rtop_sampler_set_interval (sampler, 0.1);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &seen);
  rtop_sampler_start (sampler);
  SPIN_UNTIL (seen.n >= 1);
  rtop_sampler_stop (sampler);
  after = seen.n;
  /* Deliveries already queued when stop() ran must not be emitted. */
  g_timeout_add (300, guard_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (seen.n, ==, after);

  /* And it can be started again. */
  rtop_sampler_start (sampler);
  SPIN_UNTIL (seen.n > after);
  rtop_sampler_stop (sampler);
}

static void
test_refresh_runs_a_pass_now (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  Seen seen = { g_thread_self (), 0, 0, FALSE };

  /* With a 60 s period, only refresh can produce a second snapshot
   * before the 30 s guard. */
  rtop_sampler_set_interval (sampler, 60);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &seen);
  rtop_sampler_start (sampler);
  SPIN_UNTIL (seen.n >= 1);
  rtop_sampler_refresh (sampler);
  SPIN_UNTIL (seen.n >= 2);
  rtop_sampler_stop (sampler);
}

static void
notify_cb (GObject *obj, GParamSpec *pspec, gpointer data)
{
  (*(guint *) data)++;
}

static void
test_interval_is_clamped (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  guint notifies = 0;

  g_signal_connect (sampler, "notify::interval", G_CALLBACK (notify_cb), &notifies);
  g_assert_cmpfloat (rtop_sampler_get_interval (sampler), ==, 1.0);
  rtop_sampler_set_interval (sampler, 0.001);
  g_assert_cmpfloat (rtop_sampler_get_interval (sampler), ==, RTOP_SAMPLER_MIN_INTERVAL);
  rtop_sampler_set_interval (sampler, 1e9);
  g_assert_cmpfloat (rtop_sampler_get_interval (sampler), ==, RTOP_SAMPLER_MAX_INTERVAL);
  rtop_sampler_set_interval (sampler, NAN);
  g_assert_cmpfloat (rtop_sampler_get_interval (sampler), ==, RTOP_SAMPLER_MIN_INTERVAL);
  g_assert_cmpuint (notifies, ==, 3);
  /* Setting the same value again does not notify. */
  rtop_sampler_set_interval (sampler, RTOP_SAMPLER_MIN_INTERVAL);
  g_assert_cmpuint (notifies, ==, 3);
}

typedef struct {
  guint n, n_failed;
  guint error_events;
  guint first_failed_events;
} ErrorSeen;

static void
error_snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  ErrorSeen *seen = data;

  seen->n++;
  if (snap->status == RTOP_STATUS_OK)
    return;
  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if (ev->kind == RTOP_EVENT_COLLECTION_ERROR)
        {
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
          g_assert_cmpstr (ev->message, ==, snap->status_message);
          seen->error_events++;
        }
    }
  if (seen->n_failed++ == 0)
    seen->first_failed_events = snap->events->len;
}

/* With no RDMA netlink (this machine's kernel, or a container) the
 * collector cannot start: the first snapshot raises the one event that
 * says why, and the passes after it do not repeat it. */
static void
test_no_netlink_is_an_event (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  ErrorSeen seen = { 0 };

  rtop_sampler_set_interval (sampler, 0.1);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (error_snapshot_cb), &seen);
  rtop_sampler_start (sampler);
  SPIN_UNTIL (seen.n >= 4);
  rtop_sampler_stop (sampler);
  if (seen.n_failed == 0)
    {
      g_test_skip ("RDMA netlink works here: no start-up error to see");
      return;
    }
  g_assert_cmpuint (seen.first_failed_events, ==, 1);
  g_assert_cmpuint (seen.error_events, ==, 1);
}

static void
test_finalized (void)
{
  RtopSampler *sampler = rtop_sampler_new (NULL);
  Seen seen = { g_thread_self (), 0, 0, FALSE };

  rtop_sampler_set_interval (sampler, 0.1);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &seen);
  rtop_sampler_start (sampler);
  SPIN_UNTIL (seen.n >= 1);
  rtop_sampler_stop (sampler);
  /* Drain deliveries that still hold a reference. */
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_finalize_object (sampler);
}

/* What the worker posted is delivered on demand, in order, without the
 * main loop; the loop then dispatches none of it again (the sequence
 * check in snapshot_cb fails on a repeat), and nothing comes after stop. */
static void
test_deliver_pending (void)
{
  RtopSampler *sampler = rtop_sampler_new (NULL);
  Seen seen = { g_thread_self (), 0, 0, FALSE };
  guint before;

  rtop_sampler_set_interval (sampler, 0.05);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &seen);
  rtop_sampler_start (sampler);
  /* The main context is never iterated here: only deliver_pending()
   * can bring them.  (The bound only prevents a hang.) */
  for (guint tries = 0; seen.n < 3 && tries < 3000; tries++)
    {
      g_usleep (10 * 1000);
      rtop_source_deliver_pending (RTOP_SOURCE (sampler));
    }
  g_assert_cmpuint (seen.n, >=, 3);
  g_assert_false (seen.wrong_thread);
  rtop_sampler_stop (sampler);
  before = seen.n;
  rtop_source_deliver_pending (RTOP_SOURCE (sampler));
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (seen.n, ==, before);
  g_assert_finalize_object (sampler);
}

/* Deliveries still queued at stop() go with it, though their main
 * context is never iterated again: the sampler is finalized at its last
 * unref, and the context at its own. */
static void
test_stop_drops_queued_deliveries (void)
{
  GMainContext *context = g_main_context_new ();
  RtopSampler *sampler = rtop_sampler_new (NULL);

  g_main_context_push_thread_default (context);
  rtop_sampler_set_interval (sampler, 0.01);
  rtop_sampler_start (sampler);
  for (guint tries = 0; !g_main_context_pending (context) && tries < 3000; tries++)
    g_usleep (10 * 1000);
  g_assert_true (g_main_context_pending (context));
  rtop_sampler_stop (sampler);
  g_main_context_pop_thread_default (context);
  g_assert_false (g_main_context_pending (context));
  g_assert_finalize_object (sampler);
  g_main_context_unref (context);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/sampler/main-context", test_delivers_on_main_context);
  g_test_add_func ("/collector/sampler/no-signal-after-stop", test_no_signal_after_stop);
  g_test_add_func ("/collector/sampler/refresh", test_refresh_runs_a_pass_now);
  g_test_add_func ("/collector/sampler/interval-clamped", test_interval_is_clamped);
  g_test_add_func ("/collector/sampler/finalized", test_finalized);
  g_test_add_func ("/collector/sampler/no-netlink-event", test_no_netlink_is_an_event);
  g_test_add_func ("/collector/sampler/deliver-pending", test_deliver_pending);
  g_test_add_func ("/collector/sampler/stop-drops-queued", test_stop_drops_queued_deliveries);
  return g_test_run ();
}
