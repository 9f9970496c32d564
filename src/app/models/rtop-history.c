/* rtop-history.c: the list models the views bind to (ports, processes, health
 * events), kept from the snapshots ingested. */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "rtop-event-item.h"
#include "rtop-history-private.h"
#include "rtop-process-item.h"

struct _RtopHistory {
  GObject parent_instance;

  RtopSnapshot *latest;
  GListStore *ports;            /* RtopPortItem, natural order of key */
  GHashTable *port_index;       /* key -> RtopPortItem (borrowed from ports) */
  GListStore *processes;        /* RtopProcessItem */
  GHashTable *process_index;    /* key -> RtopProcessItem (borrowed) */
  GListStore *events;           /* RtopEventItem, newest first */
  GHashTable *episodes;         /* "host id" -> RtopEventItem in events (borrowed) */
  GPtrArray *hosts;             /* Host*, in the order they first sent */
  GListStore *recent;           /* RtopEventItem, ranked (rtop_event_item_compare_rank) */
  GPtrArray *problem_ports;     /* RtopPortItem (borrowed from ports), Errors first */
  GPtrArray *device_names;      /* char*, natural order, NULL-terminated */
  gboolean device_names_changed; /* during an ingest: devices-changed is due */
  guint capacity;
  guint min_capacity;
  guint64 events_dropped;
  RtopTotals totals;
};

/* What the history knows of one host (this computer: name NULL). */
typedef struct {
  char *name;
  RtopSnapshot *latest;
  RtopTotals totals;
  gboolean offline;
} Host;

G_DEFINE_FINAL_TYPE (RtopHistory, rtop_history, G_TYPE_OBJECT)

static void
host_free (gpointer data)
{
  Host *host = data;

  g_free (host->name);
  g_clear_pointer (&host->latest, rtop_snapshot_unref);
  g_free (host);
}

enum { UPDATED, DEVICES_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
rtop_history_dispose (GObject *object)
{
  RtopHistory *self = RTOP_HISTORY (object);

  g_clear_pointer (&self->port_index, g_hash_table_unref);
  g_clear_pointer (&self->process_index, g_hash_table_unref);
  g_clear_object (&self->ports);
  g_clear_object (&self->processes);
  g_clear_object (&self->events);
  g_clear_object (&self->recent);
  g_clear_pointer (&self->episodes, g_hash_table_unref);
  g_clear_pointer (&self->problem_ports, g_ptr_array_unref);
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  g_clear_pointer (&self->device_names, g_ptr_array_unref);
  g_clear_pointer (&self->hosts, g_ptr_array_unref);
  G_OBJECT_CLASS (rtop_history_parent_class)->dispose (object);
}

static void
rtop_history_class_init (RtopHistoryClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_history_dispose;

  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
  signals[DEVICES_CHANGED] = g_signal_new ("devices-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 0);
}

static void
rtop_history_init (RtopHistory *self)
{
  self->ports = g_list_store_new (RTOP_TYPE_PORT_ITEM);
  self->port_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->processes = g_list_store_new (RTOP_TYPE_PROCESS_ITEM);
  self->process_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->events = g_list_store_new (RTOP_TYPE_EVENT_ITEM);
  self->episodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->hosts = g_ptr_array_new_with_free_func (host_free);
  self->recent = g_list_store_new (RTOP_TYPE_EVENT_ITEM);
  self->problem_ports = g_ptr_array_new ();
  self->device_names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (self->device_names, NULL);
  self->capacity = rtop_series_capacity_for_interval (1.0);
}

RtopHistory *
rtop_history_new (void)
{
  return g_object_new (RTOP_TYPE_HISTORY, NULL);
}

void
rtop_history_reset (RtopHistory *self)
{
  g_hash_table_remove_all (self->port_index);
  g_hash_table_remove_all (self->process_index);
  g_list_store_remove_all (self->ports);
  g_list_store_remove_all (self->processes);
  g_list_store_remove_all (self->events);
  g_list_store_remove_all (self->recent);
  g_hash_table_remove_all (self->episodes);
  g_ptr_array_set_size (self->problem_ports, 0);
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  g_ptr_array_set_size (self->hosts, 0);
  g_ptr_array_set_size (self->device_names, 0);
  g_ptr_array_add (self->device_names, NULL);
  memset (&self->totals, 0, sizeof self->totals);
  self->events_dropped = 0;
  g_signal_emit (self, signals[DEVICES_CHANGED], 0);
  g_signal_emit (self, signals[UPDATED], 0);
}

static int
compare_port_items (gconstpointer a, gconstpointer b, gpointer user_data)
{
  RtopPortItem *pa = (RtopPortItem *) a, *pb = (RtopPortItem *) b;
  const char *ha = rtop_port_item_get_host (pa), *hb = rtop_port_item_get_host (pb);
  int r;

  /* Grouped by host, this computer first. */
  if (g_strcmp0 (ha, hb) != 0)
    return ha == NULL ? -1 : hb == NULL ? 1 : rtop_natural_compare (ha, hb);
  r = rtop_natural_compare (rtop_port_item_get_device (pa), rtop_port_item_get_device (pb));

  if (r != 0)
    return r;
  return (int) rtop_port_item_get_port (pa) - (int) rtop_port_item_get_port (pb);
}

static void
note_device_name (RtopHistory *self, const char *name)
{
  guint n = self->device_names->len - 1, pos = 0;

  for (pos = 0; pos < n; pos++)
    {
      int r = rtop_natural_compare (name, g_ptr_array_index (self->device_names, pos));

      if (r == 0)
        return;
      if (r < 0)
        break;
    }
  g_ptr_array_insert (self->device_names, pos, g_strdup (name));
  /* Once per snapshot, however many devices it brings. */
  self->device_names_changed = TRUE;
}

static int
compare_port_items_indirect (gconstpointer a, gconstpointer b, gpointer user_data)
{
  return compare_port_items (*(gconstpointer *) a, *(gconstpointer *) b, user_data);
}

static void
set_capacity (RtopHistory *self, guint capacity)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->ports));

  capacity = MIN (MAX (capacity, self->min_capacity), RTOP_SERIES_MAX_CAPACITY);
  if (capacity == self->capacity)
    return;
  self->capacity = capacity;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->ports), i);

      rtop_series_set_capacity (rtop_port_item_get_series (item), capacity);
    }
}

