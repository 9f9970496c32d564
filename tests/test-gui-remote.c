/* test-gui-remote.c: the window with several hosts.
 *
 * Snapshots of two hosts that both have rxe0/1 stay two rows, grouped by
 * host, with the host in their keys, the processes' Host and the port
 * page's title.  Then the real thing: this computer, the build's
 * rdmatop-cli over a real sshd on 127.0.0.1 (sshd-fixture.c) and a host
 * whose key is unknown, each a card with its own state; the ssh session
 * is killed and the card shows lost, then live again.  And ssh's
 * questions through the real rdmatop-askpass: a key's passphrase typed
 * into the dialog connects, an unknown host key declined fails with that
 * reason.  Screenshots go to the build directory. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <sys/time.h>

#include "support/gui-fixtures.h"
#include "support/gui-test-util.h"
#include "rtop-askpass-dialog.h"
#include "rtop-askpass-private.h"
#include "rtop-host-strip.h"
#include "rtop-remote-source-private.h"
#include "rtop-sampler.h"
#include "rtop-session-private.h"
#include "rtop-window-private.h"
#include "support/sshd-fixture.h"

static RtopWindow *
open_window (RtopSession *session, GSettings *settings)
{
  RtopWindow *window = rtop_window_new (NULL, session, settings);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  gui_test_wait_mapped (GTK_WIDGET (window));
  return window;
}

/* The first mapped widget of type under root whose label (a GtkLabel's)
 * holds text, if text is not NULL. */
static GtkWidget *
find_mapped (GtkWidget *root, GType type, const char *text)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && gtk_widget_get_mapped (root) &&
      (text == NULL || strstr (gtk_label_get_label (GTK_LABEL (root)), text) != NULL))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_mapped (child, type, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Takes the screenshot and checks it is a page in the theme's colours;
 * returns its pixels for assert_shows. */
static GuiTestPixels *
screenshot_page (GtkWidget *root, const char *name)
{
  g_autoptr(GdkTexture) texture = gui_test_screenshot (root, name);
  GuiTestPixels *pixels = gui_test_pixels_new (texture, root);

  gui_test_assert_page (pixels);
  return pixels;
}

/* Asserts a widget of type (a label holding text, if text is given) is
 * shown under root and draws at least min_pixels in its picture. */
static void
assert_shows (GuiTestPixels *pixels, GtkWidget *root, GType type, const char *text, guint min_pixels)
{
  GtkWidget *widget = find_mapped (root, type, text);

  if (widget == NULL)
    g_test_message ("no %s “%s” shown", g_type_name (type), text ? text : "");
  g_assert_nonnull (widget);
  gui_test_assert_drawn (pixels, root, widget, min_pixels);
}

/* The dump's line that starts with prefix and holds text, or NULL. */
static char *
find_line (RtopWindow *window, const char *prefix, const char *text)
{
  g_autofree char *dump = rtop_window_dump (window);
  g_auto(GStrv) lines = g_strsplit (dump, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix) && (text == NULL || strstr (lines[i], text) != NULL))
      return g_strdup (lines[i]);
  return NULL;
}

/* Whether the dump has such a line. */
static gboolean
has_line (RtopWindow *window, const char *prefix, const char *text)
{
  g_autofree char *line = find_line (window, prefix, text);

  return line != NULL;
}

/* Runs the main context until the window shows it (a guard of 90 s
 * against a hang; no time is asserted). */
static char *
wait_line (RtopWindow *window, const char *prefix, const char *text)
{
  gint64 end = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;
  char *line;

  while ((line = find_line (window, prefix, text)) == NULL)
    {
      if (g_get_monotonic_time () > end)
        {
          g_autofree char *dump = rtop_window_dump (window);

          g_error ("no “%s…%s” in the window:\n%s", prefix, text ? text : "", dump);
        }
      g_main_context_iteration (NULL, TRUE);
    }
  g_test_message ("%s", line);
  return line;
}

/* Whether the dump has host's card connected: Live, or No RDMA (a host
 * reached whose kernel has no RDMA, as this machine may be). */
static gboolean
has_connected_card (RtopWindow *window, const char *host)
{
  g_autofree char *live = g_strdup_printf ("host\t%s\tstate=Live\t", host);
  g_autofree char *none = g_strdup_printf ("host\t%s\tstate=No RDMA\t", host);

  return has_line (window, live, NULL) || has_line (window, none, NULL);
}

