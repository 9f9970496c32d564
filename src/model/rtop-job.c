/* rtop-job.c: the job a process belongs to (see rtop-job.h). */
#include "config.h"

#include <string.h>

#include "rtop-job.h"
#include "rtop-text.h"

/* Indexed by RtopJobKind. */
static const char *const kind_names[RTOP_JOB_N_KINDS] = {
  [RTOP_JOB_NONE] = NULL,
  [RTOP_JOB_CGROUP] = "cgroup",
  [RTOP_JOB_SESSION] = "session",
  [RTOP_JOB_SERVICE] = "service",
  [RTOP_JOB_CONTAINER] = "container",
  [RTOP_JOB_KUBERNETES] = "kubernetes",
  [RTOP_JOB_SLURM] = "slurm",
};

/* A container id is shown by its first twelve characters, as docker ps does. */
#define SHORT_ID_LEN 12

const char *
rtop_job_kind_to_string (RtopJobKind kind)
{
  if ((guint) kind >= RTOP_JOB_N_KINDS)
    return NULL;
  return kind_names[kind];
}

RtopJobKind
rtop_job_kind_from_string (const char *name)
{
  if (name == NULL)
    return RTOP_JOB_NONE;
  for (guint k = RTOP_JOB_NONE + 1; k < RTOP_JOB_N_KINDS; k++)
    if (strcmp (kind_names[k], name) == 0)
      return k;
  return RTOP_JOB_NONE;
}

static char *
short_id (const char *id)
{
  return g_utf8_substring (id, 0, MIN ((glong) SHORT_ID_LEN, g_utf8_strlen (id, -1)));
}

static char *
make_name (RtopJobKind kind, const char *id, const char *detail)
{
  g_autofree char *shortened = NULL;
  g_autofree char *name = NULL;

  switch (kind)
    {
    case RTOP_JOB_SLURM:
      name = detail ? g_strdup_printf ("slurm %s.%s", id, detail) : g_strdup_printf ("slurm %s", id);
      break;
    case RTOP_JOB_KUBERNETES:
      shortened = detail ? short_id (detail) : NULL;
      name = shortened ? g_strdup_printf ("pod %s/%s", id, shortened) : g_strdup_printf ("pod %s", id);
      break;
    case RTOP_JOB_CONTAINER:
      shortened = short_id (id);
      name = g_strdup_printf ("%s %s", detail ? detail : "container", shortened);
      break;
    case RTOP_JOB_SESSION:
      name = g_strdup_printf ("session %s", id);
      break;
    case RTOP_JOB_SERVICE:
    case RTOP_JOB_CGROUP:
    case RTOP_JOB_NONE:
    case RTOP_JOB_N_KINDS:
    default:
      name = g_strdup (id);
      break;
    }
  return rtop_text_make_safe (name, RTOP_JOB_TEXT_MAX);
}

void
rtop_job_clear (RtopJob *job)
{
  if (job == NULL)
    return;
  g_clear_pointer (&job->id, g_free);
  g_clear_pointer (&job->detail, g_free);
  g_clear_pointer (&job->name, g_free);
  job->kind = RTOP_JOB_NONE;
}

char *
rtop_job_whole_name (const RtopJob *job)
{
  if (job == NULL || job->kind == RTOP_JOB_NONE || job->id == NULL)
    return NULL;
  if (job->kind == RTOP_JOB_SLURM || job->kind == RTOP_JOB_KUBERNETES)
    return make_name (job->kind, job->id, NULL);
  return g_strdup (job->name);
}

void
rtop_job_set (RtopJob *job, RtopJobKind kind, const char *id, const char *detail)
{
  g_autofree char *safe_id = NULL;
  g_autofree char *safe_detail = NULL;

  g_return_if_fail (job != NULL);
  /* The parts may be the job's own: make the copies before clearing it. */
  safe_id = rtop_text_make_safe (id, RTOP_JOB_TEXT_MAX);
  safe_detail = detail != NULL && *detail != '\0'
                  ? rtop_text_make_safe (detail, RTOP_JOB_TEXT_MAX) : NULL;
  rtop_job_clear (job);
  if (rtop_job_kind_to_string (kind) == NULL || safe_id == NULL || *safe_id == '\0')
    return;
  job->kind = kind;
  job->name = make_name (kind, safe_id, safe_detail);
  job->id = g_steal_pointer (&safe_id);
  job->detail = g_steal_pointer (&safe_detail);
}

void
rtop_job_copy (RtopJob *dest, const RtopJob *src)
{
  g_return_if_fail (dest != NULL && src != NULL);
  if (dest == src)
    return;
  rtop_job_clear (dest);
  dest->kind = src->kind;
  dest->id = g_strdup (src->id);
  dest->detail = g_strdup (src->detail);
  dest->name = g_strdup (src->name);
}

gboolean
rtop_job_equal (const RtopJob *a, const RtopJob *b)
{
  return a->kind == b->kind && g_strcmp0 (a->id, b->id) == 0 &&
         g_strcmp0 (a->detail, b->detail) == 0;
}
