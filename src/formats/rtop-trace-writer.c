/* rtop-trace-writer.c: snapshots -> Chrome JSON trace text (layout in the
 * header).  Everything here is string building; the recorder does the I/O. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rtop-trace-writer-private.h"
#include "rtop-text.h"

/* Strings from the kernel or /proc are cut so every line stays short
 * (the reader refuses lines longer than it expects). */
#define NAME_MAX_CHARS 256
#define TEXT_MAX_CHARS 1024
#define FIRST_PORT_PID 2
#define FIRST_TID 100000
#define VALUE_TEXT_LEN 32

/* The counter tracks of a port: one row per track, shared with the reader. */
static const RtopTraceCounter counter_table[] = {
  { RTOP_METRIC_TX_BYTES, "tx", "Gbps", 8e-9 },
  { RTOP_METRIC_RX_BYTES, "rx", "Gbps", 8e-9 },
  { RTOP_METRIC_TX_PACKETS, "tx", "packets/s", 1.0 },
  { RTOP_METRIC_RX_PACKETS, "rx", "packets/s", 1.0 },
  { RTOP_METRIC_DROPS, "drops", "/s", 1.0 },
  { RTOP_METRIC_RETRANSMITS, "retransmits", "/s", 1.0 },
  { RTOP_METRIC_ERRORS, "errors", "/s", 1.0 },
  { RTOP_METRIC_CONGESTION, "congestion", "/s", 1.0 },
  { RTOP_METRIC_RDMA_READ_BYTES, "rdma read", "bytes/s", 1.0 },
  { RTOP_METRIC_RDMA_WRITE_BYTES, "rdma write", "bytes/s", 1.0 },
};

static const RtopTraceGauge gpu_gauges[] = {
  { "gpu", "utilisation %", G_STRUCT_OFFSET (RtopGpu, utilisation_pct) },
  { "gpu", "memory used bytes", G_STRUCT_OFFSET (RtopGpu, memory_used_bytes) },
  { "gpu", "memory total bytes", G_STRUCT_OFFSET (RtopGpu, memory_total_bytes) },
  { "gpu", "temperature C", G_STRUCT_OFFSET (RtopGpu, temperature_c) },
  { "gpu", "power W", G_STRUCT_OFFSET (RtopGpu, power_w) },
};

/* Tracks that are not metrics: link rate and port state, written on change,
 * then a GPU's gauges. */
enum {
  EXTRA_LINK,
  EXTRA_STATE,
  EXTRA_GPU,
  EXTRA_N = EXTRA_GPU + G_N_ELEMENTS (gpu_gauges)
};
#define N_TRACKS (G_N_ELEMENTS (counter_table) + EXTRA_N)

typedef struct {
  char *key;                 /* "device/port", "host:device/port" for a remote host's */
  char *host;                /* NULL: the recording computer */
  char *device;
  guint32 port;
  guint pid;
  gboolean present;          /* in the latest snapshot */
  char last[N_TRACKS][VALUE_TEXT_LEN];   /* last written value, "" = none */
} PortTrack;

typedef struct {
  guint pid;                 /* the port group the slice is drawn in */
  guint tid;
  guint generation;          /* last interval it was seen in */
  char *host;                /* whose snapshots say whether it still runs */
} Slice;

struct _RtopTraceWriter {
  gboolean begun;
  gboolean ended;
  gint64 first_monotonic_us;
  gint64 first_realtime_us;
  GHashTable *clock_offsets; /* host ("" here) -> gint64*: its monotonic clock to ours */
  gint64 last_ts;            /* latest ts written, to keep ts monotonic */
  guint next_pid;
  guint next_tid;
  guint generation;
  guint64 intervals;
  GHashTable *ports;         /* key -> PortTrack* */
  GPtrArray *port_order;     /* PortTrack*, in pid order */
  GHashTable *slices;        /* process@device key -> Slice* */
};

