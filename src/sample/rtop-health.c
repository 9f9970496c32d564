/* rtop-health.c: health events from successive snapshots, by the rules of
 * rtop-health-rules.c. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-health-rails-private.h"
#include "rtop-health-rules-private.h"
#include "rtop-port-key.h"
#include "rtop-providers.h"

/* A group's counters rising on one port: pending after the first rise,
 * an episode once confirmed, over after settle_us without a rise. */
typedef struct {
  gboolean pending, active;
  guint64 id;
  guint n_passes;            /* passes with a rise */
  gint64 start_us, last_rise_us;
  guint64 total;
  double peak_rate;
  RtopSeverity severity;
  char *counter;             /* the first counter that rose */
  guint64 class_total[RTOP_COUNTER_CLASS_N];
} Episode;

/* An Active port that went down, until it is Active again. */
typedef struct {
  guint64 id;                /* 0: none */
  gint64 start_us;
  char *from_state;          /* what it was and what it went to */
  char *to_state;
  guint64 class_total[RTOP_COUNTER_CLASS_N];  /* rises folded into it */
} DownEpisode;

typedef struct {
  guint8 state, phys_state;
  char *rate_text;
  char *netdev;
  gboolean failing;
  guint64 pass;
  guint64 layout;            /* RtopPort.counter_layout of the last read */
  GArray *watched;           /* guint: positions of watched counters in that layout */
  GArray *groups;            /* guint8: their groups */
  Episode episodes[N_GROUPS];
  DownEpisode down;
  gboolean down_ending;      /* up again this pass: complete after the counters */
  GHashTable *saturated;     /* names of counters stuck at their maximum, or NULL */
} PortMemo;

typedef struct {
  guint32 index;
  char *name;
  guint64 pass;              /* last pass that listed it */
} DeviceMemo;

struct _RtopHealth {
  gboolean have_baseline;
  RtopStatus status;
  gboolean processes_failing;
  guint64 pass;
  gint64 settle_us;
  guint64 last_episode;
  GHashTable *devices;       /* name -> DeviceMemo */
  GHashTable *ports;         /* "dev/port" -> PortMemo; port 0 is the device level */
  GHashTable *qps_in_error;  /* "pid/start/dev/lqpn" of QPs in the error state last pass */
  RtopHealthRails *rails;    /* rails that should carry equal shares */
};

static void
episode_clear (Episode *ep)
{
  g_free (ep->counter);
  memset (ep, 0, sizeof *ep);
}

static void
down_clear (DownEpisode *down)
{
  g_free (down->from_state);
  g_free (down->to_state);
  memset (down, 0, sizeof *down);
}

static PortMemo *
port_memo_new (void)
{
  PortMemo *pm = g_new0 (PortMemo, 1);

  pm->watched = g_array_new (FALSE, FALSE, sizeof (guint));
  pm->groups = g_array_new (FALSE, FALSE, sizeof (guint8));
  return pm;
}

static void
port_memo_free (gpointer data)
{
  PortMemo *pm = data;

  g_array_unref (pm->watched);
  g_array_unref (pm->groups);
  for (guint g = 0; g < N_GROUPS; g++)
    episode_clear (&pm->episodes[g]);
  down_clear (&pm->down);
  g_clear_pointer (&pm->saturated, g_hash_table_unref);
  g_free (pm->rate_text);
  g_free (pm->netdev);
  g_free (pm);
}

static void
device_memo_free (gpointer data)
{
  DeviceMemo *dm = data;

  g_free (dm->name);
  g_free (dm);
}

RtopHealth *
rtop_health_new (void)
{
  RtopHealth *self = g_new0 (RtopHealth, 1);

  self->settle_us = 10 * G_USEC_PER_SEC;
  self->devices = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, device_memo_free);
  self->ports = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, port_memo_free);
  self->qps_in_error = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->rails = rtop_health_rails_new ();
  return self;
}

void
rtop_health_free (RtopHealth *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->ports);
  g_hash_table_unref (self->qps_in_error);
  rtop_health_rails_free (self->rails);
  g_free (self);
}


static gboolean
state_is_up (guint8 state, guint8 phys_state)
{
  RtopPort p = { .state = state, .phys_state = phys_state };

  return rtop_health_port_is_up (&p);
}

