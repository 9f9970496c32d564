/* rtop-stream.c: the snapshot stream's encoder and decoder.
 *
 * Both sides keep the same state: the previous snapshot of the stream, a
 * string table and the device ids.  Everything that is not sent is
 * predicted from that state by the same functions on both sides, and the
 * encoder sends whatever its prediction would get wrong, so the decoder
 * ends with exactly the snapshot the encoder was given.  All lookups of the
 * previous state are by numbers the stream carries (device ids, port
 * indexes, counter positions, pids), never by decoded text: a string the
 * encoder had to repair cannot make the two sides disagree. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-rates.h"
#include "rtop-stream-private.h"
#include "rtop-text.h"

static char *rtop_stream_version_mismatch_message (guint remote_version, const char *remote_producer);

enum { FRAME_HELLO = 'H', FRAME_SNAPSHOT = 'S', FRAME_ERROR = 'E' };

/* Snapshot frame flags. */
#define SNAP_KEYFRAME     (1u << 0)
#define SNAP_PIDS_HIDDEN  (1u << 1)
#define SNAP_HOTPLUG      (1u << 2)
#define SNAP_INTERVAL     (1u << 3)
#define SNAP_STATUS       (1u << 4)

/* Device fields sent when they changed. */
#define DEV_INDEX       (1u << 0)
#define DEV_PROVIDER    (1u << 1)
#define DEV_NODE_TYPE   (1u << 2)
#define DEV_FW          (1u << 3)
#define DEV_GUID        (1u << 4)
#define DEV_PROTOCOL    (1u << 5)
#define DEV_PORT_COUNT  (1u << 6)

/* Port fields sent when they changed (or, for elapsed, were not predicted). */
#define PORT_STATE      (1u << 0)
#define PORT_PHYS       (1u << 1)
#define PORT_NETDEV     (1u << 2)
#define PORT_NDEV_INDEX (1u << 3)
#define PORT_LINK_LAYER (1u << 4)
#define PORT_RATE_TEXT  (1u << 5)
#define PORT_RATE_GBPS  (1u << 6)
#define PORT_LAYOUT     (1u << 7)
#define PORT_ERROR      (1u << 8)
#define PORT_ELAPSED    (1u << 9)
#define PORT_ALL        ((1u << 10) - 1)

/* A counter's or metric's exception flags. */
#define EXC_HAS_RATE    (1u << 0)
#define EXC_RESET       (1u << 1)
#define EXC_DELTA       (1u << 2)
#define EXC_RATE        (1u << 3)
#define EXC_SATURATED   (1u << 4)

/* Process fields. */
#define PROC_KERNEL     (1u << 0)
#define PROC_COMM       (1u << 1)
#define PROC_CMDLINE    (1u << 2)
#define PROC_USER       (1u << 3)
#define PROC_UID        (1u << 4)
#define PROC_RSS        (1u << 5)
#define PROC_THREADS    (1u << 6)
#define PROC_STATE      (1u << 7)
#define PROC_QPS        (1u << 8)
#define PROC_CONTEXTS   (1u << 9)
#define PROC_MRS        (1u << 10)
#define PROC_MR_BYTES   (1u << 11)
#define PROC_DEVICES    (1u << 12)
#define PROC_ALL        ((1u << 13) - 1)

/* String references: 0 NULL, 1 a new string for the table, 2 a string
 * once (the table is full), 3 + n the table's entry n. */
#define STR_NULL 0
#define STR_NEW 1
#define STR_ONCE 2
#define STR_FIRST_ID 3

/* The longest frame header: type byte and a 5-byte length. */
#define FRAME_HEADER_MAX 6
/* What a caller may push on top of one unfinished frame. */
#define PUSH_MAX (64 * 1024)

#define MAX_TOTAL_PORTS 1024
#define MAX_TOTAL_COUNTERS 65536

/* ---- What both sides predict ---- */

