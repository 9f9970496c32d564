/* test-trace-writer.c: the trace and CSV writers' output, parsed back and
 * checked against the rules by which Perfetto imports Chrome JSON: every
 * event has a ph and every timed one a numeric ts >= 0 in a process that a
 * process_name event names, a counter event has numeric values, and every
 * slice begun is ended; rdmatop's own events also keep one value per counter
 * event and each track in time order. */
#include "config.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "support/rec-synth.h"
#include "rtop-csv-writer-private.h"
#include "rtop-trace-writer-private.h"

static char *
write_trace (const RecSynthOptions *options, guint n)
{
  g_autoptr(RecSynth) synth = rec_synth_new (options);
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
      rtop_trace_writer_add (writer, snap, out);
    }
  rtop_trace_writer_end (writer, out);
  return g_string_free (out, FALSE);
}

static JsonNode *
parse_strict (const char *text)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

static JsonArray *
trace_events (JsonNode *root)
{
  JsonObject *obj;

  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  obj = json_node_get_object (root);
  g_assert_true (json_object_has_member (obj, "traceEvents"));
  return json_object_get_array_member (obj, "traceEvents");
}

static JsonObject *
args_of (JsonObject *ev)
{
  return json_object_has_member (ev, "args") ? json_object_get_object_member (ev, "args") : NULL;
}

static gboolean
is_number (JsonNode *node)
{
  GType t;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

static double
number (JsonNode *node)
{
  return json_node_get_value_type (node) == G_TYPE_INT64
         ? (double) json_node_get_int (node) : json_node_get_double (node);
}

/* Perfetto's rules, one event at a time; tracks maps a track key to the
 * last ts seen on it (monotonic per track), names collects named pids. */
static void
check_event (JsonObject *ev, GHashTable *tracks, GHashTable *names, GHashTable *open)
{
  const char *ph = json_object_get_string_member (ev, "ph");
  gint64 pid = json_object_get_int_member (ev, "pid");
  g_autofree char *track = NULL;
  JsonObject *args = NULL;
  double ts;

  g_assert_nonnull (ph);
  g_assert_true (json_object_has_member (ev, "name") || strcmp (ph, "E") == 0);
  if (json_object_has_member (ev, "args"))
    args = json_object_get_object_member (ev, "args");

  if (strcmp (ph, "M") == 0)
    {
      const char *name = json_object_get_string_member (ev, "name");

      g_assert_nonnull (args);
      if (strcmp (name, "process_name") == 0 || strcmp (name, "thread_name") == 0)
        {
          g_assert_nonnull (json_object_get_string_member (args, "name"));
          g_assert_cmpstr (json_object_get_string_member (args, "name"), !=, "");
          if (strcmp (name, "process_name") == 0)
            g_hash_table_add (names, GINT_TO_POINTER ((int) pid));
        }
      else if (strcmp (name, "process_sort_index") == 0 || strcmp (name, "thread_sort_index") == 0)
        g_assert_true (is_number (json_object_get_member (args, "sort_index")));
      else
        g_assert_not_reached ();
      return;
    }

  g_assert_true (is_number (json_object_get_member (ev, "ts")));
  ts = number (json_object_get_member (ev, "ts"));
  g_assert_cmpfloat (ts, >=, 0);
  g_assert_true (g_hash_table_contains (names, GINT_TO_POINTER ((int) pid)));

  if (strcmp (ph, "C") == 0)
    {
      GList *members;

      g_assert_nonnull (args);
      g_assert_cmpuint (json_object_get_size (args), ==, 1);
      members = json_object_get_members (args);
      g_assert_true (is_number (json_object_get_member (args, members->data)));
      track = g_strdup_printf ("C/%" G_GINT64_FORMAT "/%s/%s", pid,
                               json_object_get_string_member (ev, "name"),
                               (char *) members->data);
      g_list_free (members);
    }
  else if (strcmp (ph, "i") == 0)
    {
      const char *scope = json_object_get_string_member (ev, "s");
      g_assert_true (g_strcmp0 (scope, "g") == 0 || g_strcmp0 (scope, "p") == 0);
      track = g_strdup_printf ("i/%s/%" G_GINT64_FORMAT, scope, pid);
    }
  else if (strcmp (ph, "B") == 0 || strcmp (ph, "E") == 0)
    {
      gint64 tid = json_object_get_int_member (ev, "tid");
      gpointer key = GINT_TO_POINTER ((int) tid);

      track = g_strdup_printf ("T/%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, pid, tid);
      if (strcmp (ph, "B") == 0)
        {
          g_assert_false (g_hash_table_contains (open, key));
          g_hash_table_add (open, key);
        }
      else
        g_assert_true (g_hash_table_remove (open, key));
    }
  else
    g_assert_not_reached ();

  if (g_hash_table_contains (tracks, track))
    {
      double *last = g_hash_table_lookup (tracks, track);
      g_assert_cmpfloat (ts, >=, *last);
      *last = ts;
    }
  else
    {
      double *last = g_new (double, 1);
      *last = ts;
      g_hash_table_insert (tracks, g_steal_pointer (&track), last);
    }
}

static void
check_perfetto_rules (JsonArray *events)
{
  g_autoptr(GHashTable) tracks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) names = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) open = g_hash_table_new (NULL, NULL);

  g_assert_cmpuint (json_array_get_length (events), >, 0);
  for (guint i = 0; i < json_array_get_length (events); i++)
    check_event (json_array_get_object_element (events, i), tracks, names, open);
  /* Every slice was ended. */
  g_assert_cmpuint (g_hash_table_size (open), ==, 0);
}

