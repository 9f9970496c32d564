/* test-procfs.c: /proc parsing and the per-(pid, start time) cache, on
 * fixture trees (tests/fixtures/proc) and on the real /proc for this test
 * process and a child that exits. */
#include "config.h"

#include <pwd.h>
#include <sys/prctl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "rtop-error.h"
#include "rtop-procfs-private.h"
#include "rtop-text.h"

static const char *
fixture_proc (void)
{
  return g_test_get_filename (G_TEST_DIST, "fixtures", "proc", NULL);
}

static char *
read_fixture (const char *pid, const char *name, gsize *len)
{
  g_autofree char *path = g_build_filename (fixture_proc (), pid, name, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, len, NULL));
  return text;
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

/* A private /proc-like tree the test may change. */
static char *
make_proc_tree (void)
{
  return g_dir_make_tmp ("rtop-proc-XXXXXX", NULL);
}

static void
write_proc_file (const char *root, gint32 pid, const char *name, const char *text, gssize len)
{
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);
  g_autofree char *dir = g_build_filename (root, pid_text, NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, text, len, NULL));
}

static void
write_stat (const char *root, gint32 pid, const char *comm, guint64 start)
{
  g_autofree char *stat = g_strdup_printf (
      "%d (%s) S 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 2 0 %" G_GUINT64_FORMAT
      " 1000 50 18446744073709551615 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
      pid, comm, pid, pid, start);

  write_proc_file (root, pid, "stat", stat, -1);
}

static void
remove_proc_file (const char *root, gint32 pid, const char *name)
{
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);
  g_autofree char *path = g_build_filename (root, pid_text, name, NULL);

  g_assert_cmpint (g_unlink (path), ==, 0);
}

static void
test_parse_stat_weird_comm (void)
{
  gsize len;
  g_autofree char *text = read_fixture ("4242", "stat", &len);
  RtopProcInfo info = { 0 };
  GError *error = NULL;

  g_assert_true (rtop_proc_parse_stat (text, len, &info, &error));
  g_assert_no_error (error);
  g_assert_cmpint (info.pid, ==, 4242);
  g_assert_cmpstr (info.comm, ==, "my (weird) prog)");
  g_assert_cmpint (info.state, ==, 'S');
  g_assert_cmpuint (info.threads, ==, 3);
  g_assert_cmpuint (info.start_time, ==, 123456);
  g_assert_cmpuint (info.rss_bytes, ==, 1234 * (guint64) sysconf (_SC_PAGESIZE));
  rtop_proc_info_clear (&info);
}

static void
test_parse_stat_garbage (void)
{
  /* In these lines the number k after the state is stat field k + 3:
   * threads is "17", start time "19", rss "21". */
  static const char * const bad[] = {
    "",
    "4444 this is not a stat line\n",
    "4545 (short) S 1 4545 4545 0 -1\n",
    "(nopid) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",
    "-3 (neg) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",
    "12 (x S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",  /* no ')' */
    "12 x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",  /* no '(' */
    "12 (x) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",
    "12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 -2 18 19 20 21 22\n", /* threads < 0 */
    "12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 abc 20 21 22\n",  /* start time */
    "12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 99999999999999999999999 22\n", /* rss */
    "99999999999 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      RtopProcInfo info = { 0 };
      g_autoptr(GError) error = NULL;

      g_test_message ("case %u", i);
      g_assert_false (rtop_proc_parse_stat (bad[i], strlen (bad[i]), &info, &error));
      g_assert_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED);
      g_assert_null (info.comm);
    }

  /* An embedded NUL, and text longer than any stat file. */
  {
    static const char nul[] = "12 (x\0y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22";
    g_autofree char *huge = g_strnfill (100000, '1');
    RtopProcInfo info = { 0 };

    g_assert_false (rtop_proc_parse_stat (nul, sizeof nul - 1, &info, NULL));
    g_assert_false (rtop_proc_parse_stat (huge, strlen (huge), &info, NULL));
    g_assert_false (rtop_proc_parse_stat (NULL, 0, &info, NULL));
  }
}

