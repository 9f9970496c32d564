/* rtop-stream-encoder.c: snapshots into the stream's frames: the hello,
 * snapshot frames of what the decoder cannot predict, and error frames. */
#include "config.h"

#include "rtop-stream-wire.h"

static gboolean
same_double (double a, double b)
{
  return memcmp (&a, &b, sizeof a) == 0;
}

/* What a process is on the wire when processes are not shared. */
typedef struct {
  gint32 pid;
  guint64 start_time;
  gboolean kernel;
  const char *comm, *cmdline, *user;
  guint32 uid;
  guint64 rss_bytes;
  guint32 threads;
  char state;
  const RtopJob *job;        /* a pod or container id says as much as a pid */
} ProcView;

static const RtopJob no_job = { RTOP_JOB_NONE, NULL, NULL, NULL };

static void
proc_view (const RtopProcess *p, gboolean shared, ProcView *v)
{
  memset (v, 0, sizeof *v);
  v->job = &no_job;
  v->kernel = p->kernel != FALSE;
  v->state = '?';
  /* A kernel module's name says nothing about the machine's users. */
  v->comm = shared || p->kernel ? p->comm : NULL;
  if (!shared)
    return;
  v->pid = p->pid;
  v->start_time = p->start_time;
  v->cmdline = p->cmdline;
  v->user = p->user;
  v->uid = p->uid;
  v->rss_bytes = p->rss_bytes;
  v->threads = p->threads;
  v->state = p->state;
  v->job = &p->job;
}

/* One snapshot frame being written. */
typedef struct {
  RtopStreamEncoder *enc;
  GByteArray *out;
  const RtopSnapshot *ref;    /* NULL in a keyframe */
  GHashTable *new_devices;    /* id + 1 -> RtopDevice*, for the next frame */
  GHashTable *seen_names;     /* device names sent in this frame */
  guint total_ports;
  guint total_counters;
  gboolean omit_processes;
  gboolean omit_devices;
  const char *processes_error;
  RtopStatus status;
  const char *status_message;
} Enc;

static void
put_frame (GByteArray *out, guint8 type, const GByteArray *body)
{
  put_u8 (out, type);
  put_varint (out, body->len);
  g_byte_array_append (out, body->data, body->len);
}

void
rtop_stream_encoder_hello (RtopStreamEncoder *self, GByteArray *out)
{
  g_autoptr(GByteArray) body = g_byte_array_new ();

  g_return_if_fail (self != NULL && out != NULL);
  g_byte_array_append (out, (const guint8 *) RTOP_STREAM_MAGIC, RTOP_STREAM_MAGIC_LEN);
  put_varint (body, RTOP_STREAM_VERSION);
  put_text (body, PACKAGE_VERSION);
  put_varint (body, self->share_processes ? RTOP_STREAM_CAP_PROCESSES : 0);
  put_frame (out, FRAME_HELLO, body);
}

void
rtop_stream_encode_error (GByteArray *out, const char *message)
{
  g_autoptr(GByteArray) body = g_byte_array_new ();

  g_return_if_fail (out != NULL);
  put_text (body, message != NULL ? message : "");
  put_frame (out, FRAME_ERROR, body);
}

static void
put_str (Enc *e, const char *s)
{
  gpointer id;

  if (s == NULL)
    {
      put_varint (e->out, STR_NULL);
      return;
    }
  id = g_hash_table_lookup (e->enc->strings, s);
  if (id != NULL)
    {
      put_varint (e->out, STR_FIRST_ID + GPOINTER_TO_UINT (id) - 1);
      return;
    }
  if (g_hash_table_size (e->enc->strings) >= RTOP_STREAM_MAX_STRINGS)
    {
      put_varint (e->out, STR_ONCE);
      put_raw_text (e->out, s);
      return;
    }
  g_hash_table_insert (e->enc->strings, g_strdup (s),
                       GUINT_TO_POINTER (g_hash_table_size (e->enc->strings) + 1));
  put_varint (e->out, STR_NEW);
  put_raw_text (e->out, s);
}

