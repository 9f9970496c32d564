/* rtop-cgroup.h: a process's job, read from its cgroup.
 *
 * /proc/<pid>/cgroup holds one line per hierarchy, "ID:controllers:path":
 * "0::/path" for cgroup v2, and on a v1 or hybrid system one line per
 * mounted v1 hierarchy.  The path says what started the process, in the
 * layouts that Slurm, the kubelet (cgroupfs and systemd drivers), Docker,
 * Podman and systemd make; rtop_cgroup_classify() reads it as that job.
 * Anything readable by the process's owner is readable by anyone, so this
 * needs no privilege. */
#pragma once

#include <glib.h>

#include "rtop-job.h"

G_BEGIN_DECLS

/* The longest path read (the kernel's PATH_MAX), and how many lines of the
 * file are looked at; a longer line is skipped, not cut. */
#define RTOP_CGROUP_PATH_MAX 4096
#define RTOP_CGROUP_LINES_MAX 64
/* How much of /proc/<pid>/cgroup is read. */
#define RTOP_CGROUP_FILE_MAX (16 * 1024)

/* Reads len bytes of /proc/<pid>/cgroup: of all its lines, the job that
 * says most (a Slurm step over a Kubernetes container over a container
 * over a session over a service over a bare path; the v2 line on a tie).
 * FALSE, with out cleared, when no line gives a job. */
gboolean rtop_cgroup_parse (const char *text, gsize len, RtopJob *out);

G_END_DECLS
