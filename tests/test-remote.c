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

#define SSHD "/usr/sbin/sshd"

static struct {
  char *dir;
  guint port;
  GSubprocess *sshd;
  char *config;              /* the client's -F file */
} fx;

static void
run_or_die (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                     NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error))
    g_error ("%s: %s", argv[0], error->message);
}

static char *
path (const char *name)
{
  return g_build_filename (fx.dir, name, NULL);
}

static void
keygen (const char *name)
{
  g_autofree char *file = path (name);
  const char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", file, NULL };

  run_or_die (argv);
}

static char *
read_text (const char *name)
{
  g_autofree char *file = path (name);
  char *text = NULL;

  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  return g_strstrip (text);
}

static void
write_text (const char *name, const char *text)
{
  g_autofree char *file = path (name);

  g_assert_true (g_file_set_contents (file, text, -1, NULL));
  g_chmod (file, 0600);
}

static guint
free_port (void)
{
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (lo, 0);
  g_autoptr(GSocketAddress) bound = NULL;

  g_assert_true (g_socket_bind (sock, any, TRUE, NULL));
  bound = g_socket_get_local_address (sock, NULL);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static void
write_configs (void)
{
  g_autofree char *host_key = path ("host_key");
  g_autofree char *user_key = path ("user_key");
  g_autofree char *other_key = path ("other_key");
  g_autofree char *authorized = path ("authorized_keys");
  g_autofree char *known = path ("known_hosts");
  g_autofree char *wrong = path ("known_hosts_wrong");
  g_autofree char *empty = path ("known_hosts_empty");
  g_autofree char *pid = path ("sshd.pid");
  g_autofree char *host_pub = read_text ("host_key.pub");
  g_autofree char *user_pub = read_text ("user_key.pub");
  g_autofree char *other_pub = read_text ("other_key.pub");
  g_autofree char *sshd_config = NULL, *client = NULL, *line = NULL, *bad_line = NULL;
  g_auto(GStrv) other_words = g_strsplit (other_pub, " ", 3);

  sshd_config = g_strdup_printf ("ListenAddress 127.0.0.1\nPort %u\nHostKey %s\n"
                                 "AuthorizedKeysFile %s\nPidFile %s\nUsePAM no\nStrictModes no\n"
                                 "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                 "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
                                 "LogLevel VERBOSE\n",
                                 fx.port, host_key, authorized, pid);
  write_text ("sshd_config", sshd_config);
  write_text ("authorized_keys", user_pub);
  line = g_strdup_printf ("[127.0.0.1]:%u %s\n", fx.port, host_pub);
  write_text ("known_hosts", line);
  /* The same host with another key: what a changed host key looks like. */
  bad_line = g_strdup_printf ("[127.0.0.1]:%u %s %s\n", fx.port, other_words[0], other_words[1]);
  write_text ("known_hosts_wrong", bad_line);
  write_text ("known_hosts_empty", "");
  client = g_strdup_printf (
    "Host *\n  HostName 127.0.0.1\n  Port %u\n  User %s\n  IdentitiesOnly yes\n"
    "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  UpdateHostKeys no\n"
    "Host node\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host unknown-key\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host changed-key\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host refused\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
    fx.port, g_get_user_name (), user_key, known, user_key, empty, user_key, wrong,
    other_key, known);
  write_text ("ssh_config", client);
  fx.config = path ("ssh_config");
}

/* A plain connect: no proxy resolver (libproxy) between us and 127.0.0.1. */
static gboolean
port_open (void)
{
  g_autoptr(GSocket) sock = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                          G_SOCKET_PROTOCOL_TCP, NULL);
  g_autoptr(GInetAddress) lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) addr = g_inet_socket_address_new (lo, fx.port);

  return g_socket_connect (sock, addr, NULL, NULL);
}

static void
die_with_us (gpointer data)
{
  /* A test that aborts does not leave its sshd behind. */
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static gboolean
start_sshd (void)
{
  g_autofree char *config = NULL, *log = NULL, *log_text = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GError) error = NULL;
  gint64 end;

  if (!g_file_test (SSHD, G_FILE_TEST_IS_EXECUTABLE))
    return FALSE;
  /* As root, sshd wants its privilege separation folder. */
  if (getuid () == 0)
    g_mkdir_with_parents ("/run/sshd", 0755);
  fx.dir = g_dir_make_tmp ("rdmatop-ssh-XXXXXX", &error);
  g_assert_no_error (error);
  keygen ("host_key");
  keygen ("user_key");
  keygen ("other_key");
  fx.port = free_port ();
  write_configs ();
  config = path ("sshd_config");
  log = path ("sshd.log");
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_set_child_setup (launcher, die_with_us, NULL, NULL);
  fx.sshd = g_subprocess_launcher_spawn (launcher, &error, SSHD, "-D", "-f", config, "-E", log, NULL);
  g_assert_no_error (error);
  for (end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC; !port_open (); g_usleep (50000))
    if (g_get_monotonic_time () > end)
      {
        g_file_get_contents (log, &log_text, NULL, NULL);
        g_error ("sshd did not start listening on 127.0.0.1:%u: %s", fx.port, log_text);
      }
  return TRUE;
}

static void
stop_sshd (void)
{
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFileEnumerator) e = NULL;
  GFileInfo *info;

  if (fx.sshd == NULL)
    return;
  g_subprocess_send_signal (fx.sshd, SIGTERM);
  g_subprocess_wait (fx.sshd, NULL, NULL);
  g_clear_object (&fx.sshd);
  dir = g_file_new_for_path (fx.dir);
  e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, NULL);
  while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
    {
      g_autofree char *file = path (g_file_info_get_name (info));

      g_unlink (file);
      g_object_unref (info);
    }
  g_rmdir (fx.dir);
}

/* The per-connection sshd processes: children of the listening one. */
static guint
kill_sessions (void)
{
  const char *daemon = g_subprocess_get_identifier (fx.sshd);
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;
  guint killed = 0;

  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *stat_path = g_build_filename ("/proc", name, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *after;
      char state;
      int ppid;

      if (!g_ascii_isdigit (*name) || !g_file_get_contents (stat_path, &stat, NULL, NULL))
        continue;
      after = strrchr (stat, ')');
      if (after == NULL || sscanf (after + 1, " %c %d", &state, &ppid) != 2)
        continue;
      if (ppid == atoi (daemon))
        {
          kill (atoi (name), SIGKILL);
          killed++;
        }
    }
  return killed;
}

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

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd (install openssh-server)");
      return;
    }
  write_text ("flood", "#!/bin/sh\nprintf 'RTOPSTRMH\\010\\001\\0060.1.0\\000'\n"
              "while :; do printf 'S\\007\\001\\002\\002\\000\\000\\000\\000'; done\n");
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
    g_test_message ("no %s: the ssh tests are skipped", SSHD);
  status = g_test_run ();
  stop_sshd ();
  return status;
}
