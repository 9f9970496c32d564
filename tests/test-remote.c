/* test-remote.c: RtopRemoteSource through a real OpenSSH server on
 * 127.0.0.1, which this test starts (`sshd -D -f CONFIG`) with a host key
 * and a user key it makes in a temporary folder.  The client gets its own
 * configuration (-F: known hosts, identity) so nothing of the machine's
 * ~/.ssh is used.
 *
 * Through it: live snapshots from the build's rdmatop-cli (on a machine
 * without RDMA, the state that says so), the sshd session killed and the
 * source lost and then running again, and the failures that must not be
 * retried: rdmatop-cli not installed there, an unknown host key, a
 * changed host key, a refused login, another stream version. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

#include "rtop-remote-source-private.h"
#include "rtop-stream.h"
#include "support/sshd-fixture.h"

/* ---- The source ---- */

typedef struct {
  GPtrArray *snapshots;
  GArray *states;            /* RtopSourceState, as they changed */
} Seen;

static void
snapshot_cb (RtopSource *source, RtopSnapshot *snap, Seen *seen)
{
  g_ptr_array_add (seen->snapshots, rtop_snapshot_ref (snap));
}

static void
state_cb (GObject *object, GParamSpec *pspec, Seen *seen)
{
  RtopSourceState state = rtop_source_get_state (RTOP_SOURCE (object));

  g_array_append_val (seen->states, state);
}

static RtopRemoteSource *
make_source (const char *host, const char *command, Seen *seen)
{
  RtopRemoteOptions o = {
    .host = host,
    .remote_command = command != NULL ? command : g_getenv ("RDMATOP_CLI"),
    .config_file = fx.config,
    .interval = 0.2,
  };
  RtopRemoteSource *source = rtop_remote_source_new (&o);

  seen->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  seen->states = g_array_new (FALSE, FALSE, sizeof (RtopSourceState));
  g_signal_connect (source, "snapshot", G_CALLBACK (snapshot_cb), seen);
  g_signal_connect (source, "notify::state", G_CALLBACK (state_cb), seen);
  return source;
}

static void
seen_clear (Seen *seen)
{
  g_ptr_array_unref (seen->snapshots);
  g_array_unref (seen->states);
}

typedef gboolean (*Until) (RtopSource *source, Seen *seen, gpointer data);

/* Runs the main context until the condition holds (a guard of 60 s
 * against a hang; no time is asserted). */
static void
spin (RtopSource *source, Seen *seen, Until until, gpointer data)
{
  gint64 end = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (!until (source, seen, data))
    {
      if (g_get_monotonic_time () > end)
        g_error ("gave up waiting; the source is %s: %s",
                 rtop_source_state_to_label (rtop_source_get_state (source)),
                 rtop_source_get_error (source));
      g_main_context_iteration (NULL, TRUE);
    }
}

static gboolean
has_snapshots (RtopSource *source, Seen *seen, gpointer n)
{
  return seen->snapshots->len >= GPOINTER_TO_UINT (n);
}

static gboolean
in_state (RtopSource *source, Seen *seen, gpointer state)
{
  return rtop_source_get_state (source) == (RtopSourceState) GPOINTER_TO_UINT (state);
}

static gboolean
saw_state (RtopSource *source, Seen *seen, gpointer state)
{
  for (guint i = 0; i < seen->states->len; i++)
    if (g_array_index (seen->states, RtopSourceState, i) == (RtopSourceState) GPOINTER_TO_UINT (state))
      return TRUE;
  return FALSE;
}

/* Live snapshots come across with their host; then the server's session
 * is killed: lost, with a reason, and running again on a new connection
 * that starts afresh (no rates carried over the gap). */
