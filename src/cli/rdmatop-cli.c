/* rdmatop-cli.c: the headless rdmatop.
 *
 *   rdmatop-cli snapshot [--json] [--device NAME,...]
 *   rdmatop-cli watch [--interval S] [--count N] [--json] [--device NAME,...]
 *   rdmatop-cli record ... / recover ...   (rtop-cli-record.c)
 *   rdmatop-cli serve --listen ...         (rtop-cli-serve.c: Prometheus)
 *   rdmatop-cli serve --stdio ...          (rtop-cli-serve-stdio.c: a remote host)
 *
 * Exit status: 0 success, 1 runtime error (one line on stderr), 2 bad
 * arguments. */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rtop-cli-common.h"
#include "rtop-cli-record.h"
#include "rtop-cli-serve.h"
#include "rtop-cli-serve-stdio.h"
#include "rtop-collector.h"
#include "rtop-json.h"
#include "rtop-sampler.h"
#include "rtop-text.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

typedef struct {
  gboolean json;
  gboolean no_processes;
  gboolean no_gpu;
  char **devices;            /* from --device a,b --device c */
  double interval;
  int count;
  int exit_status;
  int printed;
  GMainLoop *loop;
} CliOptions;

static void
cli_options_clear (CliOptions *o)
{
  g_strfreev (o->devices);
  g_clear_pointer (&o->loop, g_main_loop_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (CliOptions, cli_options_clear)

static gboolean
parse_devices_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_add_devices (&((CliOptions *) data)->devices, value, error);
}

static gboolean
parse_interval_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_parse_interval (value, &((CliOptions *) data)->interval, error);
}

static int
usage_error (GOptionContext *ctx, const GError *error)
{
  g_printerr ("rdmatop-cli: %s\n", error->message);
  g_printerr (_("Try “rdmatop-cli --help” for more information.\n"));
  return EXIT_USAGE;
}

static RtopCollectorOptions
collector_options (const CliOptions *o)
{
  RtopCollectorOptions copts = { 0 };

  copts.devices = (const char * const *) o->devices;
  copts.no_processes = o->no_processes;
  copts.no_gpu = o->no_gpu;
  return copts;
}

/* Devices asked for with --device that the kernel does not have. */
static gboolean
check_devices (const CliOptions *o, const RtopSnapshot *snap)
{
  g_autoptr(GError) error = NULL;

  if (snap->status != RTOP_STATUS_OK
      || rtop_snapshot_has_devices (snap, (const char * const *) o->devices, &error))
    return TRUE;
  g_printerr ("rdmatop-cli: %s\n", error->message);
  return FALSE;
}

/* ---- Text output ---- */

static void
print_gpu_facts (const RtopDevice *dev)
{
  const RtopGpu *gpu = dev->gpu;

  g_print (_("  GPU %s %s, %s: utilisation %.0f %%, memory %.0f of %.0f MiB, %.0f °C, %.0f W\n"),
           gpu->vendor ? gpu->vendor : "", gpu->model ? gpu->model : "",
           gpu->pci_bus_id ? gpu->pci_bus_id : "-", gpu->utilisation_pct,
           gpu->memory_used_bytes / 1048576, gpu->memory_total_bytes / 1048576,
           gpu->temperature_c, gpu->power_w);
}

static void
print_port_facts (const RtopDevice *dev, const RtopPort *port)
{
  if (dev->kind == RTOP_DEVICE_KIND_GPU)
    {
      /* Port 0 holds the GPU-wide totals; port N is link N - 1. */
      if (port->index == RTOP_GPU_ALL_LINKS_PORT)
        g_print (_("  %s  all links  %s  %s\n"), dev->name,
                 port->link_layer ? port->link_layer : "", port->rate_text ? port->rate_text : "");
      else
        g_print (_("  %s  link %u  %s  %s  %s%s\n"), dev->name, port->index - 1,
                 rtop_port_state_to_string (port->state),
                 port->rate_text ? port->rate_text : _("rate unknown"),
                 port->remote ? _("to ") : "", port->remote ? port->remote : "");
      return;
    }
  g_print ("  %s/%u  %s (%s)  %s  %s%s%s\n", dev->name, port->index,
           rtop_port_state_to_string (port->state),
           rtop_port_phys_state_to_string (port->phys_state),
           port->rate_text ? port->rate_text : _("rate unknown"),
           port->netdev ? _("netdev ") : "", port->netdev ? port->netdev : "",
           port->error ? port->error : "");
}

