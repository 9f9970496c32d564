/* sshd-fixture.h: a real OpenSSH server on 127.0.0.1 for tests.
 *
 * Started (`sshd -D -f CONFIG`) with a host key and user keys made in a
 * temporary folder; the client gets its own configuration (-F) so nothing
 * of the machine's ~/.ssh is used.  Hosts in that configuration:
 *   node          the user's key, the right known host key
 *   unknown-key   no known host key
 *   changed-key   another key for the same host (a changed host key)
 *   refused       a key the server does not accept
 *   passphrase    a key locked with SSHD_FIXTURE_PASSPHRASE (ssh asks for it)
 *   ask-key       no known host key, and ssh asks whether to accept it */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  char *dir;
  guint port;
  GSubprocess *sshd;
  char *config;              /* the client's -F file */
} SshdFixture;

#define SSHD_FIXTURE_SSHD "/usr/sbin/sshd"
#define SSHD_FIXTURE_PASSPHRASE "open sesame"

extern SshdFixture fx;

/* FALSE when there is no sshd on this machine (the test skips). */
gboolean start_sshd (void);
void stop_sshd (void);
/* A file in the fixture's folder. */
char *path (const char *name);
void write_text (const char *name, const char *text);
/* Kills the per-connection sshd processes (children of the listening one):
 * every connection is cut.  Returns how many. */
guint kill_sessions (void);

G_END_DECLS