static Host *
find_host (RtopHistory *self, const char *name)
{
  for (guint i = 0; i < self->hosts->len; i++)
    {
      Host *host = g_ptr_array_index (self->hosts, i);

      if (g_strcmp0 (host->name, name) == 0)
        return host;
    }
  return NULL;
}

static Host *
ensure_host (RtopHistory *self, const char *name)
{
  Host *host = find_host (self, name);

  if (host == NULL)
    {
      host = g_new0 (Host, 1);
      host->name = g_strdup (name);
      g_ptr_array_add (self->hosts, host);
    }
  return host;
}

/* A port not seen before goes into added (owned there) until the snapshot's
 * ports are all read, so that the list changes once, not once per port. */
static RtopPortItem *
ensure_port (RtopHistory *self, const char *host, const RtopDevice *device, const RtopPort *port,
             GPtrArray *added)
{
  g_autofree char *key = rtop_port_item_key_for (host, device->name, port->index);
  RtopPortItem *item = g_hash_table_lookup (self->port_index, key);
  RtopPortItem *fresh;

  if (item != NULL)
    return item;
  fresh = rtop_port_item_new (host, device->name, port->index, self->capacity);
  g_ptr_array_add (added, fresh);
  g_hash_table_insert (self->port_index, (gpointer) rtop_port_item_get_key (fresh), fresh);
  note_device_name (self, device->name);
  return fresh;
}

/* Into an empty list (the first snapshot) in one splice; among rows that
 * are there already, each in its place (a device plugged in). */
static void
add_ports (RtopHistory *self, GPtrArray *added)
{
  if (added->len == 0)
    return;
  if (g_list_model_get_n_items (G_LIST_MODEL (self->ports)) == 0)
    {
      g_ptr_array_sort_with_data (added, compare_port_items_indirect, NULL);
      g_list_store_splice (self->ports, 0, 0, added->pdata, added->len);
      return;
    }
  for (guint i = 0; i < added->len; i++)
    g_list_store_insert_sorted (self->ports, g_ptr_array_index (added, i), compare_port_items, NULL);
}