static void
test_parse_cmdline (void)
{
  static const char args[] = "./my prog\0--flag\0two words\0";
  static const char control[] = "evil\033[2J\0name\n\0";
  static const char latin1[] = "caf\xe9\0";
  g_autofree char *joined = rtop_proc_parse_cmdline (args, sizeof args - 1);
  g_autofree char *cleaned = rtop_proc_parse_cmdline (control, sizeof control - 1);
  g_autofree char *valid = rtop_proc_parse_cmdline (latin1, sizeof latin1 - 1);
  g_autofree char *no_trailing = rtop_proc_parse_cmdline ("a\0b", 3);

  g_assert_cmpstr (joined, ==, "./my prog --flag two words");
  /* Control characters would reach a terminal or a label: blanked. */
  g_assert_null (strchr (cleaned, '\033'));
  g_assert_null (strchr (cleaned, '\n'));
  g_assert_true (g_str_has_prefix (cleaned, "evil"));
  g_assert_true (g_utf8_validate (valid, -1, NULL));
  g_assert_cmpstr (no_trailing, ==, "a b");
  /* Exactly len bytes, no NUL after them (the sanitizer run catches a
   * read past the end; a fuzz input found one). */
  {
    g_autofree char *exact = g_memdup2 ("ab\0cd", 5);
    g_autofree char *got = rtop_proc_parse_cmdline (exact, 5);

    g_assert_cmpstr (got, ==, "ab cd");
  }
  /* Kernel threads have an empty cmdline. */
  g_assert_null (rtop_proc_parse_cmdline ("", 0));
  g_assert_null (rtop_proc_parse_cmdline ("\0\0", 2));
  g_assert_null (rtop_proc_parse_cmdline (NULL, 5));
}

static void
test_cache_fixture (void)
{
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (fixture_proc ());
  const RtopProcInfo *info;
  g_autofree char *stat_path = g_build_filename (fixture_proc (), "4343", "stat", NULL);
  GStatBuf st;

  rtop_proc_cache_begin_pass (cache);

  info = rtop_proc_cache_lookup (cache, 4242);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->comm, ==, "my (weird) prog)");
  g_assert_cmpstr (info->cmdline, ==, "./my prog --flag two words");
  g_assert_cmpuint (info->uid, ==, 0);           /* the real uid, first of four */
  g_assert_cmpstr (info->user, ==, "root");
  g_assert_cmpuint (info->threads, ==, 3);
  g_assert_cmpuint (info->start_time, ==, 123456);
  g_assert_cmpint (info->state, ==, 'S');

  /* Exited between reads: stat but no cmdline or status.  Partial info,
   * the uid from the owner of the stat file. */
  info = rtop_proc_cache_lookup (cache, 4343);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->comm, ==, "half-gone");
  g_assert_cmpint (info->state, ==, 'Z');
  g_assert_null (info->cmdline);
  g_assert_cmpint (g_stat (stat_path, &st), ==, 0);
  g_assert_cmpuint (info->uid, ==, st.st_uid);
  g_assert_nonnull (info->user);

  /* Kernel thread: no cmdline; a uid nobody has is shown as a number. */
  info = rtop_proc_cache_lookup (cache, 2);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->comm, ==, "kthreadd");
  g_assert_null (info->cmdline);
  g_assert_cmpuint (info->uid, ==, 54321);
  if (getpwuid (54321) == NULL)
    g_assert_cmpstr (info->user, ==, "54321");

  /* Garbage, cut short, missing: NULL, quietly (fatal-warnings is on). */
  g_assert_null (rtop_proc_cache_lookup (cache, 4444));
  g_assert_null (rtop_proc_cache_lookup (cache, 4545));
  g_assert_null (rtop_proc_cache_lookup (cache, 999999));
  g_assert_null (rtop_proc_cache_lookup (cache, 0));
  g_assert_null (rtop_proc_cache_lookup (cache, -5));
}

