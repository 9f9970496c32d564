/* fuzz-cgroup.c: libFuzzer target for /proc/<pid>/cgroup.
 *
 * A process's owner names its cgroups (a user may make any directory under
 * its delegated subtree), so the file is outside text.  The input goes, from
 * a heap buffer of exactly its size, to the file parser and, whole, to the
 * path classifier; every job that comes out must have a known kind, an id,
 * and texts that rtop-text.h calls safe (judged again by the independent
 * oracle of support/text-oracle.h), within their bound. */
#include <string.h>

#include "rtop-cgroup-private.h"
#include "rtop-text.h"
#include "support/text-oracle.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
check_text (const char *text)
{
  if (text == NULL)
    return;
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpuint (strlen (text), <=, RTOP_JOB_TEXT_MAX);
  g_assert_true (text_oracle_is_safe (text, RTOP_JOB_TEXT_MAX));
  g_assert_true (rtop_text_is_safe (text, RTOP_JOB_TEXT_MAX));
}

static void
check_job (const RtopJob *job)
{
  g_assert_cmpint (job->kind, >=, RTOP_JOB_NONE);
  g_assert_cmpint (job->kind, <, RTOP_JOB_N_KINDS);
  if (job->kind == RTOP_JOB_NONE)
    {
      g_assert_null (job->id);
      g_assert_null (job->name);
      return;
    }
  g_assert_nonnull (job->id);
  g_assert_cmpstr (job->id, !=, "");
  g_assert_nonnull (job->name);
  check_text (job->id);
  check_text (job->detail);
  check_text (job->name);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *exact = g_memdup2 (data, size);
  RtopJob job = { 0 };
  gboolean found;

  found = rtop_cgroup_parse (exact, size, &job);
  g_assert_true (found == (job.kind != RTOP_JOB_NONE));
  check_job (&job);
  rtop_cgroup_classify (exact, size, &job);
  check_job (&job);
  /* A path that is no job is one past the bounds or with a NUL in it. */
  if (job.kind == RTOP_JOB_NONE)
    g_assert_true (size == 0 || size > RTOP_CGROUP_PATH_MAX || memchr (exact, '\0', size) != NULL);
  rtop_job_clear (&job);
  return 0;
}