static void
test_remote_live_and_lost (void)
{
  Seen seen;
  g_autoptr(RtopRemoteSource) remote = NULL;
  RtopSource *source;
  RtopSnapshot *first, *again;
  guint before;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd (install openssh-server)");
      return;
    }
  remote = make_source ("node", NULL, &seen);
  source = RTOP_SOURCE (remote);
  g_assert_cmpstr (rtop_source_get_name (source), ==, "node");
  g_assert_true (rtop_source_get_live (source));
  rtop_source_start (source);
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_CONNECTING);
  spin (source, &seen, has_snapshots, GUINT_TO_POINTER (3));
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_RUNNING);
  first = g_ptr_array_index (seen.snapshots, 0);
  g_assert_cmpstr (first->host, ==, "node");
  g_assert_cmpuint (first->sequence, ==, 1);
  /* What the remote could not do crosses as its status and becomes the
   * source's error, as for this computer. */
  if (first->status != RTOP_STATUS_OK)
    {
      g_assert_nonnull (first->status_message);
      g_assert_cmpstr (rtop_source_get_error (source), ==,
                       ((RtopSnapshot *) g_ptr_array_index (seen.snapshots, 2))->status_message);
    }
  g_assert_cmpuint (rtop_remote_source_get_n_connections (remote), ==, 1);
  g_assert_cmpuint (rtop_remote_source_get_bytes (remote), >, RTOP_STREAM_MAGIC_LEN);
  /* Refresh and interval travel as commands (nothing to assert but that
   * the stream carries on). */
  rtop_source_refresh (source);
  rtop_source_set_interval (source, 0.3);

  g_assert_cmpuint (kill_sessions (), >, 0);
  spin (source, &seen, in_state, GUINT_TO_POINTER (RTOP_SOURCE_STATE_LOST));
  g_assert_nonnull (rtop_source_get_error (source));
  g_assert_nonnull (strstr (rtop_source_get_error (source), "node"));
  before = seen.snapshots->len;
  spin (source, &seen, has_snapshots, GUINT_TO_POINTER (before + 2));
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_RUNNING);
  g_assert_cmpuint (rtop_remote_source_get_n_connections (remote), ==, 2);
  again = g_ptr_array_index (seen.snapshots, before);
  g_assert_cmpuint (again->sequence, ==, 1);
  g_assert_cmpfloat (again->interval_s, ==, 0.3);
  for (guint d = 0; d < again->devices->len; d++)
    {
      RtopDevice *dev = g_ptr_array_index (again->devices, d);

      for (guint p = 0; p < dev->ports->len; p++)
        for (guint m = 0; m < RTOP_METRIC_N; m++)
          g_assert_false (((RtopPort *) g_ptr_array_index (dev->ports, p))->metrics[m].has_rate);
    }
  rtop_source_stop (source);
  g_assert_cmpint (rtop_source_get_state (source), ==, RTOP_SOURCE_STATE_STOPPED);
  seen_clear (&seen);
}

/* A failure that trying again cannot fix: failed, with the reason, never
 * running and never retried. */
static void
expect_failure (const char *host, const char *command, const char *reason_part)
{
  Seen seen;
  g_autoptr(RtopRemoteSource) remote = NULL;
  RtopSource *source;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd (install openssh-server)");
      return;
    }
  remote = make_source (host, command, &seen);
  source = RTOP_SOURCE (remote);
  rtop_source_start (source);
  spin (source, &seen, in_state, GUINT_TO_POINTER (RTOP_SOURCE_STATE_FAILED));
  g_test_message ("%s: %s", host, rtop_source_get_error (source));
  if (strstr (rtop_source_get_error (source), reason_part) == NULL)
    g_error ("“%s” does not say “%s”", rtop_source_get_error (source), reason_part);
  g_assert_false (saw_state (source, &seen, GUINT_TO_POINTER (RTOP_SOURCE_STATE_RUNNING)));
  g_assert_false (saw_state (source, &seen, GUINT_TO_POINTER (RTOP_SOURCE_STATE_LOST)));
  g_assert_cmpuint (seen.snapshots->len, ==, 0);
  rtop_source_stop (source);
  seen_clear (&seen);
}

/* The same, for a failure that comes after snapshots did. */
static void
expect_failure_after_running (const char *host, const char *command, const char *reason_part)
{
  Seen seen;
  g_autoptr(RtopRemoteSource) remote = make_source (host, command, &seen);
  RtopSource *source = RTOP_SOURCE (remote);

  rtop_source_start (source);
  spin (source, &seen, in_state, GUINT_TO_POINTER (RTOP_SOURCE_STATE_FAILED));
  g_test_message ("%s: %s", host, rtop_source_get_error (source));
  if (strstr (rtop_source_get_error (source), reason_part) == NULL)
    g_error ("“%s” does not say “%s”", rtop_source_get_error (source), reason_part);
  g_assert_cmpuint (seen.snapshots->len, <=, RTOP_REMOTE_MAX_FRAMES_PER_S);
  g_assert_false (saw_state (source, &seen, GUINT_TO_POINTER (RTOP_SOURCE_STATE_LOST)));
  rtop_source_stop (source);
  seen_clear (&seen);
}

static void
test_remote_not_installed (void)
{
  expect_failure ("node", "/nonexistent/bin/rdmatop-cli", "not installed");
}

static void
test_remote_unknown_host_key (void)
{
  expect_failure ("unknown-key", NULL, "not known here");
}

static void
test_remote_changed_host_key (void)
{
  expect_failure ("changed-key", NULL, "has changed");
}

static void
test_remote_login_refused (void)
{
  expect_failure ("refused", NULL, "refused the login");
}

