/* test-librdmatop-job.c: rdmatop_job_of_process() against the collector's
 * own reading of the same file.
 *
 * Linked with librdmatop's object (rdmatop.c as built for the library) and
 * the core, so the answer for this process and a child can be set against
 * rtop_cgroup_parse() of /proc/<pid>/cgroup read here (whatever container
 * or CI runner this runs in), and rdmatop_job_of_process_at()
 * (rdmatop-private.h) can read fixture trees laid out like /proc: a Slurm
 * step's file, an empty one, none, a process that is not there, a file
 * past the bound.  test-librdmatop.c checks the installed library's
 * answers from outside. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "rdmatop-private.h"
#include "rtop-cgroup.h"

static const char *
fixture_proc (void)
{
  return g_test_get_filename (G_TEST_DIST, "fixtures", "proc", NULL);
}

/* The library's answer equals rtop_cgroup_parse() of the file, or NO_JOB
 * when the parse finds none. */
static void
assert_job_is_parse (int32_t pid, const char *cgroup_path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  RtopJob want = { 0 };
  rdmatop_job *job = NULL;
  rdmatop_status status;

  g_assert_true (g_file_get_contents (cgroup_path, &text, &len, NULL));
  status = rdmatop_job_of_process (pid, &job);
  if (!rtop_cgroup_parse (text, MIN (len, RTOP_CGROUP_FILE_MAX), &want))
    {
      g_assert_cmpint (status, ==, RDMATOP_ERROR_NO_JOB);
      g_assert_null (job);
      return;
    }
  g_assert_cmpint (status, ==, RDMATOP_OK);
  g_assert_nonnull (job);
  g_test_message ("%s: %s", cgroup_path, rdmatop_job_name (job));
  g_assert_cmpstr (rdmatop_job_kind (job), ==, rtop_job_kind_to_string (want.kind));
  g_assert_cmpstr (rdmatop_job_id (job), ==, want.id);
  g_assert_cmpstr (rdmatop_job_detail (job), ==, want.detail);
  g_assert_cmpstr (rdmatop_job_name (job), ==, want.name);
  rdmatop_job_free (job);
  rtop_job_clear (&want);
}

static void
test_self (void)
{
  g_autofree char *mine = g_strdup_printf ("/proc/%d/cgroup", (int) getpid ());

  assert_job_is_parse (0, "/proc/self/cgroup");
  assert_job_is_parse (getpid (), mine);
}

/* A child put in no cgroup of its own is where its parent is: the same
 * job, and its own file says so. */
