/* rtop-port-item.c: one device port as the UI sees it, updated in place from
 * each snapshot. */
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "rtop-counter-item.h"
#include "rtop-format.h"
#include "rtop-health.h"
#include "rtop-port-item-private.h"

struct _RtopPortItem {
  GObject parent_instance;

  char *host;                 /* NULL: this computer */
  char *device;
  guint32 port;
  char *key;
  char *provider;
  char *protocol;
  char *netdev;
  char *link_layer;
  char *rate_text;
  char *error;
  char *fw_version;
  char *node_guid;
  gboolean gpu;               /* a GPU's link or "all links" port */
  char *remote;
  char *gpu_text;             /* the GPU's gauges, as people read them */
  double link_gbps;
  guint8 state;
  guint8 phys_state;
  gboolean vanished;
  gboolean link_up;
  RtopPortHealth health;
  const char *health_reason;  /* translated static text */

  double rates[RTOP_PORT_CH_N];
  gboolean present[RTOP_PORT_CH_N];
  char *sources[RTOP_PORT_CH_N];
  RtopSeries *series;
  GListStore *counters;       /* RtopCounterItem, port counters then device counters */
  GHashTable *counter_index;  /* "port:name" / "device:name" -> RtopCounterItem */
};

G_DEFINE_FINAL_TYPE (RtopPortItem, rtop_port_item, G_TYPE_OBJECT)

enum { UPDATED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Where each channel comes from: a canonical metric and a scale to its unit. */
static const struct {
  RtopMetricId metric;
  double scale;
} channel_map[RTOP_PORT_CH_N] = {
  [RTOP_PORT_CH_TX_BPS] = { RTOP_METRIC_TX_BYTES, 8 },
  [RTOP_PORT_CH_RX_BPS] = { RTOP_METRIC_RX_BYTES, 8 },
  [RTOP_PORT_CH_TX_PPS] = { RTOP_METRIC_TX_PACKETS, 1 },
  [RTOP_PORT_CH_RX_PPS] = { RTOP_METRIC_RX_PACKETS, 1 },
  [RTOP_PORT_CH_READ_BPS] = { RTOP_METRIC_RDMA_READ_BYTES, 1 },
  [RTOP_PORT_CH_WRITE_BPS] = { RTOP_METRIC_RDMA_WRITE_BYTES, 1 },
  [RTOP_PORT_CH_RETRANS] = { RTOP_METRIC_RETRANSMITS, 1 },
  [RTOP_PORT_CH_DROPS] = { RTOP_METRIC_DROPS, 1 },
  [RTOP_PORT_CH_ERRORS] = { RTOP_METRIC_ERRORS, 1 },
  [RTOP_PORT_CH_CONGESTION] = { RTOP_METRIC_CONGESTION, 1 },
};

static void
rtop_port_item_dispose (GObject *object)
{
  RtopPortItem *self = RTOP_PORT_ITEM (object);

  g_clear_object (&self->series);
  g_clear_object (&self->counters);
  g_clear_pointer (&self->counter_index, g_hash_table_unref);
  G_OBJECT_CLASS (rtop_port_item_parent_class)->dispose (object);
}

static void
rtop_port_item_finalize (GObject *object)
{
  RtopPortItem *self = RTOP_PORT_ITEM (object);

  g_free (self->host);
  g_free (self->device);
  g_free (self->key);
  g_free (self->provider);
  g_free (self->protocol);
  g_free (self->netdev);
  g_free (self->link_layer);
  g_free (self->rate_text);
  g_free (self->error);
  g_free (self->fw_version);
  g_free (self->node_guid);
  g_free (self->remote);
  g_free (self->gpu_text);
  for (guint i = 0; i < RTOP_PORT_CH_N; i++)
    g_free (self->sources[i]);
  G_OBJECT_CLASS (rtop_port_item_parent_class)->finalize (object);
}

static void
rtop_port_item_class_init (RtopPortItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_port_item_dispose;
  object_class->finalize = rtop_port_item_finalize;
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
rtop_port_item_init (RtopPortItem *self)
{
  for (guint i = 0; i < RTOP_PORT_CH_N; i++)
    self->rates[i] = NAN;
  self->link_gbps = 0;
  self->counters = g_list_store_new (RTOP_TYPE_COUNTER_ITEM);
  self->counter_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

RtopPortItem *
rtop_port_item_new (const char *host, const char *device, guint32 port, guint capacity)
{
  RtopPortItem *self = g_object_new (RTOP_TYPE_PORT_ITEM, NULL);

  self->host = g_strdup (host);
  self->device = g_strdup (device);
  self->port = port;
  self->key = rtop_port_item_key_for (host, device, port);
  self->series = rtop_series_new (RTOP_PORT_CH_N, capacity);
  return self;
}

static void
set_str (char **field, const char *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
}

static void
update_channels (RtopPortItem *self, const RtopPort *port)
{
  for (guint ch = 0; ch < RTOP_PORT_CH_N; ch++)
    {
      const RtopMetric *m = &port->metrics[channel_map[ch].metric];

      self->present[ch] = m->present;
      self->rates[ch] = m->present && m->has_rate ? m->rate * channel_map[ch].scale : NAN;
      set_str (&self->sources[ch], m->present ? m->source : NULL);
    }
}

/* Counters keep their rows across passes; ones that stop being reported stay
 * (marked missing) so the table does not jump around. */
static void
update_counters (RtopPortItem *self, GPtrArray *counters, gboolean device_level,
                 GHashTable *seen, gint64 now_us)
{
  for (guint i = 0; counters && i < counters->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (counters, i);
      g_autofree char *key = g_strdup_printf ("%c:%s", device_level ? 'd' : 'p', c->name);
      RtopCounterItem *item = g_hash_table_lookup (self->counter_index, key);

      if (item == NULL)
        {
          g_autoptr(RtopCounterItem) fresh = rtop_counter_item_new (c->name, device_level);

          item = fresh;
          g_list_store_append (self->counters, fresh);
          g_hash_table_insert (self->counter_index, g_strdup (key), item);
        }
      rtop_counter_item_update (item, c);
      g_hash_table_add (seen, item);
    }
}

static void
mark_missing_counters (RtopPortItem *self, GHashTable *seen)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->counters));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopCounterItem) item = g_list_model_get_item (G_LIST_MODEL (self->counters), i);

      if (!g_hash_table_contains (seen, item))
        rtop_counter_item_set_missing (item);
    }
}

