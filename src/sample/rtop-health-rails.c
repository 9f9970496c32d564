/* rtop-health-rails.c: rails that should carry equal shares and do not.
 *
 * The ports one job's queue pairs use move together (an all-reduce or an
 * all-to-all spreads its bytes over them); so do the ports a host's RDMA
 * processes use when no job is known.  Each pass, each such port's throughput (transmit
 * plus receive bytes) is set against the median of its peers', and the
 * rule of rtop-health-rules.c (rtop_health_imbalance_rule) says when a low
 * share is an episode and when it is over.  Idle groups, groups of one and
 * ports that are down (their own episode says so) are not judged. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-health-private.h"
#include "rtop-health-rails-private.h"

typedef struct {
  char *device;              /* the rail: device and port */
  guint32 port;
  guint64 pass;              /* the last pass that judged it */
  gint64 low_since_us;       /* 0: not low; else when its low streak began */
  gint64 ok_since_us;        /* in an episode: when its recovered streak began, or 0 */
  guint64 id;                /* the episode's id; 0: none */
  gint64 start_us;
  char *group;               /* the peers' name when the episode started */
} RailMemo;

struct _RtopHealthRails {
  GHashTable *memos;         /* "device/port" -> RailMemo */
};

typedef struct {
  const RtopDevice *dev;
  const RtopPort *port;
  double bytes_s;
} Rail;

typedef struct {
  char *name;                /* the job's name; NULL: the host's active ports */
  gboolean whole;            /* name is the whole job's (its parts differ) */
  GArray *rails;             /* Rail */
} RailGroup;

static void
rail_memo_free (gpointer data)
{
  RailMemo *m = data;

  g_free (m->device);
  g_free (m->group);
  g_free (m);
}

static void
rail_group_free (gpointer data)
{
  RailGroup *g = data;

  g_free (g->name);
  g_array_unref (g->rails);
  g_free (g);
}

RtopHealthRails *
rtop_health_rails_new (void)
{
  RtopHealthRails *self = g_new0 (RtopHealthRails, 1);

  self->memos = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, rail_memo_free);
  return self;
}

void
rtop_health_rails_free (RtopHealthRails *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->memos);
  g_free (self);
}

/* Transmit plus receive bytes a second; FALSE when the port has no rate
 * this pass (its first read, a GPU's links) or is not up. */
static gboolean
rail_rate (const RtopDevice *dev, const RtopPort *port, double *bytes_s)
{
  const RtopMetric *tx = &port->metrics[RTOP_METRIC_TX_BYTES];
  const RtopMetric *rx = &port->metrics[RTOP_METRIC_RX_BYTES];

  if (dev->kind == RTOP_DEVICE_KIND_GPU || !rtop_health_port_is_up (port) || port->error != NULL
      || !tx->has_rate || !rx->has_rate)
    return FALSE;
  *bytes_s = tx->rate + rx->rate;
  return TRUE;
}

static void
group_add (RailGroup *group, const RtopDevice *dev, const RtopPort *port)
{
  Rail rail = { dev, port, 0 };

  for (guint i = 0; i < group->rails->len; i++)
    if (g_array_index (group->rails, Rail, i).port == port)
      return;
  if (rail_rate (dev, port, &rail.bytes_s))
    g_array_append_val (group->rails, rail);
}

static RailGroup *
group_new (const char *name)
{
  RailGroup *g = g_new0 (RailGroup, 1);

  g->name = g_strdup (name);
  g->rails = g_array_new (FALSE, FALSE, sizeof (Rail));
  return g;
}

/* One group per job whose processes have queue pairs on ports, and one of
 * the ports the processes of no known job use (rails, not every port the
 * host has: an idle port nobody uses is no slow rail).  The kernel's own
 * queue pairs (on every port) are no use of a port. */