/* A remote rdmatop of another stream version. */
static void
test_remote_version_mismatch (void)
{
  g_autofree char *script = NULL;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd (install openssh-server)");
      return;
    }
  /* A hello of version 99 from "9.9.9", then it waits for its stdin. */
  write_text ("old-rdmatop", "#!/bin/sh\nprintf 'RTOPSTRMH\\010\\143\\0069.9.9\\000'\ncat >/dev/null\n");
  script = path ("old-rdmatop");
  g_chmod (script, 0700);
  expect_failure ("node", script, "9.9.9");
}

/* A remote that sends snapshots as fast as it can is cut off, not
 * followed. */
static void
test_remote_flood (void)
{
  g_autofree char *script = NULL;
  g_autofree char *text = NULL;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd (install openssh-server)");
      return;
    }
  /* A hello of this stream version, then snapshots without end. */
  text = g_strdup_printf ("#!/bin/sh\nprintf 'RTOPSTRMH\\010\\%03o\\0060.1.0\\000'\n"
                          "while :; do printf 'S\\007\\001\\002\\002\\000\\000\\000\\000'; done\n",
                          RTOP_STREAM_VERSION);
  write_text ("flood", text);
  script = path ("flood");
  g_chmod (script, 0700);
  expect_failure_after_running ("node", script, "cut off");
}

/* The argv: no shell, -- before the host, each remote word quoted, and
 * BatchMode unless an askpass program answers. */
static void
test_remote_argv (void)
{
  const char *devices[] = { "mlx5_0", "it's", NULL };
  const char *extra[] = { "UserKnownHostsFile=/tmp/k", NULL };
  RtopRemoteOptions o = { .host = "-oProxyCommand=evil", .port = 2222,
                          .remote_command = "/opt/rdmatop/bin/rdmatop-cli",
                          .devices = devices, .processes = TRUE, .ssh_options = extra };
  g_auto(GStrv) argv = rtop_remote_build_argv (&o, 0.5);
  g_autofree char *joined = g_strjoinv (" ", argv);
  g_auto(GStrv) with_askpass = NULL;
  guint dashdash = 0;

  for (guint i = 0; argv[i] != NULL; i++)
    if (g_str_equal (argv[i], "--"))
      dashdash = i;
  g_assert_cmpuint (dashdash, >, 0);
  g_assert_cmpstr (argv[dashdash + 1], ==, "-oProxyCommand=evil");
  g_assert_cmpstr (argv[dashdash + 2], ==, "'/opt/rdmatop/bin/rdmatop-cli'");
  g_assert_nonnull (strstr (joined, "'serve' '--stdio' '--interval' '0.5'"));
  g_assert_nonnull (strstr (joined, "'--device' 'it'\\''s'"));
  g_assert_nonnull (strstr (joined, "'--processes'"));
  g_assert_nonnull (strstr (joined, "-o BatchMode=yes"));
  g_assert_nonnull (strstr (joined, "-p 2222"));
  g_assert_nonnull (strstr (joined, "-o UserKnownHostsFile=/tmp/k"));
  g_assert_null (strstr (joined, "StrictHostKeyChecking"));
  g_assert_cmpstr (argv[0], ==, "ssh");
  g_assert_cmpstr (argv[1], ==, "-T");
  o.askpass = "/usr/libexec/rdmatop-askpass";
  with_askpass = rtop_remote_build_argv (&o, 1);
  g_free (joined);
  joined = g_strjoinv (" ", with_askpass);
  g_assert_nonnull (strstr (joined, "-o BatchMode=no"));
}

static void
test_remote_backoff (void)
{
  g_assert_cmpfloat (rtop_remote_backoff_s (0), ==, 1);
  g_assert_cmpfloat (rtop_remote_backoff_s (1), ==, 2);
  g_assert_cmpfloat (rtop_remote_backoff_s (5), ==, 32);
  g_assert_cmpfloat (rtop_remote_backoff_s (6), ==, 60);
  g_assert_cmpfloat (rtop_remote_backoff_s (1000), ==, 60);
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/remote/argv", test_remote_argv);
  g_test_add_func ("/remote/backoff", test_remote_backoff);
  g_test_add_func ("/remote/live-and-lost", test_remote_live_and_lost);
  g_test_add_func ("/remote/not-installed", test_remote_not_installed);
  g_test_add_func ("/remote/unknown-host-key", test_remote_unknown_host_key);
  g_test_add_func ("/remote/changed-host-key", test_remote_changed_host_key);
  g_test_add_func ("/remote/login-refused", test_remote_login_refused);
  g_test_add_func ("/remote/version-mismatch", test_remote_version_mismatch);
  g_test_add_func ("/remote/flood", test_remote_flood);
  if (!start_sshd ())
    g_test_message ("no %s: the ssh tests are skipped", SSHD_FIXTURE_SSHD);
  status = g_test_run ();
  stop_sshd ();
  return status;
}