static double
predict_elapsed (const RtopPort *ref, gint64 read_time_us)
{
  if (ref == NULL)
    return 0;
  /* As rtop-rates.c computes it, to the bit.  The read times come from
   * the stream: subtracted as unsigned (a difference past 64 bits wraps,
   * to a negative time refused below, instead of overflowing). */
  return (gint64) ((guint64) read_time_us - (guint64) ref->read_time_us) / (double) G_USEC_PER_SEC;
}

static double
predict_rate (guint64 delta, gboolean has_rate, double elapsed)
{
  return has_rate && elapsed > 0 ? delta / elapsed : 0;
}

/* A counter's delta, reset and has_rate from its value and the previous
 * snapshot's counter at the same position. */
static void
predict_counter (RtopCounter *p, const RtopCounter *ref, double elapsed)
{
  p->delta = 0;
  p->reset = FALSE;
  p->saturated = FALSE;
  if (ref != NULL)
    p->reset = !rtop_rates_delta (ref->value, p->value, &p->delta);
  p->has_rate = ref != NULL && !p->reset && elapsed > 0;
  p->rate = predict_rate (p->delta, p->has_rate, elapsed);
}

static gboolean
predict_metric_has_rate (const RtopMetric *ref, guint64 value, double elapsed)
{
  return ref != NULL && elapsed > 0 && value >= ref->value;
}

static double
predict_metric_rate (const RtopMetric *ref, guint64 value, gboolean has_rate, double elapsed)
{
  if (!has_rate || ref == NULL || elapsed <= 0 || value < ref->value)
    return 0;
  return (double) (value - ref->value) / elapsed;
}

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
} ProcView;

static void
proc_view (const RtopProcess *p, gboolean shared, ProcView *v)
{
  memset (v, 0, sizeof *v);
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
}

/* ---- Writing ---- */

static void
put_u8 (GByteArray *out, guint8 v)
{
  g_byte_array_append (out, &v, 1);
}

static void
put_varint (GByteArray *out, guint64 v)
{
  guint len = out->len;
  guint8 *p;

  if (v < 0x80)
    {
      /* Most numbers in a frame are small: no loop, no copy. */
      g_byte_array_set_size (out, len + 1);
      out->data[len] = v;
      return;
    }
  g_byte_array_set_size (out, len + 10);
  p = out->data + len;
  do
    {
      *p = v & 0x7f;
      v >>= 7;
      if (v != 0)
        *p |= 0x80;
      p++;
    }
  while (v != 0);
  g_byte_array_set_size (out, p - out->data);
}

