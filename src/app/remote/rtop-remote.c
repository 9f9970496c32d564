/* rtop-remote.c: choices for a display that is not local, and the host
 * names and command that reach rdmatop over ssh.
 *
 * Remote X has no hardware GL: GL renderers then render on the CPU and push
 * whole frames over the wire, while the cairo renderer sends only damaged
 * regions.  Animations cost round trips for nothing. */
#include "config.h"

#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n.h>

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

gboolean
rtop_remote_host_is_valid (const char *host, GError **error)
{
  gsize len = host != NULL ? strnlen (host, RTOP_REMOTE_HOST_MAX + 1) : 0;

  if (len == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Enter the host to connect to, as you would give it to ssh."));
      return FALSE;
    }
  if (len > RTOP_REMOTE_HOST_MAX || !g_utf8_validate (host, len, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("That host name is not valid text of at most %d bytes."), RTOP_REMOTE_HOST_MAX);
      return FALSE;
    }
  if (host[0] == '-')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("A host name cannot start with “-”: ssh would take it for an option."));
      return FALSE;
    }
  for (const char *p = host; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || g_unichar_iscntrl (c))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("A host name cannot contain spaces or control characters."));
          return FALSE;
        }
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

gboolean
rtop_remote_host_shows_processes (GSettings *settings, const char *host)
{
  g_auto(GStrv) hosts = settings ? g_settings_get_strv (settings, "process-hosts") : NULL;

  return hosts != NULL && host != NULL && g_strv_contains ((const char * const *) hosts, host);
}

/* The host goes into "process-hosts", or out of it: each host keeps its
 * own choice, remembered or not. */
void
rtop_remote_set_host_processes (GSettings *settings, const char *host, gboolean shown)
{
  g_auto(GStrv) hosts = g_settings_get_strv (settings, "process-hosts");
  g_autoptr(GStrvBuilder) next = g_strv_builder_new ();
  g_auto(GStrv) value = NULL;

  if (g_strv_contains ((const char * const *) hosts, host) == shown)
    return;
  for (guint i = 0; hosts[i] != NULL; i++)
    if (g_strcmp0 (hosts[i], host) != 0)
      g_strv_builder_add (next, hosts[i]);
  if (shown)
    g_strv_builder_add (next, host);
  value = g_strv_builder_end (next);
  g_settings_set_strv (settings, "process-hosts", (const char * const *) value);
}
