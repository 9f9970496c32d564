/* rtop-cgroup.c: a process's job from its cgroup path (see rtop-cgroup.h).
 *
 * The path is cut into its components once, in place; each layout is a
 * function that looks for its own marks among them.  What a layout takes
 * from a path (a job id, a pod UID, a container id) is checked against the
 * characters its system uses; a path that only looks like one falls through
 * to the next layout and at last to the path itself, escaped. */
#include "config.h"

#include <string.h>

#include "rtop-cgroup-private.h"
#include "rtop-text.h"

/* A path has at most PATH_MAX / 2 components; deeper ones are not read. */
#define MAX_COMPONENTS 64
#define MAX_ID_LEN 64

typedef struct {
  const char *text;
  gsize len;
} Part;

typedef struct {
  Part parts[MAX_COMPONENTS];
  guint n;
} Path;

/* Container runtimes by the prefix of their systemd scope (or cgroupfs
 * directory): Docker's and Podman's own, and the CRI runtimes the kubelet
 * drives. */
typedef struct {
  const char *prefix;
  const char *runtime;
} Runtime;

static const Runtime runtimes[] = {
  { "docker-", "docker" },
  { "libpod-", "podman" },
  { "cri-containerd-", "containerd" },
  { "crio-", "cri-o" },
  { "cri-dockerd-", "docker" },
};

static gboolean
part_is (const Part *p, const char *word)
{
  return p->len == strlen (word) && memcmp (p->text, word, p->len) == 0;
}

static gboolean
part_starts (const Part *p, const char *prefix)
{
  gsize n = strlen (prefix);

  return p->len >= n && memcmp (p->text, prefix, n) == 0;
}

static gboolean
part_ends (const Part *p, const char *suffix)
{
  gsize n = strlen (suffix);

  return p->len >= n && memcmp (p->text + p->len - n, suffix, n) == 0;
}

/* The part without prefix and suffix (either may be ""); FALSE when it has
 * not both, or nothing is left. */
static gboolean
part_between (const Part *p, const char *prefix, const char *suffix, Part *inner)
{
  gsize a = strlen (prefix), b = strlen (suffix);

  if (p->len <= a + b || !part_starts (p, prefix) || !part_ends (p, suffix))
    return FALSE;
  *inner = (Part) { p->text + a, p->len - a - b };
  return TRUE;
}

static gboolean
part_all (const Part *p, const char *allowed, gsize min_len, gsize max_len)
{
  if (p->len < min_len || p->len > max_len)
    return FALSE;
  for (gsize i = 0; i < p->len; i++)
    if (p->text[i] == '\0' || strchr (allowed, p->text[i]) == NULL)
      return FALSE;
  return TRUE;
}

#define DIGITS "0123456789"
#define HEX "0123456789abcdef"
#define ALNUM DIGITS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

static char *
part_dup (const Part *p)
{
  return g_strndup (p->text, p->len);
}

/* Cuts path into its components; FALSE when it has more than we read. */
static gboolean
split_path (const char *text, gsize len, Path *path)
{
  gsize i = 0;

  path->n = 0;
  while (i < len)
    {
      gsize start;

      while (i < len && text[i] == '/')
        i++;
      if (i == len)
        break;
      if (path->n == MAX_COMPONENTS)
        return FALSE;
      start = i;
      while (i < len && text[i] != '/')
        i++;
      path->parts[path->n++] = (Part) { text + start, i - start };
    }
  return TRUE;
}

/* Slurm: ".../slurm.../uid_N/job_N/step_X/..." (v1, under a "slurm" or
 * "slurm_<node>" directory) and "/system.slice/slurmstepd.scope/job_N/
 * step_X/user/task_N" (v2).  X is a number, "batch", "extern" or
 * "interactive". */
static gboolean
classify_slurm (const Path *path, RtopJob *out)
{
  gboolean under_slurm = FALSE;

  for (guint i = 0; i < path->n; i++)
    {
      Part job, step;
      g_autofree char *id = NULL;
      g_autofree char *detail = NULL;

      if (part_starts (&path->parts[i], "slurm"))
        under_slurm = TRUE;
      if (!under_slurm || !part_between (&path->parts[i], "job_", "", &job) ||
          !part_all (&job, DIGITS, 1, 20))
        continue;
      if (i + 1 < path->n && part_between (&path->parts[i + 1], "step_", "", &step) &&
          (part_all (&step, DIGITS, 1, 20) || part_is (&step, "batch") ||
           part_is (&step, "extern") || part_is (&step, "interactive")))
        detail = part_dup (&step);
      id = part_dup (&job);
      rtop_job_set (out, RTOP_JOB_SLURM, id, detail);
      return TRUE;
    }
  return FALSE;
}

