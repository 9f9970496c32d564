/* rtop-cli-record.c: `rdmatop-cli record` and `rdmatop-cli recover`.
 *
 * record drives the sampler on a GMainLoop and hands every snapshot to a
 * recorder; it stops at --duration (measured on the samples' own clock) or
 * on SIGINT/SIGTERM, and then closes the file so it is complete.  If the
 * file cannot be completed where asked, what was captured is saved in the
 * temporary folder instead and the exit status is 1. */
#include "config.h"

#include <glib-unix.h>
#include <glib/gi18n.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "rtop-capture.h"
#include "rtop-cli-common.h"
#include "rtop-cli-record.h"
#include "rtop-error.h"
#include "rtop-recorder.h"
#include "rtop-recording.h"
#include "rtop-sampler.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define MAX_DURATION_S (10.0 * 365 * 24 * 3600)
/* What ui.perfetto.dev opens as it is. */
#define DEFAULT_FORMAT RTOP_RECORD_FORMAT_JSON

typedef struct {
  char *output;
  char *format_name;
  char *format_help;           /* lives as long as the option context */
  char **devices;
  GArray *ports;               /* guint32, --port; NULL: every port */
  double interval;
  double duration;             /* 0: until a signal */
  gboolean no_processes;
  gboolean no_gpu;
  gboolean counters_only;
  gboolean interval_out_of_range;
  gboolean done;               /* the duration is reached: nothing more is recorded */
  RtopRecorder *recorder;
  RtopCapture *capture;        /* --counters-only */
  RtopRates *rates;
  GMainLoop *loop;
  guint64 samples;
  gint64 first_monotonic_us;
  gboolean warned;
  int exit_status;
} RecordOptions;

static void
record_options_clear (RecordOptions *o)
{
  g_free (o->output);
  g_free (o->format_name);
  g_free (o->format_help);
  g_strfreev (o->devices);
  g_clear_pointer (&o->ports, g_array_unref);
  g_clear_object (&o->recorder);
  g_clear_pointer (&o->capture, rtop_capture_free);
  g_clear_pointer (&o->rates, rtop_rates_free);
  g_clear_pointer (&o->loop, g_main_loop_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (RecordOptions, record_options_clear)

static int
usage (const char *message)
{
  g_printerr ("rdmatop-cli: %s\n", message);
  g_printerr (_("Try “rdmatop-cli record --help” for more information.\n"));
  return EXIT_USAGE;
}

static gboolean
interval_cb (const char *name, const char *value, gpointer data, GError **error)
{
  RecordOptions *o = data;

  /* Down to a capture's floor here; whether that is allowed depends on
   * --counters-only, checked once every option is known. */
  if (rtop_cli_parse_seconds (value, RTOP_CAPTURE_MIN_INTERVAL_NS / 1e9, RTOP_SAMPLER_MAX_INTERVAL,
                     &o->interval))
    return TRUE;
  if (rtop_cli_parse_seconds (value, 0, G_MAXDOUBLE, &o->interval))
    {
      o->interval_out_of_range = TRUE;
      return TRUE;
    }
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("The interval must be a number of seconds from %.1f to %.0f, not “%s”"),
               RTOP_SAMPLER_MIN_INTERVAL, RTOP_SAMPLER_MAX_INTERVAL, value);
  return FALSE;
}

static gboolean
duration_cb (const char *name, const char *value, gpointer data, GError **error)
{
  RecordOptions *o = data;

  if (rtop_cli_parse_seconds (value, 0, MAX_DURATION_S, &o->duration) && o->duration > 0)
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("The duration must be a positive number of seconds, not “%s”"), value);
  return FALSE;
}

static gboolean
port_cb (const char *name, const char *value, gpointer data, GError **error)
{
  RecordOptions *o = data;
  guint64 port;

  if (!g_ascii_string_to_unsigned (value, 10, 1, G_MAXUINT32, &port, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("A port is a number from 1, not “%s”"), value);
      return FALSE;
    }
  if (o->ports == NULL)
    o->ports = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (o->ports, (guint32) { (guint32) port });
  return TRUE;
}

static gboolean
devices_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_add_devices (&((RecordOptions *) data)->devices, value, error);
}