static void
test_perfetto_rules (void)
{
  RecSynthOptions options = { .n_devices = 5, .ports_per_device = 2, .interval_s = 0.5,
                              .processes = TRUE, .events = TRUE, .seed = 1 };
  g_autofree char *text = write_trace (&options, 20);
  g_autoptr(JsonNode) root = parse_strict (text);
  JsonObject *other = json_object_get_object_member (json_node_get_object (root), "otherData");

  check_perfetto_rules (trace_events (root));
  g_assert_cmpstr (json_object_get_string_member (other, "producer"), ==, "rdmatop");
  g_assert_cmpint (json_object_get_int_member (other, "rdmatop_format"), ==, 1);
  /* One event per line, so a cut-short file is easy to read back. */
  g_assert_true (g_str_has_prefix (text, "{\"otherData\":"));
  g_assert_true (g_str_has_suffix (text, "\n]}\n"));
}

/* Finds the value of counter "name key" on the port group named group at
 * the last ts <= at. */
static gboolean
counter_at (JsonArray *events, const char *group, const char *name, const char *key,
            double at, double *value)
{
  gint64 pid = -1;
  gboolean found = FALSE;

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      JsonObject *args = args_of (ev);

      if (strcmp (ph, "M") == 0
          && g_strcmp0 (json_object_get_string_member (ev, "name"), "process_name") == 0
          && g_strcmp0 (json_object_get_string_member (args, "name"), group) == 0)
        pid = json_object_get_int_member (ev, "pid");
      if (strcmp (ph, "C") != 0 || json_object_get_int_member (ev, "pid") != pid
          || g_strcmp0 (json_object_get_string_member (ev, "name"), name) != 0
          || !json_object_has_member (args, key)
          || number (json_object_get_member (ev, "ts")) > at)
        continue;
      *value = number (json_object_get_member (args, key));
      found = TRUE;
    }
  return found;
}

static void
test_tracks (void)
{
  RecSynthOptions options = { .n_devices = 12, .interval_s = 1, .seed = 2 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(RtopSnapshot) last = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *events;
  RtopPort *busy;
  double v;

  for (guint i = 0; i < 10; i++)
    {
      g_clear_pointer (&last, rtop_snapshot_unref);
      last = rec_synth_next (synth);
      rtop_trace_writer_add (writer, last, out);
    }
  rtop_trace_writer_end (writer, out);
  root = parse_strict (out->str);
  events = trace_events (root);

  /* The busy port's tx track holds its rate in Gbps. */
  busy = g_ptr_array_index (rtop_snapshot_find_device (last, "mlx5_0")->ports, 0);
  g_assert_true (counter_at (events, "mlx5_0/1", "tx", "Gbps", 9e6, &v));
  g_assert_cmpfloat_with_epsilon (v, busy->metrics[RTOP_METRIC_TX_BYTES].rate * 8e-9, 1e-4);
  g_assert_cmpfloat (v, >, 1);
  g_assert_true (counter_at (events, "mlx5_0/1", "tx", "packets/s", 9e6, &v));
  g_assert_cmpfloat (v, >, 0);
  /* Idle ports: tx exists and is zero. */
  g_assert_true (counter_at (events, "mlx5_3/1", "tx", "Gbps", 9e6, &v));
  g_assert_cmpfloat (v, ==, 0);
  g_assert_true (counter_at (events, "rxe11/1", "rx", "Gbps", 9e6, &v));
  g_assert_cmpfloat (v, ==, 0);
  /* Only providers with RDMA byte counters get those tracks. */
  g_assert_true (counter_at (events, "efa_1/1", "rdma read", "bytes/s", 9e6, &v));
  g_assert_false (counter_at (events, "mlx5_0/1", "rdma read", "bytes/s", 9e6, &v));
  g_assert_false (counter_at (events, "rxe2/1", "drops", "/s", 9e6, &v));
  /* No rate on the first (baseline) sample. */
  g_assert_false (counter_at (events, "mlx5_0/1", "tx", "Gbps", 0, &v));
}

/* process_sort_index follows natural order: mlx5_3 before mlx5_12. */
static void
test_sort_order (void)
{
  RecSynthOptions options = { .n_devices = 13, .interval_s = 1, .seed = 3 };
  g_autofree char *text = write_trace (&options, 2);
  g_autoptr(JsonNode) root = parse_strict (text);
  JsonArray *events = trace_events (root);
  g_autoptr(GHashTable) pid_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  gint64 idx3 = -1, idx12 = -1, idx_own = -1;

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *name = json_object_get_string_member (ev, "name");
      JsonObject *args = args_of (ev);
      gint64 pid = json_object_get_int_member (ev, "pid");
      const char *group;

      if (g_strcmp0 (name, "process_name") == 0)
        g_hash_table_insert (pid_names, GINT_TO_POINTER ((int) pid),
                             g_strdup (json_object_get_string_member (args, "name")));
      if (g_strcmp0 (name, "process_sort_index") != 0)
        continue;
      group = g_hash_table_lookup (pid_names, GINT_TO_POINTER ((int) pid));
      if (g_strcmp0 (group, "mlx5_3/1") == 0)
        idx3 = json_object_get_int_member (args, "sort_index");
      else if (g_strcmp0 (group, "mlx5_12/1") == 0)
        idx12 = json_object_get_int_member (args, "sort_index");
      else if (g_strcmp0 (group, "rdmatop") == 0)
        idx_own = json_object_get_int_member (args, "sort_index");
    }
  g_assert_cmpint (idx3, >, 0);
  g_assert_cmpint (idx12, >, idx3);
  g_assert_cmpint (idx_own, <, idx3);
}