/* 10,000 lookups of one process in one pass cost one stat read. */
static void
test_cache_counts_reads (void)
{
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (fixture_proc ());
  const RtopProcInfo *first;
  guint64 before;

  rtop_proc_cache_begin_pass (cache);
  first = rtop_proc_cache_lookup (cache, 4242);
  g_assert_nonnull (first);
  /* stat, then cmdline, status and cgroup once in the process's life. */
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache), ==, 4);
  for (guint i = 0; i < 10000; i++)
    g_assert_true (rtop_proc_cache_lookup (cache, 4242) == first);
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache), ==, 4);

  /* Next pass: dynamic facts again (one stat read), static ones cached. */
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  for (guint i = 0; i < 10000; i++)
    g_assert_nonnull (rtop_proc_cache_lookup (cache, 4242));
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 1);

  /* A pid that is not there is also asked only once per pass. */
  before = rtop_proc_cache_get_n_reads (cache);
  for (guint i = 0; i < 10000; i++)
    g_assert_null (rtop_proc_cache_lookup (cache, 4444));
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 1);
}

static void
test_cache_dynamic_and_static (void)
{
  g_autofree char *root = make_proc_tree ();
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (root);
  const RtopProcInfo *info;
  guint64 before;

  write_stat (root, 100, "worker", 5000);
  write_proc_file (root, 100, "cmdline", "worker\0--old\0", 13);
  write_proc_file (root, 100, "status", "Name:\tworker\nUid:\t0\t0\t0\t0\n", -1);
  write_proc_file (root, 100, "cgroup", "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n", -1);

  rtop_proc_cache_begin_pass (cache);
  info = rtop_proc_cache_lookup (cache, 100);
  g_assert_cmpstr (info->cmdline, ==, "worker --old");
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SLURM);
  g_assert_cmpstr (info->job.name, ==, "slurm 77.0");
  g_assert_cmpuint (info->threads, ==, 2);

  /* Same process (same start time), new dynamic facts and a new cmdline:
   * the stat is re-read, the cmdline is not (static for the process's life). */
  {
    g_autofree char *stat = g_strdup_printf (
        "100 (worker) R 1 100 100 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 9 0 5000"
        " 1000 77 18446744073709551615 0 0 0\n");

    write_proc_file (root, 100, "stat", stat, -1);
  }
  write_proc_file (root, 100, "cmdline", "worker\0--new\0", 13);
  write_proc_file (root, 100, "cgroup", "0::/system.slice/foo.service\n", -1);
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  info = rtop_proc_cache_lookup (cache, 100);
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 1);
  g_assert_cmpint (info->state, ==, 'R');
  g_assert_cmpuint (info->threads, ==, 9);
  g_assert_cmpuint (info->rss_bytes, ==, 77 * (guint64) sysconf (_SC_PAGESIZE));
  g_assert_cmpstr (info->cmdline, ==, "worker --old");
  g_assert_cmpstr (info->job.id, ==, "77");

  /* The pid is reused by a new process (new start time): a new entry. */
  write_stat (root, 100, "other", 6000);
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  info = rtop_proc_cache_lookup (cache, 100);
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 4);
  g_assert_cmpstr (info->comm, ==, "other");
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SERVICE);
  g_assert_cmpstr (info->job.id, ==, "foo.service");
  g_assert_cmpuint (info->start_time, ==, 6000);
  g_assert_cmpstr (info->cmdline, ==, "worker --new");

  remove_tree (root);
}

