/* rtop-collector-counters.c: each port's counters (STAT_GET, sysfs, its
 * netdev's) read against the layout of the last pass and lent to the
 * snapshot's port, the device's own counters, and one port's counters
 * alone for captures. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "uapi/rdma/rdma_netlink.h"
#include "rtop-collector-private.h"
#include "rtop-error.h"

static const char *
port_reply_ndev (const PortReply *pr)
{
  return !pr->has_ndev ? NULL : pr->ndev_long ? pr->ndev_long : pr->ndev_buf;
}

void
rtop_collector_port_layout_unref (gpointer data)
{
  PortLayout *layout = data;

  if (layout == NULL || !g_atomic_ref_count_dec (&layout->ref))
    return;
  for (guint i = 0; i < layout->n; i++)
    g_free (layout->names[i]);
  g_free (layout->names);
  g_free (layout->sources);
  g_free (layout->slot);
  g_free (layout->netdev);
  g_free (layout->link_layer);
  g_free (layout->rate_text);
  rtop_provider_plan_free (layout->plan);
  g_free (layout);
}

/* ---- Counters ---- */

/* Takes the counters of one port read, in read order, against the port's
 * layout; on the first one that differs it falls back to collecting them
 * all (fresh) for a new layout. */
typedef struct {
  PortLayout *layout;        /* NULL before the first read */
  guint64 *values;           /* per layout slot */
  guint k;                   /* counters read so far */
  GPtrArray *fresh;          /* RtopCounter*, read order, once the layout differs */
} CounterReader;

/* From here on every read is collected for a new layout, starting with the
 * k that matched the old one (none when there was no layout). */
static void
reader_go_fresh (CounterReader *r)
{
  r->fresh = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  for (guint j = 0; j < r->k; j++)
    {
      guint s = r->layout->slot[j];

      g_ptr_array_add (r->fresh, rtop_counter_new (r->layout->names[s], r->values[s],
                                                   r->layout->sources[s]));
    }
}

static void
reader_add (const char *name, guint64 value, RtopCounterSource source, gpointer user_data)
{
  CounterReader *r = user_data;

  if (r->fresh == NULL)
    {
      const PortLayout *l = r->layout;

      if (l != NULL && r->k < l->n)
        {
          guint s = l->slot[r->k];

          if (l->sources[s] == source && strcmp (l->names[s], name) == 0)
            {
              r->values[s] = value;
              r->k++;
              return;
            }
        }
      reader_go_fresh (r);
    }
  g_ptr_array_add (r->fresh, rtop_counter_new (name, value, source));
  r->k++;
}

static int
read_order_cmp (gconstpointer a, gconstpointer b, gpointer user_data)
{
  GPtrArray *fresh = user_data;
  guint ia = *(const guint *) a, ib = *(const guint *) b;
  const RtopCounter *ca = g_ptr_array_index (fresh, ia);
  const RtopCounter *cb = g_ptr_array_index (fresh, ib);
  int c = strcmp (ca->name, cb->name);

  if (c != 0)
    return c;
  if (ca->source != cb->source)
    return (int) ca->source - (int) cb->source;
  return (ia > ib) - (ia < ib);
}

/* A layout for counters read in this order (fresh), with their values
 * stored by slot into values. */
static PortLayout *
port_layout_new (GPtrArray *fresh, const char *provider, const char *netdev,
                 const RtopSysfsPortInfo *info, GArray *values)
{
  static guint64 last_id;
  PortLayout *layout = g_new0 (PortLayout, 1);
  guint n = fresh->len;
  g_autofree guint *by_name = g_new (guint, MAX (n, 1));
  g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new (n);

  g_atomic_ref_count_init (&layout->ref);
  layout->id = __atomic_add_fetch (&last_id, 1, __ATOMIC_RELAXED);
  layout->n = n;
  layout->names = g_new (char *, MAX (n, 1));
  layout->sources = g_new (RtopCounterSource, MAX (n, 1));
  layout->slot = g_new (guint, MAX (n, 1));
  layout->netdev = g_strdup (netdev);
  layout->link_layer = g_strdup (info->link_layer);
  layout->rate_text = g_strdup (info->rate_text);
  for (guint i = 0; i < n; i++)
    by_name[i] = i;
  g_qsort_with_data (by_name, (gint) n, sizeof (guint), read_order_cmp, fresh);
  g_array_set_size (values, n);
  for (guint s = 0; s < n; s++)
    {
      const RtopCounter *c = g_ptr_array_index (fresh, by_name[s]);

      layout->names[s] = g_strdup (c->name);
      layout->sources[s] = c->source;
      layout->slot[by_name[s]] = s;
      g_array_index (values, guint64, s) = c->value;
      g_ptr_array_add (sorted, (gpointer) c);
    }
  layout->plan = rtop_provider_plan_new (provider, sorted, netdev);
  return layout;
}