/* "json, json.gz or csv (default: ...)": the format table's names. */
static char *
format_help (void)
{
  g_autofree char *names = rtop_record_format_list_names (", ");

  return g_strdup_printf (_("One of %s (default: from the file name, else %s)"), names,
                          rtop_record_format_to_string (DEFAULT_FORMAT));
}

static GOptionContext *
record_context (RecordOptions *o)
{
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o->output,
      N_("The file to write (default: rdmatop-<UTC time>.json here); never overwritten"), N_("FILE") },
    { "duration", 't', 0, G_OPTION_ARG_CALLBACK, (gpointer) duration_cb,
      N_("Stop after S seconds (default: at Ctrl-C or SIGTERM)"), N_("S") },
    { "interval", 'i', 0, G_OPTION_ARG_CALLBACK, (gpointer) interval_cb,
      N_("Seconds between samples (0.1 to 60, default 1; from 0.001 with --counters-only)"),
      N_("S") },
    RTOP_CLI_DEVICE_OPTION (devices_cb),
    { "port", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) port_cb,
      N_("Only this port number (repeatable; needs --counters-only)"), N_("N") },
    { "counters-only", 0, 0, G_OPTION_ARG_NONE, &o->counters_only,
      N_("Read only the ports' counters (no processes, netdevs or GPUs), which allows "
         "intervals down to 1 ms"), NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &o->format_name,
      o->format_help = format_help (), N_("FORMAT") },
    RTOP_CLI_NO_PROCESSES_OPTION (&o->no_processes),
    RTOP_CLI_NO_GPU_OPTION (&o->no_gpu),
    { NULL }
  };

  return rtop_cli_context_new ("record", NULL,
                               _("Record RDMA traffic to a trace that ui.perfetto.dev opens "
                                 "(or CSV), until the duration ends or Ctrl-C."),
                               entries, NULL, o);
}

/* The format from --format, else from the file name, else the default.
 * Only a format the table says can be recorded. */
static gboolean
choose_format (RecordOptions *o, RtopRecordFormat *format)
{
  if (o->format_name != NULL)
    {
      if (!rtop_record_format_from_string (o->format_name, format))
        return FALSE;
    }
  else if (o->output == NULL || !rtop_record_format_from_path (o->output, format))
    *format = DEFAULT_FORMAT;
  return (rtop_record_format_get_info (*format)->flags & RTOP_RECORD_FORMAT_RECORDABLE) != 0;
}

static void
fail (RecordOptions *o, const char *message)
{
  o->done = TRUE;
  g_printerr ("rdmatop-cli: %s\n", message);
  o->exit_status = EXIT_RUNTIME;
  g_main_loop_quit (o->loop);
}

/* The first pass says whether there is anything to record at all. */
static gboolean
check_first (RecordOptions *o, const RtopSnapshot *snap)
{
  g_autoptr(GError) error = NULL;

  /* Without RDMA, GPU links alone are still worth recording. */
  if ((snap->status == RTOP_STATUS_NO_NETLINK || snap->status == RTOP_STATUS_PERMISSION) &&
      rtop_snapshot_get_n_ports (snap) == 0)
    {
      fail (o, snap->status_message != NULL ? snap->status_message
                                            : _("RDMA netlink is not available."));
      return FALSE;
    }
  if (!rtop_snapshot_has_devices (snap, (const char * const *) o->devices, &error))
    {
      fail (o, error->message);
      return FALSE;
    }
  return TRUE;
}

static void
snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  RecordOptions *o = data;

  if (o->done)
    return;
  if (o->samples == 0)
    {
      if (!check_first (o, snap))
        return;
      o->first_monotonic_us = snap->monotonic_us;
    }
  rtop_recorder_add (o->recorder, snap);
  o->samples++;
  if (o->duration > 0
      && snap->monotonic_us - o->first_monotonic_us >= (gint64) (o->duration * G_USEC_PER_SEC))
    {
      o->done = TRUE;
      g_main_loop_quit (o->loop);
    }
}

static void
recorder_error_cb (RtopRecorder *recorder, const GError *error, gpointer data)
{
  RecordOptions *o = data;

  /* Once: the recorder keeps the samples and the close below decides. */
  if (!o->warned)
    g_printerr (_("rdmatop-cli: warning: %s\n"), error->message);
  o->warned = TRUE;
}