const RtopTraceCounter *
rtop_trace_counters (guint *n_counters)
{
  *n_counters = G_N_ELEMENTS (counter_table);
  return counter_table;
}

const RtopTraceGauge *
rtop_trace_gpu_gauges (guint *n_gauges)
{
  *n_gauges = G_N_ELEMENTS (gpu_gauges);
  return gpu_gauges;
}

static void
port_track_free (gpointer data)
{
  PortTrack *track = data;

  g_free (track->key);
  g_free (track->host);
  g_free (track->device);
  g_free (track);
}

static void
slice_free (gpointer data)
{
  Slice *slice = data;

  g_free (slice->host);
  g_free (slice);
}

RtopTraceWriter *
rtop_trace_writer_new (void)
{
  RtopTraceWriter *self = g_new0 (RtopTraceWriter, 1);

  self->next_pid = FIRST_PORT_PID;
  self->next_tid = FIRST_TID;
  self->ports = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, port_track_free);
  self->port_order = g_ptr_array_new ();
  self->slices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, slice_free);
  self->clock_offsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
rtop_trace_writer_free (RtopTraceWriter *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->port_order);
  g_hash_table_unref (self->ports);
  g_hash_table_unref (self->slices);
  g_hash_table_unref (self->clock_offsets);
  g_free (self);
}

/* JSON helpers ------------------------------------------------------------ */

static void
append_string_max (GString *out, const char *s, gsize max_chars)
{
  const char *p = s != NULL ? s : "";
  gsize n = 0;

  g_string_append_c (out, '"');
  while (*p != '\0' && n < max_chars)
    {
      gunichar c = g_utf8_get_char_validated (p, -1);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* Not UTF-8 (a comm is just bytes): keep the text readable. */
          g_string_append (out, "\\ufffd");
          p++;
        }
      else
        {
          if (c == '"' || c == '\\')
            g_string_append_c (out, '\\'), g_string_append_c (out, (char) c);
          else if (c < 0x20 || c == 0x7f)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
          p = g_utf8_next_char (p);
        }
      n++;
    }
  g_string_append_c (out, '"');
}

static void
format_double (char buf[VALUE_TEXT_LEN], double value)
{
  if (!isfinite (value))
    value = 0.0;
  g_ascii_formatd (buf, VALUE_TEXT_LEN, "%.6g", value);
}

void
rtop_json_append_double (GString *out, double value)
{
  char buf[VALUE_TEXT_LEN];

  format_double (buf, value);
  g_string_append (out, buf);
}

/* Starts an event line: {"ph":"X","pid":N  (ts only when >= 0). */
static void
event_open (GString *out, const char *ph, guint pid, gint64 ts)
{
  g_string_append_printf (out, "{\"ph\":\"%s\",\"pid\":%u", ph, pid);
  if (ts >= 0)
    g_string_append_printf (out, ",\"ts\":%" G_GINT64_FORMAT, ts);
}

static void
event_close (GString *out)
{
  g_string_append (out, "},\n");
}

static void
append_metadata (GString *out, guint pid, guint tid, const char *what,
                 const char *name, gint64 sort_index)
{
  event_open (out, "M", pid, -1);
  if (tid != 0)
    g_string_append_printf (out, ",\"tid\":%u", tid);
  g_string_append_printf (out, ",\"name\":\"%s\",\"args\":{", what);
  if (name != NULL)
    {
      g_string_append (out, "\"name\":");
      append_string_max (out, name, NAME_MAX_CHARS);
    }
  else
    g_string_append_printf (out, "\"sort_index\":%" G_GINT64_FORMAT, sort_index);
  g_string_append (out, "}");
  event_close (out);
}

static void
append_counter (GString *out, guint pid, gint64 ts, const char *name,
                const char *key, const char *value_text)
{
  event_open (out, "C", pid, ts);
  g_string_append_printf (out, ",\"name\":\"%s\",\"args\":{\"%s\":%s}",
                          name, key, value_text);
  event_close (out);
}

