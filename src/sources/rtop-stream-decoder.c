/* rtop-stream-decoder.c: the stream's bytes back into snapshots: frames,
 * the hello, snapshot frames rebuilt with the encoder's predictions, and
 * the other side's errors. */
#include "config.h"

#include "rtop-stream-wire.h"
#include "rtop-text.h"

/* One snapshot frame being read. */
typedef struct {
  RtopStreamDecoder *dec;
  Reader *r;
  const RtopSnapshot *ref;
  GPtrArray *new_slots;
  guint total_ports;
  guint total_counters;
} Dec;

static char *
rtop_stream_version_mismatch_message (guint remote_version, const char *remote_producer)
{
  /* Translators: the first two are the other side's rdmatop version and
   * stream version, the last two this program's */
  return g_strdup_printf (_("The other side runs rdmatop %s, which speaks stream version %u; "
                            "this rdmatop %s speaks version %u. Install the same rdmatop "
                            "version on both machines."),
                          remote_producer != NULL ? remote_producer : "?", remote_version,
                          PACKAGE_VERSION, RTOP_STREAM_VERSION);
}

gboolean
rtop_stream_decoder_push (RtopStreamDecoder *self, const guint8 *data, gsize len, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->pos > 0)
    {
      g_byte_array_remove_range (self->buf, 0, self->pos);
      self->pos = 0;
    }
  if (len > PUSH_MAX || self->buf->len > RTOP_STREAM_MAX_FRAME + FRAME_HEADER_MAX)
    {
      self->failed = TRUE;
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                   _("The snapshot stream from the other side is damaged: %s."),
                   _("more data came than one frame can hold"));
      return FALSE;
    }
  g_byte_array_append (self->buf, data, len);
  self->bytes += len;
  return TRUE;
}

static void
decoder_fail (RtopStreamDecoder *self, GError **error, GError *local)
{
  self->failed = TRUE;
  g_propagate_error (error, local);
}

static gboolean
get_str (Dec *d, char **out)
{
  Reader *r = d->r;
  guint64 v, len;

  *out = NULL;
  if (!get_varint (r, &v))
    return FALSE;
  if (v == STR_NULL)
    return TRUE;
  if (v >= STR_FIRST_ID)
    {
      if (v - STR_FIRST_ID >= d->dec->strings->len)
        return bad (r, N_("a string it never sent is named"));
      *out = g_strdup (g_ptr_array_index (d->dec->strings, v - STR_FIRST_ID));
      return TRUE;
    }
  if (!get_varint (r, &len) || !get_bytes_text (r, len, out))
    return FALSE;
  if (v == STR_NEW)
    {
      if (d->dec->strings->len >= RTOP_STREAM_MAX_STRINGS)
        {
          g_clear_pointer (out, g_free);
          return bad (r, N_("too many strings"));
        }
      g_ptr_array_add (d->dec->strings, g_strdup (*out));
    }
  return TRUE;
}

static gboolean
get_counter_change (Dec *d, RtopCounter *c, guint64 ref_value, const RtopCounter *rc,
                    gboolean exception, double elapsed)
{
  guint64 diff;
  guint flags;

  if (!get_zz (d->r, &diff))
    return FALSE;
  c->value = ref_value + diff;
  predict_counter (c, rc, elapsed);
  if (!exception)
    return TRUE;
  if (!get_uint (d->r, EXC_HAS_RATE | EXC_RESET | EXC_DELTA | EXC_RATE | EXC_SATURATED, &flags))
    return FALSE;
  c->has_rate = (flags & EXC_HAS_RATE) != 0;
  c->reset = (flags & EXC_RESET) != 0;
  c->saturated = (flags & EXC_SATURATED) != 0;
  if ((flags & EXC_DELTA) && !get_varint (d->r, &c->delta))
    return FALSE;
  c->rate = predict_rate (c->delta, c->has_rate, elapsed);
  if ((flags & EXC_RATE) && !get_double (d->r, &c->rate))
    return FALSE;
  return TRUE;
}

