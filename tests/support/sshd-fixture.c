/* sshd-fixture.c: see sshd-fixture.h. */
#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

#include "sshd-fixture.h"

#define SSHD SSHD_FIXTURE_SSHD

SshdFixture fx;

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

char *
path (const char *name)
{
  return g_build_filename (fx.dir, name, NULL);
}

static void
keygen_with (const char *name, const char *passphrase)
{
  g_autofree char *file = path (name);
  const char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", name, "-f", file, NULL };

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

void
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
  g_autofree char *locked_key = path ("locked_key");
  g_autofree char *asked = path ("known_hosts_asked");
  g_autofree char *authorized = path ("authorized_keys");
  g_autofree char *known = path ("known_hosts");
  g_autofree char *wrong = path ("known_hosts_wrong");
  g_autofree char *empty = path ("known_hosts_empty");
  g_autofree char *pid = path ("sshd.pid");
  g_autofree char *host_pub = read_text ("host_key.pub");
  g_autofree char *user_pub = read_text ("user_key.pub");
  g_autofree char *other_pub = read_text ("other_key.pub");
  g_autofree char *locked_pub = read_text ("locked_key.pub");
  g_autofree char *authorized_keys = g_strdup_printf ("%s\n%s\n", user_pub, locked_pub);
  g_autofree char *sshd_config = NULL, *client = NULL, *line = NULL, *bad_line = NULL;
  g_auto(GStrv) other_words = g_strsplit (other_pub, " ", 3);

  sshd_config = g_strdup_printf ("ListenAddress 127.0.0.1\nPort %u\nHostKey %s\n"
                                 "AuthorizedKeysFile %s\nPidFile %s\nUsePAM no\nStrictModes no\n"
                                 "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                                 "PubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
                                 "LogLevel VERBOSE\n",
                                 fx.port, host_key, authorized, pid);
  write_text ("sshd_config", sshd_config);
  write_text ("authorized_keys", authorized_keys);
  write_text ("known_hosts_asked", "");
  line = g_strdup_printf ("[127.0.0.1]:%u %s\n", fx.port, host_pub);
  write_text ("known_hosts", line);
  /* The same host with another key: what a changed host key looks like. */
  bad_line = g_strdup_printf ("[127.0.0.1]:%u %s %s\n", fx.port, other_words[0], other_words[1]);
  write_text ("known_hosts_wrong", bad_line);
  write_text ("known_hosts_empty", "");
  /* ssh takes the first value it reads: the hosts that ask come first. */
  client = g_strdup_printf (
    "Host ask-key\n  IdentityFile %s\n  UserKnownHostsFile %s\n  StrictHostKeyChecking ask\n"
    "Host passphrase\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host *\n  HostName 127.0.0.1\n  Port %u\n  User %s\n  IdentitiesOnly yes\n"
    "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  UpdateHostKeys no\n"
    "Host node\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host unknown-key\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host changed-key\n  IdentityFile %s\n  UserKnownHostsFile %s\n"
    "Host refused\n  IdentityFile %s\n  UserKnownHostsFile %s\n",
    user_key, asked, locked_key, known,
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

gboolean
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
  keygen_with ("host_key", "");
  keygen_with ("user_key", "");
  keygen_with ("other_key", "");
  keygen_with ("locked_key", SSHD_FIXTURE_PASSPHRASE);
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

void
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
guint
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