/* Header ------------------------------------------------------------------ */

static void
trace_writer_begin (RtopTraceWriter *self, const RtopSnapshot *first, GString *out)
{
  g_return_if_fail (!self->begun);

  self->begun = TRUE;
  self->first_monotonic_us = first != NULL ? first->monotonic_us : 0;
  self->first_realtime_us = first != NULL ? first->realtime_us : g_get_real_time ();
  g_string_append_printf (out,
                          "{\"otherData\":{\"producer\":\"%s\",\"version\":\"%s\","
                          "\"rdmatop_format\":%d,\"start_monotonic_us\":%" G_GINT64_FORMAT
                          ",\"start_realtime_us\":%" G_GINT64_FORMAT ",\"interval_s\":",
                          RTOP_TRACE_PRODUCER, PACKAGE_VERSION,
                          RTOP_TRACE_FORMAT_VERSION, self->first_monotonic_us,
                          first != NULL ? first->realtime_us : g_get_real_time ());
  rtop_json_append_double (out, first != NULL ? first->interval_s : 0.0);
  g_string_append (out, "},\"traceEvents\":[\n");
  append_metadata (out, RTOP_TRACE_OWN_PID, 0, "process_name", RTOP_TRACE_PRODUCER, 0);
  append_metadata (out, RTOP_TRACE_OWN_PID, 0, "process_sort_index", NULL, 0);
}

/* Port groups ------------------------------------------------------------- */

static int
track_natural_cmp (gconstpointer a, gconstpointer b)
{
  const PortTrack *ta = *(PortTrack * const *) a;
  const PortTrack *tb = *(PortTrack * const *) b;
  int c;

  /* Grouped by host, the recording computer's first. */
  if (g_strcmp0 (ta->host, tb->host) != 0)
    return ta->host == NULL ? -1 : tb->host == NULL ? 1 : rtop_natural_compare (ta->host, tb->host);
  c = rtop_natural_compare (ta->device, tb->device);

  return c != 0 ? c : (ta->port > tb->port) - (ta->port < tb->port);
}

/* process_sort_index is only meaningful relative to the others, so when a
 * port appears every port gets its rank in natural order again. */
static void
append_sort_indexes (RtopTraceWriter *self, GString *out)
{
  g_autoptr(GPtrArray) sorted = g_ptr_array_copy (self->port_order, NULL, NULL);

  g_ptr_array_sort (sorted, track_natural_cmp);
  for (guint i = 0; i < sorted->len; i++)
    {
      PortTrack *track = g_ptr_array_index (sorted, i);
      append_metadata (out, track->pid, 0, "process_sort_index", NULL, i + 1);
    }
}

static void
append_optional_string (GString *out, const char *key, const char *value,
                        gsize max_chars)
{
  if (value == NULL)
    return;
  g_string_append_printf (out, ",\"%s\":", key);
  append_string_max (out, value, max_chars);
}

static void
append_port_name (GString *out, PortTrack *track, const RtopDevice *dev,
                  const RtopPort *port)
{
  event_open (out, "M", track->pid, -1);
  g_string_append (out, ",\"name\":\"process_name\",\"args\":{\"name\":");
  append_string_max (out, track->key, NAME_MAX_CHARS);
  g_string_append (out, ",\"device\":");
  append_string_max (out, dev->name, NAME_MAX_CHARS);
  g_string_append_printf (out, ",\"port\":%u,\"dev_index\":%u", port->index, dev->index);
  append_optional_string (out, "host", track->host, NAME_MAX_CHARS);
  append_optional_string (out, "provider", dev->provider, NAME_MAX_CHARS);
  append_optional_string (out, "protocol", dev->protocol, NAME_MAX_CHARS);
  append_optional_string (out, "netdev", port->netdev, NAME_MAX_CHARS);
  append_optional_string (out, "link_layer", port->link_layer, NAME_MAX_CHARS);
  append_optional_string (out, "rate", port->rate_text, NAME_MAX_CHARS);
  if (dev->kind == RTOP_DEVICE_KIND_GPU)
    {
      /* GPU links: port 0 is the GPU's "all links" port (rtop-snapshot.h). */
      g_string_append (out, ",\"kind\":\"gpu\"");
      append_optional_string (out, "remote", port->remote, NAME_MAX_CHARS);
      if (dev->gpu != NULL)
        {
          append_optional_string (out, "gpu_vendor", dev->gpu->vendor, NAME_MAX_CHARS);
          append_optional_string (out, "gpu_model", dev->gpu->model, NAME_MAX_CHARS);
        }
    }
  g_string_append (out, "}");
  event_close (out);
}

