/* rtop-health.c: health events from successive snapshots. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-health-private.h"
#include "rtop-port-key.h"

/* Which counter classes are watched, and how loud a rise is. */
static const struct {
  gboolean watched;
  RtopSeverity severity;
} class_rules[RTOP_COUNTER_CLASS_N] = {
  [RTOP_COUNTER_CLASS_INFO] = { FALSE, RTOP_SEVERITY_INFO },
  [RTOP_COUNTER_CLASS_DATA] = { FALSE, RTOP_SEVERITY_INFO },
  [RTOP_COUNTER_CLASS_DROP] = { TRUE, RTOP_SEVERITY_WARNING },
  [RTOP_COUNTER_CLASS_RETRANSMIT] = { TRUE, RTOP_SEVERITY_WARNING },
  [RTOP_COUNTER_CLASS_LINK_ERROR] = { TRUE, RTOP_SEVERITY_ERROR },
  [RTOP_COUNTER_CLASS_TRANSPORT_ERROR] = { TRUE, RTOP_SEVERITY_WARNING },
  [RTOP_COUNTER_CLASS_OPERATION_ERROR] = { TRUE, RTOP_SEVERITY_ERROR },
  [RTOP_COUNTER_CLASS_CONGESTION] = { TRUE, RTOP_SEVERITY_INFO },
};

typedef struct {
  gint64 last_rise_us;
  gboolean rising;
  RtopCounterSource source;
  char *name;
} CounterMemo;

typedef struct {
  guint8 state, phys_state;
  char *rate_text;
  char *netdev;
  gboolean failing;
  guint64 pass;
  GHashTable *counters;      /* "source:name" -> CounterMemo, watched classes only */
  GPtrArray *order;          /* CounterMemo by position in the last read (or NULL) */
  guint64 layout;            /* RtopPort.counter_layout of the last read */
  GArray *watched;           /* guint: positions of watched counters in that layout */
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
  GHashTable *devices;       /* name -> DeviceMemo */
  GHashTable *ports;         /* "dev/port" -> PortMemo; port 0 is the device level */
};

static void
counter_memo_free (gpointer data)
{
  CounterMemo *cm = data;

  g_free (cm->name);
  g_free (cm);
}

static PortMemo *
port_memo_new (void)
{
  PortMemo *pm = g_new0 (PortMemo, 1);

  pm->counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, counter_memo_free);
  pm->order = g_ptr_array_new ();
  pm->watched = g_array_new (FALSE, FALSE, sizeof (guint));
  return pm;
}

static void
port_memo_free (gpointer data)
{
  PortMemo *pm = data;

  g_hash_table_unref (pm->counters);
  g_ptr_array_unref (pm->order);
  g_array_unref (pm->watched);
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
  return self;
}

void
rtop_health_free (RtopHealth *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->devices);
  g_hash_table_unref (self->ports);
  g_free (self);
}

RtopSeverity
rtop_health_class_severity (RtopCounterClass klass)
{
  g_return_val_if_fail (klass < RTOP_COUNTER_CLASS_N, RTOP_SEVERITY_INFO);
  return class_rules[klass].severity;
}

