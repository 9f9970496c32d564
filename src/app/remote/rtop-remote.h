/* rtop-remote.h: choices for a display that is not local (ssh -X, remote X).
 *
 * Must run before GTK initialises, since GTK reads GSK_RENDERER and
 * GDK_BACKEND once. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* From the values of SSH_CONNECTION and DISPLAY (NULL when unset): a
 * session over ssh, or an X display reached over TCP ("host:10.0"). */
gboolean rtop_remote_display_is_remote (const char *ssh_connection, const char *display);
/* Reads the environment; when remote, sets GSK_RENDERER=cairo and
 * GDK_BACKEND=x11 unless the user set them.  Returns whether it is remote. */
gboolean rtop_remote_setup_environment (void);

/* A host as ssh takes it ("node1", "alice@node1", an alias, "[fe80::1]"):
 * not empty, at most RTOP_REMOTE_HOST_MAX bytes of UTF-8 with no blank or
 * control character, and never starting with '-' (an ssh option).  FALSE
 * with a sentence for the user otherwise. */
#define RTOP_REMOTE_HOST_MAX 255
gboolean rtop_remote_host_is_valid (const char *host, GError **error);

/* The command that watches this host from the user's own machine:
 * "rdmatop --host USER@HOST", quoted for a shell where needed. */
char *rtop_remote_connect_command (const char *user, const char *host);

/* Whether host's process names and ids are asked for: the settings'
 * "process-hosts" names it (a session connects such a host again when
 * that changes).  settings may be NULL: never. */
gboolean rtop_remote_host_shows_processes (GSettings *settings, const char *host);
/* Puts host into "process-hosts" or takes it out. */
void rtop_remote_set_host_processes (GSettings *settings, const char *host, gboolean shown);

G_END_DECLS