static void
freeze_counters (RtopPortItem *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->counters));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopCounterItem) item = g_list_model_get_item (G_LIST_MODEL (self->counters), i);

      rtop_counter_item_set_frozen (item);
    }
}

static void
append_sample (RtopPortItem *self, const RtopSnapshot *snapshot, const RtopPort *port)
{
  gint64 t = port->read_time_us != 0 ? port->read_time_us : snapshot->monotonic_us;
  gint64 real = snapshot->realtime_us + (t - snapshot->monotonic_us);

  rtop_series_append (self->series, t, real, self->rates);
}

/* The collector's verdict; a snapshot no RtopHealth saw (a recording's)
 * still says what its state and this pass's rises say. */
static void
update_health (RtopPortItem *self, const RtopSnapshot *snapshot, const RtopDevice *device,
               const RtopPort *port)
{
  if (snapshot->health_judged)
    {
      self->health = port->health;
      self->health_reason = port->health_reason;
    }
  else
    self->health = rtop_health_port_verdict (device->provider, port, TRUE, &self->health_reason);
}

void
rtop_port_item_update (RtopPortItem *self, const RtopSnapshot *snapshot,
                       const RtopDevice *device, const RtopPort *port)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  g_return_if_fail (RTOP_IS_PORT_ITEM (self));

  set_str (&self->provider, device->provider);
  set_str (&self->protocol, device->protocol);
  set_str (&self->fw_version, device->fw_version);
  set_str (&self->node_guid, device->node_guid);
  set_str (&self->netdev, port->netdev);
  set_str (&self->link_layer, port->link_layer);
  set_str (&self->rate_text, port->rate_text);
  set_str (&self->error, port->error);
  set_str (&self->remote, port->remote);
  self->gpu = device->kind == RTOP_DEVICE_KIND_GPU;
  if (device->gpu != NULL)
    {
      g_autofree char *text = rtop_format_gpu_gauges (device->gpu->vendor, device->gpu->model,
                                                      device->gpu->utilisation_pct,
                                                      device->gpu->memory_used_bytes,
                                                      device->gpu->memory_total_bytes,
                                                      device->gpu->temperature_c,
                                                      device->gpu->power_w);
      set_str (&self->gpu_text, text);
    }
  self->link_gbps = port->rate_gbps;
  self->state = port->state;
  self->phys_state = port->phys_state;
  self->vanished = FALSE;
  self->link_up = rtop_health_port_is_up (port);
  update_health (self, snapshot, device, port);

  update_channels (self, port);
  update_counters (self, port->counters, FALSE, seen, snapshot->monotonic_us);
  update_counters (self, device->counters, TRUE, seen, snapshot->monotonic_us);
  mark_missing_counters (self, seen);
  append_sample (self, snapshot, port);
  g_signal_emit (self, signals[UPDATED], 0);
}

char *
rtop_port_item_key_for (const char *host, const char *device, guint32 port)
{
  /* Two hosts both have an rxe0/1: the host keeps them apart. */
  if (host != NULL)
    return g_strdup_printf ("%s:%s/%u", host, device, port);
  return g_strdup_printf ("%s/%u", device, port);
}

void
rtop_port_item_set_offline (RtopPortItem *self)
{
  /* Its host is out of reach: the last rates are not today's. */
  for (guint i = 0; i < RTOP_PORT_CH_N; i++)
    self->rates[i] = NAN;
  g_signal_emit (self, signals[UPDATED], 0);
}

