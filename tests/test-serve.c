/* test-serve.c: `rdmatop-cli serve --stdio` as a real subprocess, with
 * pipes on both ends: the handshake, live snapshots (on a machine without
 * RDMA, the state that says so), the commands, stdin's end making it exit
 * 0, and what it does with a reader of another version or garbage. */
#include "config.h"

#include <gio/gio.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-stream-private.h"

typedef struct {
  GSubprocess *proc;
  RtopStreamDecoder *decoder;
  GPtrArray *snapshots;
  GError *error;
  gboolean eof;
  GString *err_text;
} Serve;

static const char *
cli_path (void)
{
  const char *path = g_getenv ("RDMATOP_CLI");

  g_assert_nonnull (path);
  return path;
}

static Serve *
serve_start (const char *first_arg, ...)
{
  Serve *s = g_new0 (Serve, 1);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  va_list ap;

  g_ptr_array_add (argv, (gpointer) cli_path ());
  g_ptr_array_add (argv, "serve");
  va_start (ap, first_arg);
  for (const char *a = first_arg; a != NULL; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  s->proc = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                               G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  s->decoder = rtop_stream_decoder_new ();
  s->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  s->err_text = g_string_new (NULL);
  return s;
}

static void
serve_free (Serve *s)
{
  g_subprocess_force_exit (s->proc);
  g_object_unref (s->proc);
  rtop_stream_decoder_free (s->decoder);
  g_ptr_array_unref (s->snapshots);
  g_clear_error (&s->error);
  g_string_free (s->err_text, TRUE);
  g_free (s);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Serve, serve_free)

static void
send_line (Serve *s, const char *line)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (g_subprocess_get_stdin_pipe (s->proc), line, strlen (line),
                             NULL, NULL, &error);
  g_assert_no_error (error);
}

/* Reads stdout (blocking: this test is the only thing running) until n
 * snapshots have come, the stream ended, or it failed. */
static void
read_until (Serve *s, guint n)
{
  GInputStream *out = g_subprocess_get_stdout_pipe (s->proc);

  while (s->snapshots->len < n && !s->eof && s->error == NULL)
    {
      guint8 buf[4096];
      gssize got = g_input_stream_read (out, buf, sizeof buf, NULL, NULL);
      RtopSnapshot *snap;

      if (got <= 0)
        {
          s->eof = TRUE;
          rtop_stream_decoder_finish (s->decoder, &s->error);
          break;
        }
      g_assert_true (rtop_stream_decoder_push (s->decoder, buf, got, &s->error));
      while ((snap = rtop_stream_decoder_next (s->decoder, &s->error)) != NULL)
        g_ptr_array_add (s->snapshots, snap);
    }
}

static int
serve_wait (Serve *s)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) rest = NULL;

  g_subprocess_wait (s->proc, NULL, &error);
  g_assert_no_error (error);
  rest = g_input_stream_read_bytes (g_subprocess_get_stderr_pipe (s->proc), 65536, NULL, NULL);
  if (rest != NULL)
    g_string_append_len (s->err_text, g_bytes_get_data (rest, NULL), g_bytes_get_size (rest));
  g_assert_true (g_subprocess_get_if_exited (s->proc));
  return g_subprocess_get_exit_status (s->proc);
}

static RtopSnapshot *
nth (Serve *s, guint i)
{
  return g_ptr_array_index (s->snapshots, i);
}

/* Handshake, snapshots that say what this machine has, commands, and
 * exit 0 at the end of stdin. */
