/* rtop-remote.c
 *
 * Remote X has no hardware GL: GL renderers then render on the CPU and push
 * whole frames over the wire, while the cairo renderer sends only damaged
 * regions.  Animations cost round trips for nothing. */
#include "config.h"

#include <string.h>

#include "rtop-remote.h"

gboolean
rtop_remote_display_is_remote (const char *ssh_connection, const char *display)
{
  if (ssh_connection && *ssh_connection)
    return TRUE;
  if (display == NULL || *display == '\0')
    return FALSE;
  /* Local X displays are ":N", "unix:N" or a socket path; anything with a
   * host name before the colon (including "localhost:10.0" that ssh
   * forwarding uses) goes over TCP. */
  return display[0] != ':' && display[0] != '/' && !g_str_has_prefix (display, "unix:");
}

gboolean
rtop_remote_setup_environment (void)
{
  if (!rtop_remote_display_is_remote (g_getenv ("SSH_CONNECTION"), g_getenv ("DISPLAY")))
    return FALSE;
  if (g_getenv ("GSK_RENDERER") == NULL)
    {
      g_setenv ("GSK_RENDERER", "cairo", TRUE);
      if (g_getenv ("GDK_BACKEND") == NULL)
        g_setenv ("GDK_BACKEND", "x11", TRUE);
    }
  return TRUE;
}

char *
rtop_remote_connect_command (const char *user, const char *host)
{
  g_autofree char *target = NULL;
  g_autofree char *quoted = NULL;

  target = user && *user ? g_strdup_printf ("%s@%s", user, host) : g_strdup (host);
  /* Quoted only where a shell would split or expand it. */
  if (strspn (target, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@._-") ==
      strlen (target) && target[0] != '-')
    return g_strdup_printf ("rdmatop --host %s", target);
  quoted = g_shell_quote (target);
  /* "--host=VALUE": a value beginning with '-' is never read as an option. */
  return g_strdup_printf ("rdmatop --host=%s", quoted);
}