static gboolean
stop_cb (gpointer data)
{
  g_main_loop_quit (((RecordOptions *) data)->loop);
  return G_SOURCE_CONTINUE;
}

/* The file could not be completed where asked: put it in the temporary
 * folder rather than lose it. */
static void
rescue (RecordOptions *o, RtopRecordFormat format)
{
  g_autofree char *name = rtop_recording_default_filename (format);
  g_autofree char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  g_autoptr(GError) error = NULL;

  if (rtop_recorder_save_as (o->recorder, path, &error))
    g_printerr (_("rdmatop-cli: the recording was saved to “%s” instead\n"), path);
  else
    g_printerr ("rdmatop-cli: %s\n", error->message);
}

static int
finish (RecordOptions *o, RtopRecordFormat format)
{
  g_autoptr(GError) error = NULL;

  if (o->exit_status != EXIT_SUCCESS)
    {
      rtop_recorder_discard (o->recorder);
      return o->exit_status;
    }
  if (!rtop_recorder_close (o->recorder, &error))
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      rescue (o, format);
      return EXIT_RUNTIME;
    }
  {
    /* A format macro inside _() cannot be translated: pass strings. */
    g_autofree char *samples = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                (guint64) rtop_recorder_get_samples (o->recorder));
    g_autofree char *bytes = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                              (guint64) rtop_recorder_get_bytes_written (o->recorder));

    g_print (_("%s: %s samples over %.1f s, %s bytes\n"),
             rtop_recorder_get_path (o->recorder), samples,
             rtop_recorder_get_elapsed_us (o->recorder) / 1e6, bytes);
  }
  return EXIT_SUCCESS;
}

static gint64
interval_ns (double seconds)
{
  return (gint64) (seconds * 1e9 + 0.5);
}

/* What the options say together; NULL when they fit. */
static char *
check_combination (RecordOptions *o)
{
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_autoptr(GError) error = NULL;

  g_ascii_formatd (value, sizeof value, "%g", o->interval);
  if (o->counters_only)
    {
      if (o->interval_out_of_range ||
          !rtop_capture_check_interval (interval_ns (o->interval), &error))
        return g_strdup_printf (_("The interval must be a number of seconds from %g to %g, not “%s”"),
                                RTOP_CAPTURE_MIN_INTERVAL_NS / 1e9,
                                RTOP_CAPTURE_MAX_INTERVAL_NS / 1e9, value);
      return NULL;
    }
  if (o->interval_out_of_range)
    return g_strdup_printf (_("The interval must be a number of seconds from %.1f to %.0f, not “%s”"),
                            RTOP_SAMPLER_MIN_INTERVAL, RTOP_SAMPLER_MAX_INTERVAL, value);
  if (o->interval < RTOP_SAMPLER_MIN_INTERVAL)
    return g_strdup_printf (_("An interval under %.1f s (here %s) needs --counters-only: a full "
                              "sample takes longer"), RTOP_SAMPLER_MIN_INTERVAL, value);
  if (o->ports != NULL)
    return g_strdup (_("--port needs --counters-only"));
  return NULL;
}

/* --counters-only: the ports are found before any file is made, so a
 * wrong device leaves nothing behind. */
static gboolean
open_capture (RecordOptions *o)
{
  RtopCollectorOptions copts = {
    .devices = (const char * const *) o->devices,
    .no_processes = TRUE,
    .no_monitor = TRUE,
    .no_gpu = TRUE,
  };
  RtopCaptureOptions capts = {
    .devices = (const char * const *) o->devices,
    .ports = o->ports ? (const guint32 *) (gpointer) o->ports->data : NULL,
    .n_ports = o->ports ? o->ports->len : 0,
    .interval_ns = interval_ns (o->interval),
  };
  g_autoptr(GError) error = NULL;
  RtopCollector *collector = rtop_collector_new (&copts, &error);

  if (collector != NULL)
    o->capture = rtop_capture_new (collector, &capts, &error);
  if (o->capture == NULL)
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      return FALSE;
    }
  o->rates = rtop_rates_new ();
  return TRUE;
}

/* The capture's passes, as snapshots, to the recorder. */
static gboolean
drain_capture_cb (gpointer data)
{
  RecordOptions *o = data;
  g_autoptr(GPtrArray) snaps = rtop_capture_read_snapshots (o->capture, o->rates, G_MAXUINT);

  for (guint i = 0; i < snaps->len; i++)
    snapshot_cb (NULL, g_ptr_array_index (snaps, i), o);
  return G_SOURCE_CONTINUE;
}