static void
ingest_ports (RtopHistory *self, RtopSnapshot *snapshot)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func (g_object_unref);
  guint n;

  for (guint d = 0; snapshot->devices && d < snapshot->devices->len; d++)
    {
      const RtopDevice *device = g_ptr_array_index (snapshot->devices, d);

      note_device_name (self, device->name);
      for (guint p = 0; device->ports && p < device->ports->len; p++)
        {
          const RtopPort *port = g_ptr_array_index (device->ports, p);
          RtopPortItem *item = ensure_port (self, snapshot->host, device, port, added);

          rtop_port_item_update (item, snapshot, device, port);
          g_hash_table_add (seen, item);
        }
    }
  add_ports (self, added);

  /* A port that is gone stays in the list, shown as vanished, so that its
   * history is still there to look at; it comes back if the device does. */
  n = g_list_model_get_n_items (G_LIST_MODEL (self->ports));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->ports), i);

      /* Only this snapshot's host can say that one of its ports is gone. */
      if (!g_hash_table_contains (seen, item) && snapshot->status == RTOP_STATUS_OK &&
          g_strcmp0 (rtop_port_item_get_host (item), snapshot->host) == 0)
        rtop_port_item_set_vanished (item);
    }
}

/* The index of the processes of every host but this one. */
static GHashTable *
index_other_hosts (RtopHistory *self, const char *host)
{
  GHashTable *next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer key, item;

  g_hash_table_iter_init (&iter, self->process_index);
  while (g_hash_table_iter_next (&iter, &key, &item))
    if (g_strcmp0 (rtop_process_item_get_host (item), host) != 0)
      g_hash_table_insert (next, g_strdup (key), item);
  return next;
}

/* Processes are updated in place (rows keep their selection); the index is
 * rebuilt each pass and the ones of this snapshot's host that exited are
 * removed (another host's are its own snapshots' business). */
static void
ingest_processes (RtopHistory *self, RtopSnapshot *snapshot)
{
  g_autoptr(GHashTable) next = index_other_hosts (self, snapshot->host);
  g_autoptr(GHashTable) alive = g_hash_table_new (NULL, NULL);
  guint n;

  for (guint i = 0; snapshot->processes && i < snapshot->processes->len; i++)
    {
      const RtopProcess *process = g_ptr_array_index (snapshot->processes, i);
      g_autofree char *base = rtop_process_item_key_for (process, snapshot->host);
      char *key = g_strdup (base);
      RtopProcessItem *item;

      /* Hidden owners can share a key: number the repeats. */
      for (guint dup = 1; g_hash_table_contains (next, key); dup++)
        {
          g_free (key);
          key = g_strdup_printf ("%s#%u", base, dup);
        }
      item = g_hash_table_lookup (self->process_index, key);
      if (item != NULL)
        rtop_process_item_update (item, process);
      else
        {
          g_autoptr(RtopProcessItem) fresh = rtop_process_item_new (process, snapshot->host);

          item = fresh;
          g_list_store_append (self->processes, fresh);
        }
      g_hash_table_insert (next, key, item);
      g_hash_table_add (alive, item);
    }

  n = g_list_model_get_n_items (G_LIST_MODEL (self->processes));
  for (guint i = n; i-- > 0;)
    {
      g_autoptr(RtopProcessItem) item = g_list_model_get_item (G_LIST_MODEL (self->processes), i);

      if (!g_hash_table_contains (alive, item) &&
          g_strcmp0 (rtop_process_item_get_host (item), snapshot->host) == 0)
        g_list_store_remove (self->processes, i);
    }
  g_hash_table_unref (self->process_index);
  self->process_index = g_steal_pointer (&next);
}

/* Episode ids are a host's own: two hosts may both have episode 7. */
static char *
episode_key (const char *host, guint64 episode)
{
  return g_strdup_printf ("%s %" G_GUINT64_FORMAT, host ? host : "", episode);
}

static void
rank_recent (RtopHistory *self, RtopEventItem *item)
{
  guint pos;
  guint n;

  if (g_list_store_find (self->recent, item, &pos))
    g_list_store_remove (self->recent, pos);
  g_list_store_insert_sorted (self->recent, item, rtop_event_item_compare_rank, NULL);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->recent));
  if (n > RTOP_HISTORY_RECENT_MAX)
    g_list_store_splice (self->recent, RTOP_HISTORY_RECENT_MAX, n - RTOP_HISTORY_RECENT_MAX,
                         NULL, 0);
}

