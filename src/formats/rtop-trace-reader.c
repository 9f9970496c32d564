/* rtop-trace-reader.c: Chrome JSON traces written by rtop-trace-writer.c
 * read back into snapshots (the layout is in rtop-trace-writer.h).
 *
 * Every line is untrusted: each JSON line is checked for nesting depth
 * before json-glib sees it, every field is type-checked, and the number of
 * ports, slices and events is bounded.  A first pass counts the intervals
 * so a long recording can be merged down to the memory budget in the
 * second. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "rtop-trace-recovery.h"
#include "rtop-trace-parse.h"
#include "rtop-trace-reader.h"
#include "rtop-trace-writer.h"
#include "rtop-text.h"

#define MAX_PORTS 4096
#define MAX_EVENTS_PER_SNAPSHOT 4096
#define MAX_EVENTS_TOTAL 200000
#define MAX_PROCESS_SAMPLES 500000
#define COMMIT_PREFIX "{\"ph\":\"C\",\"pid\":1,"

typedef struct {
  char *device;
  guint32 port;
  guint32 dev_index;
  char *provider, *protocol, *netdev, *link_layer, *rate_text;
  gboolean gpu;                /* a GPU's link (kind "gpu"); port 0 is its "all links" */
  char *remote, *gpu_vendor, *gpu_model;
  double gauge[8];             /* the GPU's gauges (rtop_trace_gpu_gauges()), NAN unseen */
  double value[32];            /* per counter track, as written (scaled) */
  gboolean seen[32];
  double group_sum[32];
  double total[32];            /* integrated metric units since the start */
  double link_gbps;
  gint64 state;                /* -1 gone */
  gboolean has_state;
} PortState;

typedef struct {
  gint32 pid;
  gboolean kernel;
  guint64 start_time;
  guint32 uid;
  char *comm, *user, *cmdline, *device;
  RtopJob job;
  guint32 qps, contexts, mrs;
  guint64 mr_bytes;
} SliceInfo;

typedef struct {
  RtopTraceHeader header;
  const RtopTraceCounter *counters;
  guint n_counters;
  GPtrArray *ports;            /* PortState*, index = pid - 2 */
  GHashTable *slices;          /* tid -> SliceInfo* */
  GPtrArray *pending_events;   /* RtopEvent* for the snapshot being built */
  GHashTable *ports_seen;      /* "device/port" of the ports emitted so far */
  guint merge;
  guint group_count;
  double group_dt;
  gint64 last_commit_ts;
  gboolean have_commit;
  guint64 sequence;
  guint64 process_samples;
  guint64 events_total;
  guint64 port_samples;        /* emitted so far */
  gboolean ended;
  RtopRecordLoad *result;
} TraceReader;

static void
port_state_free (gpointer data)
{
  PortState *p = data;

  if (p == NULL)
    return;
  g_free (p->device);
  g_free (p->provider);
  g_free (p->protocol);
  g_free (p->netdev);
  g_free (p->link_layer);
  g_free (p->rate_text);
  g_free (p->remote);
  g_free (p->gpu_vendor);
  g_free (p->gpu_model);
  g_free (p);
}

static void
slice_info_free (gpointer data)
{
  SliceInfo *s = data;

  g_free (s->comm);
  g_free (s->user);
  g_free (s->cmdline);
  g_free (s->device);
  rtop_job_clear (&s->job);
  g_free (s);
}

static void
trace_reader_clear (TraceReader *r)
{
  g_free (r->header.producer);
  g_clear_pointer (&r->ports, g_ptr_array_unref);
  g_clear_pointer (&r->slices, g_hash_table_unref);
  g_clear_pointer (&r->pending_events, g_ptr_array_unref);
  g_clear_pointer (&r->ports_seen, g_hash_table_unref);
}

static PortState *
port_for_pid (TraceReader *r, gint64 pid)
{
  if (pid < 2 || pid - 2 >= (gint64) r->ports->len)
    return NULL;
  return g_ptr_array_index (r->ports, pid - 2);
}

