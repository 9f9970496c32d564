/* rtop-cli-serve-stdio.c: `rdmatop-cli serve --stdio`.
 *
 * Everything runs on one main loop: the sampler delivers snapshots, the
 * encoder appends frames to a bounded output queue, and stdout is written
 * without blocking whenever it can take more.  A reader that is slower
 * than the passes does not make the queue grow: a pass that finds the
 * queue still full is not sent, and the next frame is simply measured
 * against the last one that was (the stream's frames are differences from
 * the previous frame, not from the previous pass). */
#include "config.h"

#include <errno.h>
#include <glib-unix.h>
#include <glib/gi18n.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtop-cli-common.h"
#include "rtop-cli-serve-stdio.h"
#include "rtop-sampler.h"
#include "rtop-stream.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2

/* A pass is not encoded while this much is still waiting for the reader. */
#define OUTPUT_SOFT_LIMIT (16 * 1024)
#define COMMAND_MAX 128
#define KEYFRAME_EVERY 60
/* How long a last error frame may take to reach the reader. */
#define FLUSH_TIMEOUT_S 5

typedef struct {
  gboolean stdio;
  gboolean processes;
  char **devices;
  double interval;
  int exit_status;
  gboolean quitting;
  gboolean checked_devices;
  guint64 dropped;
  GMainLoop *loop;
  RtopSampler *sampler;
  RtopStreamEncoder *encoder;
  GByteArray *out;           /* frames waiting for stdout */
  guint out_watch;
  guint in_watch;
  char line[COMMAND_MAX + 1];
  gsize line_len;
} Serve;

static void
serve_clear (Serve *s)
{
  g_strfreev (s->devices);
  g_clear_handle_id (&s->out_watch, g_source_remove);
  g_clear_handle_id (&s->in_watch, g_source_remove);
  g_clear_object (&s->sampler);
  g_clear_pointer (&s->encoder, rtop_stream_encoder_free);
  g_clear_pointer (&s->out, g_byte_array_unref);
  g_clear_pointer (&s->loop, g_main_loop_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Serve, serve_clear)


static gboolean
interval_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_parse_interval (value, &((Serve *) data)->interval, error);
}

static gboolean
devices_cb (const char *name, const char *value, gpointer data, GError **error)
{
  return rtop_cli_add_devices (&((Serve *) data)->devices, value, error);
}

/* ---- Output ---- */

static void
finish (Serve *s, int status)
{
  if (s->quitting)
    return;
  s->quitting = TRUE;
  s->exit_status = status;
  if (s->sampler != NULL)
    rtop_sampler_stop (s->sampler);
  /* The queue is written out first (an error frame last), unless stdout
   * is gone; the loop quits when it is empty. */
  if (s->out->len == 0 || s->out_watch == 0)
    g_main_loop_quit (s->loop);
}