/* An event of an episode the log already has updates its row. */
static gboolean
update_episode (RtopHistory *self, const char *host, const RtopEvent *event)
{
  g_autofree char *key = NULL;
  RtopEventItem *item;
  guint pos;

  if (event->episode == 0)
    return FALSE;
  key = episode_key (host, event->episode);
  item = g_hash_table_lookup (self->episodes, key);
  if (item == NULL)
    return FALSE;
  rtop_event_item_update (item, event);
  if (g_list_store_find (self->events, item, &pos))
    g_list_model_items_changed (G_LIST_MODEL (self->events), pos, 1, 1);
  rank_recent (self, item);
  return TRUE;
}

static void
drop_oldest_events (RtopHistory *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->events));
  guint excess;

  if (n <= RTOP_HISTORY_MAX_EVENTS)
    return;
  excess = n - RTOP_HISTORY_MAX_EVENTS;
  for (guint i = RTOP_HISTORY_MAX_EVENTS; i < n; i++)
    {
      g_autoptr(RtopEventItem) item = g_list_model_get_item (G_LIST_MODEL (self->events), i);

      guint64 id = rtop_event_item_get_event (item)->episode;
      g_autofree char *key = id != 0 ? episode_key (rtop_event_item_get_host (item), id) : NULL;

      if (key != NULL && g_hash_table_lookup (self->episodes, key) == item)
        g_hash_table_remove (self->episodes, key);
    }
  g_list_store_splice (self->events, RTOP_HISTORY_MAX_EVENTS, excess, NULL, 0);
  self->events_dropped += excess;
}

/* A host without RDMA says so on its card (or as the window's state): its
 * collection error stays in the log but is not repeated among the recent
 * events. */
static gboolean
says_host_has_no_rdma (RtopSnapshot *snapshot, const RtopEvent *event)
{
  return event->kind == RTOP_EVENT_COLLECTION_ERROR && event->device == NULL &&
         snapshot->status != RTOP_STATUS_OK &&
         (snapshot->devices == NULL || snapshot->devices->len == 0);
}

static void
ingest_events (RtopHistory *self, RtopSnapshot *snapshot)
{
  guint n_new = snapshot->events ? snapshot->events->len : 0;
  g_autoptr(GPtrArray) items = NULL;

  if (n_new == 0)
    return;
  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n_new; i++)
    {
      const RtopEvent *event = g_ptr_array_index (snapshot->events, i);
      RtopEventItem *item;

      if (update_episode (self, snapshot->host, event))
        continue;
      item = rtop_event_item_new (event, snapshot->host);
      /* Newest first: the snapshot's events are in order, so reverse them. */
      g_ptr_array_insert (items, 0, item);
      if (event->episode != 0)
        g_hash_table_replace (self->episodes, episode_key (snapshot->host, event->episode), item);
      if (!says_host_has_no_rdma (snapshot, event))
        rank_recent (self, item);
    }
  if (items->len > 0)
    g_list_store_splice (self->events, 0, 0, items->pdata, items->len);
  drop_oldest_events (self);
}

static double
nz (double v)
{
  return isnan (v) ? 0 : v;
}

/* Ports in trouble are counted and named, Errors first; loss is not
 * added up over ports (one lossy link shows at several).  problems: where
 * to name them, or NULL. */
static void
note_problem (GPtrArray *problems, RtopTotals *t, RtopPortItem *item)
{
  switch (rtop_port_item_get_health (item, NULL))
    {
    case RTOP_PORT_HEALTH_ERROR:
      if (problems != NULL)
        g_ptr_array_insert (problems, t->n_error_ports, item);
      t->n_error_ports++;
      t->n_problem_ports++;
      break;
    case RTOP_PORT_HEALTH_WARNING:
      if (problems != NULL)
        g_ptr_array_add (problems, item);
      t->n_warning_ports++;
      t->n_problem_ports++;
      break;
    case RTOP_PORT_HEALTH_OK:
    default:
      break;
    }
}

static void
add_port (GPtrArray *problems, RtopTotals *t, RtopPortItem *item)
{
  if (rtop_port_item_get_vanished (item))
    {
      t->n_vanished++;
      return;
    }
  t->n_ports++;
  t->n_active += rtop_port_item_get_state (item) == 4;
  note_problem (problems, t, item);
  t->errors_ps += nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_ERRORS)) +
                  nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_DROPS)) +
                  nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_RETRANS));
  /* The throughput totals are the network's: NVLink and XGMI traffic
   * stays inside the node and has its own rows. */
  if (rtop_port_item_get_is_gpu (item))
    return;
  t->tx_bps += nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_TX_BPS));
  t->rx_bps += nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_RX_BPS));
  t->tx_pps += nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_TX_PPS));
  t->rx_pps += nz (rtop_port_item_get_rate (item, RTOP_PORT_CH_RX_PPS));
}