static gboolean
same_counter_layout (const RtopCounter * const *cur, guint n, const GPtrArray *ref)
{
  if ((ref != NULL ? MIN (ref->len, RTOP_STREAM_MAX_COUNTERS) : 0) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      const RtopCounter *a = cur[i], *b = g_ptr_array_index (ref, i);

      /* The collector lends the same name strings pass after pass. */
      if (a->source != b->source || a->klass != b->klass ||
          (a->name != b->name && g_strcmp0 (a->name, b->name) != 0))
        return FALSE;
    }
  return TRUE;
}

/* Whether a counter differs from what the decoder would predict; *flags
 * says how. */
static gboolean
counter_exception (const RtopCounter *c, const RtopCounter *ref, double elapsed, guint *flags)
{
  RtopCounter p = { .value = c->value };

  predict_counter (&p, ref, elapsed);
  *flags = (c->has_rate ? EXC_HAS_RATE : 0) | (c->reset ? EXC_RESET : 0) |
           (c->saturated ? EXC_SATURATED : 0);
  if (c->delta != p.delta)
    *flags |= EXC_DELTA;
  if (!same_double (c->rate, predict_rate (c->delta, c->has_rate, elapsed)))
    *flags |= EXC_RATE;
  return (*flags & (EXC_DELTA | EXC_RATE)) != 0 || !c->has_rate != !p.has_rate ||
         !c->reset != !p.reset || c->saturated;
}

static void
put_counter_change (GByteArray *out, const RtopCounter *c, guint64 ref_value, guint gap,
                    gboolean exception, guint flags)
{
  put_varint (out, ((guint64) gap << 1) | (exception ? 1 : 0));
  put_zz (out, c->value - ref_value);
  if (!exception)
    return;
  put_varint (out, flags);
  if (flags & EXC_DELTA)
    put_varint (out, c->delta);
  if (flags & EXC_RATE)
    put_double (out, c->rate);
}

/* A counter list: its layout when it changed, then the counters whose
 * value or rate is not what the decoder predicts. */
static void
put_counters (Enc *e, const GPtrArray *list, const GPtrArray *ref, double elapsed)
{
  guint n = MIN (list->len, RTOP_STREAM_MAX_COUNTERS);
  const RtopCounter * const *cur = (const RtopCounter * const *) list->pdata;
  gboolean same = same_counter_layout (cur, n, ref);
  guint n_changed = 0, next = 0;

  e->total_counters += n;
  if (same)
    put_varint (e->out, 0);
  else
    {
      put_varint (e->out, (guint64) n + 1);
      for (guint i = 0; i < n; i++)
        {
          put_str (e, cur[i]->name != NULL ? cur[i]->name : "");
          put_varint (e->out, ((guint) cur[i]->klass << 4) | (guint) cur[i]->source);
        }
    }
  /* The changes go to a scratch buffer first: their count comes before them. */
  g_byte_array_set_size (e->enc->scratch, 0);
  for (guint i = 0; i < n; i++)
    {
      const RtopCounter *rc = same ? g_ptr_array_index (ref, i) : NULL;
      guint64 rv = rc != NULL ? rc->value : 0;
      guint flags;
      gboolean exc = counter_exception (cur[i], rc, elapsed, &flags);

      if (cur[i]->value == rv && !exc)
        continue;
      put_counter_change (e->enc->scratch, cur[i], rv, i - next, exc, flags);
      next = i + 1;
      n_changed++;
    }
  put_varint (e->out, n_changed);
  g_byte_array_append (e->out, e->enc->scratch->data, e->enc->scratch->len);
}

static gboolean
same_metric_layout (const RtopPort *port, const RtopPort *ref)
{
  if (ref == NULL)
    return FALSE;
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    if (!port->metrics[m].present != !ref->metrics[m].present ||
        (port->metrics[m].present && g_strcmp0 (port->metrics[m].source, ref->metrics[m].source) != 0))
      return FALSE;
  return TRUE;
}