static void
put_zz (GByteArray *out, guint64 difference)
{
  gint64 v = (gint64) difference;

  put_varint (out, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static void
put_double (GByteArray *out, double v)
{
  guint64 bits;

  memcpy (&bits, &v, sizeof bits);
  bits = GUINT64_TO_LE (bits);
  g_byte_array_append (out, (const guint8 *) &bits, sizeof bits);
}

/* A string as the wire carries it: valid UTF-8, at most
 * RTOP_STREAM_MAX_STRING bytes, cut at a character boundary.  *tmp holds
 * a repaired copy when one was needed. */
static const char *
wire_text (const char *s, gsize *len, char **tmp)
{
  *len = strlen (s);
  if (!g_utf8_validate (s, *len, NULL))
    {
      *tmp = g_utf8_make_valid (s, *len);
      s = *tmp;
      *len = strlen (s);
    }
  if (*len > RTOP_STREAM_MAX_STRING)
    *len = g_utf8_find_prev_char (s, s + RTOP_STREAM_MAX_STRING + 1) - s;
  return s;
}

/* Its length, then its bytes. */
static void
put_raw_text (GByteArray *out, const char *s)
{
  g_autofree char *tmp = NULL;
  gsize len;

  s = wire_text (s, &len, &tmp);
  put_varint (out, len);
  g_byte_array_append (out, (const guint8 *) s, len);
}

/* A string sent in place: 0 for NULL, else its length + 1 and its bytes. */
static void
put_text (GByteArray *out, const char *s)
{
  g_autofree char *tmp = NULL;
  gsize len;

  if (s == NULL)
    {
      put_varint (out, 0);
      return;
    }
  s = wire_text (s, &len, &tmp);
  put_varint (out, (guint64) len + 1);
  g_byte_array_append (out, (const guint8 *) s, len);
}

/* ---- Encoder ---- */

struct _RtopStreamEncoder {
  gboolean share_processes;
  guint keyframe_every;
  guint since_keyframe;
  gboolean keyframe_wanted;
  RtopSnapshot *ref;          /* the previous snapshot frame's, or NULL */
  GHashTable *strings;        /* char* (owned) -> table id + 1 */
  GHashTable *device_ids;     /* device name (owned) -> id + 1 */
  GHashTable *ref_devices;    /* id + 1 -> RtopDevice* of ref */
  guint next_device_id;
  GByteArray *scratch;        /* a counter list's changes, before their count */
};

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

RtopStreamEncoder *
rtop_stream_encoder_new (gboolean share_processes, guint keyframe_every)
{
  RtopStreamEncoder *self = g_new0 (RtopStreamEncoder, 1);

  self->share_processes = share_processes;
  self->keyframe_every = keyframe_every;
  self->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->device_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->ref_devices = g_hash_table_new (NULL, NULL);
  self->scratch = g_byte_array_new ();
  return self;
}

void
rtop_stream_encoder_free (RtopStreamEncoder *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  g_hash_table_unref (self->strings);
  g_hash_table_unref (self->device_ids);
  g_hash_table_unref (self->ref_devices);
  g_byte_array_unref (self->scratch);
  g_free (self);
}

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

void
rtop_stream_encoder_request_keyframe (RtopStreamEncoder *self)
{
  g_return_if_fail (self != NULL);
  self->keyframe_wanted = TRUE;
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

/* With pids, a process is matched by pid and start time; without, by its
 * position. */
static GHashTable *
processes_by_pid (const GPtrArray *list)
{
  GHashTable *by_pid = g_hash_table_new (NULL, NULL);

  for (guint i = 0; list != NULL && i < MIN (list->len, RTOP_STREAM_MAX_PROCESSES); i++)
    {
      RtopProcess *p = g_ptr_array_index (list, i);

      if (p->pid != 0 && !g_hash_table_contains (by_pid, GINT_TO_POINTER (p->pid)))
        g_hash_table_insert (by_pid, GINT_TO_POINTER (p->pid), p);
    }
  return by_pid;
}

static const RtopProcess *
ref_process (GHashTable *by_pid, const GPtrArray *ref, gboolean shared, guint i,
             gint32 pid, guint64 start_time)
{
  const RtopProcess *r;

  if (ref == NULL)
    return NULL;
  if (!shared)
    return i < MIN (ref->len, RTOP_STREAM_MAX_PROCESSES) ? g_ptr_array_index (ref, i) : NULL;
  if (pid == 0)
    return NULL;
  r = g_hash_table_lookup (by_pid, GINT_TO_POINTER (pid));
  return r != NULL && r->start_time == start_time ? r : NULL;
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

/* ---- Reading ---- */

typedef struct {
  const guint8 *p, *end;
  GError **error;
} Reader;

static gboolean
bad (Reader *r, const char *what)
{
  if (r->error != NULL && *r->error == NULL)
    /* Translators: %s says what was wrong, e.g. "a string is not UTF-8" */
    g_set_error (r->error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                 _("The snapshot stream from the other side is damaged: %s."), _(what));
  return FALSE;
}

static gboolean
get_varint (Reader *r, guint64 *out)
{
  guint64 v = 0;

  *out = 0;
  for (guint shift = 0; shift < 64; shift += 7)
    {
      guint8 b;

      if (r->p >= r->end)
        return bad (r, N_("it ends inside a number"));
      b = *r->p++;
      if (shift == 63 && b > 1)
        return bad (r, N_("a number is too large"));
      v |= (guint64) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          *out = v;
          return TRUE;
        }
    }
  return bad (r, N_("a number is too large"));
}

static gboolean
get_uint (Reader *r, guint64 max, guint *out)
{
  guint64 v;

  *out = 0;
  if (!get_varint (r, &v))
    return FALSE;
  if (v > max)
    return bad (r, N_("a count or number is over its limit"));
  *out = (guint) v;
  return TRUE;
}

static gboolean
get_u32 (Reader *r, guint32 *out)
{
  guint v;

  if (!get_uint (r, G_MAXUINT32, &v))
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
get_zz (Reader *r, guint64 *out)
{
  guint64 v;

  if (!get_varint (r, &v))
    return FALSE;
  *out = (v >> 1) ^ (~(v & 1) + 1);
  return TRUE;
}

static gboolean
get_double (Reader *r, double *out)
{
  guint64 bits;

  if (r->end - r->p < 8)
    return bad (r, N_("it ends inside a number"));
  memcpy (&bits, r->p, sizeof bits);
  r->p += 8;
  bits = GUINT64_FROM_LE (bits);
  memcpy (out, &bits, sizeof bits);
  /* Every real number in a snapshot (rates, seconds, Gb/s) is >= 0. */
  if (!isfinite (*out) || *out < 0)
    return bad (r, N_("a number is negative or not finite"));
  return TRUE;
}

static gboolean
get_bytes_text (Reader *r, guint64 len, char **out)
{
  if (len > RTOP_STREAM_MAX_STRING)
    return bad (r, N_("a string is too long"));
  if ((guint64) (r->end - r->p) < len)
    return bad (r, N_("it ends inside a string"));
  if (len > 0 && !g_utf8_validate ((const char *) r->p, len, NULL))
    return bad (r, N_("a string is not UTF-8"));
  *out = g_strndup ((const char *) r->p, len);
  r->p += len;
  return TRUE;
}

/* A string in place (NULL allowed). */
static gboolean
get_text (Reader *r, char **out)
{
  guint64 v;

  *out = NULL;
  if (!get_varint (r, &v))
    return FALSE;
  if (v == 0)
    return TRUE;
  return get_bytes_text (r, v - 1, out);
}

/* ---- Decoder ---- */

struct _RtopStreamDecoder {
  GByteArray *buf;
  gsize pos;                  /* bytes of buf already decoded */
  gboolean magic_seen;
  gboolean hello_seen;
  gboolean failed;
  guint caps;
  char *producer;
  char *host;
  GPtrArray *strings;         /* char*: the string table */
  GPtrArray *slots;           /* device id -> RtopDevice* of ref, or NULL */
  RtopSnapshot *ref;          /* the previous snapshot frame's, or NULL */
  guint64 bytes;
};

/* One snapshot frame being read. */
typedef struct {
  RtopStreamDecoder *dec;
  Reader *r;
  const RtopSnapshot *ref;
  GPtrArray *new_slots;
  guint total_ports;
  guint total_counters;
} Dec;

RtopStreamDecoder *
rtop_stream_decoder_new (void)
{
  RtopStreamDecoder *self = g_new0 (RtopStreamDecoder, 1);

  self->buf = g_byte_array_new ();
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->slots = g_ptr_array_new ();
  return self;
}

void
rtop_stream_decoder_free (RtopStreamDecoder *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->buf);
  g_ptr_array_unref (self->strings);
  g_ptr_array_unref (self->slots);
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  g_free (self->producer);
  g_free (self->host);
  g_free (self);
}

void
rtop_stream_decoder_set_host (RtopStreamDecoder *self, const char *host)
{
  g_return_if_fail (self != NULL);
  g_free (self->host);
  self->host = g_strdup (host);
}

gboolean
rtop_stream_decoder_has_hello (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->hello_seen;
}

const char *
rtop_stream_decoder_get_producer_version (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->producer;
}

guint
rtop_stream_decoder_get_capabilities (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->caps;
}

guint64
rtop_stream_decoder_get_bytes (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->bytes;
}

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