static gboolean
get_counter_layout (Dec *d, GPtrArray *out, const GPtrArray *ref, gboolean *same)
{
  guint v;

  if (!get_uint (d->r, (guint64) RTOP_STREAM_MAX_COUNTERS + 1, &v))
    return FALSE;
  *same = v == 0;
  if (*same)
    {
      for (guint i = 0; ref != NULL && i < ref->len; i++)
        {
          const RtopCounter *rc = g_ptr_array_index (ref, i);
          RtopCounter *c = rtop_counter_new (rc->name, 0, rc->source);

          c->klass = rc->klass;
          g_ptr_array_add (out, c);
        }
    }
  for (guint i = 0; !*same && i < v - 1; i++)
    {
      g_autofree char *name = NULL;
      guint sk;
      RtopCounter *c;

      if (!get_str (d, &name) || !get_uint (d->r, 0xff, &sk))
        return FALSE;
      if (name == NULL || (sk & 0xf) >= RTOP_COUNTER_SOURCE_N || (sk >> 4) >= RTOP_COUNTER_CLASS_N)
        return bad (d->r, N_("a counter is not described correctly"));
      c = rtop_counter_new (name, 0, sk & 0xf);
      c->klass = sk >> 4;
      g_ptr_array_add (out, c);
    }
  d->total_counters += out->len;
  if (d->total_counters > MAX_TOTAL_COUNTERS)
    return bad (d->r, N_("too many counters"));
  return TRUE;
}

static gboolean
get_counters (Dec *d, GPtrArray *out, const GPtrArray *ref, double elapsed)
{
  gboolean same;
  guint n_changed, pos = 0;

  if (!get_counter_layout (d, out, ref, &same) || !get_uint (d->r, out->len, &n_changed))
    return FALSE;
  for (guint k = 0; k <= n_changed; k++)
    {
      guint64 v = 0, idx = out->len;

      if (k < n_changed)
        {
          if (!get_varint (d->r, &v))
            return FALSE;
          idx = pos + (v >> 1);
          if ((v >> 1) >= out->len || idx >= out->len)
            return bad (d->r, N_("a counter it never described is named"));
        }
      for (; pos < idx; pos++)
        {
          RtopCounter *c = g_ptr_array_index (out, pos);
          const RtopCounter *rc = same ? g_ptr_array_index (ref, pos) : NULL;

          c->value = rc != NULL ? rc->value : 0;
          predict_counter (c, rc, elapsed);
        }
      if (k < n_changed)
        {
          const RtopCounter *rc = same ? g_ptr_array_index (ref, idx) : NULL;

          if (!get_counter_change (d, g_ptr_array_index (out, idx), rc ? rc->value : 0, rc,
                                   v & 1, elapsed))
            return FALSE;
          pos = idx + 1;
        }
    }
  return TRUE;
}

static gboolean
get_metric_layout (Dec *d, RtopPort *port, const RtopPort *ref, gboolean *same)
{
  guint v;

  if (!get_uint (d->r, (1u << RTOP_METRIC_N), &v))
    return FALSE;
  *same = v == 0;
  if (*same && ref == NULL)
    return bad (d->r, N_("metrics it never described are named"));
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      if (*same)
        {
          port->metrics[m].present = ref->metrics[m].present;
          port->metrics[m].source = g_strdup (ref->metrics[m].source);
        }
      else if ((v - 1) & (1u << m))
        {
          port->metrics[m].present = TRUE;
          if (!get_str (d, &port->metrics[m].source))
            return FALSE;
        }
    }
  return TRUE;
}

static void
predict_metric (RtopMetric *m, const RtopMetric *ref, double elapsed)
{
  m->has_rate = predict_metric_has_rate (ref, m->value, elapsed);
  m->rate = predict_metric_rate (ref, m->value, m->has_rate, elapsed);
}