void
rtop_port_item_set_vanished (RtopPortItem *self)
{
  if (self->vanished)
    return;
  self->vanished = TRUE;
  self->link_up = FALSE;
  self->health = RTOP_PORT_HEALTH_OK;
  self->health_reason = NULL;
  for (guint i = 0; i < RTOP_PORT_CH_N; i++)
    self->rates[i] = NAN;
  /* Its counters keep the last values read: what it had when it went. */
  freeze_counters (self);
  g_signal_emit (self, signals[UPDATED], 0);
}

const char *
rtop_port_item_get_host (RtopPortItem *self)
{
  return self->host;
}

const char *
rtop_port_item_get_device (RtopPortItem *self)
{
  return self->device;
}

guint32
rtop_port_item_get_port (RtopPortItem *self)
{
  return self->port;
}

const char *
rtop_port_item_get_key (RtopPortItem *self)
{
  return self->key;
}

const char *
rtop_port_item_get_provider (RtopPortItem *self)
{
  return self->provider;
}

const char *
rtop_port_item_get_protocol (RtopPortItem *self)
{
  return self->protocol;
}

const char *
rtop_port_item_get_netdev (RtopPortItem *self)
{
  return self->netdev;
}



const char *
rtop_port_item_get_error (RtopPortItem *self)
{
  return self->error;
}

const char *
rtop_port_item_get_fw_version (RtopPortItem *self)
{
  return self->fw_version;
}

const char *
rtop_port_item_get_node_guid (RtopPortItem *self)
{
  return self->node_guid;
}

gboolean
rtop_port_item_get_is_gpu (RtopPortItem *self)
{
  return self->gpu;
}

gboolean
rtop_port_item_get_is_all_links (RtopPortItem *self)
{
  return self->gpu && self->port == RTOP_GPU_ALL_LINKS_PORT;
}

const char *
rtop_port_item_get_remote (RtopPortItem *self)
{
  return self->remote;
}

const char *
rtop_port_item_get_gpu_text (RtopPortItem *self)
{
  return self->gpu_text;
}

double
rtop_port_item_get_link_gbps (RtopPortItem *self)
{
  return self->link_up ? self->link_gbps : 0;
}

gboolean
rtop_port_item_get_link_up (RtopPortItem *self)
{
  return self->link_up;
}

guint8
rtop_port_item_get_state (RtopPortItem *self)
{
  return self->state;
}


gboolean
rtop_port_item_get_vanished (RtopPortItem *self)
{
  return self->vanished;
}

double
rtop_port_item_get_rate (RtopPortItem *self, RtopPortChannel channel)
{
  g_return_val_if_fail (channel < RTOP_PORT_CH_N, NAN);
  return self->rates[channel];
}

gboolean
rtop_port_item_has_channel (RtopPortItem *self, RtopPortChannel channel)
{
  g_return_val_if_fail (channel < RTOP_PORT_CH_N, FALSE);
  return self->present[channel];
}

const char *
rtop_port_item_get_channel_source (RtopPortItem *self, RtopPortChannel channel)
{
  g_return_val_if_fail (channel < RTOP_PORT_CH_N, NULL);
  return self->sources[channel];
}

double
rtop_port_item_get_utilisation (RtopPortItem *self)
{
  double tx = self->rates[RTOP_PORT_CH_TX_BPS];
  double rx = self->rates[RTOP_PORT_CH_RX_BPS];

  if (!self->link_up || !(self->link_gbps > 0) || (isnan (tx) && isnan (rx)))
    return NAN;
  return MAX (isnan (tx) ? 0 : tx, isnan (rx) ? 0 : rx) / (self->link_gbps * 1e9);
}

gboolean
rtop_port_item_get_has_problems (RtopPortItem *self)
{
  return self->health != RTOP_PORT_HEALTH_OK;
}

RtopPortHealth
rtop_port_item_get_health (RtopPortItem *self, const char **reason)
{
  if (reason != NULL)
    *reason = self->health_reason;
  return self->health;
}

/* What a provider's counters lack, said once for each channel a table of
 * providers misses (the provider table has no such rows). */
static const struct {
  const char *provider;
  RtopPortChannel channel;
  const char *reason;
} absent_reasons[] = {
  { "rxe", RTOP_PORT_CH_DROPS, N_("Soft-RoCE reports no drop counter") },
  { "rxe", RTOP_PORT_CH_READ_BPS, N_("Soft-RoCE reports no RDMA read bytes") },
  { "rxe", RTOP_PORT_CH_WRITE_BPS, N_("Soft-RoCE reports no RDMA write bytes") },
};

const char *
rtop_port_item_get_channel_absent_reason (RtopPortItem *self, RtopPortChannel channel)
{
  g_return_val_if_fail (channel < RTOP_PORT_CH_N, NULL);

  if (self->present[channel])
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (absent_reasons); i++)
    if (absent_reasons[i].channel == channel && g_strcmp0 (self->provider, absent_reasons[i].provider) == 0)
      return _(absent_reasons[i].reason);
  if (self->vanished)
    return _("The device is gone");
  return _("This device reports no such counter");
}

RtopSeries *
rtop_port_item_get_series (RtopPortItem *self)
{
  return self->series;
}

GListModel *
rtop_port_item_get_counters (RtopPortItem *self)
{
  return G_LIST_MODEL (self->counters);
}