/* A remote host's device, as the window keys it: "node1:rxe0".  The
 * recording's snapshots are one machine's view, so the host stays in the
 * name (transfer full; NULL without a device). */
static char *
device_with_host (JsonObject *args)
{
  const char *device = rtop_trace_get_string (args, "device");
  const char *host = rtop_trace_get_string (args, "host");

  if (device == NULL)
    return NULL;
  if (host == NULL || *host == '\0')
    return g_strdup (device);
  return g_strdup_printf ("%s:%s", host, device);
}

static void
on_process_name (TraceReader *r, gint64 pid, JsonObject *args)
{
  const char *device = rtop_trace_get_string (args, "device");
  gboolean gpu = g_strcmp0 (rtop_trace_get_string (args, "kind"), "gpu") == 0;
  gint64 port = 0, dev_index = 0;
  PortState *p;

  if (pid < 2 || pid - 2 >= MAX_PORTS || device == NULL
      || !rtop_trace_get_int (args, "port", gpu ? 0 : 1, G_MAXUINT32, &port))
    return;
  rtop_trace_get_int (args, "dev_index", 0, G_MAXUINT32, &dev_index);
  if (pid - 2 >= (gint64) r->ports->len)
    g_ptr_array_set_size (r->ports, (guint) (pid - 1));
  if (g_ptr_array_index (r->ports, pid - 2) != NULL)
    return;   /* first name wins: a pid is one port for the whole recording */

  p = g_new0 (PortState, 1);
  p->device = device_with_host (args);
  p->port = (guint32) port;
  p->dev_index = (guint32) dev_index;
  p->provider = g_strdup (rtop_trace_get_string (args, "provider"));
  p->protocol = g_strdup (rtop_trace_get_string (args, "protocol"));
  p->netdev = g_strdup (rtop_trace_get_string (args, "netdev"));
  p->link_layer = g_strdup (rtop_trace_get_string (args, "link_layer"));
  p->rate_text = g_strdup (rtop_trace_get_string (args, "rate"));
  p->gpu = gpu;
  p->remote = g_strdup (rtop_trace_get_string (args, "remote"));
  p->gpu_vendor = g_strdup (rtop_trace_get_string (args, "gpu_vendor"));
  p->gpu_model = g_strdup (rtop_trace_get_string (args, "gpu_model"));
  for (guint i = 0; i < G_N_ELEMENTS (p->gauge); i++)
    p->gauge[i] = NAN;
  p->state = -1;
  g_ptr_array_index (r->ports, pid - 2) = p;
}

static void
on_gpu_gauge (PortState *p, const char *name, const char *key, double v)
{
  guint n_gauges;
  const RtopTraceGauge *gauges = rtop_trace_gpu_gauges (&n_gauges);

  for (guint i = 0; i < MIN (n_gauges, G_N_ELEMENTS (p->gauge)); i++)
    if (g_strcmp0 (name, gauges[i].name) == 0 && g_strcmp0 (key, gauges[i].key) == 0)
      p->gauge[i] = isfinite (v) ? v : NAN;
}

static void
on_port_counter (TraceReader *r, PortState *p, const char *name, const char *key, double v)
{
  if (g_strcmp0 (name, RTOP_TRACE_LINK_NAME) == 0 && g_strcmp0 (key, RTOP_TRACE_LINK_KEY) == 0)
    {
      p->link_gbps = v;
      return;
    }
  if (g_strcmp0 (name, RTOP_TRACE_STATE_NAME) == 0 && g_strcmp0 (key, RTOP_TRACE_STATE_KEY) == 0)
    {
      p->state = v >= 0 && v <= 255 ? (gint64) v : -1;
      p->has_state = TRUE;
      return;
    }
  for (guint i = 0; i < r->n_counters; i++)
    if (g_strcmp0 (name, r->counters[i].name) == 0 && g_strcmp0 (key, r->counters[i].key) == 0)
      {
        p->value[i] = v;
        p->seen[i] = TRUE;
        return;
      }
  if (p->gpu && p->port == RTOP_GPU_ALL_LINKS_PORT)
    on_gpu_gauge (p, name, key, v);
}

