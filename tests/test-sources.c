/* test-sources.c: the snapshot-source interface as the session uses it:
 * recordings replayed as sources, the local sampler as a source, and the
 * source list with sources added and removed while it runs. */
#include "config.h"

#include "support/rec-synth.h"
#include "rtop-record-sink.h"
#include "rtop-recording-private.h"
#include "rtop-replay-source.h"
#include "rtop-sampler-private.h"
#include "rtop-source-list-private.h"

/* A recording of n synthetic passes of n_devices devices, loaded back. */
static RtopRecording *
make_recording (guint n, guint n_devices, guint32 seed)
{
  RecSynthOptions options = { .n_devices = n_devices, .ports_per_device = 1,
                              .interval_s = 1.0, .seed = seed };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(RtopRecordSink) sink = rtop_record_format_new_sink (RTOP_RECORD_FORMAT_JSON);
  GString *text = g_string_new (NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  RtopRecording *recording;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
      rtop_record_sink_add (sink, snap, text);
    }
  rtop_record_sink_end (sink, text);
  bytes = g_string_free_to_bytes (text);
  recording = rtop_recording_load_bytes (bytes, 0, &error);
  g_assert_no_error (error);
  return recording;
}

typedef struct {
  GHashTable *counts;        /* RtopSource* -> number of snapshots */
  RtopSourceList *list;
  RtopSource *remove_after;  /* removed from the list after its 3rd snapshot */
  RtopSource *add_then;      /* ... and this one added instead */
  guint total;
} Seen;

static void
list_snapshot_cb (RtopSourceList *list, RtopSource *source, RtopSnapshot *snap, Seen *seen)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (seen->counts, source)) + 1;

  g_assert_nonnull (snap);
  g_hash_table_insert (seen->counts, source, GUINT_TO_POINTER (n));
  seen->total++;
  if (source == seen->remove_after && n == 3)
    {
      g_assert_true (rtop_source_list_remove (list, source));
      if (seen->add_then)
        rtop_source_list_add (list, seen->add_then);
    }
}

static guint
count (Seen *seen, gpointer source)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (seen->counts, source));
}

static gboolean
all_finished (RtopSourceList *list)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (list));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSource) s = g_list_model_get_item (G_LIST_MODEL (list), i);
      if (rtop_source_get_state (s) != RTOP_SOURCE_STATE_FINISHED)
        return FALSE;
    }
  return TRUE;
}

static void
spin_until_finished (RtopSourceList *list)
{
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!all_finished (list) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
}

typedef struct {
  guint added, removed, position;
} Changes;

static void
items_changed_cb (GListModel *model, guint position, guint removed, guint added, Changes *c)
{
  c->position = position;
  c->removed += removed;
  c->added += added;
}

/* A replayed recording yields every snapshot in order, then finishes;
 * it is not live, and says what state it is in. */
static void
test_replay_source (void)
{
  g_autoptr(RtopRecording) recording = make_recording (200, 2, 1);
  g_autoptr(RtopReplaySource) replay = rtop_replay_source_new (recording, "trace.json");
  g_autoptr(RtopSourceList) list = rtop_source_list_new ();
  Seen seen = { g_hash_table_new (NULL, NULL), list, NULL, NULL, 0 };
  RtopSource *source = RTOP_SOURCE (replay);
  guint n = rtop_recording_get_n_snapshots (recording);

  g_assert_cmpstr (rtop_source_get_name (source), ==, "trace.json");
  g_assert_false (rtop_source_get_live (source));
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_STOPPED);
  g_signal_connect (list, "snapshot", G_CALLBACK (list_snapshot_cb), &seen);
  rtop_source_list_add (list, source);
  g_assert_false (rtop_source_list_has_live (list));
  rtop_source_list_start (list);
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_CONNECTING);
  spin_until_finished (list);
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_FINISHED);
  g_assert_cmpuint (n, >, RTOP_REPLAY_SOURCE_CHUNK);
  g_assert_cmpuint (count (&seen, source), ==, n);
  g_assert_null (rtop_source_get_error (source));
  g_hash_table_unref (seen.counts);
}

static gboolean
always_busy_cb (gpointer data)
{
  (*(guint *) data)++;
  return G_SOURCE_CONTINUE;
}

/* A main loop that is never idle (a window redrawing all the time, as
 * GDK's redraw at priority 120 does on a slow display) still plays a
 * replay to its end, while the busy source keeps running too. */
