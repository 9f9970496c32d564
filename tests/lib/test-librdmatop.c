/* test-librdmatop.c: the installed interface of librdmatop, compiled
 * against rdmatop.h and linked as pkg-config says (test-librdmatop.sh).
 * Plain C and TAP, no GLib: what a user's program sees.
 *
 * On a machine with RDMA netlink the snapshot walk is checked; on one
 * without, the NO_RDMA error and its sentence.  The 1 ms capture on a
 * real kernel is the vm scenario "capture".  The job of a process is
 * checked here as a program sees it; test-librdmatop-job.c sets it
 * against the core's own reading of the file. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdmatop.h>

static int n_tests, n_failed;

static void
check (int cond, const char *what, const char *detail)
{
  n_tests++;
  if (!cond)
    n_failed++;
  printf ("%s %d - %s%s%s\n", cond ? "ok" : "not ok", n_tests, what,
          detail && !cond ? ": " : "", detail && !cond ? detail : "");
}

static void
test_version (const char *expected)
{
  check (strcmp (rdmatop_version (), expected) == 0, "rdmatop_version() is pkg-config's version",
         rdmatop_version ());
  check (rdmatop_api_version () == RDMATOP_API_VERSION, "the library implements this header", NULL);
  check (strcmp (rdmatop_last_error (), "") == 0, "no error before any call", rdmatop_last_error ());
}

static void
test_interval (void)
{
  rdmatop_capture *cap = (rdmatop_capture *) 1;

  check (rdmatop_capture_new (NULL, NULL, 0, NULL, RDMATOP_CAPTURE_MIN_INTERVAL_NS - 1, 0, &cap)
         == RDMATOP_ERROR_INVALID_ARGUMENT && cap == NULL,
         "an interval under 1 ms is INVALID_ARGUMENT", rdmatop_last_error ());
  check (strcmp (rdmatop_last_error (),
                 "The interval must be a number of seconds from 0.001 to 60, not “0.000999999”") == 0,
         "... with the CLI's sentence", rdmatop_last_error ());
  check (rdmatop_capture_new (NULL, NULL, 0, NULL, RDMATOP_CAPTURE_MAX_INTERVAL_NS + 1000000000ULL,
                              0, &cap) == RDMATOP_ERROR_INVALID_ARGUMENT,
         "an interval over 60 s is INVALID_ARGUMENT", rdmatop_last_error ());
  check (strstr (rdmatop_last_error (), "not “61”") != NULL, "... naming the value", rdmatop_last_error ());
  check (rdmatop_capture_new (NULL, NULL, 0, NULL, 1000000, 0, NULL) == RDMATOP_ERROR_INVALID_ARGUMENT,
         "no place for the handle is INVALID_ARGUMENT", NULL);
}

static void
test_null_handles (void)
{
  rdmatop_capture_stats st;
  rdmatop_sample s;

  check (rdmatop_snapshot_n_devices (NULL) == 0 && rdmatop_snapshot_device (NULL, 0) == NULL,
         "a NULL snapshot has no devices", NULL);
  check (rdmatop_device_n_ports (NULL) == 0 && rdmatop_device_port (NULL, 0) == NULL,
         "a NULL device has no ports", NULL);
  check (rdmatop_port_n_counters (NULL) == 0 && rdmatop_port_counter (NULL, 0, NULL, NULL, NULL) == -1
         && rdmatop_port_metric (NULL, 0, NULL, NULL) == -1, "a NULL port has no counters", NULL);
  check (rdmatop_capture_read (NULL, &s, 1) == 0, "a NULL capture has no samples", NULL);
  memset (&st, 0xff, sizeof st);
  rdmatop_capture_get_stats (NULL, &st);
  check (st.taken == 0 && st.samples == 0, "a NULL capture's stats are zero", NULL);
  check (rdmatop_capture_start (NULL) == RDMATOP_ERROR_INVALID_ARGUMENT, "starting NULL is refused", NULL);
  rdmatop_capture_stop (NULL);
  rdmatop_capture_free (NULL);
  rdmatop_snapshot_free (NULL);
  rdmatop_collector_close (NULL);
  check (rdmatop_n_metrics () > 0 && strcmp (rdmatop_metric_name (0), "tx_bytes") == 0
         && rdmatop_metric_name (rdmatop_n_metrics ()) == NULL, "the metrics are named", NULL);
}

static void
walk (rdmatop_snapshot *s)
{
  size_t ports = 0;

  for (size_t i = 0; i < rdmatop_snapshot_n_devices (s); i++)
    {
      const rdmatop_device *d = rdmatop_snapshot_device (s, i);

      for (size_t j = 0; j < rdmatop_device_n_ports (d); j++, ports++)
        if (rdmatop_port_state (rdmatop_device_port (d, j)) == NULL)
          check (0, "every port has a state", rdmatop_device_name (d));
    }
  check (rdmatop_snapshot_realtime_ns (s) > 0, "the snapshot has a time", NULL);
  printf ("# %zu devices, %zu ports\n", rdmatop_snapshot_n_devices (s), ports);
}

static void
test_collector (void)
{
  const char *nosuch[] = { "nosuchdev0", NULL };
  rdmatop_collector *c = NULL;
  rdmatop_snapshot *s = NULL;
  rdmatop_status st = rdmatop_collector_open (NULL, &c);

  if (st != RDMATOP_OK)
    {
      check ((st == RDMATOP_ERROR_NO_RDMA || st == RDMATOP_ERROR_PERMISSION) && c == NULL,
             "without RDMA netlink: NO_RDMA or PERMISSION", rdmatop_last_error ());
      check (strstr (rdmatop_last_error (), "RDMA netlink") != NULL, "... and a sentence saying so",
             rdmatop_last_error ());
      return;
    }
  check (rdmatop_collector_snapshot (c, &s) == RDMATOP_OK, "a snapshot", rdmatop_last_error ());
  walk (s);
  rdmatop_snapshot_free (s);
  rdmatop_collector_close (c);
  check (rdmatop_collector_open (nosuch, &c) == RDMATOP_OK, "a collector for one device", NULL);
  check (rdmatop_collector_snapshot (c, &s) == RDMATOP_ERROR_NO_DEVICE && s == NULL,
         "an unknown device is NO_DEVICE", rdmatop_last_error ());
  check (strcmp (rdmatop_last_error (), "no RDMA device named “nosuchdev0” (see “rdma dev”)") == 0,
         "... with the CLI's sentence", rdmatop_last_error ());
  rdmatop_collector_close (c);
}

static int
same_text (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp (a, b) == 0);
}

static int
same_job (const rdmatop_job *a, const rdmatop_job *b)
{
  return same_text (rdmatop_job_kind (a), rdmatop_job_kind (b))
      && same_text (rdmatop_job_id (a), rdmatop_job_id (b))
      && same_text (rdmatop_job_detail (a), rdmatop_job_detail (b))
      && same_text (rdmatop_job_name (a), rdmatop_job_name (b));
}

static void
test_job (void)
{
  static const char *const kinds[] = {
    "slurm", "kubernetes", "container", "service", "session", "cgroup",
  };
  rdmatop_job *self = NULL, *again = NULL, *other = (rdmatop_job *) 1;
  rdmatop_status st = rdmatop_job_of_process (0, &self);
  int known = 0;
  pid_t child;

  /* Every Linux process has a cgroup, so some job ("cgroup" at least). */
  check (st == RDMATOP_OK && self != NULL, "this process has a job", rdmatop_last_error ());
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    known |= self != NULL && strcmp (rdmatop_job_kind (self), kinds[i]) == 0;
  check (known, "... of a known kind", self ? rdmatop_job_kind (self) : NULL);
  check (self != NULL && rdmatop_job_id (self)[0] != '\0' && rdmatop_job_name (self)[0] != '\0',
         "... with an id and a name", NULL);
  if (self != NULL)
    printf ("# job: %s (%s)\n", rdmatop_job_name (self), rdmatop_job_kind (self));
  st = rdmatop_job_of_process ((int32_t) getpid (), &again);
  check (st == RDMATOP_OK && same_job (self, again), "pid 0 is the calling process", NULL);
  rdmatop_job_free (again);

  /* The status first: the sentence is replaced by the next failure. */
  st = rdmatop_job_of_process (-1, &other);
  check (st == RDMATOP_ERROR_INVALID_ARGUMENT && other == NULL, "pid -1 is INVALID_ARGUMENT",
         rdmatop_last_error ());
  check (strstr (rdmatop_last_error (), "-1") != NULL, "... naming it", rdmatop_last_error ());
  check (rdmatop_job_of_process (0, NULL) == RDMATOP_ERROR_INVALID_ARGUMENT,
         "no place for the job is INVALID_ARGUMENT", NULL);

  /* A child in nothing special is in its parent's job. */
  child = fork ();
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  check (child > 0, "a child", NULL);
  if (child <= 0)
    return;
  st = rdmatop_job_of_process ((int32_t) child, &other);
  check (st == RDMATOP_OK && same_job (self, other), "a child is in its parent's job",
         rdmatop_last_error ());
  rdmatop_job_free (other);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  /* Gone: no process, unless its pid was taken again at once. */
  if (kill (child, 0) != 0 && errno == ESRCH)
    {
      other = (rdmatop_job *) 1;
      st = rdmatop_job_of_process ((int32_t) child, &other);
      check (st == RDMATOP_ERROR_NO_PROCESS && other == NULL, "a process that is gone is NO_PROCESS",
             rdmatop_last_error ());
      check (strstr (rdmatop_last_error (), "no process") != NULL, "... saying so",
             rdmatop_last_error ());
    }
  rdmatop_job_free (self);
  rdmatop_job_free (NULL);
  check (rdmatop_job_kind (NULL) == NULL && rdmatop_job_name (NULL) == NULL,
         "a NULL job has no kind and no name", NULL);
}

static void *
other_thread (void *data)
{
  *(int *) data = strcmp (rdmatop_last_error (), "") == 0;
  return NULL;
}

/* The last error is the calling thread's. */
static void
test_error_per_thread (void)
{
  rdmatop_capture *cap;
  pthread_t t;
  int clean = 0;

  rdmatop_capture_new (NULL, NULL, 0, NULL, 0, 0, &cap);
  pthread_create (&t, NULL, other_thread, &clean);
  pthread_join (t, NULL);
  check (clean, "another thread does not see this thread's error", NULL);
  check (strlen (rdmatop_last_error ()) > 0, "this thread still does", NULL);
}

int
main (int argc, char **argv)
{
  if (argc != 2)
    {
      fprintf (stderr, "Usage: test-librdmatop EXPECTED-VERSION\n");
      return 2;
    }
  test_version (argv[1]);
  test_interval ();
  test_null_handles ();
  test_collector ();
  test_error_per_thread ();
  test_job ();
  printf ("1..%d\n", n_tests);
  return n_failed ? 1 : 0;
}