static gboolean
get_metrics (Dec *d, RtopPort *port, const RtopPort *ref, double elapsed)
{
  gboolean same;
  guint n_changed, next = 0;

  if (!get_metric_layout (d, port, ref, &same) || !get_uint (d->r, RTOP_METRIC_N, &n_changed))
    return FALSE;
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    if (port->metrics[m].present)
      {
        const RtopMetric *rm = same ? &ref->metrics[m] : NULL;

        port->metrics[m].value = rm != NULL ? rm->value : 0;
        predict_metric (&port->metrics[m], rm, elapsed);
      }
  for (guint k = 0; k < n_changed; k++)
    {
      guint64 v, diff, m;
      RtopMetric *metric;
      const RtopMetric *rm;
      guint flags;

      if (!get_varint (d->r, &v) || !get_zz (d->r, &diff))
        return FALSE;
      m = next + (v >> 1);
      if ((v >> 1) >= RTOP_METRIC_N || m >= RTOP_METRIC_N || !port->metrics[m].present)
        return bad (d->r, N_("a metric it never described is named"));
      metric = &port->metrics[m];
      rm = same ? &ref->metrics[m] : NULL;
      metric->value = (rm != NULL ? rm->value : 0) + diff;
      predict_metric (metric, rm, elapsed);
      next = m + 1;
      if (!(v & 1))
        continue;
      if (!get_uint (d->r, EXC_HAS_RATE | EXC_RATE, &flags))
        return FALSE;
      metric->has_rate = (flags & EXC_HAS_RATE) != 0;
      metric->rate = predict_metric_rate (rm, metric->value, metric->has_rate, elapsed);
      if ((flags & EXC_RATE) && !get_double (d->r, &metric->rate))
        return FALSE;
    }
  return TRUE;
}

static gboolean
get_port_fields (Dec *d, RtopPort *port, const RtopPort *ref, guint mask)
{
  Reader *r = d->r;
  guint v;

  if (mask & PORT_STATE)
    {
      if (!get_uint (r, 0xff, &v))
        return FALSE;
      port->state = v;
    }
  if (mask & PORT_PHYS)
    {
      if (!get_uint (r, 0xff, &v))
        return FALSE;
      port->phys_state = v;
    }
  if (mask & PORT_NETDEV)
    {
      g_clear_pointer (&port->netdev, g_free);
      if (!get_str (d, &port->netdev))
        return FALSE;
    }
  if ((mask & PORT_NDEV_INDEX) && !get_u32 (r, &port->netdev_index))
    return FALSE;
  if (mask & PORT_LINK_LAYER)
    {
      g_clear_pointer (&port->link_layer, g_free);
      if (!get_str (d, &port->link_layer))
        return FALSE;
    }
  if (mask & PORT_RATE_TEXT)
    {
      g_clear_pointer (&port->rate_text, g_free);
      if (!get_str (d, &port->rate_text))
        return FALSE;
    }
  if ((mask & PORT_RATE_GBPS) && !get_double (r, &port->rate_gbps))
    return FALSE;
  if ((mask & PORT_LAYOUT) && !get_varint (r, &port->counter_layout))
    return FALSE;
  if (mask & PORT_ERROR)
    {
      g_clear_pointer (&port->error, g_free);
      if (!get_text (r, &port->error))
        return FALSE;
    }
  if ((mask & PORT_ELAPSED) && !get_double (r, &port->elapsed_s))
    return FALSE;
  return TRUE;
}

static RtopPort *
get_port (Dec *d, const RtopDevice *rdev)
{
  g_autoptr(RtopPort) port = NULL;
  const RtopPort *ref;
  guint32 index;
  guint mask;
  guint64 read_diff;

  if (!get_u32 (d->r, &index) || !get_uint (d->r, PORT_ALL, &mask) || !get_zz (d->r, &read_diff))
    return NULL;
  if (++d->total_ports > MAX_TOTAL_PORTS)
    {
      bad (d->r, N_("too many ports"));
      return NULL;
    }
  ref = rdev != NULL ? rtop_device_find_port (rdev, index) : NULL;
  port = rtop_port_new (index);
  if (ref != NULL)
    {
      port->state = ref->state;
      port->phys_state = ref->phys_state;
      port->netdev = g_strdup (ref->netdev);
      port->netdev_index = ref->netdev_index;
      port->link_layer = g_strdup (ref->link_layer);
      port->rate_text = g_strdup (ref->rate_text);
      port->rate_gbps = ref->rate_gbps;
      port->counter_layout = ref->counter_layout;
      port->error = g_strdup (ref->error);
    }
  /* A time past 64 bits is not a time (and would make the difference
   * below overflow). */
  if (__builtin_add_overflow (ref != NULL ? ref->read_time_us : 0, (gint64) read_diff,
                              &port->read_time_us))
    {
      bad (d->r, N_("a port's read time is out of range"));
      return NULL;
    }
  port->elapsed_s = predict_elapsed (ref, port->read_time_us);
  if (!get_port_fields (d, port, ref, mask))
    return NULL;
  if (port->elapsed_s < 0)
    {
      bad (d->r, N_("a port's read time goes back"));
      return NULL;
    }
  if (
      !get_counters (d, port->counters, ref != NULL ? ref->counters : NULL, port->elapsed_s) ||
      !get_metrics (d, port, ref, port->elapsed_s))
    return NULL;
  return g_steal_pointer (&port);
}