static void
wait_connected (RtopWindow *window, const char *host)
{
  gint64 end = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;

  while (!has_connected_card (window, host))
    {
      if (g_get_monotonic_time () > end)
        {
          g_autofree char *dump = rtop_window_dump (window);

          g_error ("%s is not connected in the window:\n%s", host, dump);
        }
      g_main_context_iteration (NULL, TRUE);
    }
}

static const GuiPortSpec one_rxe[] = {
  { "rxe0", 1, "rxe", "roce", 4, 10, 3e9, 2e9, 250000, 230000, 0, 0, 0, FALSE },
};

static void
feed_host (RtopHistory *history, const char *host, guint64 seq, gint32 pid)
{
  RtopSnapshot *s = gui_fixture_snapshot (seq, 1.0, one_rxe, 1);

  gui_fixture_add_process (s, pid, "ib_write_bw", "alice", "rxe0", 2, 1, 4096);
  s->host = g_strdup (host);
  rtop_snapshot_seal (s);
  rtop_history_ingest (history, s);
  rtop_snapshot_unref (s);
}

static void
test_grouped_by_host (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = rtop_session_new (settings);
  RtopHistory *history = rtop_session_get_history (session);
  RtopWindow *window = open_window (session, settings);
  g_autofree char *here = NULL, *there = NULL, *detail = NULL, *proc = NULL;
  g_autofree char *dump = NULL;

  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  for (guint64 seq = 1; seq <= 3; seq++)
    {
      feed_host (history, "node1", seq, 7);
      feed_host (history, NULL, seq, 7);
    }
  g_free (wait_line (window, "totals\tports=2\t", NULL));
  dump = rtop_window_dump (window);
  g_test_message ("%s", dump);
  /* Two rows, this computer's first, each host's own rates. */
  here = find_line (window, "row\tport=rxe0/1\t", NULL);
  there = find_line (window, "row\tport=node1:rxe0/1\t", NULL);
  g_assert_nonnull (here);
  g_assert_nonnull (there);
  g_assert_true (strstr (dump, "row\tport=rxe0/1") < strstr (dump, "row\tport=node1:rxe0/1"));
  g_assert_nonnull (strstr (there, "tx=3"));
  g_assert_true (has_line (window, "totals\tports=2\t", NULL));
  /* The table shows the two rows: text in both. */
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "gui-remote-grouped.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_COLUMN_VIEW, NULL, 1000);
    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "node1:rxe0/1", 50);
  }

  /* The port page says which host it is on. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-port", "s", "node1:rxe0/1"));
  detail = wait_line (window, "detail\t", NULL);
  g_assert_cmpstr (detail, ==, "detail\trxe0 port 1 on node1");

  /* The same pid on two hosts: two processes, each with its host. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-view", "s", "processes"));
  proc = wait_line (window, "process\t", "host=node1");
  g_assert_true (has_line (window, "process\t", "host=This computer"));

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  g_assert_finalize_object (session);
}

static RtopSource *
remote_asking (const char *host, RtopAskpass *askpass)
{
  RtopRemoteOptions o = {
    .host = host,
    .remote_command = g_getenv ("RDMATOP_CLI"),
    .config_file = fx.config,
    .interval = 0.5,
    .askpass = askpass != NULL ? g_getenv ("RDMATOP_ASKPASS") : NULL,
    .environment = askpass != NULL ? rtop_askpass_get_environment (askpass) : NULL,
  };

  return RTOP_SOURCE (rtop_remote_source_new (&o));
}

static RtopSource *
remote (const char *host)
{
  return remote_asking (host, NULL);
}

static void
test_hosts_over_ssh (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  RtopSession *session = NULL;
  RtopWindow *window = NULL;
  g_autoptr(RtopSampler) sampler = NULL;
  g_autoptr(RtopSource) node = NULL, unknown = NULL;
  g_autofree char *line = NULL, *state = NULL;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd on this machine");
      return;
    }
  g_settings_set_double (settings, "interval", 0.5);
  g_settings_reset (settings, "last-view");
  session = rtop_session_new (settings);
  window = open_window (session, settings);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  sampler = rtop_sampler_new (NULL);
  node = remote ("node");
  unknown = remote ("unknown-key");
  rtop_session_add_live_source (session, RTOP_SOURCE (sampler));
  rtop_session_add_live_source (session, node);
  rtop_session_add_live_source (session, unknown);
  rtop_session_start (session);

  /* Each host is a card; one without RDMA or out of reach is its own
   * state, the window still the ports page. */
  g_free (wait_line (window, "host\tnode\tstate=", "detail=No RDMA"));
  wait_connected (window, "This computer");
  line = wait_line (window, "host\tunknown-key\tstate=Failed\t", "not known");
  state = find_line (window, "state=", NULL);
  g_assert_cmpstr (state, ==, "state=ports");
  /* The cards: each host's name and state drawn. */
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "gui-remote-hosts.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "unknown-key", 50);
    assert_shows (pixels, GTK_WIDGET (window), RTOP_TYPE_HOST_STRIP, NULL, 1000);
  }

  /* The ssh session dies: lost, with when it tries again, then live. */
  g_assert_cmpuint (kill_sessions (), >, 0);
  g_free (wait_line (window, "host\tnode\tstate=Lost, retrying\t", "Next try in"));
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "gui-remote-lost.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "Lost, retrying", 50);
  }
  g_free (wait_line (window, "host\tnode\tstate=", "detail=No RDMA"));
  g_assert_cmpuint (rtop_remote_source_get_n_connections (RTOP_REMOTE_SOURCE (node)), >=, 2);

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  rtop_session_shutdown (session, NULL);
  g_assert_finalize_object (session);
}