static RtopEvent *
add_event (RtopSnapshot *snap, RtopEventKind kind, RtopSeverity severity,
           const char *device, guint32 port, const char *old_value,
           const char *new_value, char *message /* owned */)
{
  RtopEvent *ev = rtop_event_new (kind, severity, device, port, NULL);

  ev->message = message;
  ev->old_value = g_strdup (old_value);
  ev->new_value = g_strdup (new_value);
  ev->realtime_us = snap->realtime_us;
  ev->monotonic_us = snap->monotonic_us;
  g_ptr_array_add (snap->events, ev);
  return ev;
}

/* ---- Collection status ---- */

static void
check_status (RtopHealth *self, RtopSnapshot *snap)
{
  if (snap->status == self->status)
    return;
  if (snap->status != RTOP_STATUS_OK)
    add_event (snap, RTOP_EVENT_COLLECTION_ERROR, RTOP_SEVERITY_ERROR, NULL, 0, NULL, NULL,
               g_strdup (snap->status_message ? snap->status_message
                                              : _("Collecting RDMA statistics failed.")));
  else
    add_event (snap, RTOP_EVENT_COLLECTION_RECOVERED, RTOP_SEVERITY_INFO, NULL, 0, NULL, NULL,
               g_strdup (_("Collecting RDMA statistics works again.")));
  self->status = snap->status;
}

static void
check_processes (RtopHealth *self, RtopSnapshot *snap)
{
  gboolean failing = snap->processes_error != NULL;

  if (failing == self->processes_failing)
    return;
  if (failing)
    add_event (snap, RTOP_EVENT_COLLECTION_ERROR, RTOP_SEVERITY_WARNING, NULL, 0, NULL, NULL,
               g_strdup (snap->processes_error));
  else
    add_event (snap, RTOP_EVENT_COLLECTION_RECOVERED, RTOP_SEVERITY_INFO, NULL, 0, NULL, NULL,
               g_strdup (_("Listing the processes that use RDMA works again.")));
  self->processes_failing = failing;
}

/* ---- Devices ---- */

static void
check_devices (RtopHealth *self, RtopSnapshot *snap)
{
  GHashTableIter iter;
  DeviceMemo *dm;

  for (guint i = 0; i < snap->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      dm = g_hash_table_lookup (self->devices, dev->name);
      if (dm != NULL && dm->index == dev->index)
        {
          dm->pass = self->pass;
          continue;
        }
      if (dm == NULL)
        {
          /* A device that vanished under one name and is here with the same
           * kernel index under another was renamed. */
          GHashTableIter it;
          DeviceMemo *old;
          const char *renamed_from = NULL;

          g_hash_table_iter_init (&it, self->devices);
          while (g_hash_table_iter_next (&it, NULL, (gpointer *) &old))
            if (old->index == dev->index && rtop_snapshot_find_device (snap, old->name) == NULL)
              renamed_from = old->name;
          if (renamed_from != NULL && self->have_baseline)
            {
              add_event (snap, RTOP_EVENT_DEVICE_RENAMED, RTOP_SEVERITY_INFO, dev->name, 0,
                         renamed_from, dev->name,
                         g_strdup_printf (_("Device %s was renamed to %s."), renamed_from, dev->name));
              g_hash_table_remove (self->devices, renamed_from);
            }
          else if (self->have_baseline)
            add_event (snap, RTOP_EVENT_DEVICE_ADDED, RTOP_SEVERITY_INFO, dev->name, 0, NULL, NULL,
                       g_strdup_printf (_("Device %s appeared."), dev->name));
        }
      else if (self->have_baseline)
        {
          /* Same name, new kernel index: removed and added again. */
          add_event (snap, RTOP_EVENT_DEVICE_REMOVED, RTOP_SEVERITY_WARNING, dev->name, 0, NULL, NULL,
                     g_strdup_printf (_("Device %s was removed."), dev->name));
          add_event (snap, RTOP_EVENT_DEVICE_ADDED, RTOP_SEVERITY_INFO, dev->name, 0, NULL, NULL,
                     g_strdup_printf (_("Device %s appeared again; its counters start from zero."),
                                      dev->name));
        }
      dm = g_new0 (DeviceMemo, 1);
      dm->index = dev->index;
      dm->name = g_strdup (dev->name);
      dm->pass = self->pass;
      g_hash_table_replace (self->devices, dm->name, dm);
    }

  g_hash_table_iter_init (&iter, self->devices);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &dm))
    if (dm->pass != self->pass)
      {
        add_event (snap, RTOP_EVENT_DEVICE_REMOVED, RTOP_SEVERITY_WARNING, dm->name, 0, NULL, NULL,
                   g_strdup_printf (_("Device %s was removed."), dm->name));
        g_hash_table_iter_remove (&iter);
      }
}