static gboolean
get_dev_str (Dec *d, guint mask, guint bit, char **field)
{
  if (!(mask & bit))
    return TRUE;
  g_clear_pointer (field, g_free);
  return get_str (d, field);
}

static RtopDevice *
get_device (Dec *d, const RtopDevice *ref)
{
  g_autoptr(RtopDevice) dev = NULL;
  g_autofree char *name = NULL;
  guint mask, n_ports;

  if (ref == NULL && !get_str (d, &name))
    return NULL;
  if (ref == NULL && name == NULL)
    {
      bad (d->r, N_("a device has no name"));
      return NULL;
    }
  dev = rtop_device_new (ref != NULL ? ref->index : 0, ref != NULL ? ref->name : name);
  if (ref != NULL)
    {
      dev->provider = g_strdup (ref->provider);
      dev->node_type = g_strdup (ref->node_type);
      dev->fw_version = g_strdup (ref->fw_version);
      dev->node_guid = g_strdup (ref->node_guid);
      dev->protocol = g_strdup (ref->protocol);
      dev->port_count = ref->port_count;
    }
  if (!get_uint (d->r, (1u << 7) - 1, &mask) ||
      ((mask & DEV_INDEX) && !get_u32 (d->r, &dev->index)) ||
      !get_dev_str (d, mask, DEV_PROVIDER, &dev->provider) ||
      !get_dev_str (d, mask, DEV_NODE_TYPE, &dev->node_type) ||
      !get_dev_str (d, mask, DEV_FW, &dev->fw_version) ||
      !get_dev_str (d, mask, DEV_GUID, &dev->node_guid) ||
      !get_dev_str (d, mask, DEV_PROTOCOL, &dev->protocol) ||
      ((mask & DEV_PORT_COUNT) && !get_u32 (d->r, &dev->port_count)) ||
      !get_counters (d, dev->counters, ref != NULL ? ref->counters : NULL, 0) ||
      !get_uint (d->r, RTOP_STREAM_MAX_PORTS, &n_ports))
    return NULL;
  for (guint i = 0; i < n_ports; i++)
    {
      RtopPort *port = get_port (d, ref);

      if (port == NULL)
        return NULL;
      g_ptr_array_add (dev->ports, port);
    }
  return g_steal_pointer (&dev);
}

static gboolean
get_devices (Dec *d, RtopSnapshot *snap)
{
  RtopStreamDecoder *dec = d->dec;
  guint n;

  if (!get_uint (d->r, RTOP_STREAM_MAX_DEVICES, &n))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const RtopDevice *ref = NULL;
      RtopDevice *dev;
      guint id;

      if (!get_uint (d->r, RTOP_STREAM_MAX_DEVICE_IDS - 1, &id))
        return FALSE;
      if (id > d->new_slots->len)
        return bad (d->r, N_("a device it never described is named"));
      if (id == d->new_slots->len)
        g_ptr_array_add (d->new_slots, NULL);      /* a new device */
      else if (g_ptr_array_index (d->new_slots, id) != NULL)
        return bad (d->r, N_("a device comes twice"));
      else
        {
          ref = id < dec->slots->len ? g_ptr_array_index (dec->slots, id) : NULL;
          if (ref == NULL)
            return bad (d->r, N_("a device that went away is named"));
        }
      dev = get_device (d, ref);
      if (dev == NULL)
        return FALSE;
      g_ptr_array_add (snap->devices, dev);
      g_ptr_array_index (d->new_slots, id) = dev;
    }
  return TRUE;
}