/* A host's processes over the real sshd: anonymous ("—", and the
 * Processes view says how to see them) until "process-hosts" names the
 * host; then the session connects it again with serve --stdio --processes
 * and the commands arrive.  The remote is the stand-in serve of 16
 * synthetic ports with their processes. */
static void
test_remote_processes (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *none[] = { NULL }, *node[] = { "node", NULL };
  RtopSession *session = NULL;
  RtopWindow *window = NULL;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd on this machine");
      return;
    }
  g_settings_set_double (settings, "interval", 0.5);
  g_settings_set_string (settings, "remote-command", g_getenv ("RDMATOP_SYNTH_SERVE"));
  g_settings_set_strv (settings, "process-hosts", none);
  g_settings_set_string (settings, "last-view", "processes");
  session = rtop_session_new (settings);
  rtop_session_set_ssh_config (session, fx.config);
  window = open_window (session, settings);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  g_assert_true (rtop_session_add_host (session, "node", &error));
  g_assert_no_error (error);
  rtop_session_start (session);

  /* Off (the default): no name, no id, no thread count, and one line
   * that says how to turn them on. */
  line = wait_line (window, "process\tpid=—\t", "command=—");
  g_assert_null (strstr (line, "threads=0"));
  g_assert_null (strstr (line, "=?"));
  g_clear_pointer (&line, g_free);
  line = wait_line (window, "processes-withheld\t", "node");
  g_assert_nonnull (strstr (line, "Preferences"));
  g_clear_pointer (&line, g_free);
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "gui-remote-processes-off.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "without names or ids", 50);
  }

  /* On: connected again, asking for them; the commands arrive. */
  g_settings_set_strv (settings, "process-hosts", node);
  g_free (wait_line (window, "process\t", "command=ib_write_bw"));
  g_assert_false (has_line (window, "processes-withheld\t", NULL));
  g_assert_false (has_line (window, "process\tpid=—\t", "command=python3"));
  gui_test_pixels_free (screenshot_page (GTK_WIDGET (window), "gui-remote-processes-on.png"));

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  rtop_session_shutdown (session, NULL);
  g_assert_finalize_object (session);
  g_settings_reset (settings, "remote-command");
  g_settings_reset (settings, "process-hosts");
  g_settings_reset (settings, "last-view");
}

typedef struct {
  RtopWindow *window;
  GtkWidget *dialog;           /* the newest question, while it is shown */
  GPtrArray *prompts;
} Asked;

static void
request_cb (RtopAskpass *askpass, RtopAskpassRequest *request, Asked *asked)
{
  g_ptr_array_add (asked->prompts, g_strdup (rtop_askpass_request_get_prompt (request)));
  g_test_message ("ssh asks: %s", rtop_askpass_request_get_prompt (request));
  asked->dialog = rtop_askpass_dialog_new (GTK_WINDOW (asked->window), request);
  g_object_add_weak_pointer (G_OBJECT (asked->dialog), (gpointer *) &asked->dialog);
  gtk_window_present (GTK_WINDOW (asked->dialog));
}