static gboolean
metric_exception (const RtopMetric *m, const RtopMetric *ref, double elapsed, guint *flags)
{
  gboolean ph = predict_metric_has_rate (ref, m->value, elapsed);

  *flags = m->has_rate ? EXC_HAS_RATE : 0;
  if (!same_double (m->rate, predict_metric_rate (ref, m->value, m->has_rate, elapsed)))
    *flags |= EXC_RATE;
  return !m->has_rate != !ph || (*flags & EXC_RATE) != 0;
}

static void
put_metrics (Enc *e, const RtopPort *port, const RtopPort *ref, double elapsed)
{
  gboolean same = same_metric_layout (port, ref);
  guint n_changed = 0, next = 0;

  if (same)
    put_varint (e->out, 0);
  else
    {
      guint mask = 0;

      for (guint m = 0; m < RTOP_METRIC_N; m++)
        if (port->metrics[m].present)
          mask |= 1u << m;
      put_varint (e->out, (guint64) mask + 1);
      for (guint m = 0; m < RTOP_METRIC_N; m++)
        if (port->metrics[m].present)
          put_str (e, port->metrics[m].source);
    }
  g_byte_array_set_size (e->enc->scratch, 0);
  for (guint m = 0; m < RTOP_METRIC_N; m++)
    {
      const RtopMetric *cur = &port->metrics[m];
      const RtopMetric *rm = same ? &ref->metrics[m] : NULL;
      guint64 rv = rm != NULL ? rm->value : 0;
      guint flags;
      gboolean exc;

      if (!cur->present)
        continue;
      exc = metric_exception (cur, rm, elapsed, &flags);
      if (cur->value == rv && !exc)
        continue;
      put_varint (e->enc->scratch, ((guint64) (m - next) << 1) | (exc ? 1 : 0));
      put_zz (e->enc->scratch, cur->value - rv);
      if (exc)
        {
          put_varint (e->enc->scratch, flags);
          if (flags & EXC_RATE)
            put_double (e->enc->scratch, cur->rate);
        }
      next = m + 1;
      n_changed++;
    }
  put_varint (e->out, n_changed);
  g_byte_array_append (e->out, e->enc->scratch->data, e->enc->scratch->len);
}

static guint
port_mask (const RtopPort *p, const RtopPort *r, double predicted_elapsed)
{
  static const RtopPort zero;
  guint mask = 0;

  if (r == NULL)
    r = &zero;
  mask |= p->state != r->state ? PORT_STATE : 0;
  mask |= p->phys_state != r->phys_state ? PORT_PHYS : 0;
  mask |= g_strcmp0 (p->netdev, r->netdev) != 0 ? PORT_NETDEV : 0;
  mask |= p->netdev_index != r->netdev_index ? PORT_NDEV_INDEX : 0;
  mask |= g_strcmp0 (p->link_layer, r->link_layer) != 0 ? PORT_LINK_LAYER : 0;
  mask |= g_strcmp0 (p->rate_text, r->rate_text) != 0 ? PORT_RATE_TEXT : 0;
  mask |= !same_double (p->rate_gbps, r->rate_gbps) ? PORT_RATE_GBPS : 0;
  mask |= p->counter_layout != r->counter_layout ? PORT_LAYOUT : 0;
  mask |= g_strcmp0 (p->error, r->error) != 0 ? PORT_ERROR : 0;
  mask |= !same_double (p->elapsed_s, predicted_elapsed) ? PORT_ELAPSED : 0;
  return mask;
}