static gboolean
get_process_devices (Dec *d, RtopProcess *p)
{
  guint n;

  if (!get_uint (d->r, RTOP_STREAM_MAX_PROCESS_DEVICES, &n))
    return FALSE;
  g_array_set_size (p->devices, 0);
  for (guint i = 0; i < n; i++)
    {
      RtopProcessDevice pd = { 0 };

      if (!get_str (d, &pd.device))
        return FALSE;
      g_array_append_val (p->devices, pd);
      if (!get_u32 (d->r, &g_array_index (p->devices, RtopProcessDevice, i).qps) ||
          !get_u32 (d->r, &g_array_index (p->devices, RtopProcessDevice, i).contexts) ||
          !get_u32 (d->r, &g_array_index (p->devices, RtopProcessDevice, i).mrs) ||
          !get_varint (d->r, &g_array_index (p->devices, RtopProcessDevice, i).mr_bytes))
        return FALSE;
    }
  return TRUE;
}

static void
copy_process_fields (RtopProcess *p, const RtopProcess *r)
{
  p->kernel = r->kernel;
  p->comm = g_strdup (r->comm);
  p->cmdline = g_strdup (r->cmdline);
  p->user = g_strdup (r->user);
  p->uid = r->uid;
  p->rss_bytes = r->rss_bytes;
  p->threads = r->threads;
  p->state = r->state;
  rtop_job_copy (&p->job, &r->job);
  p->qps = r->qps;
  p->contexts = r->contexts;
  p->mrs = r->mrs;
  p->mr_bytes = r->mr_bytes;
  for (guint i = 0; i < r->devices->len; i++)
    {
      RtopProcessDevice pd = g_array_index (r->devices, RtopProcessDevice, i);

      pd.device = g_strdup (pd.device);
      g_array_append_val (p->devices, pd);
    }
}

/* The peer is another host: its process names are shown like our own. */
static void
make_safe_in_place (char **text, gsize max_bytes)
{
  if (*text != NULL && !rtop_text_is_safe (*text, max_bytes))
    {
      char *safe = rtop_text_escape (*text, -1, max_bytes);

      g_free (*text);
      *text = safe;
    }
}

/* kind, id, detail; the name is worked out here, and the texts are made
 * safe like every name from another host. */
static gboolean
get_job (Dec *d, RtopJob *job)
{
  g_autofree char *id = NULL;
  g_autofree char *detail = NULL;
  guint kind;

  if (!get_uint (d->r, RTOP_JOB_N_KINDS - 1, &kind) || !get_str (d, &id) || !get_str (d, &detail))
    return FALSE;
  rtop_job_set (job, kind, id, detail);
  return TRUE;
}

static gboolean
get_process_fields (Dec *d, RtopProcess *p, guint mask)
{
  Reader *r = d->r;
  guint v;
  guint64 diff;

  if (mask & PROC_KERNEL)
    {
      if (!get_uint (r, 1, &v))
        return FALSE;
      p->kernel = v;
    }
  if (mask & PROC_COMM)
    {
      g_clear_pointer (&p->comm, g_free);
      if (!get_str (d, &p->comm))
        return FALSE;
      make_safe_in_place (&p->comm, RTOP_TEXT_COMM_MAX);
    }
  if (mask & PROC_CMDLINE)
    {
      g_clear_pointer (&p->cmdline, g_free);
      if (!get_text (r, &p->cmdline))
        return FALSE;
      make_safe_in_place (&p->cmdline, RTOP_TEXT_CMDLINE_MAX);
    }
  if (mask & PROC_USER)
    {
      g_clear_pointer (&p->user, g_free);
      if (!get_str (d, &p->user))
        return FALSE;
      make_safe_in_place (&p->user, RTOP_TEXT_USER_MAX);
    }
  if ((mask & PROC_UID) && !get_u32 (r, &p->uid))
    return FALSE;
  if (mask & PROC_RSS)
    {
      if (!get_zz (r, &diff))
        return FALSE;
      p->rss_bytes += diff;
    }
  if ((mask & PROC_THREADS) && !get_u32 (r, &p->threads))
    return FALSE;
  if (mask & PROC_STATE)
    {
      if (!get_uint (r, 0x7f, &v) || v < 0x20)
        return bad (r, N_("a process state is not a letter"));
      p->state = (char) v;
    }
  if (((mask & PROC_QPS) && !get_u32 (r, &p->qps)) ||
      ((mask & PROC_CONTEXTS) && !get_u32 (r, &p->contexts)) ||
      ((mask & PROC_MRS) && !get_u32 (r, &p->mrs)) ||
      ((mask & PROC_MR_BYTES) && !get_varint (r, &p->mr_bytes)))
    return FALSE;
  if ((mask & PROC_JOB) && !get_job (d, &p->job))
    return FALSE;
  return !(mask & PROC_DEVICES) || get_process_devices (d, p);
}