static void
test_events_and_slices (void)
{
  RecSynthOptions options = { .n_devices = 3, .interval_s = 1, .processes = TRUE,
                              .events = TRUE, .seed = 4 };
  g_autofree char *text = write_trace (&options, 12);
  g_autoptr(JsonNode) root = parse_strict (text);
  JsonArray *events = trace_events (root);
  guint n_global = 0, n_port = 0, n_begin = 0, n_end = 0;
  double begin_ts = -1, end_ts = -1;

  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *ev = json_array_get_object_element (events, i);
      const char *ph = json_object_get_string_member (ev, "ph");
      JsonObject *args = args_of (ev);

      if (strcmp (ph, "i") == 0 && json_object_has_member (args, "kind"))
        {
          const char *kind = json_object_get_string_member (args, "kind");
          const char *scope = json_object_get_string_member (ev, "s");

          if (strcmp (kind, "device-added") == 0)
            {
              g_assert_cmpstr (scope, ==, "g");
              n_global++;
            }
          else if (strcmp (kind, "port-state") == 0)
            {
              g_assert_cmpstr (scope, ==, "p");
              g_assert_cmpstr (json_object_get_string_member (args, "old"), ==, "ACTIVE");
              g_assert_cmpstr (json_object_get_string_member (args, "message"), ==,
                               "Port efa_1/1 went from ACTIVE to \"DOWN\".");
              n_port++;
            }
        }
      else if (strcmp (ph, "B") == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (ev, "name"), ==, "ib_write_bw");
          g_assert_cmpint (json_object_get_int_member (args, "pid"), ==, 4242);
          begin_ts = number (json_object_get_member (ev, "ts"));
          n_begin++;
        }
      else if (strcmp (ph, "E") == 0)
        {
          end_ts = number (json_object_get_member (ev, "ts"));
          n_end++;
        }
    }
  g_assert_cmpuint (n_global, ==, 1);
  g_assert_cmpuint (n_port, ==, 1);
  g_assert_cmpuint (n_begin, ==, 1);
  g_assert_cmpuint (n_end, ==, 1);
  /* Seen in samples 3..8 (1 s apart, sample 1 at ts 0): begins at 2 s, ends
   * at 8 s when sample 9 no longer lists it. */
  g_assert_cmpfloat (begin_ts, ==, 2e6);
  g_assert_cmpfloat (end_ts, ==, 8e6);
}

/* Names from the kernel or /proc with quotes, control characters and
 * bytes that are not UTF-8 still give strict JSON; NaN becomes 0. */