static void
put_port (Enc *e, const RtopPort *port, const RtopPort *ref)
{
  double predicted = predict_elapsed (ref, port->read_time_us);
  guint mask = port_mask (port, ref, predicted);

  put_varint (e->out, port->index);
  put_varint (e->out, mask);
  put_zz (e->out, (guint64) port->read_time_us - (guint64) (ref != NULL ? ref->read_time_us : 0));
  if (mask & PORT_STATE)
    put_varint (e->out, port->state);
  if (mask & PORT_PHYS)
    put_varint (e->out, port->phys_state);
  if (mask & PORT_NETDEV)
    put_str (e, port->netdev);
  if (mask & PORT_NDEV_INDEX)
    put_varint (e->out, port->netdev_index);
  if (mask & PORT_LINK_LAYER)
    put_str (e, port->link_layer);
  if (mask & PORT_RATE_TEXT)
    put_str (e, port->rate_text);
  if (mask & PORT_RATE_GBPS)
    put_double (e->out, port->rate_gbps);
  if (mask & PORT_LAYOUT)
    put_varint (e->out, port->counter_layout);
  if (mask & PORT_ERROR)
    put_text (e->out, port->error);
  if (mask & PORT_ELAPSED)
    put_double (e->out, port->elapsed_s);
  put_counters (e, port->counters, ref != NULL ? ref->counters : NULL, port->elapsed_s);
  put_metrics (e, port, ref, port->elapsed_s);
}

static guint
device_mask (const RtopDevice *d, const RtopDevice *r)
{
  static const RtopDevice zero;
  guint mask = 0;

  if (r == NULL)
    r = &zero;
  mask |= d->index != r->index ? DEV_INDEX : 0;
  mask |= g_strcmp0 (d->provider, r->provider) != 0 ? DEV_PROVIDER : 0;
  mask |= g_strcmp0 (d->node_type, r->node_type) != 0 ? DEV_NODE_TYPE : 0;
  mask |= g_strcmp0 (d->fw_version, r->fw_version) != 0 ? DEV_FW : 0;
  mask |= g_strcmp0 (d->node_guid, r->node_guid) != 0 ? DEV_GUID : 0;
  mask |= g_strcmp0 (d->protocol, r->protocol) != 0 ? DEV_PROTOCOL : 0;
  mask |= d->port_count != r->port_count ? DEV_PORT_COUNT : 0;
  return mask;
}

static void
put_device (Enc *e, const RtopDevice *dev, const RtopDevice *ref)
{
  guint mask = device_mask (dev, ref);
  guint n_ports = MIN (dev->ports->len, RTOP_STREAM_MAX_PORTS);

  if (ref == NULL)
    put_str (e, dev->name != NULL ? dev->name : "");
  put_varint (e->out, mask);
  if (mask & DEV_INDEX)
    put_varint (e->out, dev->index);
  if (mask & DEV_PROVIDER)
    put_str (e, dev->provider);
  if (mask & DEV_NODE_TYPE)
    put_str (e, dev->node_type);
  if (mask & DEV_FW)
    put_str (e, dev->fw_version);
  if (mask & DEV_GUID)
    put_str (e, dev->node_guid);
  if (mask & DEV_PROTOCOL)
    put_str (e, dev->protocol);
  if (mask & DEV_PORT_COUNT)
    put_varint (e->out, dev->port_count);
  put_counters (e, dev->counters, ref != NULL ? ref->counters : NULL, 0);
  put_varint (e->out, n_ports);
  e->total_ports += n_ports;
  for (guint i = 0; i < n_ports; i++)
    {
      const RtopPort *port = g_ptr_array_index (dev->ports, i);

      put_port (e, port, ref != NULL ? rtop_device_find_port (ref, port->index) : NULL);
    }
}

static guint
device_id (Enc *e, const char *name)
{
  gpointer id = g_hash_table_lookup (e->enc->device_ids, name);

  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  g_hash_table_insert (e->enc->device_ids, g_strdup (name),
                       GUINT_TO_POINTER (e->enc->next_device_id + 1));
  return e->enc->next_device_id++;
}

static gboolean
name_not_seen_cb (gpointer key, gpointer value, gpointer user_data)
{
  return !g_hash_table_contains (user_data, key);
}