static void
wait_dialog (Asked *asked)
{
  gint64 end = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;

  while (asked->dialog == NULL && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (asked->dialog);
  gui_test_wait_mapped (asked->dialog);
}

/* The first widget of type under root (with this button label, if any). */
static GtkWidget *
find_widget (GtkWidget *root, GType type, const char *label)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) &&
      (label == NULL || g_strcmp0 (gtk_button_get_label (GTK_BUTTON (root)), label) == 0))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, label);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A folder as rtop-askpass.c makes them, with a socket that listens
 * (returned) or was closed (its file left, as a killed process leaves it),
 * or no socket; age_s back-dates the folder and the socket. */
static GSocket *
askpass_folder (const char *runtime, const char *name, gboolean with_socket, gboolean listening, int age_s)
{
  g_autofree char *dir = g_build_filename (runtime, name, NULL);
  g_autofree char *path = g_build_filename (dir, "socket", NULL);
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GError) error = NULL;
  struct timeval then[2];

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  if (with_socket)
    {
      g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);

      sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error);
      g_assert_no_error (error);
      g_assert_true (g_socket_bind (sock, address, FALSE, &error));
      g_assert_no_error (error);
      if (listening)
        {
          g_assert_true (g_socket_listen (sock, &error));
          g_assert_no_error (error);
        }
      else
        g_clear_object (&sock);
    }
  gettimeofday (&then[0], NULL);
  then[0].tv_sec -= age_s;
  then[1] = then[0];
  if (with_socket)
    g_assert_cmpint (utimes (path, then), ==, 0);
  g_assert_cmpint (utimes (dir, then), ==, 0);
  return g_steal_pointer (&sock);
}