static void
test_serve_commands (void)
{
  g_autoptr(Serve) s = serve_start ("--stdio", "--interval", "0.2", NULL);
  g_autofree char *hello = g_strdup_printf ("hello %u %s\n", RTOP_STREAM_VERSION, PACKAGE_VERSION);

  send_line (s, hello);
  read_until (s, 2);
  g_assert_no_error (s->error);
  g_assert_true (rtop_stream_decoder_has_hello (s->decoder));
  g_assert_cmpstr (rtop_stream_decoder_get_producer_version (s->decoder), ==, PACKAGE_VERSION);
  /* pids are not shared unless asked for. */
  g_assert_cmpuint (rtop_stream_decoder_get_capabilities (s->decoder) & RTOP_STREAM_CAP_PROCESSES, ==, 0);
  g_assert_cmpuint (nth (s, 0)->sequence, ==, 1);
  g_assert_cmpuint (nth (s, 1)->sequence, ==, 2);
  /* Whatever this machine has crosses: without RDMA, the reason. */
  if (nth (s, 0)->status != RTOP_STATUS_OK)
    g_assert_nonnull (nth (s, 0)->status_message);
  g_assert_cmpfloat (nth (s, 0)->interval_s, ==, 0.2);

  send_line (s, "interval 0.5\n");
  send_line (s, "no-such-command\n");
  send_line (s, "refresh\nkeyframe\n");
  read_until (s, 6);
  g_assert_no_error (s->error);
  g_assert_cmpfloat (nth (s, 5)->interval_s, ==, 0.5);

  g_output_stream_close (g_subprocess_get_stdin_pipe (s->proc), NULL, NULL);
  read_until (s, G_MAXUINT);
  g_assert_no_error (s->error);
  g_assert_cmpint (serve_wait (s), ==, 0);
  g_assert_nonnull (strstr (s->err_text->str, "no-such-command"));
}

/* "stop" ends it too, after what it sent is complete. */
static void
test_serve_stop (void)
{
  g_autoptr(Serve) s = serve_start ("--stdio", "--interval", "0.1", NULL);

  read_until (s, 1);
  send_line (s, "stop\n");
  read_until (s, G_MAXUINT);
  g_assert_true (s->eof);
  g_assert_no_error (s->error);
  g_assert_cmpint (serve_wait (s), ==, 0);
}

/* A reader of another stream version: an error frame naming both
 * versions, the same sentence on stderr, exit 1. */
static void
test_serve_version_mismatch (void)
{
  g_autoptr(Serve) s = serve_start ("--stdio", NULL);
  g_autofree char *hello = g_strdup_printf ("hello %u 9.9.9\n", RTOP_STREAM_VERSION + 1);

  send_line (s, hello);
  read_until (s, G_MAXUINT);
  g_assert_error (s->error, RTOP_ERROR, RTOP_ERROR_REMOTE);
  g_assert_nonnull (strstr (s->error->message, "9.9.9"));
  g_assert_nonnull (strstr (s->error->message, PACKAGE_VERSION));
  g_assert_cmpint (serve_wait (s), ==, 1);
  g_assert_nonnull (strstr (s->err_text->str, "9.9.9"));
}

/* Binary garbage or an endless line on stdin: it stops with a reason
 * instead of buffering without end. */
static void
test_serve_garbage_commands (void)
{
  g_autoptr(Serve) s = serve_start ("--stdio", NULL);
  g_autofree char *long_line = g_strnfill (4096, 'x');

  send_line (s, long_line);
  read_until (s, G_MAXUINT);
  g_assert_error (s->error, RTOP_ERROR, RTOP_ERROR_REMOTE);
  g_assert_cmpint (serve_wait (s), ==, 1);
}

/* Arguments are checked before anything is sent. */
static void
test_serve_usage (void)
{
  /* (serve without --stdio is the Prometheus exporter: it serves on.) */
  g_autoptr(Serve) plain = serve_start ("--stdio", "--no-such-option", NULL);
  g_autoptr(Serve) bad = serve_start ("--stdio", "--interval", "0", NULL);
  /* The job label is for process series, and the only label there is. */
  g_autoptr(Serve) lonely_label = serve_start ("--labels", "job", NULL);
  g_autoptr(Serve) unknown_label = serve_start ("--processes", "--labels", "job,uid", NULL);

  g_output_stream_close (g_subprocess_get_stdin_pipe (plain->proc), NULL, NULL);
  g_assert_cmpint (serve_wait (plain), ==, 2);
  g_assert_cmpint (serve_wait (bad), ==, 2);
  g_assert_nonnull (strstr (bad->err_text->str, "interval"));
  g_assert_cmpint (serve_wait (lonely_label), ==, 2);
  g_assert_nonnull (strstr (lonely_label->err_text->str, "--processes"));
  g_assert_cmpint (serve_wait (unknown_label), ==, 2);
  g_assert_nonnull (strstr (unknown_label->err_text->str, "uid"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/serve/commands", test_serve_commands);
  g_test_add_func ("/serve/stop", test_serve_stop);
  g_test_add_func ("/serve/version-mismatch", test_serve_version_mismatch);
  g_test_add_func ("/serve/garbage-commands", test_serve_garbage_commands);
  g_test_add_func ("/serve/usage", test_serve_usage);
  return g_test_run ();
}