static void
put_devices (Enc *e, const GPtrArray *devices)
{
  g_autoptr(GPtrArray) sent = g_ptr_array_new ();

  /* The same device twice (not something the collector makes) would be
   * one id twice: the second is left out. */
  for (guint i = 0; i < devices->len && !e->omit_devices && sent->len < RTOP_STREAM_MAX_DEVICES; i++)
    {
      RtopDevice *dev = g_ptr_array_index (devices, i);
      const char *name = dev->name != NULL ? dev->name : "";

      if (g_hash_table_contains (e->seen_names, name))
        continue;
      g_hash_table_add (e->seen_names, (gpointer) name);
      g_ptr_array_add (sent, dev);
    }
  put_varint (e->out, sent->len);
  for (guint i = 0; i < sent->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (sent, i);
      guint id = device_id (e, dev->name != NULL ? dev->name : "");

      put_varint (e->out, id);
      put_device (e, dev, e->ref != NULL ? g_hash_table_lookup (e->enc->ref_devices,
                                                                GUINT_TO_POINTER (id + 1)) : NULL);
      g_hash_table_insert (e->new_devices, GUINT_TO_POINTER (id + 1), dev);
    }
  /* A device that went away gets a new id if it comes back. */
  g_hash_table_foreach_remove (e->enc->device_ids, name_not_seen_cb, e->seen_names);
}

static guint
process_mask (const ProcView *v, const RtopProcess *p, const ProcView *rv, const RtopProcess *r)
{
  guint mask = 0;

  if (r == NULL)
    mask |= PROC_DEVICES;
  else if (p->devices->len != r->devices->len)
    mask |= PROC_DEVICES;
  else
    for (guint i = 0; i < p->devices->len; i++)
      {
        const RtopProcessDevice *a = &g_array_index (p->devices, RtopProcessDevice, i);
        const RtopProcessDevice *b = &g_array_index (r->devices, RtopProcessDevice, i);

        if (g_strcmp0 (a->device, b->device) != 0 || a->qps != b->qps ||
            a->contexts != b->contexts || a->mrs != b->mrs || a->mr_bytes != b->mr_bytes)
          {
            mask |= PROC_DEVICES;
            break;
          }
      }
  mask |= v->kernel != rv->kernel ? PROC_KERNEL : 0;
  mask |= g_strcmp0 (v->comm, rv->comm) != 0 ? PROC_COMM : 0;
  mask |= g_strcmp0 (v->cmdline, rv->cmdline) != 0 ? PROC_CMDLINE : 0;
  mask |= g_strcmp0 (v->user, rv->user) != 0 ? PROC_USER : 0;
  mask |= v->uid != rv->uid ? PROC_UID : 0;
  mask |= v->rss_bytes != rv->rss_bytes ? PROC_RSS : 0;
  mask |= v->threads != rv->threads ? PROC_THREADS : 0;
  mask |= v->state != rv->state ? PROC_STATE : 0;
  mask |= !rtop_job_equal (v->job, rv->job) ? PROC_JOB : 0;
  mask |= p->qps != (r ? r->qps : 0) ? PROC_QPS : 0;
  mask |= p->contexts != (r ? r->contexts : 0) ? PROC_CONTEXTS : 0;
  mask |= p->mrs != (r ? r->mrs : 0) ? PROC_MRS : 0;
  mask |= p->mr_bytes != (r ? r->mr_bytes : 0) ? PROC_MR_BYTES : 0;
  return mask;
}