/* Two hosts' rxe0/1 are two tracks. */
static char *
track_key (const char *host, const char *device, guint32 port)
{
  if (host != NULL)
    return g_strdup_printf ("%s:%s/%u", host, device, port);
  return g_strdup_printf ("%s/%u", device, port);
}

static PortTrack *
ensure_port_track (RtopTraceWriter *self, const char *host, const RtopDevice *dev,
                   const RtopPort *port, GString *out, gboolean *added)
{
  g_autofree char *key = track_key (host, dev->name, port->index);
  PortTrack *track = g_hash_table_lookup (self->ports, key);

  if (track != NULL)
    return track;

  track = g_new0 (PortTrack, 1);
  track->key = g_steal_pointer (&key);
  track->host = g_strdup (host);
  track->device = g_strdup (dev->name);
  track->port = port->index;
  track->pid = self->next_pid++;
  g_hash_table_insert (self->ports, track->key, track);
  g_ptr_array_add (self->port_order, track);
  append_port_name (out, track, dev, port);
  *added = TRUE;
  return track;
}

/* Counters ---------------------------------------------------------------- */

static void
write_track (PortTrack *track, guint slot, gint64 ts, const char *name,
             const char *key, const char *text, GString *out)
{
  if (strcmp (track->last[slot], text) == 0)
    return;
  g_strlcpy (track->last[slot], text, VALUE_TEXT_LEN);
  append_counter (out, track->pid, ts, name, key, text);
}

/* Unknown (NAN) gauges are not written: the track keeps its last value. */
static void
write_gpu_gauges (PortTrack *track, const RtopGpu *gpu, gint64 ts, GString *out)
{
  char text[VALUE_TEXT_LEN];

  for (guint i = 0; i < G_N_ELEMENTS (gpu_gauges); i++)
    {
      double v = G_STRUCT_MEMBER (double, gpu, gpu_gauges[i].offset);

      if (isnan (v))
        continue;
      format_double (text, v);
      write_track (track, G_N_ELEMENTS (counter_table) + EXTRA_GPU + i, ts,
                   gpu_gauges[i].name, gpu_gauges[i].key, text, out);
    }
}

static void
write_port_counters (PortTrack *track, const RtopDevice *dev, const RtopPort *port,
                     gint64 ts, GString *out)
{
  char text[VALUE_TEXT_LEN];

  for (guint i = 0; i < G_N_ELEMENTS (counter_table); i++)
    {
      const RtopTraceCounter *spec = &counter_table[i];
      const RtopMetric *metric = &port->metrics[spec->metric];

      /* The first sample of a metric is a baseline with no rate yet. */
      if (!metric->present || !metric->has_rate)
        continue;
      format_double (text, metric->rate * spec->scale);
      write_track (track, i, ts, spec->name, spec->key, text, out);
    }
  format_double (text, port->rate_gbps);
  write_track (track, G_N_ELEMENTS (counter_table) + EXTRA_LINK, ts,
               RTOP_TRACE_LINK_NAME, RTOP_TRACE_LINK_KEY, text, out);
  g_snprintf (text, sizeof text, "%u", port->state);
  write_track (track, G_N_ELEMENTS (counter_table) + EXTRA_STATE, ts,
               RTOP_TRACE_STATE_NAME, RTOP_TRACE_STATE_KEY, text, out);
  if (dev->gpu != NULL && port->index == RTOP_GPU_ALL_LINKS_PORT)
    write_gpu_gauges (track, dev->gpu, ts, out);
}