typedef struct {
  CounterReader *reader;
  PortCache *pc;
  guint32 dev_index, port_index;   /* asked for */
  guint32 got_dev, got_port;       /* answered */
} StatData;

static gboolean
stat_counter_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  StatData *sd = user_data;

  /* A reply for another device or port would be a kernel bug; ignore it. */
  if (sd->got_dev == sd->dev_index && (sd->got_port == 0 || sd->got_port == sd->port_index))
    reader_add (name, value, RTOP_COUNTER_SOURCE_NETLINK, sd->reader);
  return TRUE;
}

/* A reply equal to the port's last one but for the values goes straight
 * into the layout's slots; any other is parsed, and kept as the template
 * once this pass's layout is known (rtop_collector_fill_port()). */
static gboolean
stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  StatData *sd = user_data;
  CounterReader *r = sd->reader;
  PortCache *pc = sd->pc;

  if (pc->stat_template != NULL && r->k == 0 && r->fresh == NULL && r->layout != NULL &&
      r->layout->id == pc->stat_layout &&
      rtop_nl_stat_template_match (pc->stat_template, nlh, pc->stat_values))
    {
      guint n = rtop_nl_stat_template_get_n_counters (pc->stat_template);

      for (guint k = 0; k < n; k++)
        r->values[r->layout->slot[k]] = pc->stat_values[k];
      r->k = n;
      return TRUE;
    }
  if (!rtop_nl_parse_stat_foreach (nlh, &sd->got_dev, &sd->got_port, stat_counter_cb, sd, error))
    return FALSE;
  g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);
  if (sd->got_dev == sd->dev_index && sd->got_port == sd->port_index && r->k > 0)
    {
      pc->stat_pending = rtop_nl_stat_template_new (nlh);
      /* Only a reply that holds all of the port's netlink counters. */
      if (pc->stat_pending != NULL && rtop_nl_stat_template_get_n_counters (pc->stat_pending) != r->k)
        g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);
    }
  return TRUE;
}

static void
reader_clear (CounterReader *r)
{
  g_clear_pointer (&r->fresh, g_ptr_array_unref);
}

/* Reads the port's counters through r (set up by the caller); FALSE with
 * port->error set when the read failed. */
static gboolean
read_port_counters (RtopCollector *self, RtopDevice *dev, PortCache *pc, RtopPort *port,
                    CounterReader *r)
{
  g_autoptr(GError) error = NULL;
  StatData sd = { r, pc, dev->index, port->index, 0, 0 };
  guint failed = 0;

  g_clear_pointer (&pc->stat_pending, rtop_nl_stat_template_free);

  if (!pc->stat_unsupported &&
      !rtop_nl_query (self->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, dev->index, port->index,
                      stat_cb, &sd, &error))
    {
      /* Whatever came before the error is dropped. */
      reader_clear (r);
      r->k = 0;
      if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL) && pc->hw == NULL)
        pc->hw = rtop_counter_dir_open (pc->hw_path, RTOP_COUNTER_SOURCE_SYSFS_HW, NULL);
      if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL) && pc->hw != NULL)
        pc->stat_unsupported = TRUE;    /* sysfs hw_counters serve instead */
      else if (!g_error_matches (error, RTOP_ERROR, RTOP_ERROR_KERNEL))
        {
          port->error = g_strdup (error->message);
          return FALSE;
        }
      /* Other kernel refusals (no hw counters on this driver) leave the
       * port with sysfs counters only; that is not an error. */
    }
  port->read_time_us = g_get_monotonic_time ();
  if (pc->stat_unsupported && pc->hw != NULL)
    rtop_counter_dir_read_foreach (pc->hw, reader_add, r, &failed);
  if (pc->pma != NULL)
    rtop_counter_dir_read_foreach (pc->pma, reader_add, r, &failed);
  if (pc->netdev_ifindex != 0)
    {
      const RtopNlLinkStats *st = rtop_collector_link_stats_for (self, pc->netdev_ifindex);

      if (st != NULL)
        {
          reader_add ("tx_bytes", st->tx_bytes, RTOP_COUNTER_SOURCE_NETDEV, r);
          reader_add ("rx_bytes", st->rx_bytes, RTOP_COUNTER_SOURCE_NETDEV, r);
          if (pc->netdev_packets)
            {
              reader_add ("tx_packets", st->tx_packets, RTOP_COUNTER_SOURCE_NETDEV, r);
              reader_add ("rx_packets", st->rx_packets, RTOP_COUNTER_SOURCE_NETDEV, r);
            }
        }
      else
        g_clear_pointer (&pc->netdev_name, g_free);   /* gone: look again next pass */
    }
  if (pc->netdev != NULL)
    {
      rtop_counter_dir_read_foreach (pc->netdev, reader_add, r, &failed);
      /* The netdev was deleted (maybe re-created under its name): reopen. */
      if (rtop_counter_dir_get_n_vanished (pc->netdev) > 0)
        {
          g_clear_pointer (&pc->netdev, rtop_counter_dir_free);
          g_clear_pointer (&pc->netdev_name, g_free);
        }
    }
  return TRUE;
}

