/* rtop-cli-common.h: argument parsing shared by rdmatop-cli's subcommands. */
#pragma once

#include <glib.h>
#include <glib/gi18n.h>

G_BEGIN_DECLS

/* Adds the comma-separated device names in value to *devices (a GStrv,
 * NULL when empty).  A name that is empty, over 64 bytes or has a '/' is a
 * G_OPTION_ERROR_BAD_VALUE. */
gboolean rtop_cli_add_devices (char ***devices, const char *value, GError **error);

/* A number of seconds, the whole of value (no unit, finite), from lo to hi. */
gboolean rtop_cli_parse_seconds (const char *value, double lo, double hi, double *out);
/* A sampling interval (--interval): seconds from RTOP_SAMPLER_MIN_INTERVAL
 * to RTOP_SAMPLER_MAX_INTERVAL, else G_OPTION_ERROR_BAD_VALUE with a
 * sentence that gives the range. */
gboolean rtop_cli_parse_interval (const char *value, double *out, GError **error);

/* The options more than one subcommand takes, each declared once with its
 * help text.  The callback or flag is the subcommand's own. */
#define RTOP_CLI_DEVICE_OPTION(callback) \
  { "device", 'd', 0, G_OPTION_ARG_CALLBACK, (gpointer) (callback), \
    N_("Only these devices (comma-separated; repeatable)"), N_("NAME,...") }
#define RTOP_CLI_NO_PROCESSES_OPTION(flag) \
  { "no-processes", 0, 0, G_OPTION_ARG_NONE, (flag), \
    N_("Do not list processes (skips the resource dumps)"), NULL }
#define RTOP_CLI_NO_GPU_OPTION(flag) \
  { "no-gpu", 0, 0, G_OPTION_ARG_NONE, (flag), \
    N_("Do not read GPU interconnects (NVLink, XGMI)"), NULL }

/* A subcommand's option context: one main group named name with entries
 * and, when not NULL, more (both NULL-terminated; callbacks get data),
 * translated in rdmatop's domain, with summary under the usage line. */
GOptionContext *rtop_cli_context_new (const char *name, const char *params, const char *summary,
                                      const GOptionEntry *entries, const GOptionEntry *more,
                                      gpointer data);

G_END_DECLS
