/* rtop-remote-source.c: a remote host's snapshots over ssh.
 *
 * One connection is one ssh process.  Its stdout is read asynchronously
 * into the stream decoder, its stderr into a bounded buffer that explains
 * a failure, and commands go to its stdin.  When the stream ends, the exit
 * status, the stream's error and what ssh printed decide whether to try
 * again (lost) or give up (failed).  Nothing here blocks the main context:
 * every read, write and wait is asynchronous. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "rtop-error.h"
#include "rtop-remote-source-private.h"
#include "rtop-sampler.h"
#include "rtop-stream.h"

#define READ_CHUNK (64 * 1024)
#define COMMANDS_MAX 4096
/* After ssh exits, how long its last words on stderr may take to arrive. */
#define STDERR_GRACE_MS 300

typedef struct _Connection Connection;

struct _RtopRemoteSource {
  GObject parent_instance;

  RtopSourceProps props;
  char *host;
  guint port;
  char *remote_command;
  GStrv devices;
  gboolean processes;
  char *askpass;
  GStrv environment;
  char *ssh_program;
  char *config_file;
  GStrv ssh_options;
  double interval;

  GMainContext *context;
  Connection *conn;
  GSource *retry;
  guint attempt;             /* losses since it last reached running */
  guint64 bytes;
  guint n_connections;
  GRand *rand;
};

struct _Connection {
  gatomicrefcount ref;
  RtopRemoteSource *self;    /* NULL once the source let go of it */
  GSubprocess *proc;
  GCancellable *cancel;
  RtopStreamDecoder *decoder;
  GString *stderr_text;
  GError *stream_error;
  GByteArray *commands;      /* waiting for stdin */
  gboolean writing;
  gboolean stdout_done;
  gboolean stderr_done;
  gboolean exited;
  gboolean running;
  gboolean concluded;
  gboolean flooded;
  GSource *grace;
  gint64 window_start;
  guint window_frames;
  gsize window_bytes;
};

enum { PROP_0, PROP_SOURCE_FIRST };

static void source_iface_init (RtopSourceInterface *iface);
static void conclude (Connection *c);
static void connect_now (RtopRemoteSource *self);

G_DEFINE_FINAL_TYPE_WITH_CODE (RtopRemoteSource, rtop_remote_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RTOP_TYPE_SOURCE, source_iface_init))

/* ---- The command line ---- */

double
rtop_remote_backoff_s (guint attempt)
{
  double d = RTOP_REMOTE_BACKOFF_MIN_S;

  for (guint i = 0; i < attempt && d < RTOP_REMOTE_BACKOFF_MAX_S; i++)
    d *= 2;
  return MIN (d, RTOP_REMOTE_BACKOFF_MAX_S);
}

static void
add_quoted (GPtrArray *argv, const char *word)
{
  /* ssh joins the words with spaces and the remote shell splits them. */
  g_ptr_array_add (argv, g_shell_quote (word));
}

char **
rtop_remote_build_argv (const RtopRemoteOptions *o, double interval)
{
  GPtrArray *argv = g_ptr_array_new ();
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (o != NULL && o->host != NULL, NULL);

  g_ptr_array_add (argv, g_strdup (o->ssh_program != NULL ? o->ssh_program : "ssh"));
  /* No terminal, no X11 or agent forwarded to the remote. */
  g_ptr_array_add (argv, g_strdup ("-T"));
  g_ptr_array_add (argv, g_strdup ("-x"));
  g_ptr_array_add (argv, g_strdup ("-a"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (o->askpass != NULL ? "BatchMode=no" : "BatchMode=yes"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ServerAliveInterval=5"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ServerAliveCountMax=3"));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup ("ConnectTimeout=10"));
  if (o->config_file != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("-F"));
      g_ptr_array_add (argv, g_strdup (o->config_file));
    }
  for (guint i = 0; o->ssh_options != NULL && o->ssh_options[i] != NULL; i++)
    {
      g_ptr_array_add (argv, g_strdup ("-o"));
      g_ptr_array_add (argv, g_strdup (o->ssh_options[i]));
    }
  if (o->port != 0)
    {
      g_ptr_array_add (argv, g_strdup ("-p"));
      g_ptr_array_add (argv, g_strdup_printf ("%u", o->port));
    }
  /* A host "name" that starts with '-' is never taken for an option. */
  g_ptr_array_add (argv, g_strdup ("--"));
  g_ptr_array_add (argv, g_strdup (o->host));
  add_quoted (argv, o->remote_command != NULL ? o->remote_command : "rdmatop-cli");
  add_quoted (argv, "serve");
  add_quoted (argv, "--stdio");
  add_quoted (argv, "--interval");
  add_quoted (argv, g_ascii_dtostr (number, sizeof number, interval > 0 ? interval : 1.0));
  for (guint i = 0; o->devices != NULL && o->devices[i] != NULL; i++)
    {
      add_quoted (argv, "--device");
      add_quoted (argv, o->devices[i]);
    }
  if (o->processes)
    add_quoted (argv, "--processes");
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* ---- Connections ---- */