/* A port that is gone: rates drop to zero and its state track says -1, which
 * the reader takes as "not present". */
static void
write_port_gone (PortTrack *track, gint64 ts, GString *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (counter_table); i++)
    if (track->last[i][0] != '\0')
      write_track (track, i, ts, counter_table[i].name, counter_table[i].key, "0", out);
  write_track (track, G_N_ELEMENTS (counter_table) + EXTRA_STATE, ts,
               RTOP_TRACE_STATE_NAME, RTOP_TRACE_STATE_KEY, "-1", out);
}

static guint
write_ports (RtopTraceWriter *self, const RtopSnapshot *snapshot, gint64 ts,
             GString *out)
{
  gboolean added = FALSE;
  guint n_present = 0;

  for (guint i = 0; i < self->port_order->len; i++)
    ((PortTrack *) g_ptr_array_index (self->port_order, i))->present = FALSE;

  for (guint i = 0; i < snapshot->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snapshot->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);
          PortTrack *track = ensure_port_track (self, snapshot->host, dev, port, out, &added);

          track->present = TRUE;
          n_present++;
          write_port_counters (track, dev, port, ts, out);
        }
    }
  if (added)
    append_sort_indexes (self, out);

  /* Only a host's own snapshot says that one of its ports is gone. */
  for (guint i = 0; i < self->port_order->len; i++)
    {
      PortTrack *track = g_ptr_array_index (self->port_order, i);
      if (!track->present && g_strcmp0 (track->host, snapshot->host) == 0)
        write_port_gone (track, ts, out);
    }
  return n_present;
}

/* Health events ----------------------------------------------------------- */

static gboolean
event_is_global (RtopEventKind kind)
{
  static const RtopEventKind global_kinds[] = {
    RTOP_EVENT_DEVICE_ADDED, RTOP_EVENT_DEVICE_REMOVED, RTOP_EVENT_DEVICE_RENAMED,
    RTOP_EVENT_COLLECTION_ERROR, RTOP_EVENT_COLLECTION_RECOVERED,
  };

  for (guint i = 0; i < G_N_ELEMENTS (global_kinds); i++)
    if (global_kinds[i] == kind)
      return TRUE;
  return FALSE;
}

static PortTrack *
find_track (RtopTraceWriter *self, const char *host, const char *device, guint32 port)
{
  g_autofree char *key = track_key (host, device, port);

  return g_hash_table_lookup (self->ports, key);
}

/* Each host's monotonic clock is its own: the first snapshot of a host
 * places it on the recording's time line by the wall clocks, its own
 * clock runs on from there.  The recording computer (the first host of a
 * recording) keeps offset 0. */
gint64
rtop_trace_host_clock_offset (GHashTable *offsets, gint64 first_monotonic_us,
                              gint64 first_realtime_us, const RtopSnapshot *snapshot)
{
  const char *host = snapshot->host != NULL ? snapshot->host : "";
  gint64 *offset = g_hash_table_lookup (offsets, host);

  if (offset == NULL)
    {
      offset = g_new (gint64, 1);
      *offset = g_hash_table_size (offsets) == 0
                ? 0
                : first_monotonic_us + (snapshot->realtime_us - first_realtime_us)
                  - snapshot->monotonic_us;
      g_hash_table_insert (offsets, g_strdup (host), offset);
    }
  return *offset;
}

static gint64
clock_offset (RtopTraceWriter *self, const RtopSnapshot *snapshot)
{
  return rtop_trace_host_clock_offset (self->clock_offsets, self->first_monotonic_us,
                                       self->first_realtime_us, snapshot);
}

static gint64
clamp_ts (RtopTraceWriter *self, gint64 monotonic_us, gint64 low, gint64 high)
{
  gint64 ts = monotonic_us - self->first_monotonic_us;

  return CLAMP (ts, low, high);
}

