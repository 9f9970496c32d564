/* qp-holder: opens a verbs device, creates a PD, a CQ, one MR and N queue
 * pairs, and holds them until SIGTERM or SIGINT.  Tests and benchmarks use
 * it to give rdmatop a known number of QPs per process (0, 1 000, 10 000).
 * On SIGUSR1 it moves its QPs to the error state (through INIT, as the
 * verbs state machine wants), as a connection that failed would, and goes
 * on holding them.
 *
 *   qp-holder --device rxe0 --qps 1000 [--type rc|ud] [--mr-bytes N]
 *             [--ready-file PATH] [--churn N]
 *
 * With --churn N it destroys and recreates N of its QPs a second (in
 * batches every 10 ms, oldest first) for as long as it runs, as a job that
 * opens and closes connections does; the count stays --qps.
 *
 * The ready file is written (atomically) once every object exists, so a
 * script can wait for it instead of sleeping.  On a signal the objects are
 * destroyed in order and the exit status is 0; any failure to create them
 * is a one-line message and exit status 1; bad arguments exit 2.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_QPS 100000

typedef struct
{
  const char *device;
  long qps;
  enum ibv_qp_type qp_type;
  long mr_bytes;
  const char *ready_file;
  long churn;                /* QPs replaced per second, 0: none */
} Options;

typedef struct
{
  struct ibv_context *ctx;
  struct ibv_pd *pd;
  struct ibv_cq *cq;
  struct ibv_mr *mr;
  void *buf;
  struct ibv_qp **qps;
  long n_qps;
} Holder;

static void
usage (FILE *out)
{
  fprintf (out,
           "usage: qp-holder --device NAME [--qps N] [--type rc|ud] "
           "[--mr-bytes N] [--ready-file PATH] [--churn N]\n");
}

static int
parse_count (const char *text, long max, long *out)
{
  char *end = NULL;
  long v;

  errno = 0;
  v = strtol (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < 0 || v > max)
    return -1;
  *out = v;
  return 0;
}