static gboolean
get_processes (Dec *d, RtopSnapshot *snap)
{
  gboolean shared = (d->dec->caps & RTOP_STREAM_CAP_PROCESSES) != 0;
  const GPtrArray *ref = d->ref != NULL ? d->ref->processes : NULL;
  g_autoptr(GHashTable) by_pid = processes_by_pid (shared ? ref : NULL);
  guint n;

  if (!get_uint (d->r, RTOP_STREAM_MAX_PROCESSES, &n))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopProcess) p = NULL;
      const RtopProcess *r;
      guint64 pid = 0, start_time = 0;
      guint mask;

      if (shared && (!get_zz (d->r, &pid) || !get_varint (d->r, &start_time)))
        return FALSE;
      if ((gint64) pid < G_MININT32 || (gint64) pid > G_MAXINT32)
        return bad (d->r, N_("a process id is out of range"));
      p = rtop_process_new ((gint32) (gint64) pid);
      p->start_time = start_time;
      r = ref_process (by_pid, ref, shared, i, p->pid, start_time);
      if (r != NULL)
        copy_process_fields (p, r);
      if (!get_uint (d->r, PROC_ALL, &mask) || !get_process_fields (d, p, mask))
        return FALSE;
      g_ptr_array_add (snap->processes, g_steal_pointer (&p));
    }
  return TRUE;
}

static gboolean
get_events (Dec *d, RtopSnapshot *snap)
{
  guint n;

  if (!get_uint (d->r, RTOP_STREAM_MAX_EVENTS, &n))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopEvent) ev = g_new0 (RtopEvent, 1);
      guint kind, severity;
      guint64 mono, real;

      if (!get_uint (d->r, RTOP_EVENT_N - 1, &kind) ||
          !get_uint (d->r, RTOP_SEVERITY_ERROR, &severity) ||
          !get_zz (d->r, &mono) || !get_zz (d->r, &real) ||
          !get_str (d, &ev->device) || !get_u32 (d->r, &ev->port) ||
          !get_str (d, &ev->counter) || !get_text (d->r, &ev->old_value) ||
          !get_text (d->r, &ev->new_value) || !get_text (d->r, &ev->message))
        return FALSE;
      ev->kind = kind;
      ev->severity = severity;
      ev->monotonic_us = (gint64) ((guint64) snap->monotonic_us + mono);
      ev->realtime_us = (gint64) ((guint64) snap->realtime_us + real);
      g_ptr_array_add (snap->events, g_steal_pointer (&ev));
    }
  return TRUE;
}