static void
write_event (RtopTraceWriter *self, const RtopSnapshot *snapshot, const RtopEvent *event,
             gint64 low, gint64 high, GString *out)
{
  PortTrack *track = NULL;
  const char *kind = rtop_event_kind_to_string (event->kind);
  gint64 ts = clamp_ts (self, event->monotonic_us + clock_offset (self, snapshot), low, high);

  if (!event_is_global (event->kind) && event->device != NULL && event->port != 0)
    track = find_track (self, snapshot->host, event->device, event->port);

  event_open (out, "i", track != NULL ? track->pid : RTOP_TRACE_OWN_PID, ts);
  g_string_append_printf (out, ",\"s\":\"%s\",\"name\":", track != NULL ? "p" : "g");
  append_string_max (out, event->message != NULL ? event->message : kind, TEXT_MAX_CHARS);
  g_string_append_printf (out, ",\"args\":{\"kind\":\"%s\",\"severity\":\"%s\"",
                          kind != NULL ? kind : "", rtop_severity_to_string (event->severity));
  append_optional_string (out, "device", event->device, NAME_MAX_CHARS);
  append_optional_string (out, "host", snapshot->host, NAME_MAX_CHARS);
  if (event->port != 0)
    g_string_append_printf (out, ",\"port\":%u", event->port);
  append_optional_string (out, "counter", event->counter, NAME_MAX_CHARS);
  append_optional_string (out, "old", event->old_value, NAME_MAX_CHARS);
  append_optional_string (out, "new", event->new_value, NAME_MAX_CHARS);
  append_optional_string (out, "message", event->message, TEXT_MAX_CHARS);
  /* An episode's start and its completion share the id: a reader shows
   * one row. */
  if (event->episode != 0)
    g_string_append_printf (out, ",\"episode\":%" G_GUINT64_FORMAT ",\"ongoing\":%d",
                            event->episode, event->ongoing ? 1 : 0);
  g_string_append (out, "}");
  event_close (out);
  self->last_ts = MAX (self->last_ts, ts);
}

/* Process slices ---------------------------------------------------------- */

static char *
slice_key (const char *host, const RtopProcess *proc, const char *device)
{
  return g_strdup_printf ("%d/%" G_GUINT64_FORMAT "/%c/%s@%s%s%s", proc->pid,
                          proc->start_time, proc->kernel ? 'k' : 'u',
                          proc->comm != NULL ? proc->comm : "", device,
                          host != NULL ? "@" : "", host != NULL ? host : "");
}

static PortTrack *
first_port_of (RtopTraceWriter *self, const RtopSnapshot *snapshot,
               const char *device)
{
  const RtopDevice *dev = rtop_snapshot_find_device (snapshot, device);
  const RtopPort *port;

  if (dev == NULL || dev->ports->len == 0)
    return NULL;
  port = g_ptr_array_index (dev->ports, 0);
  return find_track (self, snapshot->host, dev->name, port->index);
}

/* The job, when known: "job_kind", "job_id" and "job_detail" beside the
 * process's other args (a reader that knows none of them skips them). */
static void
append_job (GString *out, const RtopJob *job)
{
  g_autofree char *id = rtop_text_make_safe (job->id, RTOP_JOB_TEXT_MAX);
  g_autofree char *detail = rtop_text_make_safe (job->detail, RTOP_JOB_TEXT_MAX);

  if (job->kind == RTOP_JOB_NONE)
    return;
  append_optional_string (out, "job_kind", rtop_job_kind_to_string (job->kind), NAME_MAX_CHARS);
  append_optional_string (out, "job_id", id, TEXT_MAX_CHARS);
  append_optional_string (out, "job_detail", detail, TEXT_MAX_CHARS);
}

