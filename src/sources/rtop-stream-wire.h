/* rtop-stream-wire.h: the stream's wire format, private to rtop-stream.c,
 * rtop-stream-encoder.c and rtop-stream-decoder.c.
 *
 * What both sides must agree on: frame types, field flags and string
 * references, the state each side keeps, what both sides predict, and how
 * numbers and strings are written and read (every read bounded). */
#pragma once

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-rates.h"
#include "rtop-stream-private.h"

G_BEGIN_DECLS

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
#define PROC_JOB        (1u << 13)
#define PROC_ALL        ((1u << 14) - 1)

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

static inline double
predict_elapsed (const RtopPort *ref, gint64 read_time_us)
{
  if (ref == NULL)
    return 0;
  /* As rtop-rates.c computes it, to the bit.  The read times come from
   * the stream: subtracted as unsigned (a difference past 64 bits wraps,
   * to a negative time refused below, instead of overflowing). */
  return (gint64) ((guint64) read_time_us - (guint64) ref->read_time_us) / (double) G_USEC_PER_SEC;
}

static inline double
predict_rate (guint64 delta, gboolean has_rate, double elapsed)
{
  return has_rate && elapsed > 0 ? delta / elapsed : 0;
}

/* A counter's delta, reset and has_rate from its value and the previous
 * snapshot's counter at the same position. */
static inline void
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

static inline gboolean
predict_metric_has_rate (const RtopMetric *ref, guint64 value, double elapsed)
{
  return ref != NULL && elapsed > 0 && value >= ref->value;
}

static inline double
predict_metric_rate (const RtopMetric *ref, guint64 value, gboolean has_rate, double elapsed)
{
  if (!has_rate || ref == NULL || elapsed <= 0 || value < ref->value)
    return 0;
  return (double) (value - ref->value) / elapsed;
}

/* With pids, a process is matched by pid and start time; without, by its
 * position. */
static inline GHashTable *
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

static inline const RtopProcess *
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

/* ---- Writing ---- */

static inline void
put_u8 (GByteArray *out, guint8 v)
{
  g_byte_array_append (out, &v, 1);
}

static inline void
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

static inline void
put_zz (GByteArray *out, guint64 difference)
{
  gint64 v = (gint64) difference;

  put_varint (out, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static inline void
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
static inline const char *
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
static inline void
put_raw_text (GByteArray *out, const char *s)
{
  g_autofree char *tmp = NULL;
  gsize len;

  s = wire_text (s, &len, &tmp);
  put_varint (out, len);
  g_byte_array_append (out, (const guint8 *) s, len);
}

/* A string sent in place: 0 for NULL, else its length + 1 and its bytes. */
static inline void
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

/* ---- The state each side keeps ---- */

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

/* ---- Reading ---- */

typedef struct {
  const guint8 *p, *end;
  GError **error;
} Reader;

static inline gboolean
bad (Reader *r, const char *what)
{
  if (r->error != NULL && *r->error == NULL)
    /* Translators: %s says what was wrong, e.g. "a string is not UTF-8" */
    g_set_error (r->error, RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                 _("The snapshot stream from the other side is damaged: %s."), _(what));
  return FALSE;
}

static inline gboolean
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

static inline gboolean
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

static inline gboolean
get_u32 (Reader *r, guint32 *out)
{
  guint v;

  if (!get_uint (r, G_MAXUINT32, &v))
    return FALSE;
  *out = v;
  return TRUE;
}

static inline gboolean
get_zz (Reader *r, guint64 *out)
{
  guint64 v;

  if (!get_varint (r, &v))
    return FALSE;
  *out = (v >> 1) ^ (~(v & 1) + 1);
  return TRUE;
}

static inline gboolean
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

static inline gboolean
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
static inline gboolean
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

G_END_DECLS
