/* rdmatop-probe.c: librdmatop from a plain C program, as a user's program
 * would use it (rdmatop.h only, no GLib), printing JSON for the checks.
 *
 *   rdmatop-probe snapshot [DEVICE...]
 *   rdmatop-probe capture [--device D]... [--port N]... [--counter C]...
 *                 [--interval-ns NS] [--seconds S] [--capacity N] [--drain-ms MS]
 *   rdmatop-probe error KIND    (interval, device, counter, port: the status and sentence)
 *
 * capture drains the samples every --drain-ms while it runs (0: only
 * after it stops) and reports the stats, every series (device, port,
 * counter) with its count, first and last value and how often it went
 * back, the read times of each port, and the process's CPU time. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <rdmatop.h>

#define MAX_ARGS 64
#define MAX_SERIES 4096
#define MAX_PORTS 64

typedef struct {
  const char *device, *counter;
  uint32_t port;
  uint64_t n, first, last, decreases;
} Series;

typedef struct {
  const char *device;
  uint32_t port;
  int64_t *times;
  size_t n, cap;
} PortTimes;

static Series series[MAX_SERIES];
static size_t n_series;
static PortTimes ports_seen[MAX_PORTS];
static size_t n_ports_seen;
static uint64_t n_read;

static void
print_string (const char *s)
{
  putchar ('"');
  for (; s != NULL && *s; s++)
    {
      if (*s == '"' || *s == '\\')
        printf ("\\%c", *s);
      else if ((unsigned char) *s < 0x20)
        printf ("\\u%04x", *s);
      else
        putchar (*s);
    }
  putchar ('"');
}

static void
print_opt_string (const char *s)
{
  if (s == NULL)
    fputs ("null", stdout);
  else
    print_string (s);
}

static int
print_error (const char *what, rdmatop_status status)
{
  printf ("{\"call\": ");
  print_string (what);
  printf (", \"status\": %d, \"message\": ", (int) status);
  print_string (rdmatop_last_error ());
  printf ("}\n");
  return status == RDMATOP_OK ? 0 : 1;
}

static void
print_port (const rdmatop_port *p)
{
  const char *name;
  uint64_t value;
  double rate;

  printf ("{\"port\": %" PRIu32 ", \"state\": ", rdmatop_port_number (p));
  print_string (rdmatop_port_state (p));
  printf (", \"phys_state\": ");
  print_string (rdmatop_port_phys_state (p));
  printf (", \"netdev\": ");
  print_opt_string (rdmatop_port_netdev (p));
  printf (", \"health\": ");
  print_string (rdmatop_port_health (p));
  printf (", \"counters\": {");
  for (size_t i = 0; rdmatop_port_counter (p, i, &name, &value, &rate) >= 0; i++)
    {
      printf ("%s", i ? ", " : "");
      print_string (name);
      printf (": %" PRIu64, value);
    }
  printf ("}, \"metrics\": {");
  for (size_t m = 0, k = 0; m < rdmatop_n_metrics (); m++)
    if (rdmatop_port_metric (p, m, &value, &rate) >= 0)
      {
        printf ("%s", k++ ? ", " : "");
        print_string (rdmatop_metric_name (m));
        printf (": %" PRIu64, value);
      }
  printf ("}}");
}

static int
cmd_snapshot (int argc, char **argv)
{
  const char *devices[MAX_ARGS + 1] = { 0 };
  rdmatop_collector *c;
  rdmatop_snapshot *s;
  rdmatop_status st;

  for (int i = 0; i < argc && i < MAX_ARGS; i++)
    devices[i] = argv[i];
  if ((st = rdmatop_collector_open (argc ? devices : NULL, &c)) != RDMATOP_OK)
    return print_error ("rdmatop_collector_open", st);
  if ((st = rdmatop_collector_snapshot (c, &s)) != RDMATOP_OK)
    {
      rdmatop_collector_close (c);
      return print_error ("rdmatop_collector_snapshot", st);
    }
  printf ("{\"version\": ");
  print_string (rdmatop_version ());
  printf (", \"realtime_ns\": %" PRId64 ", \"devices\": [", rdmatop_snapshot_realtime_ns (s));
  for (size_t i = 0; i < rdmatop_snapshot_n_devices (s); i++)
    {
      const rdmatop_device *d = rdmatop_snapshot_device (s, i);

      printf ("%s{\"name\": ", i ? ", " : "");
      print_string (rdmatop_device_name (d));
      printf (", \"provider\": ");
      print_opt_string (rdmatop_device_provider (d));
      printf (", \"ports\": [");
      for (size_t j = 0; j < rdmatop_device_n_ports (d); j++)
        {
          printf ("%s", j ? ", " : "");
          print_port (rdmatop_device_port (d, j));
        }
      printf ("]}");
    }
  printf ("]}\n");
  rdmatop_snapshot_free (s);
  rdmatop_collector_close (c);
  return 0;
}

/* Names are the capture's own strings: equal names, equal pointers. */
static void
account (const rdmatop_sample *s)
{
  Series *se = NULL;
  PortTimes *pt = NULL;

  n_read++;
  for (size_t i = 0; i < n_series && se == NULL; i++)
    if (series[i].device == s->device && series[i].counter == s->counter && series[i].port == s->port)
      se = &series[i];
  if (se == NULL && n_series < MAX_SERIES)
    {
      se = &series[n_series++];
      *se = (Series) { s->device, s->counter, s->port, 0, s->value, s->value, 0 };
    }
  if (se != NULL)
    {
      se->decreases += s->value < se->last;
      se->last = s->value;
      se->n++;
    }
  for (size_t i = 0; i < n_ports_seen && pt == NULL; i++)
    if (ports_seen[i].device == s->device && ports_seen[i].port == s->port)
      pt = &ports_seen[i];
  if (pt == NULL && n_ports_seen < MAX_PORTS)
    {
      pt = &ports_seen[n_ports_seen++];
      *pt = (PortTimes) { s->device, s->port, NULL, 0, 0 };
    }
  if (pt != NULL && (pt->n == 0 || pt->times[pt->n - 1] != s->monotonic_ns))
    {
      if (pt->n == pt->cap)
        {
          pt->cap = pt->cap ? pt->cap * 2 : 1024;
          pt->times = realloc (pt->times, pt->cap * sizeof *pt->times);
          if (pt->times == NULL)
            abort ();
        }
      pt->times[pt->n++] = s->monotonic_ns;
    }
}