static void
put_process (Enc *e, const RtopProcess *p, const RtopProcess *r)
{
  gboolean shared = e->enc->share_processes;
  ProcView v, rv;
  guint mask;

  proc_view (p, shared, &v);
  if (r != NULL)
    proc_view (r, shared, &rv);
  else
    {
      memset (&rv, 0, sizeof rv);
      rv.state = '?';
      rv.job = &no_job;
    }
  mask = process_mask (&v, p, &rv, r);
  put_varint (e->out, mask);
  if (mask & PROC_KERNEL)
    put_varint (e->out, v.kernel);
  if (mask & PROC_COMM)
    put_str (e, v.comm);
  if (mask & PROC_CMDLINE)
    put_text (e->out, v.cmdline);
  if (mask & PROC_USER)
    put_str (e, v.user);
  if (mask & PROC_UID)
    put_varint (e->out, v.uid);
  if (mask & PROC_RSS)
    put_zz (e->out, v.rss_bytes - rv.rss_bytes);
  if (mask & PROC_THREADS)
    put_varint (e->out, v.threads);
  if (mask & PROC_STATE)
    put_varint (e->out, (guchar) v.state);
  if (mask & PROC_QPS)
    put_varint (e->out, p->qps);
  if (mask & PROC_CONTEXTS)
    put_varint (e->out, p->contexts);
  if (mask & PROC_MRS)
    put_varint (e->out, p->mrs);
  if (mask & PROC_MR_BYTES)
    put_varint (e->out, p->mr_bytes);
  if (mask & PROC_JOB)
    {
      put_varint (e->out, v.job->kind);
      put_str (e, v.job->id);
      put_str (e, v.job->detail);
    }
  if (mask & PROC_DEVICES)
    {
      guint n = MIN (p->devices->len, RTOP_STREAM_MAX_PROCESS_DEVICES);

      put_varint (e->out, n);
      for (guint i = 0; i < n; i++)
        {
          const RtopProcessDevice *d = &g_array_index (p->devices, RtopProcessDevice, i);

          put_str (e, d->device);
          put_varint (e->out, d->qps);
          put_varint (e->out, d->contexts);
          put_varint (e->out, d->mrs);
          put_varint (e->out, d->mr_bytes);
        }
    }
}

static void
put_processes (Enc *e, const GPtrArray *list)
{
  const GPtrArray *ref = e->ref != NULL ? e->ref->processes : NULL;
  gboolean shared = e->enc->share_processes;
  g_autoptr(GHashTable) by_pid = processes_by_pid (shared ? ref : NULL);
  guint n = e->omit_processes ? 0 : MIN (list->len, RTOP_STREAM_MAX_PROCESSES);

  put_varint (e->out, n);
  for (guint i = 0; i < n; i++)
    {
      const RtopProcess *p = g_ptr_array_index (list, i);

      if (shared)
        {
          put_zz (e->out, (guint64) (gint64) p->pid);
          put_varint (e->out, p->start_time);
        }
      put_process (e, p, ref_process (by_pid, ref, shared, i, p->pid, p->start_time));
    }
}

static void
put_events (Enc *e, const RtopSnapshot *snap)
{
  guint n = MIN (snap->events->len, RTOP_STREAM_MAX_EVENTS);

  put_varint (e->out, n);
  for (guint i = 0; i < n; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      put_varint (e->out, ev->kind);
      put_varint (e->out, ev->severity);
      put_zz (e->out, (guint64) ev->monotonic_us - (guint64) snap->monotonic_us);
      put_zz (e->out, (guint64) ev->realtime_us - (guint64) snap->realtime_us);
      put_str (e, ev->device);
      put_varint (e->out, ev->port);
      put_str (e, ev->counter);
      put_text (e->out, ev->old_value);
      put_text (e->out, ev->new_value);
      put_text (e->out, ev->message);
    }
}

static gboolean
pids_hidden_on_wire (RtopStreamEncoder *self, const RtopSnapshot *snap)
{
  return snap->pids_hidden || (!self->share_processes && snap->processes->len > 0);
}