static gboolean
get_header (Dec *d, RtopSnapshot *snap, guint flags)
{
  static const RtopSnapshot zero;
  const RtopSnapshot *r = d->ref != NULL ? d->ref : &zero;
  guint64 seq, mono, real;
  guint status;

  if (!get_zz (d->r, &seq) || !get_zz (d->r, &mono) || !get_zz (d->r, &real))
    return FALSE;
  snap->sequence = r->sequence + seq;
  snap->monotonic_us = (gint64) ((guint64) r->monotonic_us + mono);
  snap->realtime_us = (gint64) ((guint64) r->realtime_us + mono + real);
  snap->pids_hidden = (flags & SNAP_PIDS_HIDDEN) != 0;
  snap->processes_withheld = (d->dec->caps & RTOP_STREAM_CAP_PROCESSES) == 0;
  snap->hotplug_events = (flags & SNAP_HOTPLUG) != 0;
  snap->interval_s = r->interval_s;
  if ((flags & SNAP_INTERVAL) && !get_double (d->r, &snap->interval_s))
    return FALSE;
  snap->status = r->status;
  snap->status_message = g_strdup (r->status_message);
  snap->processes_error = g_strdup (r->processes_error);
  if (!(flags & SNAP_STATUS))
    return TRUE;
  g_clear_pointer (&snap->status_message, g_free);
  g_clear_pointer (&snap->processes_error, g_free);
  if (!get_uint (d->r, RTOP_STATUS_ERROR, &status))
    return FALSE;
  snap->status = status;
  return get_text (d->r, &snap->status_message) && get_text (d->r, &snap->processes_error);
}

static RtopSnapshot *
decode_snapshot (RtopStreamDecoder *self, Reader *r)
{
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  g_autoptr(GPtrArray) new_slots = g_ptr_array_new ();
  Dec d = { self, r, NULL, new_slots, 0, 0 };
  guint flags;

  if (!get_uint (r, (1u << 5) - 1, &flags))
    return NULL;
  if (flags & SNAP_KEYFRAME)
    {
      g_ptr_array_set_size (self->strings, 0);
      g_ptr_array_set_size (self->slots, 0);
      g_clear_pointer (&self->ref, rtop_snapshot_unref);
    }
  else if (self->ref == NULL)
    {
      bad (r, N_("it starts without a keyframe"));
      return NULL;
    }
  d.ref = self->ref;
  /* Device ids carry on from the last frame. */
  g_ptr_array_set_size (new_slots, self->slots->len);
  for (guint i = 0; i < new_slots->len; i++)
    new_slots->pdata[i] = NULL;
  if (!get_header (&d, snap, flags) || !get_devices (&d, snap) ||
      !get_processes (&d, snap) || !get_events (&d, snap))
    return NULL;
  if (r->p != r->end)
    {
      bad (r, N_("a frame has bytes left over"));
      return NULL;
    }
  snap->host = g_strdup (self->host);
  g_ptr_array_unref (self->slots);
  self->slots = g_steal_pointer (&new_slots);
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  self->ref = rtop_snapshot_ref (snap);
  return g_steal_pointer (&snap);
}

static gboolean
decode_hello (RtopStreamDecoder *self, Reader *r, GError **error)
{
  guint64 version;
  g_autofree char *producer = NULL;
  guint caps;

  if (!get_varint (r, &version))
    return FALSE;
  /* A hello starts with the version in every version of the stream. */
  if (version != RTOP_STREAM_VERSION)
    {
      g_autofree char *message = NULL;

      if (!get_text (r, &producer))
        g_clear_error (r->error);
      message = rtop_stream_version_mismatch_message (MIN (version, G_MAXUINT), producer);
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_VERSION, message);
      return FALSE;
    }
  if (!get_text (r, &producer) || !get_uint (r, G_MAXUINT32, &caps))
    return FALSE;
  if (r->p != r->end)
    return bad (r, N_("a frame has bytes left over"));
  self->producer = g_steal_pointer (&producer);
  self->caps = caps;
  self->hello_seen = TRUE;
  return TRUE;
}

/* What the other side printed instead of a stream, for the message. */
static char *
printable_prefix (const guint8 *data, gsize len)
{
  g_autofree char *valid = g_utf8_make_valid ((const char *) data, MIN (len, 80));
  GString *s = g_string_new (NULL);

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (s, g_unichar_isprint (c) ? c : ' ');
    }
  return g_strstrip (g_string_free (s, FALSE));
}