static Connection *
conn_ref (Connection *c)
{
  g_atomic_ref_count_inc (&c->ref);
  return c;
}

static void
conn_unref (Connection *c)
{
  if (!g_atomic_ref_count_dec (&c->ref))
    return;
  g_clear_object (&c->proc);
  g_clear_object (&c->cancel);
  g_clear_pointer (&c->decoder, rtop_stream_decoder_free);
  g_string_free (c->stderr_text, TRUE);
  g_clear_error (&c->stream_error);
  g_byte_array_unref (c->commands);
  if (c->grace != NULL)
    {
      g_source_destroy (c->grace);
      g_source_unref (c->grace);
    }
  g_free (c);
}

/* The source lets go: ssh is told to stop and nothing it says later is heard. */
static void
conn_release (Connection *c)
{
  c->self = NULL;
  g_cancellable_cancel (c->cancel);
  if (c->proc != NULL)
    {
      g_output_stream_close (g_subprocess_get_stdin_pipe (c->proc), NULL, NULL);
      g_subprocess_send_signal (c->proc, SIGTERM);
    }
  conn_unref (c);
}

static void write_commands (Connection *c);

static void
write_cb (GObject *object, GAsyncResult *result, gpointer data)
{
  Connection *c = data;
  gssize n = g_output_stream_write_bytes_finish (G_OUTPUT_STREAM (object), result, NULL);

  c->writing = FALSE;
  if (n > 0 && c->self != NULL)
    {
      g_byte_array_remove_range (c->commands, 0, MIN ((gsize) n, c->commands->len));
      write_commands (c);
    }
  conn_unref (c);
}

static void
write_commands (Connection *c)
{
  g_autoptr(GBytes) bytes = NULL;

  if (c->writing || c->commands->len == 0 || c->proc == NULL)
    return;
  c->writing = TRUE;
  bytes = g_bytes_new (c->commands->data, c->commands->len);
  g_output_stream_write_bytes_async (g_subprocess_get_stdin_pipe (c->proc), bytes,
                                     G_PRIORITY_DEFAULT, c->cancel, write_cb, conn_ref (c));
}

static void
send_command (Connection *c, const char *line)
{
  /* A remote that stops reading its commands does not make us keep them. */
  if (c->commands->len + strlen (line) > COMMANDS_MAX)
    return;
  g_byte_array_append (c->commands, (const guint8 *) line, strlen (line));
  write_commands (c);
}

static void
set_stream_error (Connection *c, GError *error)
{
  if (c->stream_error == NULL)
    c->stream_error = error;
  else
    g_error_free (error);
  if (c->proc != NULL)
    g_subprocess_force_exit (c->proc);
}

/* Counts bytes and frames per second; TRUE when the remote sends far
 * more than any interval asks for. */
