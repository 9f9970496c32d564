/* rtop-cli-common.h: argument parsing shared by rdmatop-cli's subcommands. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Adds the comma-separated device names in value to *devices (a GStrv,
 * NULL when empty).  A name that is empty, over 64 bytes or has a '/' is a
 * G_OPTION_ERROR_BAD_VALUE. */
gboolean rtop_cli_add_devices (char ***devices, const char *value, GError **error);

G_END_DECLS