static gboolean
exists_in (const char *runtime, const char *name)
{
  g_autofree char *path = g_build_filename (runtime, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Folders left by a killed rdmatop go at the next start; a live one, one
 * too young to judge (another rdmatop starting), and anything that is not
 * exactly such a folder stay. */
static void
test_askpass_sweep (void)
{
  g_autofree char *runtime = g_dir_make_tmp ("rdmatop-sweep-XXXXXX", NULL);
  g_autoptr(GSocket) live = NULL;
  g_autofree char *file = NULL;
  g_autofree char *cmd = NULL;

  g_assert_nonnull (runtime);
  askpass_folder (runtime, "rdmatop-askpass-dead01", TRUE, FALSE, 3600);
  askpass_folder (runtime, "rdmatop-askpass-nosock", FALSE, FALSE, 3600);
  askpass_folder (runtime, "rdmatop-askpass-young1", TRUE, FALSE, 0);
  askpass_folder (runtime, "rdmatop-askpass-nosoc2", FALSE, FALSE, 0);
  live = askpass_folder (runtime, "rdmatop-askpass-live01", TRUE, TRUE, 3600);
  askpass_folder (runtime, "rdmatop-askpass-longer-name", TRUE, FALSE, 3600);
  askpass_folder (runtime, "other-askpass-dead01", TRUE, FALSE, 3600);
  file = g_build_filename (runtime, "rdmatop-askpass-file01", NULL);
  g_assert_true (g_file_set_contents (file, "x", 1, NULL));

  g_assert_cmpuint (rtop_askpass_sweep_stale (runtime), ==, 2);
  g_assert_false (exists_in (runtime, "rdmatop-askpass-dead01"));
  g_assert_false (exists_in (runtime, "rdmatop-askpass-nosock"));
  g_assert_true (exists_in (runtime, "rdmatop-askpass-young1"));
  g_assert_true (exists_in (runtime, "rdmatop-askpass-nosoc2"));
  g_assert_true (exists_in (runtime, "rdmatop-askpass-live01/socket"));
  g_assert_true (exists_in (runtime, "rdmatop-askpass-longer-name"));
  g_assert_true (exists_in (runtime, "other-askpass-dead01"));
  g_assert_true (exists_in (runtime, "rdmatop-askpass-file01"));
  /* Nothing left to do a second time. */
  g_assert_cmpuint (rtop_askpass_sweep_stale (runtime), ==, 0);
  g_assert_cmpuint (rtop_askpass_sweep_stale ("/nonexistent/rdmatop"), ==, 0);

  cmd = g_strdup_printf ("rm -rf '%s'", runtime);
  g_assert_cmpint (system (cmd), ==, 0);
}

static void
test_askpass (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopAskpass) askpass = NULL;
  g_autoptr(RtopSource) locked = NULL, asking = NULL;
  Asked asked = { NULL, NULL, g_ptr_array_new_with_free_func (g_free) };
  RtopSession *session;
  GtkWidget *entry, *ok;

  if (fx.sshd == NULL)
    {
      g_test_skip ("no sshd on this machine");
      return;
    }
  askpass = rtop_askpass_new (&error);
  g_assert_no_error (error);
  g_settings_reset (settings, "last-view");
  session = rtop_session_new (settings);
  asked.window = open_window (session, settings);
  g_object_add_weak_pointer (G_OBJECT (asked.window), (gpointer *) &asked.window);
  g_signal_connect (askpass, "request", G_CALLBACK (request_cb), &asked);
  rtop_session_start (session);

  /* A host key nobody accepts: ssh asks, the dialog is closed. */
  asking = remote_asking ("ask-key", askpass);
  rtop_session_add_live_source (session, asking);
  wait_dialog (&asked);
  g_assert_nonnull (strstr (g_ptr_array_index (asked.prompts, 0), "(yes/no"));
  g_assert_null (find_widget (asked.dialog, GTK_TYPE_PASSWORD_ENTRY, NULL));
  /* ssh's question, as ssh asked it. */
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (asked.dialog, "gui-remote-host-key.png");

    assert_shows (pixels, asked.dialog, GTK_TYPE_LABEL, "(yes/no", 500);
  }
  gtk_window_close (GTK_WINDOW (asked.dialog));
  g_free (wait_line (asked.window, "host\task-key\tstate=Failed\t", "You declined"));

  /* A locked key: its passphrase typed into the hidden entry connects. */
  locked = remote_asking ("passphrase", askpass);
  rtop_session_add_live_source (session, locked);
  wait_dialog (&asked);
  g_assert_nonnull (strstr (g_ptr_array_index (asked.prompts, 1), "passphrase"));
  entry = find_widget (asked.dialog, GTK_TYPE_PASSWORD_ENTRY, NULL);
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), SSHD_FIXTURE_PASSPHRASE);
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (asked.dialog, "gui-remote-passphrase.png");

    assert_shows (pixels, asked.dialog, GTK_TYPE_LABEL, "passphrase", 300);
    /* The passphrase typed: its bullets in the entry's text. */
    assert_shows (pixels, asked.dialog, GTK_TYPE_TEXT, NULL, 30);
  }
  ok = find_widget (asked.dialog, GTK_TYPE_BUTTON, "_OK");
  g_assert_nonnull (ok);
  g_signal_emit_by_name (ok, "clicked");
  wait_connected (asked.window, "passphrase");

  gtk_window_destroy (GTK_WINDOW (asked.window));
  gui_test_wait_gone ((gpointer *) &asked.window);
  rtop_session_shutdown (session, NULL);
  g_assert_finalize_object (session);
  g_ptr_array_unref (asked.prompts);
}

/* The value of field key= in a dump line (tab-separated). */
static char *
field (const char *line, const char *key)
{
  g_auto(GStrv) parts = g_strsplit (line, "\t", -1);
  g_autofree char *prefix = g_strconcat (key, "=", NULL);

  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_has_prefix (parts[i], prefix))
      return g_strdup (parts[i] + strlen (prefix));
  return NULL;
}

/* The guest's rxe0/1 row shows transmit traffic: a rate that is not 0. */
static gboolean
row_moves (RtopWindow *window, const char *key)
{
  g_autofree char *prefix = g_strdup_printf ("row\tport=%s\t", key);
  g_autofree char *line = find_line (window, prefix, NULL);
  g_autofree char *tx = line != NULL ? field (line, "tx") : NULL;
  g_autofree char *pps = line != NULL ? field (line, "pps") : NULL;

  return tx != NULL && pps != NULL && g_ascii_isdigit (pps[0]) && !g_str_has_prefix (pps, "0 ");
}

static void
wait_moving (RtopWindow *window, const char *key)
{
  gint64 end = g_get_monotonic_time () + 240 * G_USEC_PER_SEC;

  while (!row_moves (window, key))
    {
      if (g_get_monotonic_time () > end)
        {
          g_autofree char *dump = rtop_window_dump (window);

          g_error ("%s shows no traffic:\n%s", key, dump);
        }
      g_main_context_iteration (NULL, TRUE);
    }
}