static gboolean
flooding (Connection *c, gsize bytes, guint frames)
{
  gint64 now = g_get_monotonic_time ();

  if (now - c->window_start > G_USEC_PER_SEC)
    {
      c->window_start = now;
      c->window_frames = 0;
      c->window_bytes = 0;
    }
  c->window_frames += frames;
  c->window_bytes += bytes;
  return c->window_frames > RTOP_REMOTE_MAX_FRAMES_PER_S ||
         c->window_bytes > RTOP_REMOTE_MAX_BYTES_PER_S;
}

static void
cut_off (Connection *c)
{
  c->flooded = TRUE;
  set_stream_error (c, g_error_new (RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                                    _("%s sent far more than asked for and was cut off."),
                                    c->self->host));
}

static void
deliver (Connection *c, RtopSnapshot *snap)
{
  RtopRemoteSource *self = c->self;

  if (!c->running)
    {
      c->running = TRUE;
      self->n_connections++;
      self->attempt = 0;
    }
  /* As the local sampler does: running, and the reason while the remote
   * cannot collect (no RDMA netlink there). */
  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_RUNNING,
                      snap->status == RTOP_STATUS_OK ? NULL : snap->status_message);
  rtop_source_emit_snapshot (RTOP_SOURCE (self), snap);
}

static void
take_stream (Connection *c, GBytes *bytes)
{
  GError *error = NULL;
  RtopSnapshot *snap;
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  c->self->bytes += len;
  if (flooding (c, len, 0))
    {
      cut_off (c);
      return;
    }
  if (!rtop_stream_decoder_push (c->decoder, data, len, &error))
    {
      set_stream_error (c, error);
      return;
    }
  while (c->self != NULL && c->stream_error == NULL &&
         (snap = rtop_stream_decoder_next (c->decoder, &error)) != NULL)
    {
      /* The read that called us holds c, whatever a handler does. */
      if (flooding (c, 0, 1))
        {
          rtop_snapshot_unref (snap);
          cut_off (c);
          return;
        }
      deliver (c, snap);
      rtop_snapshot_unref (snap);
    }
  if (error != NULL)
    set_stream_error (c, error);
}

static void
stdout_cb (GObject *object, GAsyncResult *result, gpointer data)
{
  Connection *c = data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);

  if (c->self == NULL)
    {
      conn_unref (c);
      return;
    }
  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    take_stream (c, bytes);
  if (c->self != NULL && bytes != NULL && g_bytes_get_size (bytes) > 0 && c->stream_error == NULL)
    {
      g_input_stream_read_bytes_async (G_INPUT_STREAM (object), READ_CHUNK, G_PRIORITY_DEFAULT,
                                       c->cancel, stdout_cb, c);
      return;
    }
  if (c->self != NULL && c->stream_error == NULL)
    {
      GError *error = NULL;

      if (!rtop_stream_decoder_finish (c->decoder, &error))
        c->stream_error = error;
    }
  c->stdout_done = TRUE;
  conclude (c);
  conn_unref (c);
}

static void
stderr_cb (GObject *object, GAsyncResult *result, gpointer data)
{
  Connection *c = data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result, NULL);
  gsize len = bytes != NULL ? g_bytes_get_size (bytes) : 0;

  if (c->self == NULL)
    {
      conn_unref (c);
      return;
    }
  if (len > 0)
    {
      gsize room = RTOP_REMOTE_STDERR_MAX - MIN (c->stderr_text->len, RTOP_REMOTE_STDERR_MAX);

      g_string_append_len (c->stderr_text, g_bytes_get_data (bytes, NULL), MIN (len, room));
      g_input_stream_read_bytes_async (G_INPUT_STREAM (object), 4096, G_PRIORITY_DEFAULT,
                                       c->cancel, stderr_cb, c);
      return;
    }
  c->stderr_done = TRUE;
  conclude (c);
  conn_unref (c);
}

static gboolean
grace_cb (gpointer data)
{
  Connection *c = data;

  g_clear_pointer (&c->grace, g_source_unref);
  c->stderr_done = TRUE;
  conclude (c);
  return G_SOURCE_REMOVE;
}