static void
test_child (void)
{
  g_autofree char *path = NULL;
  rdmatop_job *parent = NULL, *child_job = NULL;
  pid_t child = fork ();

  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  path = g_strdup_printf ("/proc/%d/cgroup", (int) child);
  assert_job_is_parse (child, path);
  if (rdmatop_job_of_process (0, &parent) == RDMATOP_OK)
    {
      g_assert_cmpint (rdmatop_job_of_process (child, &child_job), ==, RDMATOP_OK);
      g_assert_cmpstr (rdmatop_job_name (child_job), ==, rdmatop_job_name (parent));
      g_assert_cmpstr (rdmatop_job_kind (child_job), ==, rdmatop_job_kind (parent));
      rdmatop_job_free (child_job);
      rdmatop_job_free (parent);
    }
  g_assert_cmpint (kill (child, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  /* Reaped: unless its pid was taken at once, it is no process. */
  if (kill (child, 0) != 0 && errno == ESRCH)
    {
      g_assert_cmpint (rdmatop_job_of_process (child, &child_job), ==, RDMATOP_ERROR_NO_PROCESS);
      g_assert_null (child_job);
    }
}

static void
test_bad_pid (void)
{
  rdmatop_job *job = (rdmatop_job *) 1;
  g_autofree char *said = NULL;

  g_assert_cmpint (rdmatop_job_of_process (-1, &job), ==, RDMATOP_ERROR_INVALID_ARGUMENT);
  g_assert_null (job);
  g_assert_nonnull (strstr (rdmatop_last_error (), "-1"));
  g_assert_cmpint (rdmatop_job_of_process (G_MININT32, &job), ==, RDMATOP_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (rdmatop_job_of_process (0, NULL), ==, RDMATOP_ERROR_INVALID_ARGUMENT);
  /* No pid is that high (pid_max is at most 2^22). */
  g_assert_cmpint (rdmatop_job_of_process (G_MAXINT32, &job), ==, RDMATOP_ERROR_NO_PROCESS);
  g_assert_null (job);
  said = g_strdup_printf ("%d", G_MAXINT32);
  g_assert_nonnull (strstr (rdmatop_last_error (), said));
  g_assert_null (rdmatop_job_kind (NULL));
  g_assert_null (rdmatop_job_id (NULL));
  g_assert_null (rdmatop_job_detail (NULL));
  g_assert_null (rdmatop_job_name (NULL));
  rdmatop_job_free (NULL);
}

/* tests/fixtures/proc/4646: a Slurm step on cgroup v1, through the file. */
static void
test_fixture_slurm (void)
{
  rdmatop_job *job = NULL;

  g_assert_cmpint (rdmatop_job_of_process_at (fixture_proc (), 4646, &job), ==, RDMATOP_OK);
  g_assert_cmpstr (rdmatop_job_kind (job), ==, "slurm");
  g_assert_cmpstr (rdmatop_job_id (job), ==, "1234");
  g_assert_cmpstr (rdmatop_job_detail (job), ==, "0");
  g_assert_cmpstr (rdmatop_job_name (job), ==, "slurm 1234.0");
  rdmatop_job_free (job);
}

static void
write_cgroup (const char *root, int pid, const char *text)
{
  g_autofree char *dir = g_strdup_printf ("%s/%d", root, pid);
  g_autofree char *path = g_build_filename (dir, "cgroup", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
}

static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

/* What a process in no job, no process, and a file past the bound give. */
static void
test_fixture_edges (void)
{
  g_autofree char *root = g_dir_make_tmp ("rtop-libjob-XXXXXX", NULL);
  g_autofree char *no_file = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *filler = g_strnfill (4000, 'a');
  rdmatop_job *job = NULL;

  g_assert_nonnull (root);
  /* An empty file names no job. */
  write_cgroup (root, 10, "");
  g_assert_cmpint (rdmatop_job_of_process_at (root, 10, &job), ==, RDMATOP_ERROR_NO_JOB);
  g_assert_null (job);
  g_assert_nonnull (strstr (rdmatop_last_error (), "10"));
  /* A process without the file (a kernel without cgroups): no job. */
  no_file = g_build_filename (root, "11", NULL);
  g_assert_cmpint (g_mkdir (no_file, 0755), ==, 0);
  g_assert_cmpint (rdmatop_job_of_process_at (root, 11, &job), ==, RDMATOP_ERROR_NO_JOB);
  /* No such process. */
  g_assert_cmpint (rdmatop_job_of_process_at (root, 12, &job), ==, RDMATOP_ERROR_NO_PROCESS);
  g_assert_null (job);
  /* Only the first RTOP_CGROUP_FILE_MAX bytes are read: a Slurm line
   * after 20 KB of long paths is not seen, one before them is. */
  for (int i = 0; i < 5; i++)
    g_string_append_printf (big, "%d:c%d:/%s\n", i + 1, i, filler);
  g_assert_cmpuint (big->len, >, RTOP_CGROUP_FILE_MAX);
  write_cgroup (root, 14, "0::/system.slice/slurmstepd.scope/job_77/step_1/user/task_0\n");
  g_string_append (big, "0::/system.slice/slurmstepd.scope/job_77/step_1/user/task_0\n");
  write_cgroup (root, 13, big->str);
  g_assert_cmpint (rdmatop_job_of_process_at (root, 13, &job), ==, RDMATOP_OK);
  g_assert_cmpstr (rdmatop_job_kind (job), ==, "cgroup");
  rdmatop_job_free (job);
  g_string_prepend (big, "0::/system.slice/slurmstepd.scope/job_77/step_1/user/task_0\n");
  write_cgroup (root, 15, big->str);
  g_assert_cmpint (rdmatop_job_of_process_at (root, 15, &job), ==, RDMATOP_OK);
  g_assert_cmpstr (rdmatop_job_name (job), ==, "slurm 77.1");
  rdmatop_job_free (job);
  g_assert_cmpint (rdmatop_job_of_process_at (root, 14, &job), ==, RDMATOP_OK);
  g_assert_cmpstr (rdmatop_job_name (job), ==, "slurm 77.1");
  rdmatop_job_free (job);
  /* A file this user may not read (root reads anything). */
  if (geteuid () != 0)
    {
      g_autofree char *locked = g_build_filename (root, "14", "cgroup", NULL);

      g_assert_cmpint (g_chmod (locked, 0), ==, 0);
      g_assert_cmpint (rdmatop_job_of_process_at (root, 14, &job), ==, RDMATOP_ERROR_PERMISSION);
      g_assert_null (job);
    }
  remove_tree (root);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/lib/job/self", test_self);
  g_test_add_func ("/lib/job/child", test_child);
  g_test_add_func ("/lib/job/bad-pid", test_bad_pid);
  g_test_add_func ("/lib/job/fixture-slurm", test_fixture_slurm);
  g_test_add_func ("/lib/job/fixture-edges", test_fixture_edges);
  return g_test_run ();
}
