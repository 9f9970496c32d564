/* rtop-cli-common.c: argument parsing shared by rdmatop-cli's subcommands. */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "rtop-cli-common.h"
#include "rtop-sampler.h"

gboolean
rtop_cli_add_devices (char ***devices, const char *value, GError **error)
{
  g_auto(GStrv) parts = g_strsplit (value, ",", -1);
  g_autoptr(GStrvBuilder) b = g_strv_builder_new ();

  if (*devices != NULL)
    g_strv_builder_addv (b, (const char **) *devices);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_strstrip (parts[i]);
      if (*parts[i] == '\0' || strlen (parts[i]) > 64 || strchr (parts[i], '/') != NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("“%s” is not a device name (give names like mlx5_0,rxe1)"), value);
          return FALSE;
        }
      g_strv_builder_add (b, parts[i]);
    }
  g_strfreev (*devices);
  *devices = g_strv_builder_end (b);
  return TRUE;
}

gboolean
rtop_cli_parse_seconds (const char *value, double lo, double hi, double *out)
{
  char *end = NULL;
  double v = g_ascii_strtod (value, &end);

  if (end == value || *end != '\0' || !isfinite (v) || v < lo || v > hi)
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
rtop_cli_parse_interval (const char *value, double *out, GError **error)
{
  if (rtop_cli_parse_seconds (value, RTOP_SAMPLER_MIN_INTERVAL, RTOP_SAMPLER_MAX_INTERVAL, out))
    return TRUE;
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
               _("The interval must be a number of seconds from %.1f to %.0f, not “%s”"),
               RTOP_SAMPLER_MIN_INTERVAL, RTOP_SAMPLER_MAX_INTERVAL, value);
  return FALSE;
}

GOptionContext *
rtop_cli_context_new (const char *name, const char *params, const char *summary,
                      const GOptionEntry *entries, const GOptionEntry *more, gpointer data)
{
  GOptionContext *ctx = g_option_context_new (params);
  GOptionGroup *group = g_option_group_new (name, "", "", data, NULL);

  g_option_group_add_entries (group, entries);
  if (more != NULL)
    g_option_group_add_entries (group, more);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_summary (ctx, summary);
  g_option_context_set_translation_domain (ctx, GETTEXT_PACKAGE);
  return ctx;
}