/* A container id: 12 to 64 lower-case hex digits. */
static gboolean
container_id (const Part *p)
{
  return part_all (p, HEX, 12, MAX_ID_LEN);
}

/* The container id in one component: "<runtime prefix><id>.scope",
 * "<runtime prefix><id>" or a bare id (cgroupfs).  runtime may be NULL. */
static gboolean
container_part (const Part *p, Part *id, const char **runtime)
{
  for (gsize r = 0; r < G_N_ELEMENTS (runtimes); r++)
    if ((part_between (p, runtimes[r].prefix, ".scope", id) ||
         part_between (p, runtimes[r].prefix, "", id)) && container_id (id))
      {
        if (runtime != NULL)
          *runtime = runtimes[r].runtime;
        return TRUE;
      }
  *id = *p;
  if (runtime != NULL)
    *runtime = NULL;
  return container_id (id);
}

/* The pod UID of one component: "pod<uid>" (cgroupfs) or
 * "kubepods-<qos>-pod<uid with '_' for '-'>.slice" (systemd). */
static char *
pod_uid (const Part *p)
{
  const char *mark;
  Part uid;
  char *text;

  if (part_between (p, "pod", "", &uid))
    ;
  else if (part_ends (p, ".slice") &&
           (mark = g_strstr_len (p->text, p->len, "-pod")) != NULL)
    uid = (Part) { mark + 4, p->len - (gsize) (mark + 4 - p->text) - strlen (".slice") };
  else
    return NULL;
  if (!part_all (&uid, HEX "-_", 8, MAX_ID_LEN))
    return NULL;
  text = part_dup (&uid);
  g_strdelimit (text, "_", '-');
  return text;
}

/* Kubernetes: a "kubepods" directory or slice, then the pod, then the
 * container (absent for the pod's own cgroup). */
static gboolean
classify_kubernetes (const Path *path, RtopJob *out)
{
  gboolean under_kubepods = FALSE;

  for (guint i = 0; i < path->n; i++)
    {
      const Part *p = &path->parts[i];
      g_autofree char *uid = NULL;
      g_autofree char *container = NULL;
      Part id;

      if (part_starts (p, "kubepods") || g_strstr_len (p->text, p->len, "-kubepods") != NULL)
        under_kubepods = TRUE;
      if (!under_kubepods || (uid = pod_uid (p)) == NULL)
        continue;
      if (i + 1 < path->n && container_part (&path->parts[i + 1], &id, NULL))
        container = part_dup (&id);
      rtop_job_set (out, RTOP_JOB_KUBERNETES, uid, container);
      return TRUE;
    }
  return FALSE;
}

/* Docker and Podman on their own: "docker-<id>.scope", "libpod-<id>.scope"
 * (systemd), "/docker/<id>" and "/libpod_parent/libpod-<id>" (cgroupfs).
 * The outermost container is the one this host started. */
static gboolean
classify_container (const Path *path, RtopJob *out)
{
  for (guint i = 0; i < path->n; i++)
    {
      const char *runtime = NULL;
      g_autofree char *id = NULL;
      Part inner;

      if (!container_part (&path->parts[i], &inner, &runtime))
        continue;
      if (runtime == NULL && i > 0 && part_is (&path->parts[i - 1], "docker"))
        runtime = "docker";
      if (runtime == NULL)
        continue;
      id = part_dup (&inner);
      rtop_job_set (out, RTOP_JOB_CONTAINER, id, runtime);
      return TRUE;
    }
  return FALSE;
}

/* A login session: "/user.slice/user-<uid>.slice/session-<id>.scope". */
static gboolean
classify_session (const Path *path, RtopJob *out)
{
  for (guint i = 1; i < path->n; i++)
    {
      Part uid, session;
      g_autofree char *id = NULL;
      g_autofree char *detail = NULL;

      if (!part_between (&path->parts[i - 1], "user-", ".slice", &uid) ||
          !part_all (&uid, DIGITS, 1, 10) ||
          !part_between (&path->parts[i], "session-", ".scope", &session) ||
          !part_all (&session, ALNUM, 1, 32))
        continue;
      id = part_dup (&session);
      detail = part_dup (&uid);
      rtop_job_set (out, RTOP_JOB_SESSION, id, detail);
      return TRUE;
    }
  return FALSE;
}