static void
request (const char *name)
{
  g_autofree char *file = g_build_filename (g_getenv ("RDMATOP_GUEST_RESULTS"), name, NULL);

  g_assert_true (g_file_set_contents (file, "", 0, NULL));
}

/* The Soft-RoCE guest (tests/vm/scenario-remote.sh) over real SSH through
 * QEMU's port forwarding, beside this machine over SSH (no RDMA here):
 * live non-zero rates during ib_write_bw, then the guest's sshd sessions
 * killed: lost with no rate shown, then live and moving again. */
static void
test_guest (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(RtopSource) guest = NULL, node = NULL;
  RtopRemoteOptions o = {
    .host = "guest",
    .remote_command = g_getenv ("RDMATOP_CLI"),
    .config_file = g_getenv ("RDMATOP_GUEST_SSH_CONFIG"),
    .interval = 1.0,
  };
  RtopSession *session;
  RtopWindow *window;
  g_autofree char *lost_row = NULL, *lost_tx = NULL;
  gint64 start = g_get_monotonic_time ();

  /* Beside the guest, this machine's sshd is part of the scenario. */
  g_assert_nonnull (o.config_file);
  g_assert_nonnull (fx.sshd);
  g_settings_reset (settings, "last-view");
  g_settings_set_double (settings, "interval", 1.0);
  session = rtop_session_new (settings);
  window = open_window (session, settings);
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &window);
  guest = RTOP_SOURCE (rtop_remote_source_new (&o));
  node = remote ("node");
  rtop_session_add_live_source (session, guest);
  rtop_session_add_live_source (session, node);
  rtop_session_start (session);

  g_free (wait_line (window, "host\tnode\tstate=", "detail=No RDMA"));
  wait_moving (window, "guest:rxe0/1");
  g_test_message ("guest moving after %.0f s", (g_get_monotonic_time () - start) / 1e6);
  g_free (wait_line (window, "host\tguest\tstate=Live\t", "ports on"));
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "remote-guest-live.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "guest:rxe0/1", 50);
  }

  /* The guest's sshd sessions are killed: lost, and no rate from before. */
  request ("cut-request");
  g_free (wait_line (window, "host\tguest\tstate=Lost, retrying\t", NULL));
  lost_row = find_line (window, "row\tport=guest:rxe0/1\t", NULL);
  g_assert_nonnull (lost_row);
  lost_tx = field (lost_row, "tx");
  g_test_message ("while lost: tx=%s", lost_tx);
  g_assert_false (g_ascii_isdigit (lost_tx[0]));
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "remote-guest-lost.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "Lost, retrying", 50);
  }
  g_test_message ("lost after %.0f s", (g_get_monotonic_time () - start) / 1e6);
  wait_moving (window, "guest:rxe0/1");
  g_test_message ("moving again after %.0f s", (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpuint (rtop_remote_source_get_n_connections (RTOP_REMOTE_SOURCE (guest)), >=, 2);
  {
    g_autoptr(GuiTestPixels) pixels = screenshot_page (GTK_WIDGET (window), "remote-guest-back.png");

    assert_shows (pixels, GTK_WIDGET (window), GTK_TYPE_LABEL, "guest:rxe0/1", 50);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_wait_gone ((gpointer *) &window);
  rtop_session_shutdown (session, NULL);
  g_assert_finalize_object (session);
}

int
main (int argc, char **argv)
{
  int status;

  gui_test_init (&argc, &argv);
  g_test_add_func ("/gui/remote/grouped-by-host", test_grouped_by_host);
  g_test_add_func ("/gui/remote/hosts-over-ssh", test_hosts_over_ssh);
  g_test_add_func ("/gui/remote/processes", test_remote_processes);
  g_test_add_func ("/gui/remote/askpass", test_askpass);
  g_test_add_func ("/gui/remote/askpass-sweep", test_askpass_sweep);
  /* Only where tests/vm/host-remote-window.sh runs it, beside the guest
   * (the vm suite): the gui suite has no guest to watch. */
  if (g_getenv ("RDMATOP_GUEST_SSH_CONFIG") != NULL)
    g_test_add_func ("/gui/remote/guest", test_guest);
  if (!start_sshd ())
    g_test_message ("no %s: the ssh test is skipped", SSHD_FIXTURE_SSHD);
  status = g_test_run ();
  stop_sshd ();
  return status;
}
