/* rtop-cgroup-private.h: what only rtop-cgroup.c and the tests use. */
#pragma once

#include "rtop-cgroup.h"

G_BEGIN_DECLS

/* Reads len bytes of one cgroup path (not NUL-terminated) as a job into
 * out (cleared first).  Every path gives a job: RTOP_JOB_CGROUP with the
 * escaped path when no layout matches; RTOP_JOB_NONE only for an empty or
 * over-long path. */
void rtop_cgroup_classify (const char *path, gsize len, RtopJob *out);

G_END_DECLS
