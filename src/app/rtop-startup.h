/* rtop-startup.h: where start-up time goes, for tests/bench.
 *
 * Under RDMATOP_REPORT_STARTUP=1 each mark prints, on stderr,
 *   rdmatop: startup-phase NAME ms=N
 * N counting from the process's start (as startup-ms does); otherwise a
 * mark costs one cached getenv. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean rtop_startup_reporting (void);
/* Milliseconds since the process started (CLOCK_BOOTTIME against
 * /proc/self/stat's start time), or a negative number. */
double rtop_startup_elapsed_ms (void);
void rtop_startup_mark (const char *phase);

G_END_DECLS
