/* rtop-procfs-private.h: what only rtop-procfs.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-procfs.h"

G_BEGIN_DECLS

/* Parses the content of /proc/<pid>/stat. FALSE + RTOP_ERROR_MALFORMED when it does not parse. */
gboolean rtop_proc_parse_stat (const char *text, gsize len, RtopProcInfo *out, GError **error);

/* Joins a NUL-separated cmdline into one string with spaces; NULL for empty. */
char *rtop_proc_parse_cmdline (const char *buf, gsize len);

/* The real uid from the "Uid:" line of a NUL-terminated /proc/<pid>/status. */
gboolean rtop_proc_parse_status_uid (const char *status, guint32 *uid);

/* How many /proc files were read since creation (tests check the caching). */
guint64 rtop_proc_cache_get_n_reads (RtopProcCache *self);

void rtop_proc_info_clear (RtopProcInfo *info);

G_END_DECLS
