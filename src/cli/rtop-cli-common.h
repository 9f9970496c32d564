/* rtop-cli-common.h: argument parsing shared by rdmatop-cli's subcommands. */
#pragma once

#include <glib.h>

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

G_END_DECLS