static void
write_slice_begin (Slice *slice, const RtopProcess *proc,
                   const RtopProcessDevice *pd, gint64 ts, GString *out)
{
  /* Perfetto shows these names as they are: the same escapes as the window. */
  g_autofree char *safe_comm = rtop_text_make_safe (proc->comm != NULL ? proc->comm : "?",
                                                    RTOP_TEXT_COMM_MAX);
  g_autofree char *user = rtop_text_make_safe (proc->user, RTOP_TEXT_USER_MAX);
  g_autofree char *cmdline = rtop_text_make_safe (proc->cmdline, RTOP_TEXT_CMDLINE_MAX);
  const char *comm = safe_comm;
  g_autofree char *thread = proc->pid > 0
    ? g_strdup_printf ("%s %d", comm, proc->pid)
    : g_strdup (comm);

  append_metadata (out, slice->pid, slice->tid, "thread_name", thread, 0);
  event_open (out, "B", slice->pid, ts);
  g_string_append_printf (out, ",\"tid\":%u,\"name\":", slice->tid);
  append_string_max (out, comm, NAME_MAX_CHARS);
  g_string_append_printf (out, ",\"args\":{\"pid\":%d,\"kernel\":%s,\"device\":",
                          proc->pid, proc->kernel ? "true" : "false");
  append_string_max (out, pd->device, NAME_MAX_CHARS);
  append_optional_string (out, "host", slice->host, NAME_MAX_CHARS);
  g_string_append (out, ",\"comm\":");
  append_string_max (out, comm, NAME_MAX_CHARS);
  append_optional_string (out, "user", user, NAME_MAX_CHARS);
  append_optional_string (out, "cmdline", cmdline, TEXT_MAX_CHARS);
  append_job (out, &proc->job);
  g_string_append_printf (out, ",\"uid\":%u,\"start_time\":%" G_GUINT64_FORMAT
                          ",\"qps\":%u,\"contexts\":%u,\"mrs\":%u,\"mr_bytes\":%"
                          G_GUINT64_FORMAT "}",
                          proc->uid, proc->start_time, pd->qps, pd->contexts,
                          pd->mrs, pd->mr_bytes);
  event_close (out);
}

static void
write_slice_end (const Slice *slice, gint64 ts, GString *out)
{
  event_open (out, "E", slice->pid, ts);
  g_string_append_printf (out, ",\"tid\":%u", slice->tid);
  event_close (out);
}

static void
write_processes (RtopTraceWriter *self, const RtopSnapshot *snapshot, gint64 ts,
                 GString *out)
{
  GHashTableIter iter;
  gpointer value;

  self->generation++;
  for (guint i = 0; i < snapshot->processes->len; i++)
    {
      const RtopProcess *proc = g_ptr_array_index (snapshot->processes, i);

      for (guint j = 0; j < proc->devices->len; j++)
        {
          const RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, j);
          char *key = slice_key (snapshot->host, proc, pd->device);
          Slice *slice = g_hash_table_lookup (self->slices, key);
          PortTrack *track;

          if (slice != NULL)
            {
              slice->generation = self->generation;
              g_free (key);
              continue;
            }
          track = first_port_of (self, snapshot, pd->device);
          if (track == NULL)
            {
              g_free (key);
              continue;
            }
          slice = g_new0 (Slice, 1);
          slice->pid = track->pid;
          slice->tid = self->next_tid++;
          slice->generation = self->generation;
          slice->host = g_strdup (snapshot->host);
          g_hash_table_insert (self->slices, key, slice);
          write_slice_begin (slice, proc, pd, ts, out);
        }
    }

  g_hash_table_iter_init (&iter, self->slices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Slice *slice = value;

      if (slice->generation == self->generation || g_strcmp0 (slice->host, snapshot->host) != 0)
        continue;
      write_slice_end (slice, ts, out);
      g_hash_table_iter_remove (&iter);
    }
}

/* Intervals --------------------------------------------------------------- */