static GPtrArray *
find_groups (const RtopSnapshot *snap)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (rail_group_free);
  g_autoptr(GHashTable) by_job = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; snap->processes != NULL && i < snap->processes->len; i++)
    {
      const RtopProcess *proc = g_ptr_array_index (snap->processes, i);
      gboolean in_job = proc->job.kind != RTOP_JOB_NONE && proc->job.id != NULL;
      g_autofree char *key = NULL;
      RailGroup *group;

      if (proc->kernel || proc->qp_list == NULL)
        continue;
      /* A job's steps share its rails. */
      key = in_job ? g_strdup_printf ("%d/%s", proc->job.kind, proc->job.id) : g_strdup ("");
      group = g_hash_table_lookup (by_job, key);
      if (group == NULL)
        {
          group = group_new (!in_job ? NULL : proc->job.name != NULL ? proc->job.name : proc->job.id);
          g_ptr_array_add (groups, group);
          g_hash_table_insert (by_job, g_steal_pointer (&key), group);
        }
      else if (in_job && !group->whole && g_strcmp0 (group->name, proc->job.name) != 0)
        {
          /* Several steps (or containers) of one job: named as the job. */
          g_free (group->name);
          group->name = rtop_job_whole_name (&proc->job);
          group->whole = TRUE;
        }
      for (guint q = 0; q < proc->qp_list->len; q++)
        {
          const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, q);
          const RtopDevice *dev = qp->port != 0 ? rtop_snapshot_find_device (snap, qp->device) : NULL;
          const RtopPort *port = dev != NULL ? rtop_device_find_port (dev, qp->port) : NULL;

          if (port != NULL)
            group_add (group, dev, port);
        }
    }
  return groups;
}

/* A group's rates sorted once a pass, and each rail's place among them:
 * a rail's peers are the sorted rates less the one at its place. */
typedef struct {
  double *sorted;
  guint *rank;               /* rail index -> its place in sorted */
  guint n;
} GroupRates;

static int
compare_rails (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const GArray *rails = user_data;
  double x = g_array_index (rails, Rail, *(const guint *) a).bytes_s;
  double y = g_array_index (rails, Rail, *(const guint *) b).bytes_s;

  return x < y ? -1 : x > y ? 1 : 0;
}

static void
group_rates_init (GroupRates *r, const RailGroup *group)
{
  g_autofree guint *order = g_new (guint, group->rails->len);

  r->n = group->rails->len;
  r->sorted = g_new (double, r->n);
  r->rank = g_new (guint, r->n);
  for (guint i = 0; i < r->n; i++)
    order[i] = i;
  g_qsort_with_data (order, r->n, sizeof (guint), compare_rails, group->rails);
  for (guint k = 0; k < r->n; k++)
    {
      r->sorted[k] = g_array_index (group->rails, Rail, order[k]).bytes_s;
      r->rank[order[k]] = k;
    }
}

static void
group_rates_clear (GroupRates *r)
{
  g_free (r->sorted);
  g_free (r->rank);
}

/* The median of the group's rates but rail skip's (n >= 2 rails). */
static double
peer_median (const GroupRates *r, guint skip)
{
  guint n = r->n - 1, rank = r->rank[skip];
#define PEER(k) r->sorted[(k) < rank ? (k) : (k) + 1]
  double median = n % 2 ? PEER (n / 2) : (PEER (n / 2 - 1) + PEER (n / 2)) / 2;
#undef PEER

  return median;
}

/* "4.2 Gb/s": a rate in bytes a second, as the window shows throughput. */
static char *
bits_text (double bytes_s)
{
  double bits = bytes_s * 8;

  if (bits >= 1e9)
    /* TRANSLATORS: gigabits per second. */
    return g_strdup_printf (_("%.1f Gb/s"), bits / 1e9);
  /* TRANSLATORS: megabits per second. */
  return g_strdup_printf (_("%.0f Mb/s"), bits / 1e6);
}

static char *
group_text (const char *group)
{
  /* TRANSLATORS: who a rail's peers are, ending a health event. */
  return group != NULL ? g_strdup_printf (_("in job %s"), group)
                       : g_strdup (_("among the ports this host's RDMA processes use"));
}

static RtopEvent *
add_event (RtopSnapshot *snap, const char *device, guint32 port, double share, char *message)
{
  RtopEvent *ev = rtop_event_new (RTOP_EVENT_RAIL_IMBALANCE, RTOP_SEVERITY_WARNING, device, port, NULL);

  ev->message = message;
  ev->new_value = g_strdup_printf ("%.0f %%", share * 100);
  ev->realtime_us = snap->realtime_us;
  ev->monotonic_us = snap->monotonic_us;
  g_ptr_array_add (snap->events, ev);
  return ev;
}

