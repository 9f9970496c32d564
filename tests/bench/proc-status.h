/* proc-status.h: figures of /proc/self/status for the benchmarks. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* kB of a "Name:   1234 kB" line ("VmRSS:", "VmHWM:"); 0 when missing. */
guint64 bench_status_kb (const char *name);

G_END_DECLS
