/* rtop-job.h: the job a process belongs to, as its cgroup says.
 *
 * People debug jobs, not pids: a Slurm job step, a Kubernetes pod's
 * container, a Docker or Podman container, a systemd service or a user's
 * login session.  The kernel readers work the job out of a process's
 * cgroup path (rtop-cgroup.h); the snapshot, the stream, recordings, the
 * JSON and the exporter carry it as these three texts and a kind. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bound, in bytes of escaped text, of a job's id, detail and name. */
#define RTOP_JOB_TEXT_MAX 512

typedef enum {
  RTOP_JOB_NONE = 0,     /* not known: no cgroup read, or not sent */
  RTOP_JOB_CGROUP,       /* a cgroup that means nothing more: id is its path */
  RTOP_JOB_SESSION,      /* a user's login session: id "3", detail the uid */
  RTOP_JOB_SERVICE,      /* a systemd service: id "foo.service" */
  RTOP_JOB_CONTAINER,    /* id the container id, detail the runtime ("docker") */
  RTOP_JOB_KUBERNETES,   /* id the pod UID, detail the container id or NULL */
  RTOP_JOB_SLURM,        /* id the job id, detail the step ("0", "batch") or NULL */
  RTOP_JOB_N_KINDS,
} RtopJobKind;

typedef struct {
  RtopJobKind kind;
  char *id;              /* NULL for RTOP_JOB_NONE */
  char *detail;          /* NULL when the kind has none or the path says none */
  char *name;            /* short, language-neutral: "slurm 1234.0", "pod <uid>" */
} RtopJob;

/* "slurm", "kubernetes", "container", "service", "session", "cgroup";
 * NULL for RTOP_JOB_NONE and out-of-range kinds.  Stable: JSON, recordings
 * and the exporter's label use them. */
const char *rtop_job_kind_to_string (RtopJobKind kind);
/* RTOP_JOB_NONE for NULL or an unknown name. */
RtopJobKind rtop_job_kind_from_string (const char *name);

/* Sets job from its parts, each made safe (rtop_text_make_safe) and
 * bounded; the name is worked out from them.  RTOP_JOB_NONE, or a kind
 * with a NULL or empty id, clears the job. */
void rtop_job_set (RtopJob *job, RtopJobKind kind, const char *id, const char *detail);
void rtop_job_copy (RtopJob *dest, const RtopJob *src);
void rtop_job_clear (RtopJob *job);
/* Same kind, id and detail. */
gboolean rtop_job_equal (const RtopJob *a, const RtopJob *b);
/* The name of the whole job a part belongs to: a Slurm job without its
 * step ("slurm 1234"), a pod without its container ("pod <uid>"); other
 * kinds have no parts (their name).  NULL for RTOP_JOB_NONE.  Free it. */
char *rtop_job_whole_name (const RtopJob *job);

G_END_DECLS
