/* gui-fixtures.c */
#include "config.h"

#include "gui-fixtures.h"

static void
set_metric (RtopPort *port, RtopMetricId id, double rate, guint64 sequence, double interval_s,
            const char *source)
{
  RtopMetric *m = &port->metrics[id];

  m->present = TRUE;
  m->has_rate = sequence > 1;
  m->rate = m->has_rate ? rate : 0;
  m->value = (guint64) (rate * interval_s * (double) sequence);
  m->source = g_strdup (source);
}

static void
add_counter (RtopPort *port, const char *name, RtopCounterClass klass, double rate,
             guint64 sequence, double interval_s)
{
  RtopCounter *c = rtop_counter_new (name, (guint64) (rate * interval_s * (double) sequence),
                                     RTOP_COUNTER_SOURCE_NETLINK);

  c->klass = klass;
  c->has_rate = sequence > 1;
  c->delta = c->has_rate ? (guint64) (rate * interval_s) : 0;
  c->rate = c->has_rate ? rate : 0;
  g_ptr_array_add (port->counters, c);
}

static RtopPort *
build_port (const GuiPortSpec *spec, guint64 sequence, double interval_s, gint64 t)
{
  RtopPort *port = rtop_port_new (spec->port);

  port->state = spec->state;
  port->phys_state = spec->state == 4 ? 5 : 3;
  port->rate_gbps = spec->link_gbps;
  port->rate_text = g_strdup_printf ("%g Gb/sec", spec->link_gbps);
  port->link_layer = g_strdup ("Ethernet");
  port->netdev = g_strdup_printf ("eth%u", spec->port - 1);
  port->read_time_us = t;
  port->elapsed_s = sequence > 1 ? interval_s : 0;
  set_metric (port, RTOP_METRIC_TX_BYTES, spec->tx_bps / 8, sequence, interval_s, "netlink tx_bytes");
  set_metric (port, RTOP_METRIC_RX_BYTES, spec->rx_bps / 8, sequence, interval_s, "netlink rx_bytes");
  set_metric (port, RTOP_METRIC_TX_PACKETS, spec->tx_pps, sequence, interval_s, "netlink sent_pkts");
  set_metric (port, RTOP_METRIC_RX_PACKETS, spec->rx_pps, sequence, interval_s, "netlink rcvd_pkts");
  set_metric (port, RTOP_METRIC_DROPS, spec->drops, sequence, interval_s, "netlink rx_drops");
  set_metric (port, RTOP_METRIC_RETRANSMITS, spec->retrans, sequence, interval_s, "netlink completer_retry_err");
  set_metric (port, RTOP_METRIC_ERRORS, spec->errors, sequence, interval_s, "sum of error classes");
  if (spec->rdma)
    {
      set_metric (port, RTOP_METRIC_RDMA_READ_BYTES, spec->tx_bps / 16, sequence, interval_s, "netlink rdma_read_bytes");
      set_metric (port, RTOP_METRIC_RDMA_WRITE_BYTES, spec->rx_bps / 16, sequence, interval_s, "netlink rdma_write_bytes");
    }
  add_counter (port, "sent_pkts", RTOP_COUNTER_CLASS_DATA, spec->tx_pps, sequence, interval_s);
  add_counter (port, "rcvd_pkts", RTOP_COUNTER_CLASS_DATA, spec->rx_pps, sequence, interval_s);
  add_counter (port, "completer_retry_err", RTOP_COUNTER_CLASS_RETRANSMIT, spec->retrans, sequence, interval_s);
  add_counter (port, "rcvd_seq_err", RTOP_COUNTER_CLASS_TRANSPORT_ERROR, spec->errors, sequence, interval_s);
  add_counter (port, "rx_drops", RTOP_COUNTER_CLASS_DROP, spec->drops, sequence, interval_s);
  add_counter (port, "link_downed", RTOP_COUNTER_CLASS_LINK_ERROR, 0, sequence, interval_s);
  return port;
}

static RtopDevice *
ensure_device (RtopSnapshot *snapshot, const GuiPortSpec *spec)
{
  RtopDevice *dev;

  for (guint i = 0; i < snapshot->devices->len; i++)
    {
      dev = g_ptr_array_index (snapshot->devices, i);
      if (g_str_equal (dev->name, spec->device))
        return dev;
    }
  dev = rtop_device_new (snapshot->devices->len + 1, spec->device);
  dev->provider = g_strdup (spec->provider);
  dev->protocol = g_strdup (spec->protocol);
  dev->fw_version = g_strdup ("1.0");
  dev->node_type = g_strdup ("ca");
  g_ptr_array_add (snapshot->devices, dev);
  return dev;
}

RtopSnapshot *
gui_fixture_snapshot (guint64 sequence, double interval_s, const GuiPortSpec *ports, guint n_ports)
{
  RtopSnapshot *snapshot = rtop_snapshot_new ();
  gint64 t = GUI_FIXTURE_T0 + (gint64) ((double) sequence * interval_s * G_USEC_PER_SEC);

  snapshot->sequence = sequence;
  snapshot->monotonic_us = t;
  snapshot->realtime_us = G_GINT64_CONSTANT (1767225600) * G_USEC_PER_SEC + t;
  snapshot->interval_s = interval_s;
  snapshot->status = RTOP_STATUS_OK;
  for (guint i = 0; i < n_ports; i++)
    {
      RtopDevice *dev = ensure_device (snapshot, &ports[i]);

      g_ptr_array_add (dev->ports, build_port (&ports[i], sequence, interval_s, t));
      dev->port_count = dev->ports->len;
    }
  return snapshot;
}

RtopProcess *
gui_fixture_add_process (RtopSnapshot *snapshot, gint32 pid, const char *comm, const char *user,
                         const char *device, guint32 qps, guint32 mrs, guint64 mr_bytes)
{
  RtopProcess *p = rtop_process_new (pid);
  RtopProcessDevice d = { 0 };

  p->comm = g_strdup (comm);
  p->cmdline = g_strdup_printf ("%s -d %s", comm, device);
  p->user = g_strdup (user);
  p->start_time = 1000 + (guint64) pid;
  p->rss_bytes = 64 * 1024 * 1024;
  p->threads = 4;
  p->qps = qps;
  p->contexts = 1;
  p->mrs = mrs;
  p->mr_bytes = mr_bytes;
  d.device = g_strdup (device);
  d.qps = qps;
  d.contexts = 1;
  d.mrs = mrs;
  d.mr_bytes = mr_bytes;
  g_array_append_val (p->devices, d);
  g_ptr_array_add (snapshot->processes, p);
  return p;
}

RtopEvent *
gui_fixture_add_event (RtopSnapshot *snapshot, RtopSeverity severity, const char *device,
                       guint32 port, const char *message)
{
  RtopEvent *e = rtop_event_new (RTOP_EVENT_COUNTER_RISING, severity, device, port, message);

  e->monotonic_us = snapshot->monotonic_us;
  e->realtime_us = snapshot->realtime_us;
  g_ptr_array_add (snapshot->events, e);
  return e;
}