static void
run_capture (RecordOptions *o)
{
  g_autoptr(GError) error = NULL;
  guint drain;

  if (!rtop_capture_start (o->capture, &error))
    {
      fail (o, error->message);
      return;
    }
  /* Often enough that the capture's buffer never fills. */
  drain = g_timeout_add (50, drain_capture_cb, o);
  g_main_loop_run (o->loop);
  rtop_capture_stop (o->capture);
  g_source_remove (drain);
  /* What was taken before the stop (a signal), up to the duration. */
  if (o->exit_status == EXIT_SUCCESS)
    drain_capture_cb (o);
}

static void
run_sampler (RecordOptions *o)
{
  RtopCollectorOptions copts = { 0 };
  g_autoptr(RtopSampler) sampler = NULL;

  copts.devices = (const char * const *) o->devices;
  copts.no_processes = o->no_processes;
  copts.no_gpu = o->no_gpu;
  sampler = rtop_sampler_new (&copts);
  rtop_sampler_set_interval (sampler, o->interval);
  g_signal_connect (sampler, "snapshot", G_CALLBACK (snapshot_cb), o);
  rtop_sampler_start (sampler);
  g_main_loop_run (o->loop);
  rtop_sampler_stop (sampler);
}

int
rtop_cli_record (int argc, char **argv)
{
  g_auto(RecordOptions) o = { .interval = 1.0 };
  g_autoptr(GOptionContext) ctx = record_context (&o);
  g_autoptr(GError) error = NULL;
  g_autofree char *conflict = NULL;
  RtopRecordFormat format;
  guint sigint, sigterm;
  int status;

  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return usage (error->message);
  if (argc > 1)
    {
      g_autofree char *message = g_strdup_printf (_("Unexpected argument “%s”"), argv[1]);
      return usage (message);
    }
  if (!choose_format (&o, &format))
    {
      g_autofree char *names = rtop_record_format_list_names (", ");
      g_autofree char *message = g_strdup_printf (_("Unknown format “%s” (use %s)"),
                                                  o.format_name != NULL ? o.format_name : o.output,
                                                  names);
      return usage (message);
    }
  if ((conflict = check_combination (&o)) != NULL)
    return usage (conflict);
  if (o.counters_only && !open_capture (&o))
    return EXIT_RUNTIME;
  if (o.output == NULL)
    o.output = rtop_recording_default_filename (format);

  o.recorder = rtop_recorder_new (o.output, format, &error);
  if (o.recorder == NULL)
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  g_signal_connect (o.recorder, "error", G_CALLBACK (recorder_error_cb), &o);

  o.loop = g_main_loop_new (NULL, FALSE);
  sigint = g_unix_signal_add (SIGINT, stop_cb, &o);
  sigterm = g_unix_signal_add (SIGTERM, stop_cb, &o);
  if (o.counters_only)
    run_capture (&o);
  else
    run_sampler (&o);
  status = finish (&o, format);
  g_source_remove (sigint);
  g_source_remove (sigterm);
  return status;
}

int
rtop_cli_recover (int argc, char **argv)
{
  g_autofree char *output = NULL;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      N_("Write here (default: FILE without .partial, or NAME-recovered.json[.gz])"), N_("OUT") },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *written = NULL;

  ctx = rtop_cli_context_new ("recover", _("FILE"),
                              _("Write a complete copy of a recording that was cut off "
                                "(a crash, kill -9, power loss), up to its last complete "
                                "interval. The original is left as it is."),
                              entries, NULL, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      g_printerr (_("Try “rdmatop-cli recover --help” for more information.\n"));
      return EXIT_USAGE;
    }
  if (argc != 2)
    {
      g_printerr ("rdmatop-cli: %s\n", _("recover needs exactly one FILE"));
      g_printerr (_("Try “rdmatop-cli recover --help” for more information.\n"));
      return EXIT_USAGE;
    }
  written = rtop_recording_recover (argv[1], output, &error);
  if (written == NULL)
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      return EXIT_RUNTIME;
    }
  g_print ("%s\n", written);
  return EXIT_SUCCESS;
}