static void
wait_cb (GObject *object, GAsyncResult *result, gpointer data)
{
  Connection *c = data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  if (c->self != NULL)
    {
      c->exited = TRUE;
      /* A ControlMaster that ssh left behind may hold stderr open. */
      if (!c->stderr_done && c->grace == NULL)
        {
          c->grace = g_timeout_source_new (STDERR_GRACE_MS);
          g_source_set_callback (c->grace, grace_cb, conn_ref (c), (GDestroyNotify) conn_unref);
          g_source_attach (c->grace, c->self->context);
        }
      conclude (c);
    }
  conn_unref (c);
}

/* ---- Why it ended ---- */

static gboolean
stderr_says (Connection *c, const char *text)
{
  return strstr (c->stderr_text->str, text) != NULL;
}

/* The last line ssh or the remote printed, for the reason. */
static char *
last_stderr_line (Connection *c)
{
  g_autofree char *valid = g_utf8_make_valid (c->stderr_text->str, c->stderr_text->len);
  g_auto(GStrv) lines = g_strsplit (g_strstrip (valid), "\n", -1);
  guint n = g_strv_length (lines);

  while (n > 0 && *g_strstrip (lines[n - 1]) == '\0')
    n--;
  return n > 0 ? g_strndup (lines[n - 1], 300) : NULL;
}