static gboolean
stdout_ready_cb (int fd, GIOCondition condition, gpointer data)
{
  Serve *s = data;

  while (s->out->len > 0)
    {
      ssize_t n = write (STDOUT_FILENO, s->out->data, s->out->len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return G_SOURCE_CONTINUE;
      if (n <= 0)
        {
          /* The reader went away: there is nobody to tell. */
          s->out_watch = 0;
          g_byte_array_set_size (s->out, 0);
          finish (s, s->quitting ? s->exit_status : EXIT_SUCCESS);
          g_main_loop_quit (s->loop);
          return G_SOURCE_REMOVE;
        }
      g_byte_array_remove_range (s->out, 0, n);
    }
  s->out_watch = 0;
  if (s->quitting)
    g_main_loop_quit (s->loop);
  return G_SOURCE_REMOVE;
}

static void
kick_output (Serve *s)
{
  if (s->out->len > 0 && s->out_watch == 0)
    s->out_watch = g_unix_fd_add (STDOUT_FILENO, G_IO_OUT | G_IO_ERR | G_IO_HUP,
                                  stdout_ready_cb, s);
}

static void
fail (Serve *s, const char *message)
{
  g_printerr ("rdmatop-cli: %s\n", message);
  if (s->quitting)
    return;
  rtop_stream_encode_error (s->out, message);
  kick_output (s);
  finish (s, EXIT_RUNTIME);
}

/* Devices asked for with --device that are not there. */
static gboolean
check_devices (Serve *s, const RtopSnapshot *snap)
{
  g_autoptr(GError) error = NULL;

  if (snap->status != RTOP_STATUS_OK
      || rtop_snapshot_has_devices (snap, (const char * const *) s->devices, &error))
    return TRUE;
  fail (s, error->message);
  return FALSE;
}

static void
snapshot_cb (RtopSampler *sampler, RtopSnapshot *snap, gpointer data)
{
  Serve *s = data;

  if (s->quitting)
    return;
  if (!s->checked_devices && snap->status == RTOP_STATUS_OK)
    {
      s->checked_devices = TRUE;
      if (!check_devices (s, snap))
        return;
    }
  if (s->out->len > OUTPUT_SOFT_LIMIT)
    {
      s->dropped++;
      return;
    }
  rtop_stream_encoder_add (s->encoder, snap, s->out);
  kick_output (s);
}

/* ---- Commands ---- */

static void
command_hello (Serve *s, const char *args)
{
  g_auto(GStrv) words = g_strsplit (args, " ", 3);
  guint64 version = 0;

  if (words[0] == NULL || !g_ascii_string_to_unsigned (words[0], 10, 1, G_MAXUINT32, &version, NULL))
    {
      g_printerr (_("rdmatop-cli: a “hello” without a version on stdin; ignored\n"));
      return;
    }
  if (version != RTOP_STREAM_VERSION)
    {
      /* Translators: the reader's rdmatop version and stream version, then ours */
      g_autofree char *message =
        g_strdup_printf (_("The reader runs rdmatop %s, which speaks stream version %u; "
                           "this rdmatop-cli %s speaks version %u. Install the same rdmatop "
                           "version on both machines."),
                         words[1] != NULL ? words[1] : "?", (guint) version,
                         PACKAGE_VERSION, RTOP_STREAM_VERSION);
      fail (s, message);
    }
}

static void
run_command (Serve *s, char *line)
{
  char *args = strchr (line, ' ');

  if (args != NULL)
    *args++ = '\0';
  if (g_str_equal (line, "hello"))
    command_hello (s, args != NULL ? args : "");
  else if (g_str_equal (line, "interval") && args != NULL &&
           rtop_cli_parse_interval (args, &s->interval, NULL))
    rtop_sampler_set_interval (s->sampler, s->interval);
  else if (g_str_equal (line, "refresh"))
    rtop_source_refresh (RTOP_SOURCE (s->sampler));
  else if (g_str_equal (line, "keyframe"))
    rtop_stream_encoder_request_keyframe (s->encoder);
  else if (g_str_equal (line, "stop"))
    finish (s, EXIT_SUCCESS);
  else if (*line != '\0')
    g_printerr (_("rdmatop-cli: “%s” is not a command of serve --stdio; ignored\n"), line);
}

static gboolean
take_bytes (Serve *s, const char *buf, gssize n)
{
  for (gssize i = 0; i < n && !s->quitting; i++)
    {
      if (buf[i] == '\n')
        {
          s->line[s->line_len] = '\0';
          if (s->line_len > 0 && s->line[s->line_len - 1] == '\r')
            s->line[s->line_len - 1] = '\0';
          run_command (s, s->line);
          s->line_len = 0;
        }
      else if (s->line_len == COMMAND_MAX || !g_ascii_isprint (buf[i]))
        {
          fail (s, _("the commands on stdin are not lines of text; stopping"));
          return FALSE;
        }
      else
        s->line[s->line_len++] = buf[i];
    }
  return TRUE;
}

static gboolean
stdin_cb (int fd, GIOCondition condition, gpointer data)
{
  Serve *s = data;
  char buf[512];
  gssize n = read (STDIN_FILENO, buf, sizeof buf);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return G_SOURCE_CONTINUE;
  if (n > 0 && take_bytes (s, buf, n))
    return G_SOURCE_CONTINUE;
  /* End of input: whoever started us is done. */
  s->in_watch = 0;
  if (n <= 0)
    {
      g_byte_array_set_size (s->out, 0);
      finish (s, s->quitting ? s->exit_status : EXIT_SUCCESS);
      g_main_loop_quit (s->loop);
    }
  return G_SOURCE_REMOVE;
}

static gboolean
signal_cb (gpointer data)
{
  Serve *s = data;

  finish (s, EXIT_SUCCESS);
  g_main_loop_quit (s->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
flush_timeout_cb (gpointer data)
{
  g_main_loop_quit (((Serve *) data)->loop);
  return G_SOURCE_REMOVE;
}

static int
run (Serve *s)
{
  RtopCollectorOptions copts = { 0 };
  guint signals[3];
  GError *error = NULL;

  if (!g_unix_set_fd_nonblocking (STDOUT_FILENO, TRUE, &error) ||
      !g_unix_set_fd_nonblocking (STDIN_FILENO, TRUE, &error))
    {
      g_printerr ("rdmatop-cli: %s\n", error->message);
      g_error_free (error);
      return EXIT_RUNTIME;
    }
  signal (SIGPIPE, SIG_IGN);
  copts.devices = (const char * const *) s->devices;
  s->loop = g_main_loop_new (NULL, FALSE);
  s->out = g_byte_array_new ();
  s->encoder = rtop_stream_encoder_new (s->processes, KEYFRAME_EVERY);
  s->sampler = rtop_sampler_new (&copts);
  rtop_sampler_set_interval (s->sampler, s->interval);
  g_signal_connect (s->sampler, "snapshot", G_CALLBACK (snapshot_cb), s);
  rtop_stream_encoder_hello (s->encoder, s->out);
  kick_output (s);
  s->in_watch = g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, stdin_cb, s);
  signals[0] = g_unix_signal_add (SIGINT, signal_cb, s);
  signals[1] = g_unix_signal_add (SIGTERM, signal_cb, s);
  signals[2] = g_unix_signal_add (SIGHUP, signal_cb, s);
  rtop_sampler_start (s->sampler);
  g_main_loop_run (s->loop);
  rtop_sampler_stop (s->sampler);
  if (s->out->len > 0 && s->out_watch != 0)
    {
      /* An error frame is still on its way: give it a moment. */
      g_timeout_add_seconds (FLUSH_TIMEOUT_S, flush_timeout_cb, s);
      g_main_loop_run (s->loop);
    }
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    g_source_remove (signals[i]);
  return s->exit_status;
}

int
rtop_cli_serve_stdio (int argc, char **argv)
{
  g_auto(Serve) s = { .interval = 1.0 };
  GOptionEntry entries[] = {
    { "stdio", 0, 0, G_OPTION_ARG_NONE, &s.stdio,
      N_("Write the snapshot stream to stdout and read commands on stdin (for a remote rdmatop)"), NULL },
    { "interval", 'i', 0, G_OPTION_ARG_CALLBACK, (gpointer) interval_cb,
      N_("Seconds between samples (0.1 to 60, default 1)"), N_("S") },
    RTOP_CLI_DEVICE_OPTION (devices_cb),
    { "processes", 0, 0, G_OPTION_ARG_NONE, &s.processes,
      N_("Send process ids, commands and users too (not sent unless asked for)"), NULL },
    { "pids", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &s.processes, NULL, NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) ctx = NULL;
  g_autoptr(GError) error = NULL;

  ctx = rtop_cli_context_new ("main", NULL,
                              _("Serve this computer's RDMA data to rdmatop on another machine, "
                                "over the standard input and output that ssh gives."),
                              entries, NULL, &s);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || argc > 1 || !s.stdio)
    {
      g_printerr ("rdmatop-cli: %s\n",
                  error != NULL ? error->message
                  : argc > 1 ? _("serve takes no arguments besides its options")
                  : _("serve --stdio is the only way to serve on this build"));
      g_printerr (_("Try “rdmatop-cli serve --help” for more information.\n"));
      return EXIT_USAGE;
    }
  if (isatty (STDOUT_FILENO))
    {
      g_printerr (_("rdmatop-cli: serve --stdio writes binary data for rdmatop; "
                    "run it through ssh or a pipe, not in a terminal\n"));
      return EXIT_USAGE;
    }
  return run (&s);
}