static void
drain (rdmatop_capture *cap)
{
  static rdmatop_sample buf[4096];
  size_t n;

  while ((n = rdmatop_capture_read (cap, buf, 4096)) > 0)
    for (size_t i = 0; i < n; i++)
      account (&buf[i]);
}

static int64_t
now_ns (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
sleep_ns (int64_t ns)
{
  struct timespec ts = { ns / 1000000000, ns % 1000000000 };

  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

static int64_t
cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((int64_t) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
         ((int64_t) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

static void
print_stats (const rdmatop_capture_stats *st)
{
  printf ("\"stats\": {\"taken\": %" PRIu64 ", \"missed\": %" PRIu64 ", \"dropped\": %" PRIu64
          ", \"dropped_samples\": %" PRIu64 ", \"samples\": %" PRIu64 ", \"read_errors\": %" PRIu64
          ", \"intervals\": %" PRIu64 ", \"interval_min_ns\": %" PRId64
          ", \"interval_median_ns\": %" PRId64 ", \"interval_p99_ns\": %" PRId64
          ", \"interval_max_ns\": %" PRId64 ", \"interval_mean_ns\": %.0f, \"cpu_ns\": %" PRId64 "}",
          st->taken, st->missed, st->dropped, st->dropped_samples, st->samples, st->read_errors,
          st->intervals, st->interval_min_ns, st->interval_median_ns, st->interval_p99_ns,
          st->interval_max_ns, st->interval_mean_ns, st->cpu_ns);
}

static void
print_capture (const rdmatop_capture_stats *st, int64_t wall_ns, int64_t cpu)
{
  printf ("{\"read\": %" PRIu64 ", \"wall_ns\": %" PRId64 ", \"process_cpu_ns\": %" PRId64 ", ",
          n_read, wall_ns, cpu);
  print_stats (st);
  printf (", \"series\": [");
  for (size_t i = 0; i < n_series; i++)
    {
      printf ("%s{\"device\": ", i ? ", " : "");
      print_string (series[i].device);
      printf (", \"port\": %" PRIu32 ", \"counter\": ", series[i].port);
      print_string (series[i].counter);
      printf (", \"n\": %" PRIu64 ", \"first\": %" PRIu64 ", \"last\": %" PRIu64
              ", \"decreases\": %" PRIu64 "}", series[i].n, series[i].first, series[i].last,
              series[i].decreases);
    }
  printf ("], \"reads\": [");
  for (size_t i = 0; i < n_ports_seen; i++)
    {
      printf ("%s{\"device\": ", i ? ", " : "");
      print_string (ports_seen[i].device);
      printf (", \"port\": %" PRIu32 ", \"monotonic_ns\": [", ports_seen[i].port);
      for (size_t k = 0; k < ports_seen[i].n; k++)
        printf ("%s%" PRId64, k ? "," : "", ports_seen[i].times[k]);
      printf ("]}");
    }
  printf ("]}\n");
}

typedef struct {
  const char *devices[MAX_ARGS + 1];
  const char *counters[MAX_ARGS + 1];
  uint32_t ports[MAX_ARGS];
  size_t n_devices, n_counters, n_ports;
  uint64_t interval_ns, capacity;
  double seconds;
  int64_t drain_ms;
} CaptureArgs;

static int
parse_capture (int argc, char **argv, CaptureArgs *a)
{
  for (int i = 0; i + 1 < argc; i += 2)
    {
      const char *opt = argv[i], *val = argv[i + 1];

      if (strcmp (opt, "--device") == 0 && a->n_devices < MAX_ARGS)
        a->devices[a->n_devices++] = val;
      else if (strcmp (opt, "--counter") == 0 && a->n_counters < MAX_ARGS)
        a->counters[a->n_counters++] = val;
      else if (strcmp (opt, "--port") == 0 && a->n_ports < MAX_ARGS)
        a->ports[a->n_ports++] = (uint32_t) strtoul (val, NULL, 10);
      else if (strcmp (opt, "--interval-ns") == 0)
        a->interval_ns = strtoull (val, NULL, 10);
      else if (strcmp (opt, "--capacity") == 0)
        a->capacity = strtoull (val, NULL, 10);
      else if (strcmp (opt, "--seconds") == 0)
        a->seconds = strtod (val, NULL);
      else if (strcmp (opt, "--drain-ms") == 0)
        a->drain_ms = strtoll (val, NULL, 10);
      else
        return -1;
    }
  return argc % 2 == 0 ? 0 : -1;
}

static int
cmd_capture (int argc, char **argv)
{
  CaptureArgs a = { .interval_ns = 1000000, .seconds = 2, .drain_ms = 100 };
  rdmatop_capture *cap;
  rdmatop_capture_stats st;
  rdmatop_status status;
  int64_t t0, end, cpu0;

  if (parse_capture (argc, argv, &a) != 0)
    {
      fprintf (stderr, "rdmatop-probe: bad capture arguments\n");
      return 2;
    }
  status = rdmatop_capture_new (a.n_devices ? a.devices : NULL, a.n_ports ? a.ports : NULL,
                                a.n_ports, a.n_counters ? a.counters : NULL, a.interval_ns,
                                a.capacity, &cap);
  if (status != RDMATOP_OK)
    return print_error ("rdmatop_capture_new", status);
  cpu0 = cpu_ns ();
  t0 = now_ns (CLOCK_MONOTONIC);
  end = t0 + (int64_t) (a.seconds * 1e9);
  if ((status = rdmatop_capture_start (cap)) != RDMATOP_OK)
    return print_error ("rdmatop_capture_start", status);
  while (now_ns (CLOCK_MONOTONIC) < end)
    {
      int64_t left = end - now_ns (CLOCK_MONOTONIC);

      sleep_ns (a.drain_ms > 0 && a.drain_ms * 1000000 < left ? a.drain_ms * 1000000 : left);
      if (a.drain_ms > 0)
        drain (cap);
    }
  rdmatop_capture_stop (cap);
  end = now_ns (CLOCK_MONOTONIC);
  drain (cap);
  rdmatop_capture_get_stats (cap, &st);
  print_capture (&st, end - t0, cpu_ns () - cpu0);
  rdmatop_capture_free (cap);
  return 0;
}

static int
cmd_error (const char *kind)
{
  const char *nosuch[] = { "nosuchdev0", NULL };
  const char *counters[] = { "no_such_counter", NULL };
  uint32_t port = 99;
  rdmatop_capture *cap = NULL;
  rdmatop_status st;

  if (strcmp (kind, "interval") == 0)
    st = rdmatop_capture_new (NULL, NULL, 0, NULL, 100000, 0, &cap);
  else if (strcmp (kind, "device") == 0)
    st = rdmatop_capture_new (nosuch, NULL, 0, NULL, 1000000, 0, &cap);
  else if (strcmp (kind, "counter") == 0)
    st = rdmatop_capture_new (NULL, NULL, 0, counters, 1000000, 0, &cap);
  else if (strcmp (kind, "port") == 0)
    st = rdmatop_capture_new (NULL, &port, 1, NULL, 1000000, 0, &cap);
  else
    return 2;
  rdmatop_capture_free (cap);
  print_error (kind, st);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "snapshot") == 0)
    return cmd_snapshot (argc - 2, argv + 2);
  if (argc >= 2 && strcmp (argv[1], "capture") == 0)
    return cmd_capture (argc - 2, argv + 2);
  if (argc == 3 && strcmp (argv[1], "error") == 0)
    return cmd_error (argv[2]);
  fprintf (stderr, "Usage: rdmatop-probe snapshot [DEVICE...] | capture [OPTIONS] | error KIND\n");
  return 2;
}