static RtopSourceState
classify_ssh (RtopRemoteSource *self, Connection *c, char **reason)
{
  g_autofree char *last = last_stderr_line (c);

  /* The changed key first: ssh refuses it before it asks anything. */
  if (stderr_says (c, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
    {
      *reason = g_strdup_printf (_("The host key of %s has changed since it was added to your "
                                   "known hosts, so ssh refused to connect. If the machine was "
                                   "reinstalled, remove its old key (ssh-keygen -R)."), self->host);
      return RTOP_SOURCE_STATE_FAILED;
    }
  /* The askpass helper says so when the user said no to ssh's question. */
  if (stderr_says (c, "rdmatop-askpass: cancelled by the user"))
    {
      *reason = g_strdup_printf (_("You declined what ssh asked for %s, so it did not connect. "
                                   "Connect again to answer it."), self->host);
      return RTOP_SOURCE_STATE_FAILED;
    }

  if (stderr_says (c, "REMOTE HOST IDENTIFICATION HAS CHANGED") || stderr_says (c, "host key for"))
    {
      *reason = g_strdup_printf (_("The host key of %s has changed since it was added to your "
                                   "known hosts, so ssh refused to connect. If the machine was "
                                   "reinstalled, remove its old key (ssh-keygen -R)."), self->host);
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (stderr_says (c, "Host key verification failed") || stderr_says (c, "No matching host key"))
    {
      *reason = g_strdup_printf (_("The host key of %s is not known here, so ssh refused to "
                                   "connect. Check the key and add it to your known hosts "
                                   "(connect once with ssh in a terminal)."), self->host);
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (stderr_says (c, "Permission denied") || stderr_says (c, "Too many authentication failures") ||
      stderr_says (c, "no more authentication methods"))
    {
      *reason = g_strdup_printf (_("%s refused the login (%s). Check your user name, key or "
                                   "password."), self->host, last != NULL ? last : "");
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (stderr_says (c, "Could not resolve hostname"))
    *reason = g_strdup_printf (_("The name %s could not be resolved; trying again."), self->host);
  else
    *reason = g_strdup_printf (_("The connection to %s failed or was lost (%s); trying again."),
                               self->host, last != NULL ? last : _("no reason given"));
  return RTOP_SOURCE_STATE_LOST;
}

static RtopSourceState
classify_exit (RtopRemoteSource *self, Connection *c, char **reason)
{
  g_autofree char *last = last_stderr_line (c);
  int status = -1;
  const char *command = self->remote_command != NULL ? self->remote_command : "rdmatop-cli";

  if (g_subprocess_get_if_exited (c->proc))
    status = g_subprocess_get_exit_status (c->proc);
  if (status == 255)
    return classify_ssh (self, c, reason);
  if (status == 127 || status == 126)
    {
      *reason = g_strdup_printf (_("“%s” is not installed on %s, or cannot be run there (%s). "
                                   "Install rdmatop there or set the remote command."),
                                 command, self->host, last != NULL ? last : "");
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (status == 2 && !rtop_stream_decoder_has_hello (c->decoder))
    {
      *reason = g_strdup_printf (_("The rdmatop-cli on %s cannot serve this rdmatop (%s). "
                                   "Install the same rdmatop version there."),
                                 self->host, last != NULL ? last : "");
      return RTOP_SOURCE_STATE_FAILED;
    }
  *reason = g_strdup_printf (_("The connection to %s ended (%s); trying again."), self->host,
                             last != NULL ? last : _("no reason given"));
  return RTOP_SOURCE_STATE_LOST;
}

static RtopSourceState
classify (RtopRemoteSource *self, Connection *c, char **reason)
{
  GError *e = c->stream_error;
  gboolean hello = rtop_stream_decoder_has_hello (c->decoder);

  if (g_error_matches (e, RTOP_ERROR, RTOP_ERROR_VERSION))
    {
      *reason = g_strdup (e->message);
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (g_error_matches (e, RTOP_ERROR, RTOP_ERROR_REMOTE))
    {
      /* Translators: a host, then the error that rdmatop-cli on it sent */
      *reason = g_strdup_printf (_("On %s: %s"), self->host, e->message);
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (c->flooded)
    {
      *reason = g_strdup (e->message);
      return RTOP_SOURCE_STATE_FAILED;
    }
  /* Something other than a stream came (a login script that prints):
   * trying again gets the same. */
  if (!hello && e != NULL && rtop_stream_decoder_get_bytes (c->decoder) > 0)
    {
      *reason = g_strdup_printf (_("On %s: %s"), self->host, e->message);
      return RTOP_SOURCE_STATE_FAILED;
    }
  if (hello && e != NULL)
    {
      *reason = g_strdup_printf (_("The data from %s was damaged (%s); trying again."),
                                 self->host, e->message);
      return RTOP_SOURCE_STATE_LOST;
    }
  /* Nothing came: the exit status and stderr say why. */
  return classify_exit (self, c, reason);
}

static gboolean
retry_cb (gpointer data)
{
  RtopRemoteSource *self = data;

  g_clear_pointer (&self->retry, g_source_unref);
  connect_now (self);
  return G_SOURCE_REMOVE;
}

static double
schedule_retry (RtopRemoteSource *self)
{
  double delay = rtop_remote_backoff_s (self->attempt);

  /* Jitter, so that a job's nodes lost together do not all call back at once. */
  delay += g_rand_double_range (self->rand, 0, delay * 0.25);
  self->attempt++;
  self->retry = g_timeout_source_new ((guint) (delay * 1000));
  g_source_set_callback (self->retry, retry_cb, self, NULL);
  g_source_set_static_name (self->retry, "[rdmatop] remote retry");
  g_source_attach (self->retry, self->context);
  return delay;
}

static void
conclude (Connection *c)
{
  RtopRemoteSource *self = c->self;
  g_autofree char *reason = NULL;
  RtopSourceState state;

  if (self == NULL || c->concluded || !c->stdout_done || !c->exited || !c->stderr_done)
    return;
  c->concluded = TRUE;
  state = classify (self, c, &reason);
  g_assert (self->conn == c);
  self->conn = NULL;
  conn_release (c);
  if (state == RTOP_SOURCE_STATE_LOST)
    {
      double delay = schedule_retry (self);
      /* Translators: a reason the connection was lost, then when it is tried again */
      char *with_time = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s Next try in %u second.",
                                                      "%s Next try in %u seconds.", (guint) (delay + 0.5)),
                                         reason, (guint) (delay + 0.5));

      g_free (reason);
      reason = with_time;
    }
  rtop_source_update (RTOP_SOURCE (self), state, reason);
}

/* ---- Starting ---- */

static void
child_setup (gpointer data)
{
  /* A session of its own: no controlling terminal for ssh to ask on. */
  setsid ();
}

static GSubprocess *
spawn_ssh (RtopRemoteSource *self, GError **error)
{
  RtopRemoteOptions o = {
    .host = self->host, .port = self->port, .remote_command = self->remote_command,
    .devices = (const char * const *) self->devices, .processes = self->processes,
    .askpass = self->askpass, .ssh_program = self->ssh_program, .config_file = self->config_file,
    .ssh_options = (const char * const *) self->ssh_options,
  };
  g_auto(GStrv) argv = rtop_remote_build_argv (&o, self->interval);
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE);

  if (self->askpass != NULL)
    {
      g_subprocess_launcher_setenv (launcher, "SSH_ASKPASS", self->askpass, TRUE);
      g_subprocess_launcher_setenv (launcher, "SSH_ASKPASS_REQUIRE", "force", TRUE);
    }
  else
    {
      g_subprocess_launcher_unsetenv (launcher, "SSH_ASKPASS");
      g_subprocess_launcher_unsetenv (launcher, "SSH_ASKPASS_REQUIRE");
    }
  for (guint i = 0; self->environment != NULL && self->environment[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (self->environment[i], "=", 2);

      if (pair[0] != NULL && pair[1] != NULL)
        g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
    }
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  return g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, error);
}

static void
connect_now (RtopRemoteSource *self)
{
  g_autoptr(GError) error = NULL;
  Connection *c = g_new0 (Connection, 1);
  char line[64], number[G_ASCII_DTOSTR_BUF_SIZE];

  g_atomic_ref_count_init (&c->ref);
  c->self = self;
  c->cancel = g_cancellable_new ();
  c->decoder = rtop_stream_decoder_new ();
  rtop_stream_decoder_set_host (c->decoder, self->host);
  c->stderr_text = g_string_new (NULL);
  c->commands = g_byte_array_new ();
  c->proc = spawn_ssh (self, &error);
  if (c->proc == NULL)
    {
      g_autofree char *reason =
        g_strdup_printf (_("ssh could not be started: %s. Install the OpenSSH client."), error->message);

      conn_release (c);
      rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_FAILED, reason);
      return;
    }
  self->conn = c;
  g_input_stream_read_bytes_async (g_subprocess_get_stdout_pipe (c->proc), READ_CHUNK,
                                   G_PRIORITY_DEFAULT, c->cancel, stdout_cb, conn_ref (c));
  g_input_stream_read_bytes_async (g_subprocess_get_stderr_pipe (c->proc), 4096,
                                   G_PRIORITY_DEFAULT, c->cancel, stderr_cb, conn_ref (c));
  g_subprocess_wait_async (c->proc, c->cancel, wait_cb, conn_ref (c));
  g_snprintf (line, sizeof line, "hello %u %s\n", RTOP_STREAM_VERSION, PACKAGE_VERSION);
  send_command (c, line);
  g_snprintf (line, sizeof line, "interval %s\n",
              g_ascii_dtostr (number, sizeof number, self->interval));
  send_command (c, line);
}

static void
remote_start (RtopSource *source)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (source);

  if (self->conn != NULL || self->retry != NULL)
    return;
  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  self->attempt = 0;
  rtop_source_update (source, RTOP_SOURCE_STATE_CONNECTING, NULL);
  connect_now (self);
}

static void
remote_stop (RtopSource *source)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (source);

  if (self->retry != NULL)
    {
      g_source_destroy (self->retry);
      g_clear_pointer (&self->retry, g_source_unref);
    }
  if (self->conn != NULL)
    conn_release (g_steal_pointer (&self->conn));
  rtop_source_update (source, RTOP_SOURCE_STATE_STOPPED, NULL);
}

static void
remote_refresh (RtopSource *source)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (source);

  if (self->conn != NULL)
    send_command (self->conn, "refresh\n");
}

static void
remote_set_interval (RtopSource *source, double seconds)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (source);
  char line[64], number[G_ASCII_DTOSTR_BUF_SIZE];

  if (!(seconds >= RTOP_SAMPLER_MIN_INTERVAL))
    seconds = RTOP_SAMPLER_MIN_INTERVAL;
  self->interval = MIN (seconds, RTOP_SAMPLER_MAX_INTERVAL);
  if (self->conn == NULL)
    return;
  g_snprintf (line, sizeof line, "interval %s\n",
              g_ascii_dtostr (number, sizeof number, self->interval));
  send_command (self->conn, line);
}