/* ---- Ports ---- */

static char *
port_location (const char *device, guint32 port)
{
  return port != 0 ? g_strdup_printf ("%s/%u", device, port) : g_strdup (device);
}

char *
rtop_health_format_duration (gint64 usec)
{
  gint64 s = MAX (usec, 0) / G_USEC_PER_SEC;

  if (s < 120)
    return g_strdup_printf (_("%u s"), (guint) s);
  if (s < 7200)
    return g_strdup_printf (_("%u min %u s"), (guint) (s / 60), (guint) (s % 60));
  return g_strdup_printf (_("%u h %u min"), (guint) (s / 3600), (guint) (s / 60 % 60));
}

static char *
format_count (guint64 n)
{
  return g_strdup_printf ("%" G_GUINT64_FORMAT, n);
}

/* What the receiving end counts of its peer's loss, by class. */
static const char * const peer_class_labels[RTOP_COUNTER_CLASS_N] = {
  [RTOP_COUNTER_CLASS_RETRANSMIT] = N_("Requests resent by the peer"),
  [RTOP_COUNTER_CLASS_TRANSPORT_ERROR] = N_("Out-of-sequence requests"),
};

/* "Retransmits 30, Transport errors 10": what an episode added up to. */
static char *
format_class_totals (const guint64 *class_total, gboolean peer)
{
  GString *text = g_string_new (NULL);

  for (guint k = 0; k < RTOP_COUNTER_CLASS_N; k++)
    {
      g_autofree char *n = NULL;
      const char *label;

      if (class_total[k] == 0)
        continue;
      n = format_count (class_total[k]);
      label = peer && peer_class_labels[k] != NULL ? _(peer_class_labels[k])
                                                   : rtop_counter_class_to_label (k);
      if (text->len > 0)
        g_string_append (text, ", ");
      /* TRANSLATORS: a counter class and how much it rose, e.g. "Retransmits 30". */
      g_string_append_printf (text, _("%s %s"), label, n);
    }
  return g_string_free (text, FALSE);
}

static void
start_down (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
            PortMemo *pm)
{
  g_autofree char *where = port_location (dev->name, port->index);
  RtopEvent *ev;

  down_clear (&pm->down);
  pm->down.id = ++self->last_episode;
  pm->down.start_us = snap->monotonic_us;
  pm->down.from_state = g_strdup (rtop_port_state_to_string (pm->state));
  pm->down.to_state = g_strdup (rtop_port_state_to_string (port->state));
  ev = add_event (snap, RTOP_EVENT_PORT_DOWN, RTOP_SEVERITY_ERROR, dev->name, port->index,
                  pm->down.from_state, pm->down.to_state,
                  g_strdup_printf (_("Port %s went down: state %s, physical link %s."), where,
                                   rtop_port_state_to_string (port->state),
                                   rtop_port_phys_state_to_string (port->phys_state)));
  ev->episode = pm->down.id;
  ev->ongoing = TRUE;
  ev->started_us = pm->down.start_us;
}

static void
finish_down (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port, PortMemo *pm)
{
  g_autofree char *where = port_location (dev->name, port->index);
  g_autofree char *lasted = rtop_health_format_duration (snap->monotonic_us - pm->down.start_us);
  g_autofree char *folded = format_class_totals (pm->down.class_total, FALSE);
  guint64 total = 0;
  RtopEvent *ev;
  char *message;

  for (guint k = 0; k < RTOP_COUNTER_CLASS_N; k++)
    total += pm->down.class_total[k];
  if (*folded != '\0')
    message = g_strdup_printf (_("Port %s was down for %s and is active again; meanwhile: %s."),
                               where, lasted, folded);
  else
    message = g_strdup_printf (_("Port %s was down for %s and is active again."), where, lasted);
  /* The episode stays an Error: "Errors only" keeps showing it. */
  ev = add_event (snap, RTOP_EVENT_PORT_DOWN, RTOP_SEVERITY_ERROR, dev->name, port->index,
                  pm->down.from_state, rtop_port_state_to_string (port->state), message);
  ev->episode = pm->down.id;
  ev->ongoing = FALSE;
  ev->started_us = pm->down.start_us;
  ev->duration_us = snap->monotonic_us - pm->down.start_us;
  ev->total = total;
  down_clear (&pm->down);
}

