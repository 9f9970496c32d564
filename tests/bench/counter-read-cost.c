/* counter-read-cost: what one port's counters cost to read, both ways a
 * counters-only capture could read them: one STAT_GET over RDMA netlink
 * (through RtopNl and the parser the collector uses), or every file of
 * ports/<p>/hw_counters kept open and pread() (RtopCounterDir).  Prints
 * the CPU time (user + system, CLOCK_PROCESS_CPUTIME_ID) per read, the
 * median of rounds of --reads reads each.
 *
 * Usage: counter-read-cost DEVICE [PORT] [--reads N] [--rounds R] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtop-nl.h"
#include "rtop-sysfs.h"
#include "uapi/rdma/rdma_netlink.h"

typedef struct {
  guint32 index;
  const char *name;
  guint n;
} Find;

static gboolean
find_cb (const struct nlmsghdr *nlh, gpointer data, GError **error)
{
  Find *f = data;
  RtopNlDeviceView v;

  if (rtop_nl_parse_device_view (nlh, &v, error) && strcmp (v.name, f->name) == 0)
    f->index = v.index;
  return TRUE;
}

static gboolean
count_cb (const char *name, guint64 value, gpointer data, GError **error)
{
  ((Find *) data)->n++;
  return TRUE;
}

static gboolean
stat_cb (const struct nlmsghdr *nlh, gpointer data, GError **error)
{
  return rtop_nl_parse_stat_foreach (nlh, NULL, NULL, count_cb, data, error);
}

static void
dir_cb (const char *name, guint64 value, RtopCounterSource source, gpointer data)
{
  ((Find *) data)->n++;
}

static double
cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopNl) nl = NULL;
  g_autofree char *path = NULL;
  RtopCounterDir *dir;
  Find f = { 0 };
  guint32 port = 1;
  int reads = 1000, rounds = 5, pos = 0;
  double nl_us[64], fs_us[64];
  guint nl_n = 0, fs_n = 0, failed = 0;

  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--reads") == 0 && i + 1 < argc)
      reads = atoi (argv[++i]);
    else if (strcmp (argv[i], "--rounds") == 0 && i + 1 < argc)
      rounds = atoi (argv[++i]);
    else if (pos++ == 0)
      f.name = argv[i];
    else
      port = (guint32) atoi (argv[i]);
  if (f.name == NULL || reads < 1 || rounds < 1 || rounds > 64)
    {
      fprintf (stderr, "Usage: counter-read-cost DEVICE [PORT] [--reads N] [--rounds R]\n");
      return 2;
    }
  if ((nl = rtop_nl_open (&error)) == NULL ||
      !rtop_nl_query (nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0, find_cb, &f, &error))
    {
      fprintf (stderr, "counter-read-cost: %s\n", error->message);
      return 1;
    }
  path = rtop_sysfs_port_hw_counters_path ("/sys", f.name, port);
  dir = rtop_counter_dir_open (path, RTOP_COUNTER_SOURCE_SYSFS_HW, NULL);
  if (f.index == 0 && dir == NULL)
    {
      fprintf (stderr, "counter-read-cost: no device %s\n", f.name);
      return 1;
    }
  for (int r = 0; r < rounds; r++)
    {
      double t0 = cpu_s ();

      f.n = 0;
      for (int k = 0; k < reads; k++)
        if (!rtop_nl_query (nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, f.index, port, stat_cb, &f, &error))
          {
            fprintf (stderr, "counter-read-cost: %s\n", error->message);
            return 1;
          }
      nl_us[nl_n++] = (cpu_s () - t0) / reads * 1e6;
      if (r == 0)
        printf ("# netlink STAT_GET: %u counters per read\n", f.n / reads);
      if (dir != NULL)
        {
          t0 = cpu_s ();
          f.n = 0;
          for (int k = 0; k < reads; k++)
            rtop_counter_dir_read_foreach (dir, dir_cb, &f, &failed);
          fs_us[fs_n++] = (cpu_s () - t0) / reads * 1e6;
          if (r == 0)
            printf ("# sysfs hw_counters: %u files per read\n", f.n / reads);
        }
    }
  qsort (nl_us, nl_n, sizeof (double), cmp_double);
  qsort (fs_us, fs_n, sizeof (double), cmp_double);
  printf ("netlink_us_per_read=%.1f\n", nl_us[nl_n / 2]);
  if (fs_n > 0)
    printf ("sysfs_us_per_read=%.1f\n", fs_us[fs_n / 2]);
  if (dir != NULL)
    rtop_counter_dir_free (dir);
  return 0;
}
