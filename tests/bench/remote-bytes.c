/* remote-bytes: runs an RtopRemoteSource for a while and prints what it
 * received: key=value lines for ssh-stream-bytes.sh.
 * Usage: remote-bytes CONFIG HOST COMMAND SECONDS [SSH_OPTION...] */
#include "config.h"

#include <stdlib.h>

#include "rtop-remote-source-private.h"

static void
snapshot_cb (RtopSource *source, RtopSnapshot *snap, guint *n)
{
  (*n)++;
}

static gboolean
quit_cb (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  RtopRemoteOptions o = { 0 };
  g_autoptr(RtopRemoteSource) remote = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  guint n = 0;

  if (argc < 5)
    {
      g_printerr ("usage: %s CONFIG HOST COMMAND SECONDS [SSH_OPTION...]\n", argv[0]);
      return 2;
    }
  o.config_file = argv[1];
  o.host = argv[2];
  o.remote_command = argv[3];
  o.interval = 1;
  o.ssh_options = (const char * const *) argv + 5;
  remote = rtop_remote_source_new (&o);
  g_signal_connect (remote, "snapshot", G_CALLBACK (snapshot_cb), &n);
  rtop_source_start (RTOP_SOURCE (remote));
  g_timeout_add_seconds (atoi (argv[4]), quit_cb, loop);
  g_main_loop_run (loop);
  g_print ("remote_snapshots=%u remote_stream_bytes=%" G_GUINT64_FORMAT " remote_state=%s\n", n,
           rtop_remote_source_get_bytes (remote),
           rtop_source_state_to_label (rtop_source_get_state (RTOP_SOURCE (remote))));
  if (rtop_source_get_error (RTOP_SOURCE (remote)) != NULL)
    g_print ("# %s\n", rtop_source_get_error (RTOP_SOURCE (remote)));
  rtop_source_stop (RTOP_SOURCE (remote));
  return 0;
}