static void
test_cache_exit_mid_read (void)
{
  g_autofree char *root = make_proc_tree ();
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (root);
  guint64 before;

  write_stat (root, 200, "short-lived", 7000);
  write_proc_file (root, 200, "cmdline", "short-lived\0", 12);

  rtop_proc_cache_begin_pass (cache);
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 200));

  /* Gone before the next pass: NULL, and the entry keeps no stale facts. */
  remove_proc_file (root, 200, "stat");
  rtop_proc_cache_begin_pass (cache);
  g_assert_null (rtop_proc_cache_lookup (cache, 200));

  /* Back (a new process with that pid): read afresh, all four files. */
  write_stat (root, 200, "reborn", 8000);
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  g_assert_cmpstr (rtop_proc_cache_lookup (cache, 200)->comm, ==, "reborn");
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 4);

  remove_tree (root);
}

/* A process moved to another cgroup (pam_slurm_adopt, systemd-run, a
 * container's exec) gets its new job within ten passes; its other static
 * facts stay read once, and a cgroup file it cannot read then (exiting)
 * leaves the job it had. */
static void
test_cache_job_moves (void)
{
  g_autofree char *root = make_proc_tree ();
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (root);
  const RtopProcInfo *info;
  guint64 before;

  write_stat (root, 400, "trainer", 9000);
  write_proc_file (root, 400, "cmdline", "trainer\0", 8);
  write_proc_file (root, 400, "cgroup", "0::/user.slice/user-1000.slice/session-3.scope\n", -1);
  rtop_proc_cache_begin_pass (cache);
  info = rtop_proc_cache_lookup (cache, 400);
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SESSION);

  write_proc_file (root, 400, "cgroup", "0::/system.slice/slurmstepd.scope/job_88/step_extern/user/task_0\n", -1);
  for (guint pass = 2; pass <= 10; pass++)
    {
      rtop_proc_cache_begin_pass (cache);
      before = rtop_proc_cache_get_n_reads (cache);
      info = rtop_proc_cache_lookup (cache, 400);
      g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 1);
      g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SESSION);
    }
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  info = rtop_proc_cache_lookup (cache, 400);
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 2);
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SLURM);
  g_assert_cmpstr (info->job.name, ==, "slurm 88.extern");
  g_assert_cmpstr (info->cmdline, ==, "trainer");

  /* Ten passes on, its cgroup file is gone: the job stays. */
  remove_proc_file (root, 400, "cgroup");
  for (guint pass = 0; pass < 10; pass++)
    {
      rtop_proc_cache_begin_pass (cache);
      info = rtop_proc_cache_lookup (cache, 400);
    }
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_SLURM);
  g_assert_cmpstr (info->job.id, ==, "88");

  /* Moved out of the job, to the root cgroup: shown as that path. */
  write_proc_file (root, 400, "cgroup", "0::/\n", -1);
  for (guint pass = 0; pass < 10; pass++)
    {
      rtop_proc_cache_begin_pass (cache);
      info = rtop_proc_cache_lookup (cache, 400);
    }
  g_assert_cmpint (info->job.kind, ==, RTOP_JOB_CGROUP);
  g_assert_cmpstr (info->job.id, ==, "/");

  remove_tree (root);
}

/* Entries not asked for during a pass are dropped at the next begin. */
static void
test_cache_eviction (void)
{
  g_autofree char *root = make_proc_tree ();
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new (root);
  guint64 before;

  write_stat (root, 300, "kept", 1);
  write_stat (root, 301, "dropped", 1);

  rtop_proc_cache_begin_pass (cache);
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 300));
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 301));

  rtop_proc_cache_begin_pass (cache);      /* 301 not asked for in this pass */
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 300));

  rtop_proc_cache_begin_pass (cache);      /* 301 is evicted here */
  before = rtop_proc_cache_get_n_reads (cache);
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 300));
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 1);
  before = rtop_proc_cache_get_n_reads (cache);
  g_assert_nonnull (rtop_proc_cache_lookup (cache, 301));
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 4);

  remove_tree (root);
}

