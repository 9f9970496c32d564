/* history-probe: the app's model layer on a real kernel, without a window.
 *
 * Runs the collector every INTERVAL seconds for COUNT passes, feeds each
 * snapshot to RtopHistory (what the window binds to) and writes one JSON
 * line per pass: the ranked recent events the overview shows, the problems
 * summary, each port's verdict and link text, and each process with its
 * job in words.  vmcheck.py reads it.
 *
 *   history-probe --interval 1 --count 60 --output FILE
 *
 * Stops early on SIGINT/SIGTERM (the file stays whole: one line per pass).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "config.h"

#include <glib-unix.h>
#include <json-glib/json-glib.h>
#include <stdio.h>

#include "rtop-collector.h"
#include "rtop-event-item.h"
#include "rtop-history.h"
#include "rtop-port-text.h"
#include "rtop-process-item.h"

static volatile gboolean stopping;

static gboolean
stop_cb (gpointer data)
{
  stopping = TRUE;
  return G_SOURCE_CONTINUE;
}

static void
add_recent (JsonBuilder *b, RtopHistory *history)
{
  GListModel *recent = rtop_history_get_recent_events (history);

  json_builder_set_member_name (b, "recent");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (recent); i++)
    {
      g_autoptr(RtopEventItem) item = g_list_model_get_item (recent, i);
      const RtopEvent *ev = rtop_event_item_get_event (item);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, rtop_event_kind_to_string (ev->kind));
      json_builder_set_member_name (b, "severity");
      json_builder_add_string_value (b, rtop_severity_to_string (ev->severity));
      json_builder_set_member_name (b, "episode");
      json_builder_add_int_value (b, (gint64) ev->episode);
      json_builder_set_member_name (b, "ongoing");
      json_builder_add_boolean_value (b, ev->ongoing);
      json_builder_set_member_name (b, "location");
      json_builder_add_string_value (b, rtop_event_item_get_location (item));
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, ev->message ? ev->message : "");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_ports (JsonBuilder *b, RtopHistory *history)
{
  GListModel *ports = rtop_history_get_ports (history);

  json_builder_set_member_name (b, "ports");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (ports); i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (ports, i);
      g_autofree char *health = rtop_port_item_health_text (item);
      g_autofree char *link = rtop_port_item_link_text (item);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "key");
      json_builder_add_string_value (b, rtop_port_item_get_key (item));
      json_builder_set_member_name (b, "health");
      json_builder_add_string_value (b, rtop_port_health_to_string (rtop_port_item_get_health (item, NULL)));
      json_builder_set_member_name (b, "health_text");
      json_builder_add_string_value (b, health);
      json_builder_set_member_name (b, "link");
      json_builder_add_string_value (b, link);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

/* The processes as the Processes section lists them: pid, name and the
 * job in the words the window shows. */
static void
add_processes (JsonBuilder *b, RtopHistory *history)
{
  GListModel *processes = rtop_history_get_processes (history);

  json_builder_set_member_name (b, "processes");
  json_builder_begin_array (b);
  for (guint i = 0; i < g_list_model_get_n_items (processes); i++)
    {
      g_autoptr(RtopProcessItem) item = g_list_model_get_item (processes, i);
      const char *job = rtop_process_item_get_job_text (item);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "pid");
      json_builder_add_int_value (b, rtop_process_item_get_pid (item));
      json_builder_set_member_name (b, "comm");
      json_builder_add_string_value (b, rtop_process_item_get_comm (item));
      json_builder_set_member_name (b, "job");
      if (job != NULL)
        json_builder_add_string_value (b, job);
      else
        json_builder_add_null_value (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static char *
pass_line (RtopHistory *history, const RtopSnapshot *snap)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *problems = rtop_history_dup_problems_text (history);
  RtopTotals t;

  rtop_history_get_totals (history, &t);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "sequence");
  json_builder_add_int_value (b, (gint64) snap->sequence);
  json_builder_set_member_name (b, "problems");
  json_builder_add_string_value (b, problems);
  json_builder_set_member_name (b, "n_problem_ports");
  json_builder_add_int_value (b, t.n_problem_ports);
  json_builder_set_member_name (b, "n_events");
  json_builder_add_int_value (b, g_list_model_get_n_items (rtop_history_get_events (history)));
  add_recent (b, history);
  add_ports (b, history);
  add_processes (b, history);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return json_to_string (root, FALSE);
}

int
main (int argc, char **argv)
{
  double interval = 1;
  int count = 10;
  g_autofree char *output = NULL;
  GOptionEntry entries[] = {
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval, "Seconds between passes", "S" },
    { "count", 0, 0, G_OPTION_ARG_INT, &count, "Passes", "N" },
    { "output", 0, 0, G_OPTION_ARG_FILENAME, &output, "JSON lines file", "FILE" },
    { NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopCollector) collector = NULL;
  g_autoptr(RtopHistory) history = NULL;
  RtopCollectorOptions options = { 0 };
  FILE *out;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || output == NULL ||
      count <= 0 || !(interval >= 0.1 && interval <= 60))
    {
      g_printerr ("history-probe: %s\n", error ? error->message : "--output FILE, --count > 0, --interval 0.1..60");
      return 2;
    }
  collector = rtop_collector_new (&options, &error);
  if (collector == NULL)
    {
      g_printerr ("history-probe: %s\n", error->message);
      return 1;
    }
  out = fopen (output, "w");
  if (out == NULL)
    {
      g_printerr ("history-probe: cannot write %s\n", output);
      return 1;
    }
  g_unix_signal_add (SIGINT, stop_cb, NULL);
  g_unix_signal_add (SIGTERM, stop_cb, NULL);
  history = rtop_history_new ();
  for (int i = 0; i < count && !stopping; i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_collector_sample (collector, interval);
      g_autofree char *line = NULL;
      gint64 until = g_get_monotonic_time () + (gint64) (interval * G_USEC_PER_SEC);

      rtop_history_ingest (history, snap);
      line = pass_line (history, snap);
      fprintf (out, "%s\n", line);
      fflush (out);
      while (!stopping && i + 1 < count && g_get_monotonic_time () < until)
        g_main_context_iteration (NULL, FALSE), g_usleep (20000);
    }
  fclose (out);
  return 0;
}
