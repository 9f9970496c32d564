/* rtop-json.h: a snapshot as JSON, for rdmatop-cli and scripts.
 *
 * Each port's "counters" object holds the netlink hw counters under the
 * kernel's names with the kernel's values, so it compares key by key with
 * `rdma -j statistic show`; sysfs and netdev counters are kept apart. */
#pragma once

#include <json-glib/json-glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* One line, no trailing newline. */
char *rtop_json_snapshot_to_string (const RtopSnapshot *snap, gboolean pretty);

G_END_DECLS
