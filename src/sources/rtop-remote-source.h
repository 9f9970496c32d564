/* rtop-remote-source.h: another machine's snapshots, over the user's own
 * OpenSSH client.
 *
 * The source runs, with no shell and no terminal (a new session, so ssh
 * cannot open /dev/tty):
 *
 *   ssh -T -x -a -o BatchMode=yes|no -o ServerAliveInterval=5
 *       -o ServerAliveCountMax=3 -o ConnectTimeout=10
 *       [-F CONFIG] [-o OPTION]... [-p PORT] -- HOST
 *       'rdmatop-cli' 'serve' '--stdio' '--interval' 'S' [...]
 *
 * so the user's ~/.ssh/config, agent, ProxyJump and ControlMaster apply.
 * Each word of the remote command is quoted for the remote user's shell
 * (ssh joins them with spaces and that shell splits them again).  With an
 * askpass program, ssh sends every question (password, passphrase, an
 * unknown host key) to it (SSH_ASKPASS, SSH_ASKPASS_REQUIRE=force);
 * without one, BatchMode=yes makes ssh fail instead of asking.  Host key
 * checking is left as the user's configuration has it.
 *
 * States: connecting (ssh started) -> running (the first snapshot after
 * the stream's hello) -> lost (ssh or the stream ended: started again
 * after 1 s, doubling to 60 s, with jitter) or failed (what trying again
 * cannot fix: the login was refused, the host key is unknown or changed,
 * rdmatop-cli is not installed there, another stream version, the
 * remote's own error).  "error" says why, in a sentence.  The first
 * snapshot after a reconnection has no rates: the remote starts afresh.
 *
 * Snapshots carry host = the host as given. */
#pragma once

#include <glib-object.h>
#include "rtop-source.h"

G_BEGIN_DECLS

typedef struct {
  const char *host;              /* as ssh takes it: "node1", "alice@node1", a config alias */
  guint port;                    /* 0: as ssh's configuration says */
  const char *remote_command;    /* the remote program; NULL: "rdmatop-cli" (from the remote PATH) */
  const char * const *devices;   /* --device for the remote; NULL: all */
  gboolean processes;            /* ask the remote for pids, commands and users */
  const char *askpass;           /* a program for ssh's questions; NULL: ssh never asks */
  const char * const *environment; /* more "KEY=VALUE" for ssh (what askpass needs) */
  const char *ssh_program;       /* NULL: "ssh" from PATH */
  /* For tests and unusual setups: a client configuration file (-F) and
   * extra -o options ("UserKnownHostsFile=/tmp/k"), before the host. */
  const char *config_file;
  const char * const *ssh_options;
  double interval;               /* seconds; 0: 1 */
} RtopRemoteOptions;

/* Limits on what a remote may send. */
#define RTOP_REMOTE_STDERR_MAX 8192          /* bytes of ssh's stderr kept for the reason */
#define RTOP_REMOTE_MAX_FRAMES_PER_S 50      /* more is a flood: cut off */
#define RTOP_REMOTE_MAX_BYTES_PER_S (4 * 1024 * 1024)
#define RTOP_REMOTE_BACKOFF_MIN_S 1.0
#define RTOP_REMOTE_BACKOFF_MAX_S 60.0

#define RTOP_TYPE_REMOTE_SOURCE (rtop_remote_source_get_type ())
G_DECLARE_FINAL_TYPE (RtopRemoteSource, rtop_remote_source, RTOP, REMOTE_SOURCE, GObject)

/* options are copied.  "name" is the host. */
RtopRemoteSource *rtop_remote_source_new (const RtopRemoteOptions *options);
/* The host as given: what its snapshots carry as RtopSnapshot.host. */
const char *rtop_remote_source_get_host (RtopRemoteSource *self);
/* Whether it asks the remote for process names and ids (options.processes). */
gboolean rtop_remote_source_get_processes (RtopRemoteSource *self);

G_END_DECLS