static void
test_escaping (void)
{
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  g_autoptr(JsonNode) root = NULL;
  RtopDevice *dev = rtop_device_new (1, "we\"ird\\dev\n\x01");
  RtopPort *port = rtop_port_new (1);
  RtopProcess *proc = rtop_process_new (7);
  RtopProcessDevice pd = { 0 };

  port->metrics[RTOP_METRIC_TX_BYTES].present = TRUE;
  port->metrics[RTOP_METRIC_TX_BYTES].has_rate = TRUE;
  port->metrics[RTOP_METRIC_TX_BYTES].rate = NAN;
  port->metrics[RTOP_METRIC_RX_BYTES].present = TRUE;
  port->metrics[RTOP_METRIC_RX_BYTES].has_rate = TRUE;
  port->metrics[RTOP_METRIC_RX_BYTES].rate = INFINITY;
  g_ptr_array_add (dev->ports, port);
  g_ptr_array_add (snap->devices, dev);
  proc->comm = g_strdup ("bad\xff\xfe comm\t)");
  pd.device = g_strdup (dev->name);
  g_array_append_val (proc->devices, pd);
  g_ptr_array_add (snap->processes, proc);
  rtop_snapshot_seal (snap);

  rtop_trace_writer_add (writer, snap, out);
  rtop_trace_writer_end (writer, out);
  root = parse_strict (out->str);
  check_perfetto_rules (trace_events (root));
  g_assert_nonnull (strstr (out->str, "\"args\":{\"Gbps\":0}"));
}

static void
test_empty (void)
{
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(JsonNode) root = NULL;

  rtop_trace_writer_end (writer, out);
  root = parse_strict (out->str);
  check_perfetto_rules (trace_events (root));
}

/* Unchanged values are not repeated, so idle ports cost almost nothing;
 * a gap re-sends every track. */
static void
test_compact (void)
{
  RecSynthOptions options = { .n_devices = 4, .interval_s = 1, .seed = 5 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(RtopTraceWriter) writer = rtop_trace_writer_new ();
  g_autoptr(GString) out = g_string_new (NULL);
  gsize before, idle_interval, after_gap;

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
      rtop_trace_writer_add (writer, snap, out);
    }
  before = out->len;
  {
    g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
    rtop_trace_writer_add (writer, snap, out);
  }
  idle_interval = out->len - before;
  rtop_trace_writer_mark_gap (writer);
  before = out->len;
  {
    g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
    rtop_trace_writer_add (writer, snap, out);
  }
  after_gap = out->len - before;
  /* One busy port (a few changing tracks) + the commit event. */
  g_assert_cmpuint (idle_interval, <, 600);
  g_assert_cmpuint (after_gap, >, idle_interval + 3 * 200);
}

static void
test_csv (void)
{
  RecSynthOptions options = { .n_devices = 3, .ports_per_device = 2, .interval_s = 1, .seed = 6 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(RtopCsvWriter) writer = rtop_csv_writer_new ();
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) header = NULL;
  g_auto(GStrv) row = NULL;
  int tx_col = -1, rdma_col = -1;

  for (guint i = 0; i < 4; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
      rtop_csv_writer_add (writer, snap, out);
    }
  lines = g_strsplit (out->str, "\r\n", -1);
  /* Header + 4 intervals x 6 ports + the empty string after the last \r\n. */
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 4 * 6 + 1);
  g_assert_cmpstr (lines[0], ==, rtop_csv_header ());
  header = g_strsplit (lines[0], ",", -1);
  for (int i = 0; header[i] != NULL; i++)
    {
      if (strcmp (header[i], "tx_bytes") == 0)
        tx_col = i;
      if (strcmp (header[i], "rdma_read_bytes") == 0)
        rdma_col = i;
    }
  g_assert_cmpint (tx_col, >, 0);
  g_assert_cmpint (rdma_col, >, 0);
  /* The last interval, in natural order efa_1/1, efa_1/2, mlx5_0/1, ...:
   * mlx5_0 port 1 has a cumulative tx > 0 and no RDMA read counter (an
   * empty cell) on mlx5. */
  row = g_strsplit (lines[1 + 3 * 6 + 2], ",", -1);
  g_assert_cmpuint (g_strv_length (row), ==, g_strv_length (header));
  g_assert_cmpstr (row[3], ==, "mlx5_0");
  g_assert_cmpstr (row[4], ==, "1");
  g_assert_cmpuint (g_ascii_strtoull (row[tx_col], NULL, 10), >, 0);
  g_assert_cmpstr (row[rdma_col], ==, "");
  g_assert_cmpstr (row[7], ==, "ACTIVE");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/recording/trace-writer/perfetto-rules", test_perfetto_rules);
  g_test_add_func ("/recording/trace-writer/tracks", test_tracks);
  g_test_add_func ("/recording/trace-writer/sort-order", test_sort_order);
  g_test_add_func ("/recording/trace-writer/events-and-slices", test_events_and_slices);
  g_test_add_func ("/recording/trace-writer/escaping", test_escaping);
  g_test_add_func ("/recording/trace-writer/empty", test_empty);
  g_test_add_func ("/recording/trace-writer/compact", test_compact);
  g_test_add_func ("/recording/csv-writer/rows", test_csv);
  return g_test_run ();
}
