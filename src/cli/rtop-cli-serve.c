/* rtop-cli-serve.c: `rdmatop-cli serve`.
 *
 * One sampler feeds one sink.  A sink is a way of serving snapshots (today
 * HTTP for Prometheus); it is a row in the sinks table, chosen by the
 * options, so another way of serving (a stream on standard output, say)
 * is one more row and its options, with the sampling loop unchanged. */
#include "config.h"

#include <string.h>

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "rtop-cli-common.h"
#include "rtop-cli-serve.h"
#include "rtop-metrics-server.h"
#include "rtop-sampler.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define DEFAULT_INTERVAL_S 5.0
#define MAX_PROCESS_SERIES 10000
#define MAX_CONNECTIONS 1024

typedef struct {
  char *listen;
  char **devices;
  double interval;
  gboolean processes;
  int max_processes;
  int max_connections;
  gboolean job_label;        /* --labels job */
  GMainLoop *loop;
  RtopStatus last_status;
  gboolean seen_first;
} ServeOptions;

/* A way of serving snapshots. */
typedef struct {
  const char *name;
  gboolean (*wanted) (const ServeOptions *o);
  gpointer (*start) (const ServeOptions *o, GError **error);
  void (*push) (gpointer sink, RtopSnapshot *snap);
  void (*stop) (gpointer sink);
} SinkClass;

static void
serve_options_clear (ServeOptions *o)
{
  g_free (o->listen);
  g_strfreev (o->devices);
  g_clear_pointer (&o->loop, g_main_loop_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (ServeOptions, serve_options_clear)

/* ---- The HTTP sink ---- */

static gboolean
http_wanted (const ServeOptions *o)
{
  return TRUE;
}

static gpointer
http_start (const ServeOptions *o, GError **error)
{
  RtopOpenMetricsOptions mopts = {
    .processes = o->processes,
    .max_process_series = (guint) o->max_processes,
    .job_label = o->job_label,
    .host = g_get_host_name (),
    .version = PACKAGE_VERSION,
  };
  RtopMetricsServerLimits limits = { .max_connections = (guint) o->max_connections };
  g_autoptr(RtopMetricsServer) server = rtop_metrics_server_new (&mopts, &limits);
  const char *listen = o->listen;
  g_autofree char *fallback = NULL;

  if (listen == NULL)
    listen = fallback = g_strdup_printf ("127.0.0.1:%d", RTOP_METRICS_SERVER_DEFAULT_PORT);
  if (!rtop_metrics_server_listen (server, listen, error))
    return NULL;
  /* The port, for a caller that asked for port 0. */
  g_printerr (_("rdmatop-cli: serving metrics on port %u (%s)\n"),
              rtop_metrics_server_get_port (server), listen);
  return g_steal_pointer (&server);
}

static void
http_push (gpointer sink, RtopSnapshot *snap)
{
  rtop_metrics_server_push (sink, snap);
}

static void
http_stop (gpointer sink)
{
  g_object_unref (sink);
}

static const SinkClass sinks[] = {
  { "http", http_wanted, http_start, http_push, http_stop },
};

/* ---- Options ---- */

static gboolean
interval_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_parse_interval (value, &((ServeOptions *) data)->interval, error);
}

static gboolean
devices_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_add_devices (&((ServeOptions *) data)->devices, value, error);
}

/* Labels added only when asked: each is a cardinality the operator chooses. */
static gboolean
labels_cb (const char *name, const char *value, gpointer data, GError **error)
{
  g_auto(GStrv) labels = g_strsplit (value, ",", -1);

  for (guint i = 0; labels[i] != NULL; i++)
    {
      if (strcmp (g_strstrip (labels[i]), "job") == 0)
        ((ServeOptions *) data)->job_label = TRUE;
      else
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("Unknown label “%s” for --labels (known: job)"), labels[i]);
          return FALSE;
        }
    }
  return TRUE;
}

static GOptionContext *
serve_context (ServeOptions *o)
{
  const GOptionEntry entries[] = {
    { "listen", 'l', 0, G_OPTION_ARG_STRING, &o->listen,
      N_("Serve on this IP address and port (default 127.0.0.1:9315; 0.0.0.0:9315 for every "
         "interface)"), N_("ADDRESS:PORT") },
    { "interval", 'i', 0, G_OPTION_ARG_CALLBACK, (gpointer) interval_cb,
      N_("Seconds between samples (0.1 to 60, default 5); scrapes read the latest"), N_("S") },
    RTOP_CLI_DEVICE_OPTION (devices_cb),
    { "processes", 'p', 0, G_OPTION_ARG_NONE, &o->processes,
      N_("Also export per-process metrics (pids and commands leave the machine)"), NULL },
    { "max-processes", 0, 0, G_OPTION_ARG_INT, &o->max_processes,
      N_("At most N process series, the heaviest users first (default 100)"), N_("N") },
    { "labels", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) labels_cb,
      N_("Add these labels to the process series: job (the process's Slurm job, pod, "
         "container, service or session)"), N_("LIST") },
    { "max-connections", 0, 0, G_OPTION_ARG_INT, &o->max_connections,
      N_("At most N connections at once; past that the oldest is closed (default 32)"), N_("N") },
    { NULL }
  };

  return rtop_cli_context_new ("serve", NULL,
                               _("Serve RDMA metrics to Prometheus over HTTP (/metrics, in "
                                 "OpenMetrics or the Prometheus text format)."),
                               entries, NULL, o);
}