static RtopSourceProps *
remote_get_props (RtopSource *source)
{
  return &RTOP_REMOTE_SOURCE (source)->props;
}

static void
source_iface_init (RtopSourceInterface *iface)
{
  iface->get_props = remote_get_props;
  iface->start = remote_start;
  iface->stop = remote_stop;
  iface->refresh = remote_refresh;
  iface->set_interval = remote_set_interval;
}

RtopRemoteSource *
rtop_remote_source_new (const RtopRemoteOptions *o)
{
  RtopRemoteSource *self;

  g_return_val_if_fail (o != NULL && o->host != NULL && *o->host != '\0', NULL);
  self = g_object_new (RTOP_TYPE_REMOTE_SOURCE, NULL);
  self->host = g_strdup (o->host);
  self->port = o->port;
  self->remote_command = g_strdup (o->remote_command);
  self->devices = g_strdupv ((char **) o->devices);
  self->processes = o->processes;
  self->askpass = g_strdup (o->askpass);
  self->environment = g_strdupv ((char **) o->environment);
  self->ssh_program = g_strdup (o->ssh_program);
  self->config_file = g_strdup (o->config_file);
  self->ssh_options = g_strdupv ((char **) o->ssh_options);
  self->interval = o->interval > 0 ? CLAMP (o->interval, RTOP_SAMPLER_MIN_INTERVAL,
                                            RTOP_SAMPLER_MAX_INTERVAL) : 1.0;
  self->props.name = g_strdup (o->host);
  return self;
}

