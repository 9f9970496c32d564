/* rtop-askpass-private.h: the sweep of folders left behind, for tests. */
#pragma once

#include "rtop-askpass.h"

G_BEGIN_DECLS

/* At most this many rdmatop-askpass-* folders are looked at per sweep. */
#define RTOP_ASKPASS_SWEEP_MAX 256
/* Removes the rdmatop-askpass-XXXXXX folders in runtime_dir that are ours
 * and whose socket nobody listens on (left by an rdmatop that was killed);
 * returns how many.  Blocks on the file system: rtop_askpass_new() runs it
 * on a worker thread. */
guint rtop_askpass_sweep_stale (const char *runtime_dir);

G_END_DECLS