/* Totals per host and over all of them; the problem list (Errors first)
 * is over all hosts, so it is filled only once. */
static void
compute_totals (RtopHistory *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->ports));

  memset (&self->totals, 0, sizeof self->totals);
  g_ptr_array_set_size (self->problem_ports, 0);
  for (guint h = 0; h < self->hosts->len; h++)
    {
      Host *host = g_ptr_array_index (self->hosts, h);

      memset (&host->totals, 0, sizeof host->totals);
      host->totals.n_devices = host->latest && host->latest->devices ? host->latest->devices->len : 0;
      self->totals.n_devices += host->totals.n_devices;
    }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->ports), i);
      Host *host = find_host (self, rtop_port_item_get_host (item));

      add_port (self->problem_ports, &self->totals, item);
      if (host != NULL)
        add_port (NULL, &host->totals, item);
    }
}

void
rtop_history_set_min_capacity (RtopHistory *self, guint samples)
{
  g_return_if_fail (RTOP_IS_HISTORY (self));

  self->min_capacity = samples;
  set_capacity (self, self->capacity);
}

void
rtop_history_ingest (RtopHistory *self, RtopSnapshot *snapshot)
{
  Host *host;

  g_return_if_fail (RTOP_IS_HISTORY (self));
  g_return_if_fail (snapshot != NULL);

  if (snapshot->interval_s > 0)
    set_capacity (self, rtop_series_capacity_for_interval (snapshot->interval_s));
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  self->latest = rtop_snapshot_ref (snapshot);
  host = ensure_host (self, snapshot->host);
  g_clear_pointer (&host->latest, rtop_snapshot_unref);
  host->latest = rtop_snapshot_ref (snapshot);
  host->offline = FALSE;

  ingest_ports (self, snapshot);
  if (self->device_names_changed)
    {
      self->device_names_changed = FALSE;
      g_signal_emit (self, signals[DEVICES_CHANGED], 0);
    }
  ingest_processes (self, snapshot);
  ingest_events (self, snapshot);
  compute_totals (self);
  g_signal_emit (self, signals[UPDATED], 0);
}

GListModel *
rtop_history_get_ports (RtopHistory *self)
{
  return G_LIST_MODEL (self->ports);
}

GListModel *
rtop_history_get_recent_events (RtopHistory *self)
{
  return G_LIST_MODEL (self->recent);
}

GPtrArray *
rtop_history_get_problem_ports (RtopHistory *self)
{
  return self->problem_ports;
}

/* The summary names this many ports, then says how many more. */
#define PROBLEMS_NAMED 3

char *
rtop_history_dup_problems_text (RtopHistory *self)
{
  GString *names = g_string_new (NULL);
  guint n = self->problem_ports->len;
  g_autofree char *list = NULL;

  if (n == 0)
    return (g_string_free (names, TRUE), g_strdup (_("No problems")));
  for (guint i = 0; i < MIN (n, PROBLEMS_NAMED); i++)
    {
      RtopPortItem *item = g_ptr_array_index (self->problem_ports, i);
      const char *reason = NULL;

      rtop_port_item_get_health (item, &reason);
      if (names->len > 0)
        g_string_append (names, ", ");
      /* Translators: a port and what is wrong with it, e.g. "rxe0/1 (Packet loss)" */
      g_string_append_printf (names, _("%s (%s)"), rtop_port_item_get_key (item),
                              reason != NULL ? reason : _("trouble"));
    }
  if (n > PROBLEMS_NAMED)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more", "%u more",
                                                            n - PROBLEMS_NAMED),
                                               n - PROBLEMS_NAMED);

      g_string_append (names, ", ");
      g_string_append (names, more);
    }
  list = g_string_free (names, FALSE);
  /* Translators: %u ports, then their names and troubles */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u port in trouble: %s",
                                       "%u ports in trouble: %s", n),
                          n, list);
}

GListModel *
rtop_history_get_processes (RtopHistory *self)
{
  return G_LIST_MODEL (self->processes);
}

GListModel *
rtop_history_get_events (RtopHistory *self)
{
  return G_LIST_MODEL (self->events);
}

const char * const *
rtop_history_get_device_names (RtopHistory *self)
{
  return (const char * const *) self->device_names->pdata;
}