const char *
rtop_remote_source_get_host (RtopRemoteSource *self)
{
  g_return_val_if_fail (RTOP_IS_REMOTE_SOURCE (self), NULL);
  return self->host;
}

gboolean
rtop_remote_source_get_processes (RtopRemoteSource *self)
{
  g_return_val_if_fail (RTOP_IS_REMOTE_SOURCE (self), FALSE);
  return self->processes;
}

guint64
rtop_remote_source_get_bytes (RtopRemoteSource *self)
{
  g_return_val_if_fail (RTOP_IS_REMOTE_SOURCE (self), 0);
  return self->bytes;
}

guint
rtop_remote_source_get_n_connections (RtopRemoteSource *self)
{
  g_return_val_if_fail (RTOP_IS_REMOTE_SOURCE (self), 0);
  return self->n_connections;
}

static void
rtop_remote_source_dispose (GObject *object)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (object);

  if (self->conn != NULL || self->retry != NULL)
    {
      g_object_freeze_notify (object);
      remote_stop (RTOP_SOURCE (self));
      g_object_thaw_notify (object);
    }
  G_OBJECT_CLASS (rtop_remote_source_parent_class)->dispose (object);
}

static void
rtop_remote_source_finalize (GObject *object)
{
  RtopRemoteSource *self = RTOP_REMOTE_SOURCE (object);

  rtop_source_props_clear (&self->props);
  g_free (self->host);
  g_free (self->remote_command);
  g_strfreev (self->devices);
  g_free (self->askpass);
  g_strfreev (self->environment);
  g_free (self->ssh_program);
  g_free (self->config_file);
  g_strfreev (self->ssh_options);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_rand_free (self->rand);
  G_OBJECT_CLASS (rtop_remote_source_parent_class)->finalize (object);
}

static void
rtop_remote_source_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (!rtop_source_get_common_property (RTOP_SOURCE (object), PROP_SOURCE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
rtop_remote_source_class_init (RtopRemoteSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_remote_source_dispose;
  object_class->finalize = rtop_remote_source_finalize;
  object_class->get_property = rtop_remote_source_get_property;
  rtop_source_install_properties (object_class, PROP_SOURCE_FIRST);
}

static void
rtop_remote_source_init (RtopRemoteSource *self)
{
  self->props.live = TRUE;
  self->interval = 1.0;
  self->rand = g_rand_new ();
}
