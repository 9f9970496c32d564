/* metrics-synth.c: see metrics-synth.h. */
#include "config.h"

#include "metrics-synth.h"
#include "rtop-providers-private.h"
#include "rtop-snapshot-private.h"

MetricsSynth *
metrics_synth_new (void)
{
  MetricsSynth *self = g_new0 (MetricsSynth, 1);

  self->rates = rtop_rates_new ();
  self->health = rtop_health_new ();
  return self;
}

void
metrics_synth_free (MetricsSynth *self)
{
  rtop_rates_free (self->rates);
  rtop_health_free (self->health);
  g_free (self);
}

RtopDevice *
synth_device (RtopSnapshot *snap, const char *name, guint32 index, const char *provider)
{
  RtopDevice *dev = rtop_device_new (index, name);

  dev->provider = g_strdup (provider);
  dev->node_type = g_strdup ("ca");
  dev->protocol = g_strdup (g_str_equal (provider, "rxe") ? "roce" : "ib");
  g_ptr_array_add (snap->devices, dev);
  return dev;
}

RtopPort *
synth_port (RtopDevice *dev, guint32 index, const SynthCounter *counters, guint n)
{
  RtopPort *port = rtop_port_new (index);

  port->state = 4;
  port->phys_state = 5;
  port->rate_gbps = 100;
  port->rate_text = g_strdup ("100 Gb/sec (4X EDR)");
  port->link_layer = g_strdup ("InfiniBand");
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (port->counters, rtop_counter_new (counters[i].name, counters[i].value,
                                                       counters[i].source));
  rtop_counters_sort (port->counters);
  g_ptr_array_add (dev->ports, port);
  dev->port_count = MAX (dev->port_count, index);
  return port;
}

void
metrics_synth_finish (MetricsSynth *self, RtopSnapshot *snap, double t)
{
  gint64 t_us = (gint64) (t * G_USEC_PER_SEC);

  snap->sequence = ++self->sequence;
  snap->monotonic_us = t_us;
  snap->realtime_us = G_GINT64_CONSTANT (1700000000) * G_USEC_PER_SEC + t_us;
  snap->interval_s = 1;
  rtop_rates_begin_pass (self->rates);
  for (guint i = 0; i < snap->devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, j);

          port->read_time_us = t_us;
          port->elapsed_s = rtop_rates_update (self->rates, dev->name, dev->index, port->index,
                                               t_us, port->counters, NULL);
          rtop_provider_apply (dev->provider, port);
        }
      if (dev->counters->len > 0)
        {
          rtop_counters_sort (dev->counters);
          rtop_rates_update (self->rates, dev->name, dev->index, 0, t_us, dev->counters, NULL);
          rtop_provider_classify_counters (dev->provider, dev->counters);
        }
    }
  rtop_rates_end_pass (self->rates);
  rtop_health_process (self->health, snap);
  rtop_snapshot_seal (snap);
}

static const char * const mlx5_netlink[] = {
  "duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err",
  "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence",
  "packet_seq_err", "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors",
  "req_remote_invalid_request", "resp_cqe_error", "resp_cqe_flush_error",
  "resp_local_length_error", "resp_remote_access_errors", "rnr_nak_retry_err",
  "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps",
  "roce_slow_restart_trans", "rp_cnp_handled", "rp_cnp_ignored", "rx_atomic_requests",
  "rx_dct_connect", "rx_icrc_encapsulated", "rx_read_requests", "rx_write_requests",
};

static const char * const mlx5_pma[] = {
  "VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
  "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets",
  "port_rcv_constraint_errors", "port_rcv_data", "port_rcv_errors", "port_rcv_packets",
  "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
  "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards", "port_xmit_packets",
  "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets",
};

RtopSnapshot *
synth_mlx5_fleet (MetricsSynth *self, guint n_ports, guint pass, double t)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  for (guint p = 0; p < n_ports; p++)
    {
      g_autofree char *name = g_strdup_printf ("mlx5_%u", p);
      RtopDevice *dev = synth_device (snap, name, p + 1, "mlx5");
      guint64 busy = p == 0 ? 1000000 : 0;
      g_autoptr(GArray) counters = g_array_new (FALSE, FALSE, sizeof (SynthCounter));
      RtopPort *port;

      dev->fw_version = g_strdup ("28.39.1002");
      dev->node_guid = g_strdup_printf ("b8ce:f603:00%02x:1a2b", p);
      for (guint i = 0; i < G_N_ELEMENTS (mlx5_netlink); i++)
        {
          SynthCounter c = { mlx5_netlink[i], RTOP_COUNTER_SOURCE_NETLINK, i + busy / 1000 * pass };
          g_array_append_val (counters, c);
        }
      for (guint i = 0; i < G_N_ELEMENTS (mlx5_pma); i++)
        {
          SynthCounter c = { mlx5_pma[i], RTOP_COUNTER_SOURCE_SYSFS_PORT, 7 * i + busy * pass };
          g_array_append_val (counters, c);
        }
      port = synth_port (dev, 1, (SynthCounter *) counters->data, counters->len);
      port->netdev = g_strdup_printf ("ibp%us0", p);
      port->netdev_index = p + 2;
    }
  metrics_synth_finish (self, snap, t);
  return snap;
}