RtopSnapshot *
rtop_history_get_latest (RtopHistory *self)
{
  return self->latest;
}

RtopPortItem *
rtop_history_find_port_by_key (RtopHistory *self, const char *key)
{
  return g_hash_table_lookup (self->port_index, key);
}

RtopPortItem *
rtop_history_find_port (RtopHistory *self, const char *device, guint32 port)
{
  g_autofree char *key = rtop_port_item_key_for (NULL, device, port);

  return rtop_history_find_port_by_key (self, key);
}

void
rtop_history_get_totals (RtopHistory *self, RtopTotals *totals)
{
  *totals = self->totals;
}


guint64
rtop_history_get_events_dropped (RtopHistory *self)
{
  return self->events_dropped;
}

guint
rtop_history_get_n_hosts (RtopHistory *self)
{
  g_return_val_if_fail (RTOP_IS_HISTORY (self), 0);
  return self->hosts->len;
}

gboolean
rtop_history_has_devices (RtopHistory *self)
{
  g_return_val_if_fail (RTOP_IS_HISTORY (self), FALSE);

  for (guint i = 0; i < self->hosts->len; i++)
    {
      Host *host = g_ptr_array_index (self->hosts, i);

      if (!host->offline && host->latest != NULL && host->latest->devices != NULL &&
          host->latest->devices->len > 0)
        return TRUE;
    }
  return FALSE;
}

const char *
rtop_history_get_host_name (RtopHistory *self, guint i)
{
  g_return_val_if_fail (RTOP_IS_HISTORY (self), NULL);
  g_return_val_if_fail (i < self->hosts->len, NULL);
  return ((Host *) g_ptr_array_index (self->hosts, i))->name;
}

RtopSnapshot *
rtop_history_get_host_latest (RtopHistory *self, const char *host)
{
  Host *h;

  g_return_val_if_fail (RTOP_IS_HISTORY (self), NULL);
  h = find_host (self, host);
  return h != NULL ? h->latest : NULL;
}

gboolean
rtop_history_get_host_totals (RtopHistory *self, const char *host, RtopTotals *totals)
{
  Host *h;

  g_return_val_if_fail (RTOP_IS_HISTORY (self), FALSE);
  h = find_host (self, host);
  if (h == NULL)
    {
      memset (totals, 0, sizeof *totals);
      return FALSE;
    }
  *totals = h->totals;
  return TRUE;
}

void
rtop_history_set_host_offline (RtopHistory *self, const char *host)
{
  GHashTable *next;
  Host *h;
  guint n;

  g_return_if_fail (RTOP_IS_HISTORY (self));
  h = find_host (self, host);
  if (h == NULL || h->offline)
    return;
  h->offline = TRUE;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->ports));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->ports), i);

      if (g_strcmp0 (rtop_port_item_get_host (item), host) == 0)
        rtop_port_item_set_offline (item);
    }
  /* What ran there is not known until the host answers again.  The index
   * goes first: it borrows the items that the list is about to drop. */
  next = index_other_hosts (self, host);
  g_hash_table_unref (self->process_index);
  self->process_index = next;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->processes));
  for (guint i = n; i-- > 0;)
    {
      g_autoptr(RtopProcessItem) item = g_list_model_get_item (G_LIST_MODEL (self->processes), i);

      if (g_strcmp0 (rtop_process_item_get_host (item), host) == 0)
        g_list_store_remove (self->processes, i);
    }
  compute_totals (self);
  g_signal_emit (self, signals[UPDATED], 0);
}

void
rtop_history_forget_host (RtopHistory *self, const char *host)
{
  guint n, pos;
  Host *h;

  g_return_if_fail (RTOP_IS_HISTORY (self));
  rtop_history_set_host_offline (self, host);
  h = find_host (self, host);
  if (h == NULL)
    return;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->ports));
  for (guint i = n; i-- > 0;)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->ports), i);

      if (g_strcmp0 (rtop_port_item_get_host (item), host) != 0)
        continue;
      g_hash_table_remove (self->port_index, rtop_port_item_get_key (item));
      g_list_store_remove (self->ports, i);
    }
  /* Its events stay in the log: they happened. */
  if (g_ptr_array_find (self->hosts, h, &pos))
    g_ptr_array_remove_index (self->hosts, pos);
  compute_totals (self);
  g_signal_emit (self, signals[UPDATED], 0);
}