/* State and physical state changes that are not a down episode's. */
static void
check_state_changes (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
                     const PortMemo *pm)
{
  if (pm->state != port->state)
    add_event (snap, RTOP_EVENT_PORT_STATE,
               port->state == 4 ? RTOP_SEVERITY_INFO : RTOP_SEVERITY_WARNING,
               dev->name, port->index,
               rtop_port_state_to_string (pm->state), rtop_port_state_to_string (port->state),
               g_strdup_printf (_("Port %s/%u changed state from %s to %s."), dev->name, port->index,
                                rtop_port_state_to_string (pm->state),
                                rtop_port_state_to_string (port->state)));
  if (pm->phys_state != port->phys_state)
    add_event (snap, RTOP_EVENT_PORT_PHYS_STATE,
               port->phys_state == 5 ? RTOP_SEVERITY_INFO : RTOP_SEVERITY_WARNING,
               dev->name, port->index,
               rtop_port_phys_state_to_string (pm->phys_state),
               rtop_port_phys_state_to_string (port->phys_state),
               g_strdup_printf (_("Port %s/%u changed physical state from %s to %s."), dev->name,
                                port->index, rtop_port_phys_state_to_string (pm->phys_state),
                                rtop_port_phys_state_to_string (port->phys_state)));
}

static void
check_port_facts (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev,
                  const RtopPort *port, PortMemo *pm)
{
  gboolean was_up = state_is_up (pm->state, pm->phys_state);
  gboolean is_up = rtop_health_port_is_up (port);
  /* The same counter layout: the same netdev and rate text (the collector
   * makes a new layout when either changes). */
  gboolean same_strings = port->counter_layout != 0 && pm->layout == port->counter_layout;

  /* One cause, one event: what changes with a link going down (state,
   * physical state, rate) is folded into its episode. */
  if (was_up && !is_up)
    start_down (self, snap, dev, port, pm);
  else if (pm->down.id != 0 && is_up)
    pm->down_ending = TRUE;
  else if (pm->down.id == 0)
    {
      check_state_changes (snap, dev, port, pm);
      if (is_up && !same_strings && port->rate_text != NULL &&
          g_strcmp0 (pm->rate_text, port->rate_text) != 0)
        add_event (snap, RTOP_EVENT_LINK_RATE, RTOP_SEVERITY_WARNING, dev->name, port->index,
                   pm->rate_text, port->rate_text,
                   g_strdup_printf (_("Port %s/%u link rate changed from %s to %s."), dev->name,
                                    port->index, pm->rate_text ? pm->rate_text : _("unknown"),
                                    port->rate_text));
    }
  if (!same_strings && g_strcmp0 (pm->netdev, port->netdev) != 0)
    add_event (snap, RTOP_EVENT_NETDEV_CHANGED, RTOP_SEVERITY_INFO, dev->name, port->index,
               pm->netdev, port->netdev,
               g_strdup_printf (_("Port %s/%u is now attached to network device %s."), dev->name,
                                port->index, port->netdev ? port->netdev : _("none")));
}

/* A GPU's links are read in one go: one event for the GPU, on its first port. */
static void
check_gpu_read (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
                const PortMemo *pm)
{
  if (dev->ports->len == 0 || port != g_ptr_array_index (dev->ports, 0))
    return;
  if (!pm->failing && port->error != NULL)
    add_event (snap, RTOP_EVENT_COLLECTION_ERROR, RTOP_SEVERITY_ERROR, dev->name, 0, NULL, NULL,
               g_strdup_printf (_("Reading GPU %s failed: %s"), dev->name, port->error));
  else if (pm->failing && port->error == NULL)
    add_event (snap, RTOP_EVENT_COLLECTION_RECOVERED, RTOP_SEVERITY_INFO, dev->name, 0, NULL, NULL,
               g_strdup_printf (_("Reading GPU %s works again."), dev->name));
}

