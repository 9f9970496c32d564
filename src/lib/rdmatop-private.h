/* rdmatop-private.h: what only rdmatop.c and the tests use.  Nothing here
 * is exported from librdmatop; the tests link rdmatop.c's object. */
#pragma once

#include "rdmatop.h"

/* rdmatop_job_of_process() reading proc_root/<pid>/cgroup instead of
 * /proc/<pid>/cgroup: a fixture tree laid out like /proc. */
rdmatop_status rdmatop_job_of_process_at (const char *proc_root, int32_t pid, rdmatop_job **out);