static void
print_snapshot_text (const RtopSnapshot *snap)
{
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      g_print ("%s  %s  %s  %s\n", dev->name, dev->provider ? dev->provider : "",
               dev->protocol ? dev->protocol : "", dev->node_guid ? dev->node_guid : "");
      if (dev->gpu != NULL)
        print_gpu_facts (dev);
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);

          print_port_facts (dev, port);
          for (guint k = 0; k < port->counters->len; k++)
            {
              const RtopCounter *c = g_ptr_array_index (port->counters, k);
              g_print ("    %-36s %20" G_GUINT64_FORMAT "  %s\n", c->name, c->value,
                       rtop_counter_source_to_string (c->source));
            }
        }
    }
  if (snap->processes->len > 0)
    g_print ("\n%7s %-16s %-10s %6s %6s %6s %12s %s\n", _("PID"), _("COMMAND"), _("USER"),
             _("QPS"), _("CTXS"), _("MRS"), _("MR BYTES"), _("JOB"));
  for (guint i = 0; i < snap->processes->len; i++)
    {
      const RtopProcess *p = g_ptr_array_index (snap->processes, i);
      /* A terminal obeys escape sequences: names only as rtop-text.h shows them. */
      g_autofree char *comm = rtop_text_make_safe (p->comm, RTOP_TEXT_COMM_MAX);
      g_autofree char *user = rtop_text_make_safe (p->user, RTOP_TEXT_USER_MAX);
      g_autofree char *job = rtop_text_make_safe (p->job.name, RTOP_JOB_TEXT_MAX);

      /* The job last: it is the one column of any width. */
      g_print ("%7d %-16s %-10s %6u %6u %6u %12" G_GUINT64_FORMAT " %s\n", p->pid,
               comm ? comm : _("(hidden)"), user ? user : "-",
               p->qps, p->contexts, p->mrs, p->mr_bytes, job ? job : "-");
    }
  if (snap->processes_error != NULL)
    g_print ("%s\n", snap->processes_error);
  if (snap->gpu_status != NULL)
    g_print ("%s\n", snap->gpu_status);
  if (snap->pids_hidden)
    g_print (_("Some owners are in another PID namespace (container or sandbox); their PIDs are not visible here.\n"));
}

static void
print_rate_cell (const RtopPort *port, RtopMetricId id, double scale)
{
  const RtopMetric *m = &port->metrics[id];

  if (!m->present)
    g_print (" %10s", "n/a");
  else if (!m->has_rate)
    g_print (" %10s", "-");
  else
    g_print (" %10.3f", m->rate * scale);
}

static void
print_watch_text (const RtopSnapshot *snap, gboolean header)
{
  if (header)
    g_print ("%-16s %-8s %10s %10s %10s %10s %10s %10s %10s\n", _("PORT"), _("STATE"),
             _("TX Gb/s"), _("RX Gb/s"), _("TX pkt/s"), _("RX pkt/s"), _("DROP/s"),
             _("RETX/s"), _("ERR/s"));
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);
          g_autofree char *name = g_strdup_printf ("%s/%u", dev->name, port->index);

          g_print ("%-16s %-8s", name, rtop_port_state_to_string (port->state));
          print_rate_cell (port, RTOP_METRIC_TX_BYTES, 8e-9);
          print_rate_cell (port, RTOP_METRIC_RX_BYTES, 8e-9);
          print_rate_cell (port, RTOP_METRIC_TX_PACKETS, 1);
          print_rate_cell (port, RTOP_METRIC_RX_PACKETS, 1);
          print_rate_cell (port, RTOP_METRIC_DROPS, 1);
          print_rate_cell (port, RTOP_METRIC_RETRANSMITS, 1);
          print_rate_cell (port, RTOP_METRIC_ERRORS, 1);
          g_print ("\n");
        }
    }
  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);
      g_print ("! %s: %s\n", rtop_severity_to_string (ev->severity), ev->message);
    }
}