/* The port's counters, by name, from this pass's reads: the same layout as
 * last time when every name matched (and the port's strings are the same),
 * a new one otherwise.  The port's strings are the layout's. */
static void
build_port_counters (PortCache *pc, CounterReader *r, const char *provider, const char *netdev,
                     RtopPort *port)
{
  gboolean unchanged = r->fresh == NULL && r->layout != NULL && r->k == r->layout->n &&
                       r->layout->strings_serial == pc->strings_serial;
  PortLayout *layout;
  RtopCounter *block;

  if (!unchanged)
    {
      /* A counter came or went (or fewer were read), or the metrics'
       * sources name another netdev: a new layout from this pass's reads. */
      if (r->fresh == NULL)
        reader_go_fresh (r);
      rtop_collector_port_layout_unref (pc->layout);
      pc->layout = port_layout_new (r->fresh, provider, netdev, &pc->info, pc->values);
      pc->layout->strings_serial = pc->strings_serial;
      reader_clear (r);
    }
  layout = pc->layout;
  block = g_new (RtopCounter, MAX (layout->n, 1));
  for (guint s = 0; s < layout->n; s++)
    block[s] = (RtopCounter) {
      .name = layout->names[s],
      .value = g_array_index (pc->values, guint64, s),
      .source = layout->sources[s],
    };
  g_atomic_ref_count_inc (&layout->ref);
  rtop_port_set_shared (port, block, layout->n, layout, rtop_collector_port_layout_unref);
  port->counter_layout = layout->id;
  port->netdev = layout->netdev;
  port->link_layer = layout->link_layer;
  port->rate_text = layout->rate_text;
}

/* This pass's STAT_GET reply, when it was parsed, is the template for the
 * layout the pass ended with: its counters are that layout's first ones. */
static void
adopt_stat_template (PortCache *pc)
{
  if (pc->stat_pending == NULL)
    return;
  rtop_nl_stat_template_free (pc->stat_template);
  pc->stat_template = g_steal_pointer (&pc->stat_pending);
  pc->stat_layout = pc->layout->id;
  g_free (pc->stat_values);
  pc->stat_values = g_new (guint64, MAX (rtop_nl_stat_template_get_n_counters (pc->stat_template), 1));
}