/* A systemd service: the innermost "<name>.service" (a user's service
 * under "user@1000.service" is that service, not the user manager). */
static gboolean
classify_service (const Path *path, RtopJob *out)
{
  for (guint i = path->n; i > 0; i--)
    {
      const Part *p = &path->parts[i - 1];
      g_autofree char *name = NULL;

      if (p->len <= strlen (".service") || !part_ends (p, ".service"))
        continue;
      name = rtop_text_escape (p->text, p->len, RTOP_JOB_TEXT_MAX);
      rtop_job_set (out, RTOP_JOB_SERVICE, name, NULL);
      return TRUE;
    }
  return FALSE;
}

typedef gboolean (*ClassifyFunc) (const Path *path, RtopJob *out);

/* The layouts, most specific first: a Slurm step runs in a service's
 * cgroup, a pod's container in a container runtime's scope. */
static const ClassifyFunc layouts[] = {
  classify_slurm,
  classify_kubernetes,
  classify_container,
  classify_session,
  classify_service,
};

void
rtop_cgroup_classify (const char *text, gsize len, RtopJob *out)
{
  Path path;
  g_autofree char *escaped = NULL;

  g_return_if_fail (out != NULL);
  rtop_job_clear (out);
  if (text == NULL || len == 0 || len > RTOP_CGROUP_PATH_MAX ||
      memchr (text, '\0', len) != NULL)
    return;
  if (split_path (text, len, &path))
    for (gsize i = 0; i < G_N_ELEMENTS (layouts); i++)
      if (layouts[i] (&path, out))
        return;
  escaped = rtop_text_escape (text, len, RTOP_JOB_TEXT_MAX);
  rtop_job_set (out, RTOP_JOB_CGROUP, escaped, NULL);
}

/* One line's path: after the second ':' ("0::/a", "4:cpu,cpuacct:/a",
 * "1:name=systemd:/a").  The hierarchy id must be a number. */
static gboolean
line_path (const char *line, gsize len, const char **path, gsize *path_len, gboolean *v2)
{
  const char *first = memchr (line, ':', len);
  const char *second;
  Part id;

  if (first == NULL)
    return FALSE;
  second = memchr (first + 1, ':', len - (gsize) (first + 1 - line));
  id = (Part) { line, (gsize) (first - line) };
  if (second == NULL || !part_all (&id, DIGITS, 1, 10))
    return FALSE;
  *v2 = part_is (&id, "0") && second == first + 1;
  *path = second + 1;
  *path_len = len - (gsize) (second + 1 - line);
  return *path_len > 0 && **path == '/';
}

/* Keeps in best the job that says more (a higher kind), a v2 line's on a tie. */
static void
keep_best (RtopJob *best, gboolean *best_v2, RtopJob *job, gboolean v2)
{
  if (job->kind == RTOP_JOB_NONE)
    return;
  if (job->kind > best->kind || (job->kind == best->kind && v2 && !*best_v2))
    {
      rtop_job_clear (best);
      *best = *job;
      *job = (RtopJob) { 0 };
      *best_v2 = v2;
    }
}

gboolean
rtop_cgroup_parse (const char *text, gsize len, RtopJob *out)
{
  gsize pos = 0;
  gboolean best_v2 = FALSE;

  g_return_val_if_fail (out != NULL, FALSE);
  rtop_job_clear (out);
  if (text == NULL)
    return FALSE;
  for (guint n = 0; n < RTOP_CGROUP_LINES_MAX && pos < len; n++)
    {
      const char *line = text + pos;
      const char *nl = memchr (line, '\n', len - pos);
      gsize line_len = nl ? (gsize) (nl - line) : len - pos;
      const char *path;
      gsize path_len;
      gboolean v2;
      RtopJob job = { 0 };

      pos += line_len + 1;
      if (!line_path (line, line_len, &path, &path_len, &v2))
        continue;
      rtop_cgroup_classify (path, path_len, &job);
      keep_best (out, &best_v2, &job, v2);
      rtop_job_clear (&job);
    }
  return out->kind != RTOP_JOB_NONE;
}