void
rtop_trace_writer_add (RtopTraceWriter *self, const RtopSnapshot *snapshot,
                       GString *out)
{
  gint64 previous_ts = self->last_ts;
  gint64 ts;
  guint n_ports;

  g_return_if_fail (snapshot != NULL);
  g_return_if_fail (!self->ended);

  if (!self->begun)
    trace_writer_begin (self, snapshot, out);

  /* Per-track timestamps must not go backwards even if a caller hands in an
   * older snapshot. */
  ts = MAX (snapshot->monotonic_us + clock_offset (self, snapshot) - self->first_monotonic_us,
             previous_ts);
  ts = MAX (ts, 0);
  self->last_ts = ts;

  n_ports = write_ports (self, snapshot, ts, out);
  for (guint i = 0; i < snapshot->events->len; i++)
    write_event (self, snapshot, g_ptr_array_index (snapshot->events, i), previous_ts, ts, out);
  self->last_ts = ts;
  write_processes (self, snapshot, ts, out);

  event_open (out, "C", RTOP_TRACE_OWN_PID, ts);
  g_string_append_printf (out, ",\"name\":\"%s\",\"args\":{\"%s\":%u}",
                          RTOP_TRACE_COMMIT_NAME, RTOP_TRACE_COMMIT_KEY, n_ports);
  event_close (out);
  self->intervals++;
}

void
rtop_trace_writer_mark_gap (RtopTraceWriter *self)
{
  for (guint i = 0; i < self->port_order->len; i++)
    {
      PortTrack *track = g_ptr_array_index (self->port_order, i);
      memset (track->last, 0, sizeof track->last);
    }
}

/* Repeats each track's last value at the end, so every track spans the whole
 * recording even where nothing changed at the end. */
static void
write_final_values (RtopTraceWriter *self, gint64 ts, GString *out)
{
  for (guint i = 0; i < self->port_order->len; i++)
    {
      PortTrack *track = g_ptr_array_index (self->port_order, i);

      for (guint j = 0; j < G_N_ELEMENTS (counter_table); j++)
        if (track->last[j][0] != '\0')
          append_counter (out, track->pid, ts, counter_table[j].name,
                          counter_table[j].key, track->last[j]);
    }
}

void
rtop_trace_writer_end (RtopTraceWriter *self, GString *out)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (!self->ended);

  if (!self->begun)
    trace_writer_begin (self, NULL, out);
  self->ended = TRUE;

  write_final_values (self, self->last_ts, out);
  g_hash_table_iter_init (&iter, self->slices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    write_slice_end (value, self->last_ts, out);
  g_hash_table_remove_all (self->slices);

  /* The last event has no trailing comma, so the file is strict JSON. */
  event_open (out, "i", RTOP_TRACE_OWN_PID, self->last_ts);
  g_string_append_printf (out, ",\"s\":\"g\",\"name\":\"%s\",\"args\":{\"intervals\":%"
                          G_GUINT64_FORMAT "}}\n]}\n",
                          RTOP_TRACE_END_NAME, self->intervals);
}

/* The sink ---------------------------------------------------------------- */

static gpointer
sink_create (void)
{
  return rtop_trace_writer_new ();
}

static void
sink_destroy (gpointer impl)
{
  rtop_trace_writer_free (impl);
}

static void
sink_begin (gpointer impl, const RtopSnapshot *first, GString *out)
{
  trace_writer_begin (impl, first, out);
}

static void
sink_add (gpointer impl, const RtopSnapshot *snapshot, GString *out)
{
  rtop_trace_writer_add (impl, snapshot, out);
}

static void
sink_mark_gap (gpointer impl)
{
  rtop_trace_writer_mark_gap (impl);
}

static void
sink_end (gpointer impl, GString *out)
{
  rtop_trace_writer_end (impl, out);
}

const RtopRecordSinkClass rtop_trace_sink_class = {
  .create = sink_create,
  .destroy = sink_destroy,
  .begin = sink_begin,
  .add = sink_add,
  .mark_gap = sink_mark_gap,
  .end = sink_end,
};