gboolean
rtop_health_class_is_watched (RtopCounterClass klass)
{
  g_return_val_if_fail (klass < RTOP_COUNTER_CLASS_N, FALSE);
  return class_rules[klass].watched;
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

/* A GPU's ports are its links, numbered from 0 by its library (port N is
 * link N - 1), and port 0 is "all links": their events say so. */
static char *
gpu_port_name (const RtopDevice *dev, guint32 port)
{
  if (port == RTOP_GPU_ALL_LINKS_PORT)
    return g_strdup_printf (_("%s all links"), dev->name);
  return g_strdup_printf (_("%s link %u"), dev->name, port - 1);
}

static void
check_gpu_port_facts (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
                      const PortMemo *pm)
{
  g_autofree char *name = gpu_port_name (dev, port->index);

  /* Physical state follows the same up/down bit: one event, not two. */
  if (pm->state != port->state)
    add_event (snap, RTOP_EVENT_PORT_STATE,
               port->state == 4 ? RTOP_SEVERITY_INFO : RTOP_SEVERITY_WARNING,
               dev->name, port->index,
               rtop_port_state_to_string (pm->state), rtop_port_state_to_string (port->state),
               g_strdup_printf (port->state == 4 ? _("GPU interconnect %s is up again.")
                                                 : _("GPU interconnect %s went down."), name));
  if (g_strcmp0 (pm->rate_text, port->rate_text) != 0 && port->rate_text != NULL)
    add_event (snap, RTOP_EVENT_LINK_RATE, RTOP_SEVERITY_WARNING, dev->name, port->index,
               pm->rate_text, port->rate_text,
               g_strdup_printf (_("GPU interconnect %s changed from %s to %s."), name,
                                pm->rate_text ? pm->rate_text : _("unknown"), port->rate_text));
}

static void
check_port_facts (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
                  const PortMemo *pm)
{
  if (dev->kind == RTOP_DEVICE_KIND_GPU)
    {
      check_gpu_port_facts (snap, dev, port, pm);
      return;
    }
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
  /* The same counter layout: the same netdev and rate text (the collector
   * makes a new layout when either changes). */
  gboolean same_strings = port->counter_layout != 0 && pm->layout == port->counter_layout;

  if (!same_strings && g_strcmp0 (pm->rate_text, port->rate_text) != 0 && port->rate_text != NULL)
    add_event (snap, RTOP_EVENT_LINK_RATE, RTOP_SEVERITY_WARNING, dev->name, port->index,
               pm->rate_text, port->rate_text,
               g_strdup_printf (_("Port %s/%u link rate changed from %s to %s."), dev->name,
                                port->index, pm->rate_text ? pm->rate_text : _("unknown"),
                                port->rate_text));
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
check_port_changes (RtopSnapshot *snap, const RtopDevice *dev, const RtopPort *port,
                    const PortMemo *pm)
{
  /* A port whose read failed has no trustworthy state this pass. */
  if (port->error == NULL)
    check_port_facts (snap, dev, port, pm);
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

/* Counters come in the same order every pass: the memo at the same
 * position is almost always the right one, so the hash table (and its key)
 * is only for the first pass and for a changed layout. */
static CounterMemo *
counter_memo_for (PortMemo *pm, gboolean same_layout, guint i, const RtopCounter *c)
{
  char key[256];
  CounterMemo *cm = i < pm->order->len ? g_ptr_array_index (pm->order, i) : NULL;

  /* The same layout: the same names at the same positions. */
  if (cm != NULL && (same_layout || (cm->source == c->source && strcmp (cm->name, c->name) == 0)))
    return cm;
  g_snprintf (key, sizeof key, "%d:%s", c->source, c->name);
  cm = g_hash_table_lookup (pm->counters, key);
  if (cm == NULL)
    {
      cm = g_new0 (CounterMemo, 1);
      cm->source = c->source;
      cm->name = g_strdup (c->name);
      g_hash_table_insert (pm->counters, g_strdup (key), cm);
    }
  if (i >= pm->order->len)
    g_ptr_array_set_size (pm->order, i + 1);
  g_ptr_array_index (pm->order, i) = cm;
  return cm;
}

static void
check_counter (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev, guint32 port,
               PortMemo *pm, gboolean same_layout, guint i, const RtopCounter *c)
{
  CounterMemo *cm;

  if (!rtop_health_class_is_watched (c->klass))
    return;
  cm = counter_memo_for (pm, same_layout, i, c);
  if (c->has_rate && c->delta > 0)
    {
      if (!cm->rising)
        {
          RtopEvent *ev = add_event (snap, RTOP_EVENT_COUNTER_RISING,
                                     rtop_health_class_severity (c->klass), dev->name, port,
                                     NULL, NULL, NULL);
          ev->counter = g_strdup (c->name);
          ev->new_value = g_strdup_printf ("%" G_GUINT64_FORMAT, c->value);
          char delta[32];

          /* Numbers as strings: a format macro inside _() cannot be translated. */
          g_snprintf (delta, sizeof delta, "%" G_GUINT64_FORMAT, c->delta);
          if (dev->kind == RTOP_DEVICE_KIND_GPU && port != RTOP_GPU_ALL_LINKS_PORT)
            {
              g_autofree char *name = gpu_port_name (dev, port);

              ev->message = g_strdup_printf (_("%s is increasing on %s (%s, +%s)."), c->name,
                                             name, rtop_counter_class_to_string (c->klass), delta);
            }
          else if (port != 0)
            ev->message = g_strdup_printf (_("%s is increasing on %s/%u (%s, +%s)."),
                                           c->name, dev->name, port,
                                           rtop_counter_class_to_string (c->klass), delta);
          else
            ev->message = g_strdup_printf (_("%s is increasing on %s (%s, +%s)."),
                                           c->name, dev->name,
                                           rtop_counter_class_to_string (c->klass), delta);
        }
      cm->rising = TRUE;
      cm->last_rise_us = snap->monotonic_us;
    }
  else if (cm->rising && c->has_rate &&
           snap->monotonic_us - cm->last_rise_us >= self->settle_us)
    {
      RtopEvent *ev = add_event (snap, RTOP_EVENT_COUNTER_SETTLED, RTOP_SEVERITY_INFO,
                                 dev->name, port, NULL, NULL,
                                 g_strdup_printf (_("%s stopped increasing on %s."), c->name,
                                                  dev->name));
      ev->counter = g_strdup (c->name);
      cm->rising = FALSE;
    }
}

static void
check_counters (RtopHealth *self, RtopSnapshot *snap, const RtopDevice *dev, guint32 port,
                PortMemo *pm, guint64 layout, GPtrArray *counters)
{
  gboolean same_layout = layout != 0 && pm->layout == layout;

  check_resets (snap, dev, port, counters);
  if (same_layout)
    {
      /* The same names, so the same classes: only the watched positions. */
      for (guint w = 0; w < pm->watched->len; w++)
        {
          guint k = g_array_index (pm->watched, guint, w);

          check_counter (self, snap, dev, port, pm, TRUE, k, g_ptr_array_index (counters, k));
        }
      return;
    }
  g_array_set_size (pm->watched, 0);
  for (guint k = 0; k < counters->len; k++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, k);

      /* Most counters are of classes nobody watches: no call for them. */
      if ((guint) c->klass < RTOP_COUNTER_CLASS_N && class_rules[c->klass].watched)
        {
          check_counter (self, snap, dev, port, pm, FALSE, k, c);
          g_array_append_val (pm->watched, k);
        }
    }
  pm->layout = layout;
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
            check_port_changes (snap, dev, port, pm);
          remember_port (pm, port, self->pass);
          check_counters (self, snap, dev, port->index, pm, port->counter_layout, port->counters);
        }
    }
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
  /* Memory stays bounded: forget ports and counters that are gone. */
  g_hash_table_foreach_remove (self->ports, port_is_stale_cb, self);
  self->have_baseline = TRUE;
}