/* The real /proc: this test process, and a child that exits. */
static guint
count_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;

  g_assert_nonnull (dir);
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static void
test_cache_real_proc (void)
{
  guint fds = count_fds ();
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new ("/proc");
  guint64 before;
  const RtopProcInfo *self_info;
  struct passwd *pw = getpwuid (getuid ());
  pid_t child;

  rtop_proc_cache_begin_pass (cache);
  self_info = rtop_proc_cache_lookup (cache, getpid ());
  g_assert_nonnull (self_info);
  g_assert_cmpint (self_info->pid, ==, getpid ());
  g_assert_cmpstr (self_info->comm, ==, "test-procfs");
  g_assert_nonnull (self_info->cmdline);
  g_assert_true (strstr (self_info->cmdline, "test-procfs") != NULL);
  g_assert_cmpuint (self_info->uid, ==, getuid ());
  if (pw != NULL)
    g_assert_cmpstr (self_info->user, ==, pw->pw_name);
  g_assert_cmpuint (self_info->threads, >=, 1);
  g_assert_cmpuint (self_info->rss_bytes, >, 0);
  g_assert_cmpuint (self_info->start_time, >, 0);
  g_assert_cmpint (self_info->state, ==, 'R');
  /* Every process on Linux has a cgroup, unprivileged to read. */
  g_assert_cmpint (self_info->job.kind, !=, RTOP_JOB_NONE);
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache), ==, 4);

  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  g_assert_nonnull (rtop_proc_cache_lookup (cache, child));
  /* The real procfs: both stat files stay open for the next pass. */
  g_assert_cmpuint (count_fds (), ==, fds + 2);
  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  rtop_proc_cache_begin_pass (cache);
  before = rtop_proc_cache_get_n_reads (cache);
  g_assert_null (rtop_proc_cache_lookup (cache, child));
  g_assert_nonnull (rtop_proc_cache_lookup (cache, getpid ()));
  /* The child's open stat said it is gone, and its pid opened nothing;
   * ours was read again with one pread. */
  g_assert_cmpuint (rtop_proc_cache_get_n_reads (cache) - before, ==, 3);
  g_assert_cmpuint (count_fds (), ==, fds + 1);
  g_clear_pointer (&cache, rtop_proc_cache_free);
  g_assert_cmpuint (count_fds (), ==, fds);
}

/* Random bytes and mangled real lines: an answer, never a crash (the
 * sanitizer run checks the memory side). */
static void
test_parse_random (void)
{
  gsize len;
  g_autofree char *real = read_fixture ("4242", "stat", &len);

  for (guint i = 0; i < 20000; i++)
    {
      char buf[512];
      gsize n = g_test_rand_int_range (0, sizeof buf);
      RtopProcInfo info = { 0 };
      g_autofree char *joined = NULL;

      if (i % 2 == 0)
        {
          for (gsize j = 0; j < n; j++)
            buf[j] = (char) g_test_rand_int_range (0, 256);
        }
      else
        {
          /* A real line with a few bytes flipped and a random cut. */
          n = MIN (len, (gsize) g_test_rand_int_range (1, len + 1));
          memcpy (buf, real, n);
          for (guint k = 0; k < 3; k++)
            buf[g_test_rand_int_range (0, n)] = " ()-9aZ\0"[g_test_rand_int_range (0, 9)];
        }
      if (rtop_proc_parse_stat (buf, n, &info, NULL))
        {
          g_assert_nonnull (info.comm);
          g_assert_true (g_utf8_validate (info.comm, -1, NULL));
          g_assert_cmpint (info.pid, >, 0);
        }
      rtop_proc_info_clear (&info);
      joined = rtop_proc_parse_cmdline (buf, n);
      if (joined != NULL)
        g_assert_true (g_utf8_validate (joined, -1, NULL));
    }
}

/* Waits until pid's comm is want (the child set it or exec'd). */
static void
wait_for_comm (pid_t pid, const char *want_prefix)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/comm", pid);

  for (guint i = 0; i < 500; i++)
    {
      g_autofree char *comm = NULL;

      if (g_file_get_contents (path, &comm, NULL, NULL) && g_str_has_prefix (comm, want_prefix))
        return;
      g_usleep (10000);
    }
  g_error ("process %d never took the comm %s", pid, want_prefix);
}