static void
check_port_changes (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev,
                    const RtopPort *port, PortMemo *pm)
{
  /* A port whose read failed has no trustworthy state this pass. */
  if (port->error == NULL)
    check_port_facts (self, snap, dev, port, pm);
  if (dev->kind == RTOP_DEVICE_KIND_GPU)
    check_gpu_read (snap, dev, port, pm);
  else if (!pm->failing && port->error != NULL)
    add_event (snap, RTOP_EVENT_COLLECTION_ERROR, RTOP_SEVERITY_ERROR, dev->name, port->index,
               NULL, NULL,
               g_strdup_printf (_("Reading port %s/%u failed: %s"), dev->name, port->index,
                                port->error));
  else if (pm->failing && port->error == NULL)
    add_event (snap, RTOP_EVENT_COLLECTION_RECOVERED, RTOP_SEVERITY_INFO, dev->name, port->index,
               NULL, NULL,
               g_strdup_printf (_("Reading port %s/%u works again."), dev->name, port->index));
}

static void
remember_port (PortMemo *pm, const RtopPort *port, guint64 pass)
{
  /* A failed read keeps the last known state rather than flapping to 0. */
  if (port->error == NULL)
    {
      pm->state = port->state;
      pm->phys_state = port->phys_state;
      if (port->counter_layout != 0 && pm->layout == port->counter_layout)
        {
          pm->failing = FALSE;
          pm->pass = pass;
          return;     /* the strings are those of the same layout */
        }
      /* Copied only when they change (every pass, every port). */
      if (g_strcmp0 (pm->rate_text, port->rate_text) != 0)
        {
          g_free (pm->rate_text);
          pm->rate_text = g_strdup (port->rate_text);
        }
      if (g_strcmp0 (pm->netdev, port->netdev) != 0)
        {
          g_free (pm->netdev);
          pm->netdev = g_strdup (port->netdev);
        }
    }
  pm->failing = port->error != NULL;
  pm->pass = pass;
}

/* One event when a port's counter stops at its maximum, so the rate the
 * user no longer sees is explained; nothing while it stays there. */
static void
check_saturated (RtopSnapshot *snap, const RtopDevice *dev, guint32 port, PortMemo *pm,
                 GPtrArray *counters)
{
  g_autoptr(GHashTable) now = NULL;

  for (guint i = 0; i < counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      g_autofree char *max = NULL;
      RtopEvent *ev;

      if (!c->saturated)
        continue;
      if (now == NULL)
        now = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (now, g_strdup (c->name));
      if (pm->saturated != NULL && g_hash_table_contains (pm->saturated, c->name))
        continue;
      max = g_strdup_printf ("%" G_GUINT64_FORMAT, c->value);
      ev = add_event (snap, RTOP_EVENT_COUNTER_SATURATED, RTOP_SEVERITY_WARNING, dev->name,
                      port, NULL, NULL,
                 g_strdup_printf (_("Counter %s on %s port %u stopped at its maximum "
                                    "(%s): the adapter no longer counts it, "
                                    "so its rate is unknown. Clearing the port's counters "
                                    "(perfquery -x -R) makes it count again."),
                                  c->name, dev->name, port, max));
      ev->counter = g_strdup (c->name);
    }
  g_clear_pointer (&pm->saturated, g_hash_table_unref);
  pm->saturated = g_steal_pointer (&now);
}

static void
check_resets (RtopSnapshot *snap, const RtopDevice *dev, guint32 port, GPtrArray *counters)
{
  guint n = 0;
  const char *first = NULL;

  for (guint i = 0; i < counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      if (c->reset)
        {
          n++;
          first = first ? first : c->name;
        }
    }
  if (n == 0)
    return;
  /* One event per port, however many counters went backwards. */
  add_event (snap, RTOP_EVENT_COUNTER_RESET, RTOP_SEVERITY_WARNING, dev->name, port, NULL, NULL,
             g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u counter on %s was reset (%s); rates restart from it.",
                                           "%u counters on %s were reset (first: %s); rates restart from them.",
                                           n),
                              n, dev->name, first));
}

/* What one pass's rises add to one group. */
typedef struct {
  guint64 delta;
  double rate;
  gboolean has_error_class;
  RtopSeverity severity;
  const char *first;         /* valid during the pass */
  guint64 class_delta[RTOP_COUNTER_CLASS_N];
} Rise;