static gboolean
kind_from_string (const char *s, RtopEventKind *out)
{
  for (int k = RTOP_EVENT_DEVICE_ADDED; k < RTOP_EVENT_N; k++)
    if (g_strcmp0 (rtop_event_kind_to_string (k), s) == 0)
      {
        *out = k;
        return TRUE;
      }
  return FALSE;
}

static RtopSeverity
severity_from_string (const char *s)
{
  for (int i = RTOP_SEVERITY_INFO; i <= RTOP_SEVERITY_ERROR; i++)
    if (g_strcmp0 (rtop_severity_to_string (i), s) == 0)
      return i;
  return RTOP_SEVERITY_INFO;
}

static void
on_instant (TraceReader *r, gint64 ts, const char *name, JsonObject *args)
{
  RtopEventKind kind;
  RtopEvent *event;
  gint64 port = 0;
  g_autofree char *device = NULL;

  if (g_strcmp0 (name, RTOP_TRACE_END_NAME) == 0 && rtop_trace_get_string (args, "kind") == NULL)
    return;
  if (!kind_from_string (rtop_trace_get_string (args, "kind"), &kind)
      || r->pending_events->len >= MAX_EVENTS_PER_SNAPSHOT
      || r->events_total >= MAX_EVENTS_TOTAL)
    return;
  r->events_total++;
  rtop_trace_get_int (args, "port", 0, G_MAXUINT32, &port);
  device = device_with_host (args);
  event = rtop_event_new (kind, severity_from_string (rtop_trace_get_string (args, "severity")),
                          device, (guint32) port, rtop_trace_get_string (args, "message"));
  event->monotonic_us = (gint64) r->header.start_monotonic_us + ts;
  event->realtime_us = (gint64) r->header.start_realtime_us + ts;
  event->counter = g_strdup (rtop_trace_get_string (args, "counter"));
  event->old_value = g_strdup (rtop_trace_get_string (args, "old"));
  event->new_value = g_strdup (rtop_trace_get_string (args, "new"));
  {
    gint64 episode = 0, ongoing = 0;

    if (rtop_trace_get_int (args, "episode", 1, G_MAXINT64, &episode))
      {
        event->episode = (guint64) episode;
        event->ongoing = rtop_trace_get_int (args, "ongoing", 0, 1, &ongoing) && ongoing == 1;
      }
  }
  g_ptr_array_add (r->pending_events, event);
}