static gboolean
print_snapshot (const CliOptions *o, const RtopSnapshot *snap, gboolean watch)
{
  /* RDMA unavailable but GPU links read: say so, and show them. */
  if (snap->status != RTOP_STATUS_OK && rtop_snapshot_get_n_ports (snap) > 0)
    g_printerr ("rdmatop-cli: %s\n", snap->status_message);
  else if (snap->status != RTOP_STATUS_OK)
    {
      if (o->json)
        {
          g_autofree char *line = rtop_json_snapshot_to_string (snap, FALSE);
          g_print ("%s\n", line);
        }
      g_printerr ("rdmatop-cli: %s\n", snap->status_message);
      return FALSE;
    }
  if (o->json)
    {
      g_autofree char *line = rtop_json_snapshot_to_string (snap, !watch);
      g_print ("%s\n", line);
    }
  else if (watch)
    print_watch_text (snap, TRUE);
  else
    print_snapshot_text (snap);
  fflush (stdout);
  return TRUE;
}

/* ---- Subcommands ---- */

static GOptionContext *
make_context (const char *params, const char *summary, CliOptions *o,
              const GOptionEntry *extra)
{
  const GOptionEntry common[] = {
    { "json", 'j', 0, G_OPTION_ARG_NONE, &o->json, N_("Print JSON"), NULL },
    RTOP_CLI_DEVICE_OPTION (parse_devices_cb),
    RTOP_CLI_NO_PROCESSES_OPTION (&o->no_processes),
    RTOP_CLI_NO_GPU_OPTION (&o->no_gpu),
    { NULL }
  };

  return rtop_cli_context_new ("main", params, summary, common, extra, o);
}

static int
cmd_snapshot (int argc, char **argv)
{
  g_auto(CliOptions) o = { 0 };
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopCollector) collector = NULL;
  g_autoptr(RtopSnapshot) snap = NULL;
  RtopCollectorOptions copts;

  ctx = make_context (NULL, _("Take one sample of every RDMA device, port, counter and process."),
                      &o, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return usage_error (ctx, error);
  if (argc > 1)
    {
      g_autoptr(GError) extra = g_error_new (G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                                             _("Unexpected argument “%s”"), argv[1]);
      return usage_error (ctx, extra);
    }
  copts = collector_options (&o);
  collector = rtop_collector_new (&copts, &error);
  if (collector == NULL)
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  snap = rtop_collector_sample (collector, 0);
  if (!check_devices (&o, snap))
    return EXIT_RUNTIME;
  return print_snapshot (&o, snap, FALSE) ? EXIT_SUCCESS : EXIT_RUNTIME;
}

static void
watch_snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  CliOptions *o = data;

  if (o->printed == 0 && !check_devices (o, snap))
    o->exit_status = EXIT_RUNTIME;
  else if (!print_snapshot (o, snap, TRUE))
    o->exit_status = EXIT_RUNTIME;
  o->printed++;
  if (o->exit_status != EXIT_SUCCESS || (o->count > 0 && o->printed >= o->count))
    g_main_loop_quit (o->loop);
}

static gboolean
quit_cb (gpointer data)
{
  g_main_loop_quit (((CliOptions *) data)->loop);
  return G_SOURCE_CONTINUE;
}