static void
finish (RtopSnapshot *snap, RailMemo *m, double share, gboolean judged)
{
  g_autofree char *lasted = rtop_health_format_duration (snap->monotonic_us - m->start_us);
  g_autofree char *peers = group_text (m->group);
  RtopEvent *ev;

  ev = add_event (snap, m->device, m->port, share,
                  judged ? g_strdup_printf (_("Rail %s/%u carries its share again after %s, %s."),
                                            m->device, m->port, lasted, peers)
                         : g_strdup_printf (_("Rail %s/%u is no longer compared with its peers after %s "
                                              "(down, idle or no longer used), %s."),
                                            m->device, m->port, lasted, peers));
  ev->episode = m->id;
  ev->ongoing = FALSE;
  ev->started_us = m->start_us;
  ev->duration_us = snap->monotonic_us - m->start_us;
  m->id = 0;
  m->ok_since_us = 0;
  g_clear_pointer (&m->group, g_free);
}

static void
judge (RtopHealthRails *self, RtopSnapshot *snap, const RailGroup *group, const GroupRates *rates,
       guint i, guint64 pass, guint64 *last_episode)
{
  const ImbalanceRule *rule = &rtop_health_imbalance_rule;
  const Rail *rail = &g_array_index (group->rails, Rail, i);
  g_autofree char *key = g_strdup_printf ("%s/%u", rail->dev->name, rail->port->index);
  RailMemo *m = g_hash_table_lookup (self->memos, key);
  double median = peer_median (rates, i);
  double share = median > 0 ? rail->bytes_s / median : 1;
  gint64 now = snap->monotonic_us;

  if (m == NULL)
    {
      m = g_new0 (RailMemo, 1);
      m->device = g_strdup (rail->dev->name);
      m->port = rail->port->index;
      g_hash_table_insert (self->memos, g_steal_pointer (&key), m);
    }
  else if (m->pass == pass)
    return;                  /* judged in another of its groups this pass */
  m->pass = pass;
  if (median < rule->min_peer_bytes_s)
    share = 1;               /* idle peers: no share to judge */

  if (share < rule->low_share)
    {
      m->ok_since_us = 0;
      if (m->low_since_us == 0)
        m->low_since_us = now;
      if (m->id == 0 && now - m->low_since_us >= rule->confirm_us)
        {
          g_autofree char *peers = group_text (group->name);
          g_autofree char *median_text = bits_text (median);
          RtopEvent *ev;

          m->id = ++*last_episode;
          m->start_us = m->low_since_us;
          m->group = g_strdup (group->name);
          ev = add_event (snap, rail->dev->name, rail->port->index, share,
                          g_strdup_printf (_("Rail %s/%u carries %.0f %% of the median of its %u peers "
                                             "(%s), %s."),
                                           rail->dev->name, rail->port->index, share * 100,
                                           group->rails->len - 1, median_text, peers));
          ev->episode = m->id;
          ev->ongoing = TRUE;
          ev->started_us = m->start_us;
        }
      return;
    }
  m->low_since_us = 0;
  if (m->id == 0)
    return;
  if (share < rule->recover_share)
    {
      m->ok_since_us = 0;    /* between the two: neither low nor recovered */
      return;
    }
  if (m->ok_since_us == 0)
    m->ok_since_us = now;
  if (now - m->ok_since_us >= rule->recover_us)
    finish (snap, m, share, TRUE);
}

void
rtop_health_rails_check (RtopHealthRails *self, RtopSnapshot *snap, guint64 pass,
                         guint64 *last_episode)
{
  g_autoptr(GPtrArray) groups = find_groups (snap);
  GHashTableIter iter;
  gpointer value;

  for (guint g = 0; g < groups->len; g++)
    {
      const RailGroup *group = g_ptr_array_index (groups, g);
      GroupRates rates;

      if (group->rails->len < 2)
        continue;
      group_rates_init (&rates, group);
      for (guint i = 0; i < group->rails->len; i++)
        judge (self, snap, group, &rates, i, pass, last_episode);
      group_rates_clear (&rates);
    }
  /* A rail no group judged this pass: its episode ends, its memo goes
   * (memory stays bounded by the ports of one pass). */
  g_hash_table_iter_init (&iter, self->memos);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      RailMemo *m = value;

      if (m->pass == pass)
        continue;
      if (m->id != 0)
        finish (snap, m, 0, FALSE);
      g_hash_table_iter_remove (&iter);
    }
}