static void
on_slice_begin (TraceReader *r, gint64 tid, JsonObject *args)
{
  SliceInfo *s;
  gint64 v;
  const char *device = rtop_trace_get_string (args, "device");

  if (device == NULL || g_hash_table_size (r->slices) >= RTOP_TRACE_MAX_SLICES)
    return;
  s = g_new0 (SliceInfo, 1);
  s->pid = rtop_trace_get_int (args, "pid", G_MININT32, G_MAXINT32, &v) ? (gint32) v : 0;
  {
    JsonNode *k = json_object_get_member (args, "kernel");
    s->kernel = k != NULL && JSON_NODE_HOLDS_VALUE (k)
                && json_node_get_value_type (k) == G_TYPE_BOOLEAN && json_node_get_boolean (k);
  }
  s->start_time = rtop_trace_get_int (args, "start_time", 0, G_MAXINT64, &v) ? (guint64) v : 0;
  s->uid = rtop_trace_get_int (args, "uid", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->qps = rtop_trace_get_int (args, "qps", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->contexts = rtop_trace_get_int (args, "contexts", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->mrs = rtop_trace_get_int (args, "mrs", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->mr_bytes = rtop_trace_get_int (args, "mr_bytes", 0, G_MAXINT64, &v) ? (guint64) v : 0;
  /* A recording is a file from anywhere: its names are shown like live ones. */
  s->comm = rtop_text_make_safe (rtop_trace_get_string (args, "comm"), RTOP_TEXT_COMM_MAX);
  s->user = rtop_text_make_safe (rtop_trace_get_string (args, "user"), RTOP_TEXT_USER_MAX);
  s->cmdline = rtop_text_make_safe (rtop_trace_get_string (args, "cmdline"),
                                    RTOP_TEXT_CMDLINE_MAX);
  rtop_job_set (&s->job, rtop_job_kind_from_string (rtop_trace_get_string (args, "job_kind")),
                rtop_trace_get_string (args, "job_id"), rtop_trace_get_string (args, "job_detail"));
  s->device = device_with_host (args);
  g_hash_table_replace (r->slices, GINT_TO_POINTER ((gint) tid), s);
}

static void
add_processes (TraceReader *r, RtopSnapshot *snap)
{
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  gpointer value;

  if (r->process_samples >= MAX_PROCESS_SAMPLES)
    return;
  g_hash_table_iter_init (&iter, r->slices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      SliceInfo *s = value;
      char *key = g_strdup_printf ("%d/%" G_GUINT64_FORMAT "/%d/%s", s->pid, s->start_time,
                                   s->kernel, s->comm != NULL ? s->comm : "");
      RtopProcess *proc = g_hash_table_lookup (by_key, key);
      RtopProcessDevice pd = { 0 };

      if (proc == NULL)
        {
          proc = rtop_process_new (s->pid);
          proc->kernel = s->kernel;
          proc->start_time = s->start_time;
          proc->uid = s->uid;
          proc->comm = g_strdup (s->comm);
          proc->user = g_strdup (s->user);
          proc->cmdline = g_strdup (s->cmdline);
          rtop_job_copy (&proc->job, &s->job);
          g_ptr_array_add (snap->processes, proc);
          g_hash_table_insert (by_key, key, proc);
          r->process_samples++;
        }
      else
        g_free (key);
      pd.device = g_strdup (s->device);
      pd.qps = s->qps;
      pd.contexts = s->contexts;
      pd.mrs = s->mrs;
      pd.mr_bytes = s->mr_bytes;
      g_array_append_val (proc->devices, pd);
      proc->qps += s->qps;
      proc->contexts += s->contexts;
      proc->mrs += s->mrs;
      proc->mr_bytes += s->mr_bytes;
    }
}

static RtopDevice *
ensure_device (RtopSnapshot *snap, const PortState *p)
{
  RtopDevice *dev = rtop_snapshot_find_device (snap, p->device);

  if (dev != NULL)
    return dev;
  dev = rtop_device_new (p->dev_index, p->device);
  dev->provider = g_strdup (p->provider);
  dev->protocol = g_strdup (p->protocol);
  if (p->gpu)
    {
      /* The recording keeps a GPU's identity and gauges. */
      dev->kind = RTOP_DEVICE_KIND_GPU;
      dev->gpu = rtop_gpu_new (p->gpu_vendor);
      dev->gpu->model = g_strdup (p->gpu_model);
    }
  g_ptr_array_add (snap->devices, dev);
  return dev;
}

static void
set_gpu_gauges (RtopGpu *gpu, const PortState *p)
{
  guint n_gauges;
  const RtopTraceGauge *gauges = rtop_trace_gpu_gauges (&n_gauges);

  for (guint i = 0; i < MIN (n_gauges, G_N_ELEMENTS (p->gauge)); i++)
    G_STRUCT_MEMBER (double, gpu, gauges[i].offset) = p->gauge[i];
}

/* Totals are integrated from rates a file may make absurd: clamp before
 * converting (a double beyond the range is undefined behaviour in C). */
static guint64
total_to_u64 (double v)
{
  if (!(v > 0))
    return 0;
  if (v >= 18446744073709549568.0)   /* the largest double below 2^64 */
    return G_MAXUINT64;
  return (guint64) (v + 0.5);
}

static void
add_port (TraceReader *r, RtopSnapshot *snap, PortState *p)
{
  RtopDevice *dev = ensure_device (snap, p);
  RtopPort *port = rtop_port_new (p->port);

  port->state = (guint8) p->state;
  port->netdev = g_strdup (p->netdev);
  port->link_layer = g_strdup (p->link_layer);
  port->rate_text = g_strdup (p->rate_text);
  port->remote = g_strdup (p->remote);
  port->rate_gbps = p->link_gbps;
  if (dev->gpu != NULL && p->port == RTOP_GPU_ALL_LINKS_PORT)
    set_gpu_gauges (dev->gpu, p);
  port->read_time_us = snap->monotonic_us;
  port->elapsed_s = r->group_dt;
  for (guint i = 0; i < r->n_counters; i++)
    {
      RtopMetric *m = &port->metrics[r->counters[i].metric];

      if (!p->seen[i])
        continue;
      m->present = TRUE;
      m->has_rate = TRUE;
      m->rate = p->group_sum[i] / r->group_count / r->counters[i].scale;
      if (!isfinite (m->rate))
        m->rate = 0;
      m->value = total_to_u64 (p->total[i]);
      p->group_sum[i] = 0;
    }
  g_ptr_array_add (dev->ports, port);
  dev->port_count = MAX (dev->port_count, p->port);
}

static void
emit_snapshot (TraceReader *r)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  snap->sequence = ++r->sequence;
  snap->monotonic_us = (gint64) r->header.start_monotonic_us + r->last_commit_ts;
  snap->realtime_us = (gint64) r->header.start_realtime_us + r->last_commit_ts;
  snap->interval_s = r->header.interval_s * r->merge;
  for (guint i = 0; i < r->ports->len; i++)
    {
      PortState *p = g_ptr_array_index (r->ports, i);
      if (p != NULL && p->has_state && p->state >= 0)
        add_port (r, snap, p);
    }
  r->port_samples += MAX (1, rtop_snapshot_get_n_ports (snap));
  g_ptr_array_extend_and_steal (snap->events, r->pending_events);
  r->pending_events = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_event_free);
  rtop_record_reader_note_down_at_start (r->ports_seen, snap);
  add_processes (r, snap);
  rtop_snapshot_seal (snap);
  g_ptr_array_add (r->result->snapshots, snap);
  r->group_count = 0;
  r->group_dt = 0;
}

static void
on_commit (TraceReader *r, gint64 ts)
{
  double dt;

  ts = MAX (ts, r->last_commit_ts);
  dt = r->have_commit ? (ts - r->last_commit_ts) / 1e6 : 0.0;
  r->have_commit = TRUE;
  r->last_commit_ts = ts;
  for (guint i = 0; i < r->ports->len; i++)
    {
      PortState *p = g_ptr_array_index (r->ports, i);

      if (p == NULL || !p->has_state || p->state < 0)
        continue;
      for (guint j = 0; j < r->n_counters; j++)
        if (p->seen[j])
          {
            p->group_sum[j] += p->value[j];
            p->total[j] += p->value[j] / r->counters[j].scale * dt;
          }
    }
  r->group_dt += dt;
  if (++r->group_count >= r->merge)
    emit_snapshot (r);
}

static void
on_counter (TraceReader *r, gint64 pid, gint64 ts, const char *name, const char *key,
            double v)
{
  PortState *p;

  if (pid == RTOP_TRACE_OWN_PID && g_strcmp0 (name, RTOP_TRACE_COMMIT_NAME) == 0)
    on_commit (r, ts);
  else if ((p = port_for_pid (r, pid)) != NULL)
    on_port_counter (r, p, name, key, v);
}

/* The one member of a counter event's args, when it is a number. */
static gboolean
single_number (JsonObject *args, const char **key, double *v)
{
  g_autoptr(GList) members = NULL;

  if (args == NULL || json_object_get_size (args) != 1)
    return FALSE;
  members = json_object_get_members (args);
  *key = members->data;
  return rtop_trace_get_number (args, *key, v);
}

/* Reads an integer at *p; advances past it. */
static gboolean
scan_int (const char **p, const char *end, gint64 hi, gint64 *out)
{
  gint64 v = 0;
  const char *s = *p;

  if (s >= end || !g_ascii_isdigit (*s))
    return FALSE;
  for (; s < end && g_ascii_isdigit (*s); s++)
    {
      if (v > (hi - (*s - '0')) / 10)
        return FALSE;
      v = v * 10 + (*s - '0');
    }
  *p = s;
  *out = v;
  return TRUE;
}

/* Reads a plain string (no escapes) up to its closing quote into buf. */
static gboolean
scan_plain_string (const char **p, const char *end, char *buf, gsize size)
{
  const char *s = *p;
  gsize n = 0;

  for (; s < end && *s != '"'; s++)
    {
      if (*s == '\\' || (guchar) *s < 0x20 || n + 1 >= size)
        return FALSE;
      buf[n++] = *s;
    }
  if (s >= end)
    return FALSE;
  buf[n] = '\0';
  *p = s + 1;
  return TRUE;
}

static gboolean
scan_literal (const char **p, const char *end, const char *literal)
{
  gsize n = strlen (literal);

  if ((gsize) (end - *p) < n || memcmp (*p, literal, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

/* Counter events are nearly every line of a trace, and the writer spells
 * them one way: {"ph":"C","pid":N,"ts":T,"name":"X","args":{"K":V}}.  Read
 * exactly that form directly; anything else goes to json-glib. */
static gboolean
trace_reader_counter_fast (TraceReader *r, const char *line, gsize len)
{
  const char *p = line, *end = line + len;
  char name[64], key[64], number[64];
  gint64 pid, ts;
  gsize n = 0;
  char *num_end;
  double v;

  if (!scan_literal (&p, end, "{\"ph\":\"C\",\"pid\":")
      || !scan_int (&p, end, G_MAXINT32, &pid)
      || !scan_literal (&p, end, ",\"ts\":")
      || !scan_int (&p, end, RTOP_TRACE_MAX_TS_US, &ts)
      || !scan_literal (&p, end, ",\"name\":\"")
      || !scan_plain_string (&p, end, name, sizeof name)
      || !scan_literal (&p, end, ",\"args\":{\"")
      || !scan_plain_string (&p, end, key, sizeof key)
      || !scan_literal (&p, end, ":"))
    return FALSE;
  while (p + n < end && n + 1 < sizeof number && strchr ("0123456789+-.eE", p[n]) != NULL)
    n++;
  if (n == 0 || (gsize) (end - p) != n + 2 || memcmp (p + n, "}}", 2) != 0)
    return FALSE;
  memcpy (number, p, n);
  number[n] = '\0';
  v = g_ascii_strtod (number, &num_end);
  if (*num_end != '\0' || !isfinite (v))
    return FALSE;
  on_counter (r, pid, ts, name, key, v);
  return TRUE;
}

/* One event line (already stripped of its trailing comma). */
static gboolean
trace_reader_line (TraceReader *r, JsonParser *parser, const char *line, gsize len)
{
  JsonObject *ev;

  if (trace_reader_counter_fast (r, line, len))
    return TRUE;
  ev = rtop_trace_parse_line (parser, line, len);
  JsonObject *args;
  const char *ph, *name;
  gint64 pid = 0, ts = 0, tid = 0;

  if (ev == NULL)
    return FALSE;
  ph = rtop_trace_get_string (ev, "ph");
  name = rtop_trace_get_string (ev, "name");
  args = rtop_trace_get_object (ev, "args");
  if (ph == NULL || !rtop_trace_get_int (ev, "pid", 0, G_MAXINT32, &pid))
    return FALSE;
  if (strcmp (ph, "M") != 0 && !rtop_trace_get_int (ev, "ts", 0, RTOP_TRACE_MAX_TS_US, &ts))
    return FALSE;
  rtop_trace_get_int (ev, "tid", 0, G_MAXINT32, &tid);

  if (strcmp (ph, "M") == 0)
    {
      if (g_strcmp0 (name, "process_name") == 0)
        on_process_name (r, pid, args);
    }
  else if (strcmp (ph, "C") == 0)
    {
      const char *key;
      double v;

      if (single_number (args, &key, &v))
        on_counter (r, pid, ts, name, key, v);
    }
  else if (strcmp (ph, "i") == 0)
    on_instant (r, ts, name, args);
  else if (strcmp (ph, "B") == 0 && args != NULL)
    on_slice_begin (r, tid, args);
  else if (strcmp (ph, "E") == 0)
    g_hash_table_remove (r->slices, GINT_TO_POINTER ((gint) tid));
  return TRUE;
}

/* Pass 1: the number of port-samples, from the commit events. */
static gboolean
trace_count (RtopLineSource *src, guint64 *port_samples, GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;

  *port_samples = 0;
  while (rtop_line_source_next_line (src, &line, &len, &complete, &local))
    {
      const char *ports;

      if (!complete || strcmp (line, RTOP_TRACE_TRAILER) == 0)
        break;
      if (strncmp (line, COMMIT_PREFIX, strlen (COMMIT_PREFIX)) != 0)
        continue;
      ports = strstr (line, "\"" RTOP_TRACE_COMMIT_KEY "\":");
      *port_samples += MAX (1, ports != NULL ? g_ascii_strtoull (ports + 8, NULL, 10) : 1);
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
read_header_line (RtopLineSource *src, JsonParser *parser, RtopTraceHeader *header,
                  GError **error)
{
  const char *line;
  gsize len;

  return rtop_record_reader_first_line (src, &line, &len, error)
         && rtop_trace_parse_header (parser, line, len, header, error);
}

static gboolean
trace_load (RtopLineSource *src, guint budget, RtopRecordLoad *result, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  TraceReader r = { 0 };
  guint64 port_samples;
  const char *line;
  gsize len;
  gboolean complete;
  gboolean ok = FALSE;
  GError *local = NULL;

  if (!read_header_line (src, parser, &r.header, error)
      || !trace_count (src, &port_samples, error)
      || !rtop_line_source_rewind (src, error))
    goto out;
  g_clear_pointer (&r.header.producer, g_free);
  if (!read_header_line (src, parser, &r.header, error))
    goto out;

  r.counters = rtop_trace_counters (&r.n_counters);
  g_assert (r.n_counters <= G_N_ELEMENTS (((PortState *) NULL)->value));
  r.ports = g_ptr_array_new_with_free_func (port_state_free);
  r.slices = g_hash_table_new_full (NULL, NULL, NULL, slice_info_free);
  r.pending_events = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_event_free);
  r.ports_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.merge = rtop_record_reader_merge_factor (port_samples, budget);
  r.result = result;

  while (rtop_line_source_next_line (src, &line, &len, &complete, &local))
    {
      if (complete && strcmp (line, RTOP_TRACE_TRAILER) == 0)
        {
          r.ended = TRUE;
          break;
        }
      rtop_trace_strip_comma (line, &len);
      /* A line cut off or damaged ends what can be read: keep the intervals
       * that were complete before it. */
      if (!complete || !trace_reader_line (&r, parser, line, len))
        break;
      /* The first pass sized the merge factor from the commit lines as the
       * writer spells them; a file spelled otherwise must not grow past
       * the budget either. */
      if (r.port_samples > 2 * (guint64) budget)
        break;
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      goto out;
    }
  if (r.group_count > 0)
    emit_snapshot (&r);
  if (result->snapshots->len == 0)
    {
      rtop_record_reader_invalid (error, _("The recording holds no complete interval."));
      goto out;
    }
  result->interval_s = r.header.interval_s * r.merge;
  result->merge_factor = r.merge;
  result->complete = r.ended && !src->damaged;
  result->producer = g_steal_pointer (&r.header.producer);
  ok = TRUE;

out:
  trace_reader_clear (&r);
  return ok;
}

static gboolean
trace_probe (const char *first_line, gsize len)
{
  return len >= strlen (RTOP_TRACE_HEADER_PREFIX)
         && memcmp (first_line, RTOP_TRACE_HEADER_PREFIX, strlen (RTOP_TRACE_HEADER_PREFIX)) == 0;
}

const RtopRecordReaderClass rtop_trace_reader_class = {
  .probe = trace_probe,
  .load = trace_load,
  .recover = rtop_trace_recover,
};