static int
cmd_watch (int argc, char **argv)
{
  g_auto(CliOptions) o = { .interval = 1.0 };
  GOptionEntry entries[] = {
    { "interval", 'i', 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_interval_cb,
      N_("Seconds between samples (0.1 to 60, default 1)"), N_("S") },
    { "count", 'c', 0, G_OPTION_ARG_INT, &o.count,
      N_("Stop after N samples, the first being the baseline (default: until Ctrl-C)"), N_("N") },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopSampler) sampler = NULL;
  RtopCollectorOptions copts;
  guint sigint, sigterm;

  ctx = make_context (NULL, _("Print rates per port every interval, as a table or JSON lines."),
                      &o, entries);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return usage_error (ctx, error);
  if (argc > 1 || o.count < 0)
    {
      g_autoptr(GError) extra = g_error_new (G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                                             argc > 1 ? _("Unexpected argument “%s”")
                                                      : _("The count must not be negative%s"),
                                             argc > 1 ? argv[1] : "");
      return usage_error (ctx, extra);
    }
  copts = collector_options (&o);
  o.loop = g_main_loop_new (NULL, FALSE);
  sampler = rtop_sampler_new (&copts);
  rtop_sampler_set_interval (sampler, o.interval);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (watch_snapshot_cb), &o);
  sigint = g_unix_signal_add (SIGINT, quit_cb, &o);
  sigterm = g_unix_signal_add (SIGTERM, quit_cb, &o);
  rtop_sampler_start (sampler);
  g_main_loop_run (o.loop);
  rtop_sampler_stop (sampler);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  return o.exit_status;
}

/* serve speaks in more than one way; --stdio is the stream for
 * `rdmatop --host`. */
static int
cmd_serve (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--stdio"))
      return rtop_cli_serve_stdio (argc, argv);
  /* Otherwise: the OpenMetrics endpoint (--listen, or its default). */
  return rtop_cli_serve (argc, argv);
}

static const struct {
  const char *name;
  int (*run) (int argc, char **argv);
  const char *help;
} commands[] = {
  { "snapshot", cmd_snapshot, N_("one sample of every device, port, counter and process") },
  { "watch", cmd_watch, N_("rates per port every interval") },
  { "record", rtop_cli_record, N_("record a Perfetto trace (or CSV) until a duration or Ctrl-C") },
  { "recover", rtop_cli_recover, N_("close a recording that was cut off by a crash") },
  { "serve", cmd_serve, N_("serve metrics to Prometheus over HTTP (--listen), or this computer's data to rdmatop elsewhere (--stdio: over ssh)") },
};

static void
print_help (FILE *out)
{
  fprintf (out, "%s\n", _("Usage: rdmatop-cli COMMAND [OPTIONS]"));
  fprintf (out, "\n%s\n", _("Live RDMA traffic from RDMA netlink, sysfs and /proc, without a display."));
  fprintf (out, "\n%s\n", _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-10s %s\n", commands[i].name, _(commands[i].help));
  fprintf (out, "\n%s\n", _("Run “rdmatop-cli COMMAND --help” for a command's options."));
  fprintf (out, "%s\n", _("Exit status: 0 success, 1 runtime error, 2 bad arguments."));
}

static void
init_i18n (void)
{
  const char *localedir = g_getenv ("RDMATOP_LOCALEDIR");

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, localedir && *localedir ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

int
main (int argc, char **argv)
{
  init_i18n ();
  if (argc < 2 || g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help"))
    {
      print_help (argc < 2 ? stderr : stdout);
      return argc < 2 ? EXIT_USAGE : EXIT_SUCCESS;
    }
  if (g_str_equal (argv[1], "--version") || g_str_equal (argv[1], "-V"))
    {
      g_print ("rdmatop-cli %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].run (argc - 1, argv + 1);
  g_printerr (_("rdmatop-cli: unknown command “%s”\n"), argv[1]);
  print_help (stderr);
  return EXIT_USAGE;
}