/* Real processes that chose their own comm and command line: what the
 * cache hands out is escaped and bounded, whatever they chose. */
static void
test_hostile_process (void)
{
  static const char hostile_comm[] = "\x1b[2J\xe2\x80\xaehs.x";   /* 15 bytes: fits */
  g_autoptr(RtopProcCache) cache = rtop_proc_cache_new ("/proc");
  g_autofree char *big = g_strnfill (64 * 1024, 'A');
  const char *argv[] = {
    "/bin/sh", "-c", "sleep 30; :", "job\xe2\x80\xaehs.tpg", "\x1b]0;owned\x07",
    "caf\xe9", big, NULL,
  };
  const RtopProcInfo *info;
  pid_t named, spawned;

  named = fork ();
  g_assert_cmpint (named, >=, 0);
  if (named == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      prctl (PR_SET_NAME, hostile_comm, 0, 0, 0);
      pause ();
      _exit (0);
    }
  spawned = fork ();
  g_assert_cmpint (spawned, >=, 0);
  if (spawned == 0)
    {
      /* Its own group, so the sleep it starts goes with it. */
      setpgid (0, 0);
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      execv (argv[0], (char **) argv);
      _exit (127);
    }
  wait_for_comm (named, "\x1b");
  wait_for_comm (spawned, "sh");

  rtop_proc_cache_begin_pass (cache);
  info = rtop_proc_cache_lookup (cache, named);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->comm, ==, "\\x1b[2J\\u202ehs.x");
  g_assert_true (rtop_text_is_safe (info->cmdline, RTOP_TEXT_CMDLINE_MAX));

  info = rtop_proc_cache_lookup (cache, spawned);
  g_assert_nonnull (info);
  g_assert_cmpstr (info->comm, ==, "sh");
  g_test_message ("cmdline: %.200s", info->cmdline);
  g_assert_true (g_str_has_prefix (info->cmdline, "/bin/sh -c sleep 30; : "
                                   "job\\u202ehs.tpg \\x1b]0;owned\\x07 caf\\xe9 AAAA"));
  g_assert_cmpuint (strlen (info->cmdline), <=, RTOP_TEXT_CMDLINE_MAX);
  g_assert_true (g_str_has_suffix (info->cmdline, "…"));
  g_assert_true (rtop_text_is_safe (info->cmdline, RTOP_TEXT_CMDLINE_MAX));

  kill (named, SIGKILL);
  kill (-spawned, SIGKILL);
  waitpid (named, NULL, 0);
  waitpid (spawned, NULL, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/collector/procfs/parse-stat/weird-comm", test_parse_stat_weird_comm);
  g_test_add_func ("/collector/procfs/parse-stat/garbage", test_parse_stat_garbage);
  g_test_add_func ("/collector/procfs/parse-cmdline", test_parse_cmdline);
  g_test_add_func ("/collector/procfs/parse-random", test_parse_random);
  g_test_add_func ("/collector/procfs/cache/fixture", test_cache_fixture);
  g_test_add_func ("/collector/procfs/cache/counts-reads", test_cache_counts_reads);
  g_test_add_func ("/collector/procfs/cache/dynamic-and-static", test_cache_dynamic_and_static);
  g_test_add_func ("/collector/procfs/cache/exit-mid-read", test_cache_exit_mid_read);
  g_test_add_func ("/collector/procfs/cache/eviction", test_cache_eviction);
  g_test_add_func ("/collector/procfs/cache/job-moves", test_cache_job_moves);
  g_test_add_func ("/collector/procfs/cache/real-proc", test_cache_real_proc);
  g_test_add_func ("/collector/procfs/cache/hostile-process", test_hostile_process);

  return g_test_run ();
}