static void
test_replay_busy_loop (void)
{
  g_autoptr(RtopRecording) recording = make_recording (200, 2, 1);
  g_autoptr(RtopReplaySource) replay = rtop_replay_source_new (recording, "busy.json");
  g_autoptr(RtopSourceList) list = rtop_source_list_new ();
  Seen seen = { g_hash_table_new (NULL, NULL), list, NULL, NULL, 0 };
  guint busy_runs = 0;
  guint busy = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 20, always_busy_cb, &busy_runs, NULL);

  g_signal_connect (list, "snapshot", G_CALLBACK (list_snapshot_cb), &seen);
  rtop_source_list_add (list, RTOP_SOURCE (replay));
  rtop_source_list_start (list);
  spin_until_finished (list);
  g_source_remove (busy);
  g_assert_cmpint (rtop_source_get_state (RTOP_SOURCE (replay)), ==, RTOP_SOURCE_STATE_FINISHED);
  g_assert_cmpuint (count (&seen, replay), ==, rtop_recording_get_n_snapshots (recording));
  g_assert_cmpuint (busy_runs, >, 0);
  g_hash_table_unref (seen.counts);
}

/* Sources come and go while the list runs: an added source starts at
 * once, a removed one is stopped and not heard from again (even when it
 * is removed from inside the snapshot handler), and the model says so. */
static void
test_list_add_remove_running (void)
{
  g_autoptr(RtopRecording) rec_a = make_recording (150, 1, 2);
  g_autoptr(RtopRecording) rec_b = make_recording (150, 3, 3);
  g_autoptr(RtopRecording) rec_c = make_recording (90, 2, 4);
  g_autoptr(RtopReplaySource) a = rtop_replay_source_new (rec_a, "a");
  g_autoptr(RtopReplaySource) b = rtop_replay_source_new (rec_b, "b");
  g_autoptr(RtopReplaySource) c = rtop_replay_source_new (rec_c, "c");
  g_autoptr(RtopSourceList) list = rtop_source_list_new ();
  Seen seen = { g_hash_table_new (NULL, NULL), list, RTOP_SOURCE (b), RTOP_SOURCE (c), 0 };
  Changes changes = { 0 };

  g_signal_connect (list, "snapshot", G_CALLBACK (list_snapshot_cb), &seen);
  g_signal_connect (list, "items-changed", G_CALLBACK (items_changed_cb), &changes);
  rtop_source_list_start (list);
  g_assert_true (rtop_source_list_is_running (list));
  rtop_source_list_add (list, RTOP_SOURCE (a));
  rtop_source_list_add (list, RTOP_SOURCE (b));
  rtop_source_list_add (list, RTOP_SOURCE (a));   /* not twice */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 2);
  g_assert_cmpuint (changes.added, ==, 2);
  /* Added to a running list: started at once. */
  g_assert_cmpint (rtop_source_get_state (RTOP_SOURCE (a)), ==, RTOP_SOURCE_STATE_CONNECTING);

  spin_until_finished (list);
  g_assert_cmpuint (count (&seen, a), ==, rtop_recording_get_n_snapshots (rec_a));
  /* b was removed after its third snapshot, from inside the handler. */
  g_assert_cmpuint (count (&seen, b), ==, 3);
  g_assert_cmpint (rtop_source_get_state (RTOP_SOURCE (b)), ==, RTOP_SOURCE_STATE_STOPPED);
  g_assert_cmpuint (count (&seen, c), ==, rtop_recording_get_n_snapshots (rec_c));
  g_assert_cmpuint (changes.removed, ==, 1);
  g_assert_cmpuint (changes.added, ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 2);
  {
    g_autoptr(RtopSource) first = g_list_model_get_item (G_LIST_MODEL (list), 0);
    g_autoptr(RtopSource) second = g_list_model_get_item (G_LIST_MODEL (list), 1);
    g_assert_true (first == RTOP_SOURCE (a));
    g_assert_true (second == RTOP_SOURCE (c));
    g_assert_null (g_list_model_get_item (G_LIST_MODEL (list), 2));
  }
  g_assert_cmpuint (seen.total, ==, count (&seen, a) + count (&seen, b) + count (&seen, c));
  g_assert_false (rtop_source_list_remove (list, RTOP_SOURCE (b)));

  /* Stopping the list stops what runs; remove_all empties it. */
  rtop_source_list_stop (list);
  g_assert_false (rtop_source_list_is_running (list));
  rtop_source_list_remove_all (list);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (list)), ==, 0);
  g_hash_table_unref (seen.counts);
}