static int
usage (const char *message)
{
  g_printerr ("rdmatop-cli: %s\n", message);
  g_printerr (_("Try “rdmatop-cli serve --help” for more information.\n"));
  return EXIT_USAGE;
}

static const char *
check_limits (const ServeOptions *o)
{
  if (o->max_processes < 1 || o->max_processes > MAX_PROCESS_SERIES)
    return _("--max-processes must be from 1 to 10000");
  if (o->max_connections < 1 || o->max_connections > MAX_CONNECTIONS)
    return _("--max-connections must be from 1 to 1024");
  if (o->max_processes != RTOP_OPENMETRICS_DEFAULT_MAX_PROCESS_SERIES && !o->processes)
    return _("--max-processes needs --processes");
  if (o->job_label && !o->processes)
    return _("--labels job needs --processes");
  return NULL;
}

/* ---- Running ---- */

typedef struct {
  ServeOptions *options;
  const SinkClass *klass;
  gpointer sink;
} Serving;

/* Said once when the collection starts failing and once when it recovers,
 * not every pass. */
static void
report_status (ServeOptions *o, const RtopSnapshot *snap)
{
  if (o->seen_first && snap->status == o->last_status)
    return;
  if (snap->status != RTOP_STATUS_OK)
    g_printerr ("rdmatop-cli: %s\n", snap->status_message != NULL ? snap->status_message : "");
  else if (o->seen_first)
    g_printerr (_("rdmatop-cli: the collection works again\n"));
  for (guint i = 0; !o->seen_first && o->devices != NULL && o->devices[i] != NULL; i++)
    if (snap->status == RTOP_STATUS_OK && rtop_snapshot_find_device (snap, o->devices[i]) == NULL)
      g_printerr (_("rdmatop-cli: warning: no RDMA device named “%s” yet (see “rdma dev”)\n"),
                  o->devices[i]);
  o->last_status = snap->status;
  o->seen_first = TRUE;
}

static void
snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  Serving *s = data;

  report_status (s->options, snap);
  s->klass->push (s->sink, snap);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

static int
run (ServeOptions *o, const SinkClass *klass)
{
  RtopCollectorOptions copts = { 0 };
  g_autoptr(RtopSampler) sampler = NULL;
  g_autoptr(GError) error = NULL;
  Serving s = { o, klass, NULL };
  guint sigint, sigterm;

  s.sink = klass->start (o, &error);
  if (s.sink == NULL)
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  copts.devices = (const char * const *) o->devices;
  copts.no_processes = !o->processes;
  o->loop = g_main_loop_new (NULL, FALSE);
  sampler = rtop_sampler_new (&copts);
  rtop_sampler_set_interval (sampler, o->interval);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), &s);
  sigint = g_unix_signal_add (SIGINT, quit_cb, o->loop);
  sigterm = g_unix_signal_add (SIGTERM, quit_cb, o->loop);
  rtop_sampler_start (sampler);
  g_main_loop_run (o->loop);
  rtop_sampler_stop (sampler);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  klass->stop (s.sink);
  return EXIT_SUCCESS;
}

int
rtop_cli_serve (int argc, char **argv)
{
  g_auto(ServeOptions) o = {
    .interval = DEFAULT_INTERVAL_S,
    .max_processes = RTOP_OPENMETRICS_DEFAULT_MAX_PROCESS_SERIES,
    .max_connections = 32,
  };
  g_autoptr(GOptionContext) ctx = serve_context (&o);
  g_autoptr(GError) error = NULL;
  const char *problem;

  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return usage (error->message);
  if (argc > 1)
    {
      g_autofree char *message = g_strdup_printf (_("Unexpected argument “%s”"), argv[1]);
      return usage (message);
    }
  problem = check_limits (&o);
  if (problem != NULL)
    return usage (problem);
  if (o.listen != NULL)
    {
      g_autoptr(GInetSocketAddress) addr = rtop_metrics_server_parse_address (o.listen, &error);

      if (addr == NULL)
        return usage (error->message);
    }
  for (guint i = 0; i < G_N_ELEMENTS (sinks); i++)
    if (sinks[i].wanted (&o))
      return run (&o, &sinks[i]);
  return usage (_("Nothing to serve"));
}