static int
parse_options (int argc, char **argv, Options *opts)
{
  static const struct option longopts[] = {
    { "device", required_argument, NULL, 'd' },
    { "qps", required_argument, NULL, 'n' },
    { "type", required_argument, NULL, 't' },
    { "mr-bytes", required_argument, NULL, 'm' },
    { "ready-file", required_argument, NULL, 'r' },
    { "churn", required_argument, NULL, 'c' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int c;

  *opts = (Options) { .qps = 1, .qp_type = IBV_QPT_RC, .mr_bytes = 65536 };
  while ((c = getopt_long (argc, argv, "d:n:t:m:r:c:h", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'd': opts->device = optarg; break;
        case 'n':
          if (parse_count (optarg, MAX_QPS, &opts->qps) < 0)
            return -1;
          break;
        case 't':
          if (strcmp (optarg, "rc") == 0)
            opts->qp_type = IBV_QPT_RC;
          else if (strcmp (optarg, "ud") == 0)
            opts->qp_type = IBV_QPT_UD;
          else
            return -1;
          break;
        case 'm':
          if (parse_count (optarg, 1L << 30, &opts->mr_bytes) < 0 || opts->mr_bytes == 0)
            return -1;
          break;
        case 'r': opts->ready_file = optarg; break;
        case 'c':
          if (parse_count (optarg, 100000, &opts->churn) < 0)
            return -1;
          break;
        case 'h': usage (stdout); exit (0);
        default: return -1;
        }
    }
  if (optind != argc || opts->device == NULL)
    return -1;
  return 0;
}

static struct ibv_context *
open_device (const char *name)
{
  struct ibv_device **list;
  struct ibv_context *ctx = NULL;
  int n = 0;

  list = ibv_get_device_list (&n);
  if (list == NULL)
    {
      fprintf (stderr, "qp-holder: cannot list verbs devices: %s\n", strerror (errno));
      return NULL;
    }
  for (int i = 0; i < n; i++)
    if (strcmp (ibv_get_device_name (list[i]), name) == 0)
      ctx = ibv_open_device (list[i]);
  ibv_free_device_list (list);
  if (ctx == NULL)
    fprintf (stderr, "qp-holder: cannot open verbs device %s (is it present and is "
             "/dev/infiniband readable?)\n", name);
  return ctx;
}

static struct ibv_qp *
create_qp (Holder *h, enum ibv_qp_type type)
{
  struct ibv_qp_init_attr attr = {
    .send_cq = h->cq,
    .recv_cq = h->cq,
    .cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
    .qp_type = type,
  };

  return ibv_create_qp (h->pd, &attr);
}

/* Returns 0 when every object exists; on failure reports which one. */
static int
holder_create (Holder *h, const Options *opts)
{
  h->ctx = open_device (opts->device);
  if (h->ctx == NULL)
    return -1;
  h->pd = ibv_alloc_pd (h->ctx);
  h->cq = h->pd ? ibv_create_cq (h->ctx, 16, NULL, NULL, 0) : NULL;
  h->buf = calloc (1, (size_t) opts->mr_bytes);
  if (h->pd == NULL || h->cq == NULL || h->buf == NULL)
    {
      fprintf (stderr, "qp-holder: cannot create a PD and CQ on %s: %s\n",
               opts->device, strerror (errno));
      return -1;
    }
  h->mr = ibv_reg_mr (h->pd, h->buf, (size_t) opts->mr_bytes,
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
  if (h->mr == NULL)
    {
      fprintf (stderr, "qp-holder: cannot register %ld bytes on %s: %s\n",
               opts->mr_bytes, opts->device, strerror (errno));
      return -1;
    }
  h->qps = calloc ((size_t) opts->qps + 1, sizeof *h->qps);
  if (h->qps == NULL)
    return -1;
  for (; h->n_qps < opts->qps; h->n_qps++)
    {
      h->qps[h->n_qps] = create_qp (h, opts->qp_type);
      if (h->qps[h->n_qps] == NULL)
        {
          fprintf (stderr, "qp-holder: QP %ld of %ld on %s: %s (device limit max_qp, "
                   "vm.max_map_count or RLIMIT_MEMLOCK?)\n", h->n_qps + 1, opts->qps,
                   opts->device, strerror (errno));
          return -1;
        }
    }
  return 0;
}

/* RESET -> INIT -> ERR: the kernel allows ERR from any state but RESET. */
static int
fail_qps (Holder *h)
{
  for (long i = 0; i < h->n_qps; i++)
    {
      struct ibv_qp_attr init = {
        .qp_state = IBV_QPS_INIT,
        .pkey_index = 0,
        .port_num = 1,
        .qkey = 0x11111111,
        .qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
      };
      struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
      int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                 (h->qps[i]->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);

      if (ibv_modify_qp (h->qps[i], &init, mask) != 0 ||
          ibv_modify_qp (h->qps[i], &err, IBV_QP_STATE) != 0)
        {
          fprintf (stderr, "qp-holder: cannot move QP %u to the error state: %s\n",
                   h->qps[i]->qp_num, strerror (errno));
          return -1;
        }
    }
  printf ("qp-holder: pid %ld moved %ld QPs to the error state\n", (long) getpid (), h->n_qps);
  fflush (stdout);
  return 0;
}

static void
holder_destroy (Holder *h)
{
  while (h->n_qps > 0)
    ibv_destroy_qp (h->qps[--h->n_qps]);
  free (h->qps);
  if (h->mr)
    ibv_dereg_mr (h->mr);
  free (h->buf);
  if (h->cq)
    ibv_destroy_cq (h->cq);
  if (h->pd)
    ibv_dealloc_pd (h->pd);
  if (h->ctx)
    ibv_close_device (h->ctx);
}

/* Written to a temporary name and renamed, so a reader never sees half. */
static int
write_ready_file (const char *path, const Options *opts)
{
  char tmp[PATH_MAX];
  FILE *f;

  if (snprintf (tmp, sizeof tmp, "%s.tmp", path) >= (int) sizeof tmp)
    return -1;
  f = fopen (tmp, "w");
  if (f == NULL)
    return -1;
  fprintf (f, "pid=%ld\ndevice=%s\nqps=%ld\n", (long) getpid (), opts->device, opts->qps);
  if (fclose (f) != 0)
    return -1;
  return rename (tmp, path);
}

/* Replaces n QPs, the oldest first (a ring over the array). */
static int
churn_qps (Holder *h, const Options *opts, long n, long *next)
{
  for (long i = 0; i < n && h->n_qps > 0; i++)
    {
      long k = *next % h->n_qps;

      ibv_destroy_qp (h->qps[k]);
      h->qps[k] = create_qp (h, opts->qp_type);
      if (h->qps[k] == NULL)
        {
          /* Keep the array dense for holder_destroy(). */
          h->qps[k] = h->qps[--h->n_qps];
          fprintf (stderr, "qp-holder: recreating a QP on %s: %s\n", opts->device,
                   strerror (errno));
          return -1;
        }
      *next = k + 1;
    }
  return 0;
}

/* Waits for a signal, churning every 10 ms meanwhile when asked to. */
static int
wait_signal (Holder *h, const Options *opts, const sigset_t *set, long *churned)
{
  struct timespec tick = { 0, 10 * 1000 * 1000 };
  long next = 0, owed = 0;

  if (opts->churn == 0)
    {
      int sig = 0;

      return sigwait (set, &sig) == 0 ? sig : -1;
    }
  for (;;)
    {
      int sig = sigtimedwait (set, NULL, &tick);
      long n;

      if (sig > 0)
        return sig;
      if (errno != EAGAIN && errno != EINTR)
        return -1;
      /* opts->churn a second, spread over the 100 ticks. */
      owed += opts->churn;
      n = owed / 100;
      owed %= 100;
      if (churn_qps (h, opts, n, &next) < 0)
        return -1;
      *churned += n;
    }
}

int
main (int argc, char **argv)
{
  Options opts;
  Holder h = { 0 };
  sigset_t set;
  int sig = 0;
  int status = 0;

  if (parse_options (argc, argv, &opts) < 0)
    {
      usage (stderr);
      return 2;
    }
  /* Block the signals first so none is lost between setup and sigwait. */
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGHUP);
  sigaddset (&set, SIGUSR1);
  sigprocmask (SIG_BLOCK, &set, NULL);

  if (holder_create (&h, &opts) < 0)
    status = 1;
  else if (opts.ready_file && write_ready_file (opts.ready_file, &opts) < 0)
    {
      fprintf (stderr, "qp-holder: cannot write %s: %s\n", opts.ready_file, strerror (errno));
      status = 1;
    }
  else
    {
      long churned = 0;

      printf ("qp-holder: pid %ld holds %ld QPs on %s\n", (long) getpid (), opts.qps, opts.device);
      fflush (stdout);
      while ((sig = wait_signal (&h, &opts, &set, &churned)) == SIGUSR1)
        if (fail_qps (&h) < 0)
          status = 1;
      if (sig < 0)
        status = 1;
      if (opts.churn > 0)
        printf ("qp-holder: pid %ld replaced %ld QPs\n", (long) getpid (), churned);
    }
  holder_destroy (&h);
  return status;
}