/* A source added to a stopped list waits; a replay stopped half-way says
 * "stopped" and sends nothing more. */
static void
test_list_stopped (void)
{
  g_autoptr(RtopRecording) rec = make_recording (300, 2, 5);
  g_autoptr(RtopReplaySource) r = rtop_replay_source_new (rec, "r");
  g_autoptr(RtopSourceList) list = rtop_source_list_new ();
  Seen seen = { g_hash_table_new (NULL, NULL), list, NULL, NULL, 0 };
  guint before;

  g_signal_connect (list, "snapshot", G_CALLBACK (list_snapshot_cb), &seen);
  rtop_source_list_add (list, RTOP_SOURCE (r));
  g_assert_cmpint (rtop_source_get_state (RTOP_SOURCE (r)), ==, RTOP_SOURCE_STATE_STOPPED);
  for (int i = 0; i < 5; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (seen.total, ==, 0);

  rtop_source_list_start (list);
  while (seen.total < RTOP_REPLAY_SOURCE_CHUNK)
    g_main_context_iteration (NULL, TRUE);
  rtop_source_list_stop (list);
  g_assert_cmpint (rtop_source_get_state (RTOP_SOURCE (r)), ==, RTOP_SOURCE_STATE_STOPPED);
  before = seen.total;
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (seen.total, ==, before);
  g_assert_cmpuint (before, <, rtop_recording_get_n_snapshots (rec));
  g_hash_table_unref (seen.counts);
}

typedef struct {
  guint snapshots;
  guint state_changes;
} SamplerSeen;

static void
sampler_snapshot_cb (RtopSourceList *list, RtopSource *source, RtopSnapshot *snap, SamplerSeen *s)
{
  s->snapshots++;
  /* The source's error is the snapshot's status, set before it is heard. */
  g_assert_cmpstr (rtop_source_get_error (source), ==, snap->status_message);
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_RUNNING);
}

static void
state_cb (GObject *object, GParamSpec *pspec, SamplerSeen *s)
{
  s->state_changes++;
}

/* The local sampler is a live source beside a replay; with or without
 * RDMA netlink here, its state and error follow what it delivers. */
static void
test_sampler_source (void)
{
  g_autoptr(RtopSampler) sampler = rtop_sampler_new (NULL);
  g_autoptr(RtopSourceList) list = rtop_source_list_new ();
  RtopSource *source = RTOP_SOURCE (sampler);
  SamplerSeen s = { 0 };
  g_autofree char *name = NULL;
  RtopSourceState state;
  gint64 end;

  g_assert_true (rtop_source_get_live (source));
  g_assert_cmpstr (rtop_source_get_name (source), !=, NULL);
  g_object_get (sampler, "name", &name, "state", &state, NULL);
  g_assert_cmpstr (name, ==, rtop_source_get_name (source));
  g_assert_cmpint (state, ==, RTOP_SOURCE_STATE_STOPPED);
  g_signal_connect (sampler, "notify::state", G_CALLBACK (state_cb), &s);
  g_signal_connect (list, "snapshot", G_CALLBACK (sampler_snapshot_cb), &s);
  rtop_source_list_add (list, source);
  g_assert_true (rtop_source_list_has_live (list));
  rtop_source_list_set_interval (list, 0.1);
  g_assert_cmpfloat (rtop_sampler_get_interval (sampler), ==, 0.1);
  rtop_source_list_start (list);
  g_assert_true (rtop_sampler_is_running (sampler));
  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (s.snapshots < 3 && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (s.snapshots, >=, 3);
  rtop_source_list_refresh (list);
  g_assert_true (rtop_source_list_remove (list, source));
  g_assert_false (rtop_sampler_is_running (sampler));
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_STOPPED);
  /* stopped -> connecting -> running -> stopped */
  g_assert_cmpuint (s.state_changes, ==, 3);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sources/replay", test_replay_source);
  g_test_add_func ("/sources/replay/busy-loop", test_replay_busy_loop);
  g_test_add_func ("/sources/list/add-remove-running", test_list_add_remove_running);
  g_test_add_func ("/sources/list/stopped", test_list_stopped);
  g_test_add_func ("/sources/sampler", test_sampler_source);
  return g_test_run ();
}
