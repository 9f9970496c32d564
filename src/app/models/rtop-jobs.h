/* rtop-jobs.h: the jobs that use RDMA on the hosts in reach, and what each
 * holds: its processes and the ports its queue pairs use.
 *
 * A job is what a process's cgroup says (rtop-job.h): a Slurm job (its
 * steps together, on every host that runs it), a Kubernetes pod, a
 * container, a service, a login session.  The rails view narrows to a
 * job's ports and the job page lists what it holds; both ask for the
 * jobs anew from the hosts' newest snapshots.  No widgets here. */
#pragma once

#include <glib.h>
#include "rtop-history.h"

G_BEGIN_DECLS

/* At most this many jobs are collected (the rest are not listed). */
#define RTOP_JOBS_MAX 4096

/* One of a job's processes, as its job page lists it. */
typedef struct {
  char *host;                /* "" for this computer */
  char *key;                 /* rtop_process_item_key_for() */
  gint32 pid;
  char *comm;
  char *command;             /* the command line when readable, else comm */
  char *user;
  char *part;                /* translated: "step 0", "container 0a1b…", or NULL */
  char *devices;             /* "mlx5_0, mlx5_1" */
  guint32 qps, mrs;
  guint64 mr_bytes;
} RtopJobProcess;

/* What a job holds on one device of one host: summed over its processes. */
typedef struct {
  char *host;                /* "" for this computer */
  char *device;
  guint32 qps, mrs;
  guint64 mr_bytes;
  GArray *ports;             /* guint32, the port numbers its queue pairs use, ascending */
} RtopJobDevice;

typedef struct {
  RtopJobKind kind;
  char *id;                  /* the Slurm job id, the pod UID, ... */
  char *key;                 /* "slurm/1234": steps and hosts of one job share it */
  char *title;               /* translated: "Slurm job 1234", "Pod 0f7f…" */
  GPtrArray *hosts;          /* char*, the hosts it runs on ("" for this computer), in
                                the history's order */
  GPtrArray *port_keys;      /* char*, rtop_port_item_key_for() of the ports its queue
                                pairs use, by host then natural order */
  GPtrArray *process_keys;   /* char*, rtop_process_item_key_for() of its processes */
  guint32 qps, mrs;          /* totals over its processes */
  guint64 mr_bytes;
  GPtrArray *processes;      /* RtopJobProcess*, by host then pid */
  GPtrArray *devices;        /* RtopJobDevice*, by host then the devices' natural order */
} RtopJobSummary;

/* The jobs with a process on a host in reach (from each host's newest
 * snapshot), sorted by title; kernel-owned resources are no job.
 * RtopJobSummary*, free with g_ptr_array_unref. */
GPtrArray *rtop_jobs_collect (RtopHistory *history);
/* The job with this key in jobs, or NULL (transfer none). */
RtopJobSummary *rtop_jobs_find (GPtrArray *jobs, const char *key);
/* "slurm/1234" for a process's job; NULL when it has none. */
char *rtop_jobs_key_for (const RtopJob *job);
/* A whole job in words, translated ("Slurm job 1234", "Pod 0f7f…"), or NULL. */
char *rtop_jobs_title_for (RtopJobKind kind, const char *id);
/* What kind of job it is, in words, translated ("Slurm job", "Kubernetes pod"). */
const char *rtop_jobs_kind_name (RtopJobKind kind);
/* Whether job's queue pairs use the port with this key. */
gboolean rtop_job_summary_uses_port (const RtopJobSummary *job, const char *port_key);

G_END_DECLS