static void
raise_episode (RtopSnapshot *snap, const RtopDevice *dev, guint32 port, Group g, Episode *ep)
{
  g_autofree char *where = port_location (dev->name, port);
  g_autofree char *what = format_class_totals (ep->class_total, g == GROUP_PEER);
  RtopEvent *ev = add_event (snap, RTOP_EVENT_COUNTER_RISING, ep->severity, dev->name, port,
                             NULL, NULL,
                             g_strdup_printf (_("%s on %s: %s so far."),
                                              _(rtop_health_group_labels[g]), where, what));

  ev->counter = g_strdup (ep->counter);
  ev->episode = ep->id;
  ev->ongoing = TRUE;
  ev->started_us = ep->start_us;
  ev->duration_us = snap->monotonic_us - ep->start_us;
  ev->total = ep->total;
  ev->peak_rate = ep->peak_rate;
}

static void
complete_episode (RtopSnapshot *snap, const RtopDevice *dev, guint32 port, Group g, Episode *ep)
{
  g_autofree char *where = port_location (dev->name, port);
  g_autofree char *what = format_class_totals (ep->class_total, g == GROUP_PEER);
  /* It ended with the last rise; the quiet time after it is not part of it. */
  gint64 lasted_us = ep->last_rise_us - ep->start_us;
  g_autofree char *lasted = rtop_health_format_duration (lasted_us);
  g_autofree char *total = format_count (ep->total);
  char peak[32];
  RtopEvent *ev;

  g_snprintf (peak, sizeof peak, "%.3g", ep->peak_rate);
  ev = add_event (snap, RTOP_EVENT_COUNTER_SETTLED, ep->severity, dev->name, port, NULL, NULL,
                  /* TRANSLATORS: "Packet loss on rxe0/1 for 12 s: 40 in all, at most 8/s (Retransmits 30, ...)." */
                  g_strdup_printf (_("%s on %s for %s: %s in all, at most %s/s (%s)."),
                                   _(rtop_health_group_labels[g]), where, lasted, total, peak,
                                   what));
  ev->counter = g_strdup (ep->counter);
  ev->episode = ep->id;
  ev->ongoing = FALSE;
  ev->started_us = ep->start_us;
  ev->duration_us = lasted_us;
  ev->total = ep->total;
  ev->peak_rate = ep->peak_rate;
}

static void
fold_into_down (PortMemo *pm, const Rise *rise)
{
  for (guint k = 0; k < RTOP_COUNTER_CLASS_N; k++)
    pm->down.class_total[k] += rise->class_delta[k];
}

/* Hysteresis: a lone rise (one retransmit under light loss) is pending;
 * a rise in a second pass within the settle time, or of an error class,
 * makes it an episode.  Quiet for the settle time ends either. */
static void
step_group (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev, guint32 port,
            PortMemo *pm, Group g, const Rise *rise)
{
  Episode *ep = &pm->episodes[g];

  if (rise->delta == 0)
    {
      if ((ep->active || ep->pending) && snap->monotonic_us - ep->last_rise_us >= self->settle_us)
        {
          if (ep->active)
            complete_episode (snap, dev, port, g, ep);
          episode_clear (ep);
        }
      return;
    }
  if (pm->down.id != 0)
    {
      fold_into_down (pm, rise);
      return;
    }
  if (!ep->active && !ep->pending)
    {
      ep->pending = TRUE;
      ep->start_us = snap->monotonic_us;
      ep->counter = g_strdup (rise->first);
    }
  ep->n_passes++;
  ep->last_rise_us = snap->monotonic_us;
  ep->total += rise->delta;
  ep->peak_rate = MAX (ep->peak_rate, rise->rate);
  ep->severity = MAX (ep->severity, rise->severity);
  for (guint k = 0; k < RTOP_COUNTER_CLASS_N; k++)
    ep->class_total[k] += rise->class_delta[k];
  if (!ep->active && (ep->n_passes >= 2 || rise->has_error_class))
    {
      ep->active = TRUE;
      ep->pending = FALSE;
      ep->id = ++self->last_episode;
      raise_episode (snap, dev, port, g, ep);
    }
}

/* The watched positions of a layout and the group each feeds. */
static void
learn_layout (PortMemo *pm, const char *provider, GPtrArray *counters, guint64 layout)
{
  g_array_set_size (pm->watched, 0);
  g_array_set_size (pm->groups, 0);
  for (guint k = 0; k < counters->len; k++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, k);
      guint8 g;

      /* Most counters are of classes nobody watches. */
      if ((guint) c->klass >= RTOP_COUNTER_CLASS_N || !rtop_health_class_rules[c->klass].watched)
        continue;
      g = rtop_provider_is_peer_loss (provider, c) ? GROUP_PEER
                                                   : rtop_health_class_rules[c->klass].group;
      g_array_append_val (pm->watched, k);
      g_array_append_val (pm->groups, g);
    }
  pm->layout = layout;
}