static void
put_header (Enc *e, const RtopSnapshot *snap)
{
  static const RtopSnapshot zero;
  const RtopSnapshot *r = e->ref != NULL ? e->ref : &zero;
  guint flags = e->ref == NULL ? SNAP_KEYFRAME : 0;
  guint64 predicted_real = (guint64) r->realtime_us + ((guint64) snap->monotonic_us - (guint64) r->monotonic_us);

  flags |= pids_hidden_on_wire (e->enc, snap) ? SNAP_PIDS_HIDDEN : 0;
  flags |= snap->hotplug_events ? SNAP_HOTPLUG : 0;
  flags |= !same_double (snap->interval_s, r->interval_s) ? SNAP_INTERVAL : 0;
  if (e->status != r->status || g_strcmp0 (e->status_message, r->status_message) != 0 ||
      g_strcmp0 (e->processes_error, r->processes_error) != 0)
    flags |= SNAP_STATUS;
  put_varint (e->out, flags);
  put_zz (e->out, snap->sequence - r->sequence);
  put_zz (e->out, (guint64) snap->monotonic_us - (guint64) r->monotonic_us);
  put_zz (e->out, (guint64) snap->realtime_us - predicted_real);
  if (flags & SNAP_INTERVAL)
    put_double (e->out, snap->interval_s);
  if (flags & SNAP_STATUS)
    {
      put_varint (e->out, e->status);
      put_text (e->out, e->status_message);
      put_text (e->out, e->processes_error);
    }
}

static void
encoder_reset (RtopStreamEncoder *self)
{
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  g_hash_table_remove_all (self->strings);
  g_hash_table_remove_all (self->device_ids);
  g_hash_table_remove_all (self->ref_devices);
  self->next_device_id = 0;
  self->since_keyframe = 0;
  self->keyframe_wanted = FALSE;
}

/* Writes one frame's body; FALSE when it came out over the limits. */
static gboolean
encode_body (Enc *e, RtopSnapshot *snap)
{
  put_header (e, snap);
  put_devices (e, snap->devices);
  put_processes (e, snap->processes);
  put_events (e, snap);
  return e->out->len <= RTOP_STREAM_MAX_FRAME && e->total_ports <= MAX_TOTAL_PORTS &&
         e->total_counters <= MAX_TOTAL_COUNTERS;
}

static gboolean
encode_attempt (RtopStreamEncoder *self, RtopSnapshot *snap, guint attempt, GByteArray *body)
{
  Enc e = { self, body, NULL, NULL, NULL, 0, 0, FALSE, FALSE,
            snap->processes_error, snap->status, snap->status_message };
  gboolean fits;

  if (attempt > 0 || self->ref == NULL)
    encoder_reset (self);
  e.ref = self->ref;
  if (attempt >= 1)
    {
      e.omit_processes = TRUE;
      e.processes_error = _("This host has more processes than the stream can carry; they are not shown.");
    }
  if (attempt >= 2)
    {
      e.omit_devices = TRUE;
      e.status = RTOP_STATUS_ERROR;
      e.status_message = _("This host has more devices and counters than the stream can carry.");
    }
  e.new_devices = g_hash_table_new (NULL, NULL);
  e.seen_names = g_hash_table_new (g_str_hash, g_str_equal);
  fits = encode_body (&e, snap);
  g_hash_table_unref (e.seen_names);
  g_clear_pointer (&self->ref_devices, g_hash_table_unref);
  self->ref_devices = e.new_devices;
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  /* What the decoder has after a cut-down frame is not this snapshot:
   * the next frame starts again from nothing. */
  if (fits && attempt == 0)
    self->ref = rtop_snapshot_ref (snap);
  return fits;
}

void
rtop_stream_encoder_add (RtopStreamEncoder *self, RtopSnapshot *snapshot, GByteArray *out)
{
  g_autoptr(GByteArray) body = g_byte_array_new ();

  g_return_if_fail (self != NULL && snapshot != NULL && out != NULL);

  if (self->keyframe_wanted ||
      (self->keyframe_every > 0 && self->since_keyframe >= self->keyframe_every) ||
      g_hash_table_size (self->strings) > RTOP_STREAM_MAX_STRINGS / 2 ||
      self->next_device_id > RTOP_STREAM_MAX_DEVICE_IDS - RTOP_STREAM_MAX_DEVICES)
    encoder_reset (self);
  for (guint attempt = 0; attempt < 3; attempt++)
    {
      g_byte_array_set_size (body, 0);
      if (encode_attempt (self, snapshot, attempt, body))
        break;
    }
  self->since_keyframe++;
  put_frame (out, FRAME_SNAPSHOT, body);
}
