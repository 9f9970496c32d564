/* rtop-procfs.h: process details from /proc, cached per (pid, start time).
 *
 * A process with 10,000 QPs costs one /proc read per refresh, not 10,000:
 * the collector calls rtop_proc_cache_lookup once per distinct pid per pass.
 * Static facts (cmdline, user) are read once per (pid, start time); dynamic
 * ones (RSS, threads, state) once per pass.  The job (the cgroup) is a
 * static fact: a process is placed in its cgroup before it runs its
 * program, long before it opens an RDMA device. */
#pragma once

#include <glib.h>

#include "rtop-job.h"

G_BEGIN_DECLS

typedef struct {
  gint32 pid;
  guint64 start_time;        /* stat field 22 */
  char *comm;                /* stat field 2, between the first '(' and the LAST ')' */
  char state;                /* stat field 3 */
  guint32 threads;           /* stat field 20 */
  guint64 rss_bytes;         /* stat field 24 x page size */
  guint32 uid;               /* owner of /proc/<pid> (real uid from status) */
  char *user;                /* getpwuid_r name, or the uid as text */
  char *cmdline;             /* args joined with spaces; NULL when empty (kernel threads) */
  RtopJob job;               /* from cgroup; kind RTOP_JOB_NONE when unreadable */
} RtopProcInfo;

typedef struct _RtopProcCache RtopProcCache;

RtopProcCache *rtop_proc_cache_new (const char *proc_root);  /* "/proc" or a fixture */
void rtop_proc_cache_free (RtopProcCache *self);
/* Starts a pass: entries not looked up during the pass are dropped at the next begin. */
void rtop_proc_cache_begin_pass (RtopProcCache *self);
/* Returns a borrowed info valid until the next begin_pass, or NULL when the
 * process is gone (or exited mid-read). */
const RtopProcInfo *rtop_proc_cache_lookup (RtopProcCache *self, gint32 pid);

/* One process's job, without a cache (a program asking about itself):
 * <proc_root>/<pid>/cgroup ("/proc" when NULL) read as the cache reads it,
 * at most RTOP_CGROUP_FILE_MAX bytes through rtop_cgroup_parse().  TRUE
 * with out set, kind RTOP_JOB_NONE when the file names no job (or the
 * kernel has no cgroups); FALSE with RTOP_ERROR_NO_PROCESS when there is no
 * process pid (any more), RTOP_ERROR_PERMISSION or RTOP_ERROR_IO when the
 * file cannot be read.  pid must be > 0. */
gboolean rtop_proc_read_job (const char *proc_root, gint32 pid, RtopJob *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopProcCache, rtop_proc_cache_free)

G_END_DECLS