static void
check_counters (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev, guint32 port,
                PortMemo *pm, guint64 layout, GPtrArray *counters)
{
  Rise rises[N_GROUPS];

  check_resets (snap, dev, port, counters);
  check_saturated (snap, dev, port, pm, counters);
  /* The same layout: the same names, so the same classes and positions. */
  if (layout == 0 || pm->layout != layout || pm->watched->len > counters->len)
    learn_layout (pm, dev->provider, counters, layout);
  memset (rises, 0, sizeof rises);
  for (guint w = 0; w < pm->watched->len; w++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, g_array_index (pm->watched, guint, w));
      Rise *rise = &rises[g_array_index (pm->groups, guint8, w)];
      RtopSeverity sev;

      if (!c->has_rate || c->delta == 0)
        continue;
      sev = g_array_index (pm->groups, guint8, w) == GROUP_PEER
            ? RTOP_SEVERITY_INFO : rtop_health_class_rules[c->klass].severity;
      rise->delta += c->delta;
      rise->rate += c->rate;
      rise->class_delta[c->klass] += c->delta;
      rise->severity = MAX (rise->severity, sev);
      rise->has_error_class = rise->has_error_class || sev == RTOP_SEVERITY_ERROR;
      rise->first = rise->first != NULL ? rise->first : c->name;
    }
  for (guint g = 0; g < N_GROUPS; g++)
    step_group (self, snap, dev, port, pm, g, &rises[g]);
}

/* The port's health: its state, then its episodes. */
static void
judge_port (RtopPort *port, const char *provider, const PortMemo *pm)
{
  const char *reason = NULL;
  RtopPortHealth verdict = rtop_health_port_verdict (provider, port, FALSE, &reason);

  for (guint g = 0; verdict != RTOP_PORT_HEALTH_ERROR && g < N_GROUPS; g++)
    {
      const Episode *ep = &pm->episodes[g];

      if (!ep->active || ep->severity == RTOP_SEVERITY_INFO)
        continue;
      if (ep->severity == RTOP_SEVERITY_ERROR || verdict == RTOP_PORT_HEALTH_OK)
        {
          verdict = ep->severity == RTOP_SEVERITY_ERROR ? RTOP_PORT_HEALTH_ERROR
                                                        : RTOP_PORT_HEALTH_WARNING;
          reason = _(rtop_health_group_labels[g]);
        }
    }
  port->health = verdict;
  port->health_reason = reason;
}

static PortMemo *
port_memo_get (RtopHealth *self, const RtopDevice *dev, guint32 port, gboolean *is_new)
{
  char key[RTOP_PORT_KEY_SIZE];
  PortMemo *pm;

  rtop_port_key (key, dev->name, port);
  pm = g_hash_table_lookup (self->ports, key);
  *is_new = pm == NULL;
  if (pm == NULL)
    {
      pm = port_memo_new ();
      g_hash_table_insert (self->ports, g_strdup (key), pm);
    }
  pm->pass = self->pass;
  return pm;
}

static void
check_ports (RtopHealth *self, RtopSnapshot *snap)
{
  for (guint i = 0; i < snap->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (snap->devices, i);
      gboolean is_new;
      PortMemo *pm;

      /* A GPU has no device-level counters; its port 0 is a port of its
       * own (the "all links" port) and keeps that memo. */
      if (dev->kind != RTOP_DEVICE_KIND_GPU)
        {
          pm = port_memo_get (self, dev, 0, &is_new);
          check_counters (self, snap, dev, 0, pm, 0, dev->counters);
        }
      for (guint j = 0; j < dev->ports->len; j++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, j);

          pm = port_memo_get (self, dev, port->index, &is_new);
          if (!is_new)
            check_port_changes (self, snap, dev, port, pm);
          remember_port (pm, port, self->pass);
          check_counters (self, snap, dev, port->index, pm, port->counter_layout, port->counters);
          if (pm->down_ending)
            {
              finish_down (snap, dev, port, pm);
              pm->down_ending = FALSE;
            }
          judge_port (port, dev->provider, pm);
        }
    }
}

/* ---- Queue pairs ---- */

/* One event per process and pass, however many of its QPs failed at once
 * (a peer gone away takes all its connections with it). */