static gboolean
check_magic (RtopStreamDecoder *self, GError **error)
{
  gsize have = MIN (self->buf->len - self->pos, RTOP_STREAM_MAGIC_LEN);
  const guint8 *data = self->buf->data + self->pos;

  if (memcmp (data, RTOP_STREAM_MAGIC, have) != 0)
    {
      g_autofree char *text = printable_prefix (data, self->buf->len - self->pos);

      g_set_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                   _("The other side did not answer with an rdmatop snapshot stream; it said “%s”."),
                   text);
      return FALSE;
    }
  if (have < RTOP_STREAM_MAGIC_LEN)
    return TRUE;
  self->pos += RTOP_STREAM_MAGIC_LEN;
  self->magic_seen = TRUE;
  return TRUE;
}

/* The next whole frame in the buffer: FALSE with *error on bad input,
 * FALSE without when more bytes are needed. */
static gboolean
next_frame (RtopStreamDecoder *self, guint8 *type, Reader *payload, GError **error)
{
  Reader r = { self->buf->data + self->pos, self->buf->data + self->buf->len, NULL };
  guint64 len = 0;
  guint shift = 0;

  if (r.p >= r.end)
    return FALSE;
  *type = *r.p++;
  for (;;)
    {
      if (r.p >= r.end)
        return FALSE;
      len |= (guint64) (*r.p & 0x7f) << shift;
      if ((*r.p++ & 0x80) == 0)
        break;
      shift += 7;
      if (shift > 28)
        break;
    }
  if (shift > 28 || len > RTOP_STREAM_MAX_FRAME)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                   _("The snapshot stream from the other side is damaged: %s."),
                   _("a frame is larger than the limit"));
      return FALSE;
    }
  if ((guint64) (r.end - r.p) < len)
    return FALSE;
  payload->p = r.p;
  payload->end = r.p + len;
  self->pos = (r.p + len) - self->buf->data;
  return TRUE;
}

static RtopSnapshot *
decode_frame (RtopStreamDecoder *self, guint8 type, Reader *r, gboolean *again, GError **error)
{
  g_autofree char *message = NULL;

  *again = FALSE;
  if (!self->hello_seen && type != FRAME_HELLO && type != FRAME_ERROR)
    {
      bad (r, N_("it does not start with a hello"));
      return NULL;
    }
  switch (type)
    {
    case FRAME_HELLO:
      if (self->hello_seen)
        {
          bad (r, N_("it says hello twice"));
          return NULL;
        }
      *again = decode_hello (self, r, error);
      return NULL;
    case FRAME_ERROR:
      if (get_text (r, &message))
        g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_REMOTE,
                             message != NULL ? message : "");
      return NULL;
    case FRAME_SNAPSHOT:
      return decode_snapshot (self, r);
    default:
      bad (r, N_("a frame of an unknown type came"));
      return NULL;
    }
}

RtopSnapshot *
rtop_stream_decoder_next (RtopStreamDecoder *self, GError **error)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->failed)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                   _("The snapshot stream from the other side is damaged: %s."),
                   _("it failed before"));
      return NULL;
    }
  for (;;)
    {
      GError *local = NULL;
      Reader payload = { NULL, NULL, &local };
      RtopSnapshot *snap;
      gboolean again;
      guint8 type;

      if (!self->magic_seen)
        {
          if (!check_magic (self, &local))
            {
              decoder_fail (self, error, local);
              return NULL;
            }
          if (!self->magic_seen)
            return NULL;
        }
      if (!next_frame (self, &type, &payload, &local))
        {
          if (local != NULL)
            decoder_fail (self, error, local);
          return NULL;
        }
      snap = decode_frame (self, type, &payload, &again, &local);
      if (snap != NULL)
        return snap;
      if (local != NULL)
        {
          decoder_fail (self, error, local);
          return NULL;
        }
      if (!again)
        return NULL;
    }
}

gboolean
rtop_stream_decoder_finish (RtopStreamDecoder *self, GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->failed)
    return TRUE;     /* said already */
  if (self->buf->len > self->pos || !self->hello_seen)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                   _("The snapshot stream from the other side is damaged: %s."),
                   self->hello_seen ? _("it ends inside a frame") : _("it ends before its hello"));
      return FALSE;
    }
  return TRUE;
}