void
rtop_collector_fill_port (RtopCollector *self, RtopDevice *dev, DeviceCache *dc,
                          PortCache *pc, const PortReply *np)
{
  const char *ndev_name = port_reply_ndev (np);
  RtopPort *port = rtop_port_new (np->port);
  CounterReader r = { 0 };

  port->state = np->state;
  port->phys_state = np->phys_state;
  port->netdev_index = np->ndev_index;
  port->rate_gbps = pc->info.rate_gbps;
  if (np->state == 0 && pc->info.state >= 0)
    port->state = pc->info.state;     /* state fallback from sysfs */
  if (np->phys_state == 0 && pc->info.phys_state >= 0)
    port->phys_state = pc->info.phys_state;
  rtop_collector_refresh_netdev_dir (self, pc, dc->provider, ndev_name, np->ndev_index);

  if (pc->values == NULL)
    pc->values = g_array_new (FALSE, TRUE, sizeof (guint64));
  r.layout = pc->layout;
  r.values = (guint64 *) (gpointer) pc->values->data;
  if (!read_port_counters (self, dev, pc, port, &r))
    {
      /* No counters, so no layout to lend the strings. */
      port->netdev = g_strdup (ndev_name);
      port->link_layer = g_strdup (pc->info.link_layer);
      port->rate_text = g_strdup (pc->info.rate_text);
      rtop_rates_keep (self->rates, dev->name, port->index);
    }
  else
    {
      build_port_counters (pc, &r, dc->provider, ndev_name, port);
      adopt_stat_template (pc);
      port->elapsed_s = rtop_rates_update_layout (self->rates, dev->name, dev->index, port->index,
                                                  port->read_time_us, port->counter_layout,
                                                  port->counters, NULL);
      rtop_provider_plan_run (pc->layout->plan, port, TRUE);
    }
  reader_clear (&r);
  g_ptr_array_add (dev->ports, port);
}

void
rtop_collector_fill_device_counters (RtopCollector *self, RtopDevice *dev, DeviceCache *dc)
{
  guint failed = 0;

  if (dc->hw == NULL)
    return;
  rtop_counter_dir_read (dc->hw, dev->counters, &failed);
  rtop_rates_update (self->rates, dev->name, dev->index, 0, g_get_monotonic_time (),
                     dev->counters, NULL);
  rtop_provider_classify_counters (dc->provider, dev->counters);
}

/* ---- Counters only ---- */

/* One port's counters and nothing else, for captures at millisecond
 * periods: its STAT_GET reply (or the sysfs hw_counters that replace it)
 * and its sysfs PMA counters.  No device or port dump, no netdev, no
 * resource dump, no /proc, no rates: the pass before set up what this
 * reuses (the port's open counter files and its reply template). */
typedef struct {
  PortCache *pc;
  guint32 dev_index, port;
  guint32 got_dev, got_port;
  RtopCounterDirFunc func;
  gpointer user_data;
} TapData;

static gboolean
tap_counter_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  TapData *td = user_data;

  if (td->got_dev == td->dev_index && (td->got_port == 0 || td->got_port == td->port))
    td->func (name, value, RTOP_COUNTER_SOURCE_NETLINK, td->user_data);
  return TRUE;
}

/* A reply equal to the template but for its values is the layout's first
 * counters, in message order: no walk, no name compared. */
static gboolean
tap_stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  TapData *td = user_data;
  PortCache *pc = td->pc;
  const PortLayout *l = pc->layout;

  if (pc->stat_template != NULL && l != NULL && l->id == pc->stat_layout &&
      rtop_nl_stat_template_match (pc->stat_template, nlh, pc->stat_values))
    {
      guint n = rtop_nl_stat_template_get_n_counters (pc->stat_template);

      for (guint k = 0; k < n; k++)
        td->func (l->names[l->slot[k]], pc->stat_values[k], RTOP_COUNTER_SOURCE_NETLINK,
                  td->user_data);
      return TRUE;
    }
  return rtop_nl_parse_stat_foreach (nlh, &td->got_dev, &td->got_port, tap_counter_cb, td, error);
}

gboolean
rtop_collector_read_port_counters (RtopCollector *self, const char *device, guint32 port,
                                   RtopCounterDirFunc func, gpointer user_data, GError **error)
{
  DeviceCache *dc = self->nl != NULL ? g_hash_table_lookup (self->devices, device) : NULL;
  PortCache *pc = dc != NULL ? g_hash_table_lookup (dc->ports, GUINT_TO_POINTER (port)) : NULL;
  guint failed = 0;

  if (pc == NULL)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                   _("Port %u of “%s” is gone."), port, device);
      return FALSE;
    }
  if (!pc->stat_unsupported)
    {
      TapData td = { pc, dc->index, port, 0, 0, func, user_data };

      if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_STAT_GET, FALSE, dc->index, port,
                          tap_stat_cb, &td, error))
        return FALSE;
    }
  else if (pc->hw != NULL)
    rtop_counter_dir_read_foreach (pc->hw, func, user_data, &failed);
  if (pc->pma != NULL)
    rtop_counter_dir_read_foreach (pc->pma, func, user_data, &failed);
  return TRUE;
}