static void
raise_qp_error (RtopSnapshot *snap, const RtopProcess *proc, const RtopQp *first, guint n)
{
  g_autofree char *where = port_location (first->device, first->port);
  g_autofree char *owner = NULL;
  RtopEvent *ev;
  char *message;

  if (proc->pid > 0)
    owner = g_strdup_printf (_("%s (pid %d)"), proc->comm != NULL ? proc->comm : _("unknown"),
                             proc->pid);
  else if (proc->kernel)
    owner = g_strdup_printf (_("the kernel's %s"), proc->comm != NULL ? proc->comm : _("unknown"));
  else
    owner = g_strdup (_("a process outside rdmatop's PID namespace"));
  if (n == 1)
    message = g_strdup_printf (_("Queue pair %u of %s on %s entered the error state."),
                               first->lqpn, owner, where);
  else
    message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                            "%u queue pair of %s entered the error state (first: %u on %s).",
                                            "%u queue pairs of %s entered the error state (first: %u on %s).",
                                            n),
                               n, owner, first->lqpn, where);
  ev = add_event (snap, RTOP_EVENT_QP_ERROR, RTOP_SEVERITY_ERROR, first->device, first->port,
                  NULL, "ERR", message);
  ev->pid = proc->pid;
  ev->process = g_strdup (proc->comm);
  ev->total = n;
}

static char *
qp_key (const RtopProcess *proc, const RtopQp *qp)
{
  return g_strdup_printf ("%d/%" G_GUINT64_FORMAT "/%s/%s/%u", proc->pid, proc->start_time,
                          proc->kernel && proc->comm ? proc->comm : "", qp->device, qp->lqpn);
}

/* Only QPs in the error state are remembered (from one pass to the next),
 * so the cost is nothing while every QP is fine. */
static void
check_qps (RtopHealth *self, RtopSnapshot *snap)
{
  g_autoptr(GHashTable) now = NULL;
  guint n_in_error = 0;

  for (guint i = 0; i < snap->processes->len; i++)
    n_in_error += ((const RtopProcess *) g_ptr_array_index (snap->processes, i))->qps_in_error;
  if (n_in_error == 0 && g_hash_table_size (self->qps_in_error) == 0)
    return;
  now = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < snap->processes->len; i++)
    {
      const RtopProcess *proc = g_ptr_array_index (snap->processes, i);
      const RtopQp *first = NULL;
      guint n_new = 0;

      for (guint q = 0; proc->qps_in_error > 0 && proc->qp_list != NULL && q < proc->qp_list->len; q++)
        {
          const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, q);
          char *key;

          if (qp->state != RTOP_QP_STATE_ERR)
            continue;
          key = qp_key (proc, qp);
          if (self->have_baseline && !g_hash_table_contains (self->qps_in_error, key))
            {
              first = first != NULL ? first : qp;
              n_new++;
            }
          g_hash_table_add (now, key);
        }
      if (n_new > 0)
        raise_qp_error (snap, proc, first, n_new);
    }
  /* An incomplete list keeps what it could not see, not to raise it again. */
  if (snap->processes_error != NULL)
    {
      GHashTableIter iter;
      char *key;

      g_hash_table_iter_init (&iter, self->qps_in_error);
      while (g_hash_table_iter_next (&iter, (gpointer *) &key, NULL))
        if (!g_hash_table_contains (now, key))
          g_hash_table_add (now, g_strdup (key));
    }
  g_hash_table_unref (self->qps_in_error);
  self->qps_in_error = g_steal_pointer (&now);
}

static gboolean
port_is_stale_cb (gpointer key, gpointer value, gpointer user_data)
{
  return ((PortMemo *) value)->pass != ((RtopHealth *) user_data)->pass;
}

void
rtop_health_process (RtopHealth *self, RtopSnapshot *snap)
{
  g_return_if_fail (self != NULL && snap != NULL);

  self->pass++;
  check_status (self, snap);
  check_processes (self, snap);
  check_devices (self, snap);
  check_ports (self, snap);
  rtop_health_rails_check (self->rails, snap, self->pass, &self->last_episode);
  check_qps (self, snap);
  snap->health_judged = TRUE;
  /* Memory stays bounded: forget ports and counters that are gone. */
  g_hash_table_foreach_remove (self->ports, port_is_stale_cb, self);
  self->have_baseline = TRUE;
}
