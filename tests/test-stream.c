/* test-stream.c: the snapshot stream.  What the decoder rebuilds is, field
 * for field, what the encoder was given (rates and deltas included, as the
 * collector's own code computed them), over devices and processes coming
 * and going, counter wraps and resets, keyframes and a decoder that joins
 * at a keyframe; bad input (every prefix, bit flips, over-long, not UTF-8,
 * another version, not a stream at all) is an error, never a crash. */
#define _GNU_SOURCE
#include "config.h"

#include <string.h>
#include <zlib.h>

#include "rtop-error.h"
#include "rtop-stream.h"
#include "rtop-text.h"
#include "support/stream-synth.h"

#define SNAP_FLAG_KEY 1
#define SNAP_FLAG_INTERVAL 8
/* String references on the wire: a string once, outside the table; a new
 * string for the table; the table's first entry. */
#define STR_REF_NEW 1
#define STR_REF_ONCE 2
#define STR_REF_FIRST 3

typedef struct {
  GByteArray *bytes;        /* hello + every frame */
  GArray *ends;             /* gsize: where each snapshot frame ends */
  GPtrArray *snapshots;     /* RtopSnapshot*, what was encoded */
  gsize hello_end;
} Encoded;

static void
encoded_free (Encoded *e)
{
  g_byte_array_unref (e->bytes);
  g_array_unref (e->ends);
  g_ptr_array_unref (e->snapshots);
  g_free (e);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Encoded, encoded_free)

static Encoded *
encode_run (const StreamSynthOptions *options, guint n, gboolean shared, guint keyframe_every,
            guint keyframe_at)
{
  g_autoptr(StreamSynth) synth = stream_synth_new (options);
  g_autoptr(RtopStreamEncoder) enc = rtop_stream_encoder_new (shared, keyframe_every);
  Encoded *e = g_new0 (Encoded, 1);

  e->bytes = g_byte_array_new ();
  e->ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  e->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  rtop_stream_encoder_hello (enc, e->bytes);
  e->hello_end = e->bytes->len;
  for (guint i = 0; i < n; i++)
    {
      RtopSnapshot *snap = stream_synth_next (synth);
      gsize end;

      if (keyframe_at != 0 && i == keyframe_at)
        rtop_stream_encoder_request_keyframe (enc);

      rtop_stream_encoder_add (enc, snap, e->bytes);
      end = e->bytes->len;
      g_array_append_val (e->ends, end);
      g_ptr_array_add (e->snapshots, snap);
    }
  return e;
}

/* Decodes bytes pushed in chunks of at most chunk bytes; returns the
 * snapshots, and the first error. */
static GPtrArray *
decode_all (const guint8 *data, gsize len, gsize chunk, GError **error)
{
  g_autoptr(RtopStreamDecoder) dec = rtop_stream_decoder_new ();
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);

  rtop_stream_decoder_set_host (dec, "node1");
  for (gsize off = 0; off < len; off += chunk)
    {
      RtopSnapshot *snap;

      if (!rtop_stream_decoder_push (dec, data + off, MIN (chunk, len - off), error))
        return out;
      while ((snap = rtop_stream_decoder_next (dec, error)) != NULL)
        g_ptr_array_add (out, snap);
      if (*error != NULL)
        return out;
    }
  rtop_stream_decoder_finish (dec, error);
  return out;
}

static void
assert_round_trip (Encoded *e, gboolean shared, gsize chunk)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = decode_all (e->bytes->data, e->bytes->len, chunk, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, e->snapshots->len);
  for (guint i = 0; i < got->len; i++)
    {
      RtopSnapshot *snap = g_ptr_array_index (got, i);

      stream_synth_assert_equal (g_ptr_array_index (e->snapshots, i), snap, shared);
      g_assert_cmpstr (snap->host, ==, "node1");
    }
}

static guint
count_with_rates (GPtrArray *snapshots)
{
  guint n = 0;

  for (guint i = 0; i < snapshots->len; i++)
    {
      RtopSnapshot *snap = g_ptr_array_index (snapshots, i);

      for (guint d = 0; d < snap->devices->len; d++)
        {
          RtopDevice *dev = g_ptr_array_index (snap->devices, d);

          for (guint p = 0; p < dev->ports->len; p++)
            n += ((RtopPort *) g_ptr_array_index (dev->ports, p))->metrics[RTOP_METRIC_TX_PACKETS].has_rate;
        }
    }
  return n;
}

/* Busy ports, devices and processes that come and go, wraps and resets,
 * failed passes and health events, with pids shared. */
static void
test_round_trip (void)
{
  StreamSynthOptions o = { .n_devices = 4, .ports_per_device = 2, .busy = TRUE, .churn = TRUE,
                           .processes = TRUE, .events = TRUE, .seed = 7 };
  g_autoptr(Encoded) e = encode_run (&o, 300, TRUE, 60, 0);
  guint resets = 0, events = 0, no_netlink = 0;

  for (guint i = 0; i < e->snapshots->len; i++)
    {
      RtopSnapshot *snap = g_ptr_array_index (e->snapshots, i);

      events += snap->events->len;
      no_netlink += snap->status == RTOP_STATUS_NO_NETLINK;
      for (guint d = 0; d < snap->devices->len; d++)
        {
          RtopDevice *dev = g_ptr_array_index (snap->devices, d);

          for (guint p = 0; p < dev->ports->len; p++)
            {
              RtopPort *port = g_ptr_array_index (dev->ports, p);

              for (guint c = 0; c < port->counters->len; c++)
                resets += ((RtopCounter *) g_ptr_array_index (port->counters, c))->reset;
            }
        }
    }
  /* The run has what the test is about. */
  g_assert_cmpuint (resets, >, 0);
  g_assert_cmpuint (events, >, 0);
  g_assert_cmpuint (no_netlink, >, 0);
  g_assert_cmpuint (count_with_rates (e->snapshots), >, 500);
  assert_round_trip (e, TRUE, 65536);
  /* The same bytes in small pieces, cutting frames anywhere. */
  assert_round_trip (e, TRUE, 7);
}

/* Without --processes, processes arrive as resources only, and the
 * snapshot says pids are hidden. */
static void
test_processes_hidden (void)
{
  StreamSynthOptions o = { .n_devices = 2, .ports_per_device = 1, .busy = TRUE,
                           .processes = TRUE, .seed = 11 };
  g_autoptr(Encoded) e = encode_run (&o, 80, FALSE, 0, 0);
  g_autoptr(Encoded) shared = encode_run (&o, 80, TRUE, 0, 0);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = decode_all (e->bytes->data, e->bytes->len, 4096, &error);
  guint with_processes = 0;

  g_assert_no_error (error);
  assert_round_trip (e, FALSE, 4096);
  for (guint i = 0; i < got->len; i++)
    {
      RtopSnapshot *snap = g_ptr_array_index (got, i);

      with_processes += snap->processes->len > 0;
      for (guint j = 0; j < snap->processes->len; j++)
        {
          RtopProcess *p = g_ptr_array_index (snap->processes, j);

          g_assert_cmpint (p->pid, ==, 0);
          g_assert_null (p->cmdline);
          g_assert_null (p->user);
        }
    }
  g_assert_cmpuint (with_processes, >, 10);
  /* Nothing of a command line is in the bytes. */
  g_assert_null (memmem (e->bytes->data, e->bytes->len, "--size 65536", 12));
  g_assert_nonnull (memmem (shared->bytes->data, shared->bytes->len, "--size 65536", 12));
}

/* A keyframe asked for mid-stream, and a decoder that joins there (after
 * the hello) gets the same snapshots from then on. */
static void
test_keyframe_resync (void)
{
  StreamSynthOptions o = { .n_devices = 3, .ports_per_device = 2, .busy = TRUE, .churn = TRUE,
                           .processes = TRUE, .seed = 5 };
  g_autoptr(Encoded) e = encode_run (&o, 60, TRUE, 0, 40);
  gsize start = g_array_index (e->ends, gsize, 39);
  g_autoptr(GByteArray) joined = g_byte_array_new ();
  g_autoptr(GPtrArray) got = NULL;
  g_autoptr(GPtrArray) cut = NULL;
  g_autoptr(GError) error = NULL;

  g_byte_array_append (joined, e->bytes->data, e->hello_end);
  g_byte_array_append (joined, e->bytes->data + start, e->bytes->len - start);
  got = decode_all (joined->data, joined->len, 1000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, 20);
  for (guint i = 0; i < got->len; i++)
    stream_synth_assert_equal (g_ptr_array_index (e->snapshots, 40 + i),
                               g_ptr_array_index (got, i), TRUE);
  /* Joining at a frame that is not a keyframe is refused. */
  g_byte_array_set_size (joined, e->hello_end);
  start = g_array_index (e->ends, gsize, 44);
  g_byte_array_append (joined, e->bytes->data + start, e->bytes->len - start);
  cut = decode_all (joined->data, joined->len, 1000, &error);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL);
  g_assert_cmpuint (cut->len, ==, 0);
}

/* Every prefix of a stream decodes to the snapshots whose frames it holds
 * whole, and ending anywhere else is an error at finish. */
static void
test_every_prefix (void)
{
  StreamSynthOptions o = { .n_devices = 2, .ports_per_device = 1, .busy = TRUE, .churn = TRUE,
                           .processes = TRUE, .events = TRUE, .seed = 3 };
  g_autoptr(Encoded) e = encode_run (&o, 8, TRUE, 0, 0);

  for (gsize len = 0; len <= e->bytes->len; len++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) got = decode_all (e->bytes->data, len, 65536, &error);
      guint whole = 0;
      gboolean at_boundary = len == e->hello_end;

      while (whole < e->ends->len && g_array_index (e->ends, gsize, whole) <= len)
        whole++;
      for (guint i = 0; i < e->ends->len; i++)
        at_boundary = at_boundary || g_array_index (e->ends, gsize, i) == len;
      g_assert_cmpuint (got->len, ==, whole);
      if (at_boundary)
        g_assert_no_error (error);
      else
        g_assert_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL);
    }
}

/* Random bit flips and overwritten bytes: an error or snapshots, never a
 * crash, a hang or an allocation past the limits (ASan runs this too). */
static void
test_bit_flips (void)
{
  StreamSynthOptions o = { .n_devices = 3, .ports_per_device = 2, .busy = TRUE, .churn = TRUE,
                           .processes = TRUE, .events = TRUE, .seed = 9 };
  g_autoptr(Encoded) e = encode_run (&o, 20, TRUE, 0, 0);
  g_autoptr(GRand) rand = g_rand_new_with_seed (1234);
  guint errors = 0;

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr(GByteArray) copy = g_byte_array_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) got = NULL;
      guint flips = g_rand_int_range (rand, 1, 4);

      g_byte_array_append (copy, e->bytes->data, e->bytes->len);
      for (guint f = 0; f < flips; f++)
        {
          guint at = g_rand_int_range (rand, 0, copy->len);

          if (round % 2)
            copy->data[at] ^= 1u << g_rand_int_range (rand, 0, 8);
          else
            copy->data[at] = g_rand_int_range (rand, 0, 256);
        }
      got = decode_all (copy->data, copy->len, 65536, &error);
      errors += error != NULL;
      if (error != NULL)
        g_assert_true (error->domain == RTOP_ERROR);
    }
  /* Most damage is noticed; the rest decodes to something bounded. */
  g_assert_cmpuint (errors, >, 1000);
}

static GByteArray *
hello_caps_bytes (guint version, const char *producer, guint8 caps)
{
  GByteArray *out = g_byte_array_new ();
  guint8 body[64];
  gsize n = 0, len = strlen (producer);

  g_assert_cmpuint (len, <, 40);
  g_assert_cmpuint (caps, <, 0x80);
  g_byte_array_append (out, (const guint8 *) RTOP_STREAM_MAGIC, RTOP_STREAM_MAGIC_LEN);
  body[n++] = version;
  body[n++] = len + 1;
  memcpy (body + n, producer, len);
  n += len;
  body[n++] = caps;
  g_byte_array_append (out, (const guint8 *) "H", 1);
  g_byte_array_append (out, (guint8[]) { n }, 1);
  g_byte_array_append (out, body, n);
  return out;
}

static GByteArray *
hello_bytes (guint version, const char *producer)
{
  return hello_caps_bytes (version, producer, 0);
}

static void
decode_expect (const guint8 *data, gsize len, GQuark domain, int code, const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = decode_all (data, len, 65536, &error);

  g_assert_error (error, domain, code);
  g_assert_cmpuint (got->len, ==, 0);
  if (text != NULL && strstr (error->message, text) == NULL)
    g_error ("“%s” does not say “%s”", error->message, text);
}

/* The other side's version, not ours: both named. */
static void
test_version_mismatch (void)
{
  g_autoptr(GByteArray) hello = hello_bytes (RTOP_STREAM_VERSION + 1, "9.9.9");
  g_autofree char *ours = g_strdup_printf ("version %u", RTOP_STREAM_VERSION);
  g_autofree char *theirs = g_strdup_printf ("version %u", RTOP_STREAM_VERSION + 1);

  decode_expect (hello->data, hello->len, RTOP_ERROR, RTOP_ERROR_VERSION, "9.9.9");
  decode_expect (hello->data, hello->len, RTOP_ERROR, RTOP_ERROR_VERSION, ours);
  decode_expect (hello->data, hello->len, RTOP_ERROR, RTOP_ERROR_VERSION, theirs);
  decode_expect (hello->data, hello->len, RTOP_ERROR, RTOP_ERROR_VERSION, PACKAGE_VERSION);
}

/* What a shell prints when the command is missing, or a login banner on
 * stdout, is not taken for a stream; the error frame is the remote's own
 * sentence. */
static void
test_not_a_stream (void)
{
  const char *banner = "Welcome to node1!\nLast login: yesterday";
  g_autoptr(GByteArray) err = g_byte_array_new ();
  g_autoptr(GByteArray) hello = hello_bytes (RTOP_STREAM_VERSION, PACKAGE_VERSION);

  decode_expect ((const guint8 *) banner, strlen (banner), RTOP_ERROR, RTOP_ERROR_PROTOCOL,
                 "Welcome to node1!");
  decode_expect ((const guint8 *) "RTOP", 4, RTOP_ERROR, RTOP_ERROR_PROTOCOL, "before its hello");
  g_byte_array_append (err, hello->data, hello->len);
  rtop_stream_encode_error (err, "No RDMA device named “mlx5_9”.");
  decode_expect (err->data, err->len, RTOP_ERROR, RTOP_ERROR_REMOTE, "No RDMA device named “mlx5_9”.");
}

/* Frames and strings over the limits, counts over the limits, strings
 * that are not UTF-8, numbers that do not end. */
static void
test_oversized_and_garbled (void)
{
  g_autoptr(GByteArray) hello = hello_bytes (RTOP_STREAM_VERSION, PACKAGE_VERSION);
  static const struct {
    const char *what;
    const guint8 bytes[16];
    gsize len;
  } frames[] = {
    { "a frame of 2 GiB", { 'S', 0x80, 0x80, 0x80, 0x80, 0x08 }, 6 },
    { "a frame of 1 MiB + 1", { 'S', 0x81, 0x80, 0x40 }, 4 },
    { "an unknown frame", { 'Z', 1, 0 }, 3 },
    { "a delta first", { 'S', 4, 0, 2, 2, 0 }, 6 },
    { "a second hello", { 'H', 3, RTOP_STREAM_VERSION, 1, 0 }, 5 },
    { "300 devices", { 'S', 10, SNAP_FLAG_KEY, 2, 2, 0, 0xac, 0x02, 0, 0, 0, 0 }, 12 },
    { "a string of 9000 bytes", { 'E', 3, 0xa9, 0x46, 'x' }, 5 },
    { "a string not UTF-8", { 'E', 3, 3, 0xc3, 0x28 }, 5 },
    { "a string with a NUL", { 'E', 3, 3, 'a', 0 }, 5 },
    { "a number of 11 bytes", { 'S', 11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 13 },
    { "a device id out of the blue", { 'S', 7, SNAP_FLAG_KEY, 2, 2, 0, 1, 5, 0 }, 9 },
    { "bytes left over", { 'S', 8, SNAP_FLAG_KEY, 2, 2, 0, 0, 0, 0, 9 }, 10 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (frames); i++)
    {
      g_autoptr(GByteArray) s = g_byte_array_new ();
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) got = NULL;

      g_byte_array_append (s, hello->data, hello->len);
      g_byte_array_append (s, frames[i].bytes, frames[i].len);
      got = decode_all (s->data, s->len, 65536, &error);
      if (error == NULL || error->domain != RTOP_ERROR ||
          (error->code != RTOP_ERROR_PROTOCOL && error->code != RTOP_ERROR_REMOTE))
        g_error ("%s: not refused", frames[i].what);
      if (i >= 6 && i <= 8)
        g_assert_cmpint (error->code, ==, RTOP_ERROR_PROTOCOL);
      g_assert_cmpuint (got->len, ==, 0);
    }
}

/* ---- Frames written by hand, at the decoder's limits ---- */

static void
put_uv (GByteArray *b, guint64 v)
{
  do
    {
      guint8 x = v & 0x7f;

      v >>= 7;
      if (v != 0)
        x |= 0x80;
      g_byte_array_append (b, &x, 1);
    }
  while (v != 0);
}

static void
put_sv (GByteArray *b, gint64 v)
{
  put_uv (b, ((guint64) v << 1) ^ (guint64) (v >> 63));
}

static void
put_str (GByteArray *b, guint ref, const char *s)
{
  put_uv (b, ref);
  put_uv (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, strlen (s));
}

static void
put_f64 (GByteArray *b, double v)
{
  guint64 bits;

  memcpy (&bits, &v, sizeof bits);
  bits = GUINT64_TO_LE (bits);
  g_byte_array_append (b, (const guint8 *) &bits, sizeof bits);
}

/* A snapshot frame's payload up to its device count: flags, then a
 * sequence and a monotonic time one on from the last, the same wall time. */
static GByteArray *
frame_start (guint flags)
{
  GByteArray *b = g_byte_array_new ();

  put_uv (b, flags);
  put_sv (b, 1);
  put_sv (b, 1);
  put_sv (b, 0);
  return b;
}

/* A device new in the frame, named once, no fields, no device counters:
 * its port count follows. */
static void
put_new_device (GByteArray *b, guint id, const char *name)
{
  put_uv (b, id);
  put_str (b, STR_REF_ONCE, name);
  put_uv (b, 0);
  put_uv (b, 0);
  put_uv (b, 0);
}

/* A port read read_diff µs after its last read (or time 0), no fields, no
 * counters, and no metrics (none described, or as before). */
static void
put_port (GByteArray *b, guint32 index, gint64 read_diff, gboolean new_port)
{
  put_uv (b, index);
  put_uv (b, 0);
  put_sv (b, read_diff);
  put_uv (b, 0);
  put_uv (b, 0);
  put_uv (b, new_port ? 1 : 0);
  put_uv (b, 0);
}

/* A counter list of n counters, each named once "c" (source, class). */
static void
put_counters (GByteArray *b, guint n, guint source, guint klass)
{
  put_uv (b, n + 1);
  for (guint i = 0; i < n; i++)
    {
      put_str (b, STR_REF_ONCE, "c");
      put_uv (b, source | klass << 4);
    }
  put_uv (b, 0);
}

/* The end of a frame: no processes, no events. */
static void
frame_end (GByteArray *b)
{
  put_uv (b, 0);
  put_uv (b, 0);
}

/* Decodes a hello and the frames (payloads, consumed) with trailer after
 * them: the snapshots, and the error, whose message must hold error_text
 * (NULL: no error). */
static GPtrArray *
decode_frames_caps (guint8 caps, GByteArray **payloads, guint n, const guint8 *trailer,
                    gsize trailer_len, const char *error_text)
{
  g_autoptr(GByteArray) s = hello_caps_bytes (RTOP_STREAM_VERSION, PACKAGE_VERSION, caps);
  g_autoptr(GError) error = NULL;
  GPtrArray *got;

  for (guint i = 0; i < n; i++)
    {
      g_byte_array_append (s, (const guint8 *) "S", 1);
      put_uv (s, payloads[i]->len);
      g_byte_array_append (s, payloads[i]->data, payloads[i]->len);
      g_byte_array_unref (payloads[i]);
    }
  if (trailer_len > 0)
    g_byte_array_append (s, trailer, trailer_len);
  got = decode_all (s->data, s->len, 65536, &error);
  if (error_text == NULL)
    g_assert_no_error (error);
  else if (error == NULL || strstr (error->message, error_text) == NULL)
    g_error ("expected an error saying “%s”, got %s", error_text,
             error != NULL ? error->message : "none");
  return got;
}

static GPtrArray *
decode_frames (GByteArray **payloads, guint n, const guint8 *trailer, gsize trailer_len,
               const char *error_text)
{
  return decode_frames_caps (0, payloads, n, trailer, trailer_len, error_text);
}

static GPtrArray *
decode_frame (GByteArray *payload, const char *error_text)
{
  return decode_frames (&payload, 1, NULL, 0, error_text);
}

/* Real numbers: 0 is a number (an unknown interval), a negative one is
 * damage. */
static void
test_frames_real_numbers (void)
{
  for (guint i = 0; i < 2; i++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY | SNAP_FLAG_INTERVAL);
      g_autoptr(GPtrArray) got = NULL;

      put_f64 (b, i == 0 ? 0.0 : -1.0);
      put_uv (b, 0);
      frame_end (b);
      got = decode_frame (b, i == 0 ? NULL : "a number is negative or not finite");
      g_assert_cmpuint (got->len, ==, 1 - i);
      if (i == 0)
        g_assert_cmpfloat (((RtopSnapshot *) g_ptr_array_index (got, 0))->interval_s, ==, 0.0);
    }
}

/* Numbers: one cut by the end of its frame is not read on into the bytes
 * after it; a tenth byte over 1 would not fit in 64 bits. */
static void
test_frames_numbers (void)
{
  {
    GByteArray *b = g_byte_array_new ();
    static const guint8 after[] = { 0x01 };
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, 0x81);
    g_byte_array_set_size (b, 1);
    got = decode_frames (&b, 1, after, sizeof after, "it ends inside a number");
  }
  {
    GByteArray *b = g_byte_array_new ();
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, SNAP_FLAG_KEY);
    for (guint i = 0; i < 9; i++)
      g_byte_array_append (b, (const guint8[]) { 0x80 }, 1);
    g_byte_array_append (b, (const guint8[]) { 0x02 }, 1);
    put_sv (b, 1);
    put_sv (b, 0);
    put_uv (b, 0);
    frame_end (b);
    got = decode_frame (b, "a number is too large");
  }
}

/* The string table: an entry one past its end is not there, and it holds
 * RTOP_STREAM_MAX_STRINGS entries, not one more. */
static void
test_frames_strings (void)
{
  {
    GByteArray *b = frame_start (SNAP_FLAG_KEY);
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, 2);
    put_uv (b, 0);
    put_str (b, STR_REF_NEW, "rxe0");
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 1);
    put_uv (b, STR_REF_FIRST + 1);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    frame_end (b);
    got = decode_frame (b, "a string it never sent is named");
  }
  for (guint extra = 0; extra < 2; extra++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;
      guint n = 0;

      /* Four devices of RTOP_STREAM_MAX_COUNTERS counters, each counter
       * a new string; then a fifth device whose counter is one more new
       * string, or the table's first. */
      G_STATIC_ASSERT (4 * RTOP_STREAM_MAX_COUNTERS == RTOP_STREAM_MAX_STRINGS);
      put_uv (b, 5);
      for (guint d = 0; d < 5; d++)
        {
          g_autofree char *name = g_strdup_printf ("d%u", d);
          guint k = d < 4 ? RTOP_STREAM_MAX_COUNTERS : 1;

          put_uv (b, d);
          put_str (b, STR_REF_ONCE, name);
          put_uv (b, 0);
          put_uv (b, k + 1);
          for (guint c = 0; c < k; c++)
            {
              g_autofree char *counter = g_strdup_printf ("c%u", n++);

              if (d < 4 || extra)
                put_str (b, STR_REF_NEW, counter);
              else
                put_uv (b, STR_REF_FIRST);
              put_uv (b, 0);
            }
          put_uv (b, 0);
          put_uv (b, 0);
        }
      frame_end (b);
      got = decode_frame (b, extra ? "too many strings" : NULL);
      g_assert_cmpuint (got->len, ==, extra ? 0 : 1);
    }
}

/* A counter's source and class are of their tables: the last of each is
 * taken, one past it is damage. */
static void
test_frames_counter_kinds (void)
{
  static const struct { guint source, klass; const char *error; } cases[] = {
    { RTOP_COUNTER_SOURCE_N - 1, RTOP_COUNTER_CLASS_N - 1, NULL },
    { RTOP_COUNTER_SOURCE_N, 0, "a counter is not described correctly" },
    { 0, RTOP_COUNTER_CLASS_N, "a counter is not described correctly" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      put_uv (b, 1);
      put_uv (b, 0);
      put_str (b, STR_REF_ONCE, "rxe0");
      put_uv (b, 0);
      put_counters (b, 1, cases[i].source, cases[i].klass);
      put_uv (b, 0);
      frame_end (b);
      got = decode_frame (b, cases[i].error);
      if (cases[i].error == NULL)
        {
          RtopDevice *dev = g_ptr_array_index (((RtopSnapshot *) g_ptr_array_index (got, 0))->devices, 0);
          RtopCounter *c = g_ptr_array_index (dev->counters, 0);

          g_assert_cmpint (c->source, ==, cases[i].source);
          g_assert_cmpint (c->klass, ==, cases[i].klass);
        }
    }
}

/* A frame holds MAX_TOTAL_COUNTERS (65536) counters and 1024 ports in
 * all, not one more. */
static void
test_frames_totals (void)
{
  for (guint extra = 0; extra < 2; extra++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      /* 64 ports of RTOP_STREAM_MAX_COUNTERS counters, and the device's
       * own counter list of extra. */
      put_uv (b, 1);
      put_uv (b, 0);
      put_str (b, STR_REF_ONCE, "mlx5_0");
      put_uv (b, 0);
      put_counters (b, extra, 0, 0);
      put_uv (b, 64);
      for (guint p = 0; p < 64; p++)
        {
          put_uv (b, p + 1);
          put_uv (b, 0);
          put_sv (b, 0);
          put_counters (b, RTOP_STREAM_MAX_COUNTERS, 0, 0);
          put_uv (b, 1);
          put_uv (b, 0);
        }
      frame_end (b);
      got = decode_frame (b, extra ? "too many counters" : NULL);
      g_assert_cmpuint (got->len, ==, 1 - extra);
    }
  for (guint extra = 0; extra < 2; extra++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      /* Four devices of RTOP_STREAM_MAX_PORTS ports, and a fifth of extra. */
      put_uv (b, 5);
      for (guint d = 0; d < 5; d++)
        {
          g_autofree char *name = g_strdup_printf ("rxe%u", d);
          guint n = d < 4 ? RTOP_STREAM_MAX_PORTS : extra;

          put_new_device (b, d, name);
          put_uv (b, n);
          for (guint p = 0; p < n; p++)
            put_port (b, p + 1, 0, TRUE);
        }
      frame_end (b);
      got = decode_frame (b, extra ? "too many ports" : NULL);
      g_assert_cmpuint (got->len, ==, 1 - extra);
    }
}

/* Metrics: a new port cannot say "as before", and a change must be to a
 * metric its layout has. */
static void
test_frames_metrics (void)
{
  {
    GByteArray *b = frame_start (SNAP_FLAG_KEY);
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, 1);
    put_new_device (b, 0, "rxe0");
    put_uv (b, 1);
    put_port (b, 1, 0, FALSE);
    frame_end (b);
    got = decode_frame (b, "metrics it never described are named");
  }
  {
    GByteArray *b = frame_start (SNAP_FLAG_KEY);
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, 1);
    put_new_device (b, 0, "rxe0");
    put_uv (b, 1);
    put_uv (b, 1);
    put_uv (b, 0);
    put_sv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 1);                   /* no metric described */
    put_uv (b, 1);                   /* one changed: the first */
    put_uv (b, 0);
    put_sv (b, 5);
    frame_end (b);
    got = decode_frame (b, "a metric it never described is named");
  }
}

/* Devices across frames: each at most once per frame, and one that went
 * away (left out of a frame) cannot be named again; a port's read time
 * never goes back. */
static void
test_frames_devices (void)
{
  {
    GByteArray *b = frame_start (SNAP_FLAG_KEY);
    g_autoptr(GPtrArray) got = NULL;

    put_uv (b, 2);
    put_new_device (b, 0, "rxe0");
    put_uv (b, 0);
    put_uv (b, 0);                   /* id 0 again, as known */
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    put_uv (b, 0);
    frame_end (b);
    got = decode_frame (b, "a device comes twice");
  }
  {
    GByteArray *frames[3];
    g_autoptr(GPtrArray) got = NULL;

    frames[0] = frame_start (SNAP_FLAG_KEY);
    put_uv (frames[0], 2);
    put_new_device (frames[0], 0, "rxe0");
    put_uv (frames[0], 0);
    put_new_device (frames[0], 1, "rxe1");
    put_uv (frames[0], 0);
    frame_end (frames[0]);
    /* rxe1 only: rxe0 went away. */
    frames[1] = frame_start (0);
    put_uv (frames[1], 1);
    put_uv (frames[1], 1);
    put_uv (frames[1], 0);
    put_uv (frames[1], 0);
    put_uv (frames[1], 0);
    put_uv (frames[1], 0);
    frame_end (frames[1]);
    /* rxe0 named as known. */
    frames[2] = frame_start (0);
    put_uv (frames[2], 1);
    put_uv (frames[2], 0);
    put_uv (frames[2], 0);
    put_uv (frames[2], 0);
    put_uv (frames[2], 0);
    put_uv (frames[2], 0);
    frame_end (frames[2]);
    got = decode_frames (frames, 3, NULL, 0, "a device that went away is named");
    g_assert_cmpuint (got->len, ==, 2);
  }
  for (guint back = 0; back < 2; back++)
    {
      GByteArray *frames[2];
      g_autoptr(GPtrArray) got = NULL;

      frames[0] = frame_start (SNAP_FLAG_KEY);
      put_uv (frames[0], 1);
      put_new_device (frames[0], 0, "rxe0");
      put_uv (frames[0], 1);
      put_port (frames[0], 1, 5 * G_USEC_PER_SEC, TRUE);
      frame_end (frames[0]);
      /* Read again 1 µs earlier, or at the same time. */
      frames[1] = frame_start (0);
      put_uv (frames[1], 1);
      put_uv (frames[1], 0);
      put_uv (frames[1], 0);
      put_uv (frames[1], 0);
      put_uv (frames[1], 0);
      put_uv (frames[1], 1);
      put_port (frames[1], 1, back ? -1 : 0, FALSE);
      frame_end (frames[1]);
      got = decode_frames (frames, 2, NULL, 0, back ? "a port's read time goes back" : NULL);
      g_assert_cmpuint (got->len, ==, 2 - back);
    }
}

/* Processes and events: a state is a printable letter, a pid fits in 32
 * bits, an event is of a kind there is. */
static void
test_frames_processes_and_events (void)
{
  static const struct { guint state; const char *error; } states[] = {
    { ' ', NULL },
    { 'S', NULL },
    { 0x1f, "a process state is not a letter" },
    { 0x01, "a process state is not a letter" },
  };
  static const struct { gint64 pid; const char *error; } pids[] = {
    { G_MAXINT32, NULL },
    { G_MININT32, NULL },
    { (gint64) G_MAXINT32 + 1, "a process id is out of range" },
    { (gint64) G_MININT32 - 1, "a process id is out of range" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      put_uv (b, 0);
      put_uv (b, 1);
      put_uv (b, 1u << 7);             /* the state only */
      put_uv (b, states[i].state);
      put_uv (b, 0);
      got = decode_frame (b, states[i].error);
      if (states[i].error == NULL)
        g_assert_cmpint (((RtopProcess *) g_ptr_array_index (
                            ((RtopSnapshot *) g_ptr_array_index (got, 0))->processes, 0))->state,
                         ==, states[i].state);
    }
  for (guint i = 0; i < G_N_ELEMENTS (pids); i++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      put_uv (b, 0);
      put_uv (b, 1);
      put_sv (b, pids[i].pid);
      put_uv (b, 12345);
      put_uv (b, 0);
      put_uv (b, 0);
      got = decode_frames_caps (RTOP_STREAM_CAP_PROCESSES, &b, 1, NULL, 0, pids[i].error);
      if (pids[i].error == NULL)
        g_assert_cmpint (((RtopProcess *) g_ptr_array_index (
                            ((RtopSnapshot *) g_ptr_array_index (got, 0))->processes, 0))->pid,
                         ==, pids[i].pid);
    }
  for (guint kind = RTOP_EVENT_N - 1; kind <= RTOP_EVENT_N; kind++)
    {
      GByteArray *b = frame_start (SNAP_FLAG_KEY);
      g_autoptr(GPtrArray) got = NULL;

      put_uv (b, 0);
      put_uv (b, 0);
      put_uv (b, 1);
      put_uv (b, kind);
      put_uv (b, RTOP_SEVERITY_ERROR);
      put_sv (b, 0);
      put_sv (b, 0);
      put_uv (b, 0);
      put_uv (b, 0);
      put_uv (b, 0);
      put_uv (b, 0);
      put_uv (b, 0);
      put_uv (b, 0);
      got = decode_frame (b, kind < RTOP_EVENT_N ? NULL : "a count or number is over its limit");
      g_assert_cmpuint (got->len, ==, kind < RTOP_EVENT_N);
    }
}

/* A frame of exactly RTOP_STREAM_MAX_FRAME bytes is whole and decodes:
 * 130 events whose messages fill it to the byte. */
static void
test_frames_largest (void)
{
  GByteArray *b = frame_start (SNAP_FLAG_KEY);
  g_autoptr(GPtrArray) got = NULL;
  const guint n = 130;
  /* Each event: kind, severity, two times, device, port, counter, old and
   * new value (a byte each), the message's length (two bytes) and the
   * message. */
  gsize left;

  put_uv (b, 0);
  put_uv (b, 0);
  put_uv (b, n);
  left = RTOP_STREAM_MAX_FRAME - b->len - n * 11;
  for (guint i = 0; i < n; i++)
    {
      gsize len = i < n - 1 ? left / n : left - (n - 1) * (left / n);
      g_autofree char *message = g_strnfill (len, 'm');

      g_assert_cmpuint (len, >=, 128);
      g_assert_cmpuint (len, <=, RTOP_STREAM_MAX_STRING);
      for (guint k = 0; k < 4; k++)
        put_uv (b, 0);
      for (guint k = 0; k < 5; k++)
        put_uv (b, 0);
      put_uv (b, len + 1);
      g_byte_array_append (b, (const guint8 *) message, len);
    }
  g_assert_cmpuint (b->len, ==, RTOP_STREAM_MAX_FRAME);
  got = decode_frame (b, NULL);
  g_assert_cmpuint (got->len, ==, 1);
  g_assert_cmpuint (((RtopSnapshot *) g_ptr_array_index (got, 0))->events->len, ==, n);
}

/* The smallest valid keyframe decodes (the table above is not refused for
 * the wrong reason). */
static void
test_minimal_keyframe (void)
{
  g_autoptr(GByteArray) s = hello_bytes (RTOP_STREAM_VERSION, PACKAGE_VERSION);
  static const guint8 frame[] = { 'S', 7, SNAP_FLAG_KEY, 2, 2, 0, 0, 0, 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = NULL;

  g_byte_array_append (s, frame, sizeof frame);
  got = decode_all (s->data, s->len, 65536, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (got->len, ==, 1);
  g_assert_cmpuint (((RtopSnapshot *) g_ptr_array_index (got, 0))->sequence, ==, 1);
}

/* Found by fuzz-stream in CI's short run: a port whose read time jumps
 * from a positive time to near INT64_MIN made the decoder subtract past
 * 64 bits (undefined; UBSan stopped there).  A read time that does not fit
 * is now refused where it is decoded.  (Its hello says the current
 * stream version: byte 11 of the file, raised with each version.) */
static void
test_read_time_overflow (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fuzz", "stream-regressions",
                                                 "read-time-overflow", NULL);
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) got = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_cmpuint (len, >, 1);
  /* As fuzz-stream takes it: the first byte chooses the pieces' size. */
  got = decode_all ((const guint8 *) data + 1, len - 1, 1 + (guint8) data[0] % 64 * 37, &error);
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_PROTOCOL);
  g_assert_nonnull (strstr (error->message, "read time is out of range"));
}

/* Strings that are not UTF-8 or too long arrive repaired and cut, and the
 * stream stays in step after them. */
static void
test_repaired_strings (void)
{
  g_autoptr(RtopStreamEncoder) enc = rtop_stream_encoder_new (TRUE, 0);
  g_autoptr(RtopStreamDecoder) dec = rtop_stream_decoder_new ();
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *long_cmdline = g_strnfill (RTOP_STREAM_MAX_STRING + 100, 'a');

  rtop_stream_encoder_hello (enc, bytes);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      g_autoptr(RtopSnapshot) got = NULL;
      RtopProcess *p = rtop_process_new (77);
      RtopDevice *dev = rtop_device_new (1, "rxe\xff");

      snap->sequence = i + 1;
      p->comm = g_strdup ("b\xc3\x28\x1b[2J");
      p->cmdline = g_strdup (long_cmdline);
      g_ptr_array_add (snap->processes, p);
      g_ptr_array_add (snap->devices, dev);
      g_ptr_array_add (dev->ports, rtop_port_new (1));
      rtop_stream_encoder_add (enc, snap, bytes);
      g_assert_true (rtop_stream_decoder_push (dec, bytes->data, bytes->len, &error));
      g_byte_array_set_size (bytes, 0);
      got = rtop_stream_decoder_next (dec, &error);
      g_assert_no_error (error);
      g_assert_nonnull (got);
      g_assert_cmpuint (got->sequence, ==, i + 1);
      p = g_ptr_array_index (got->processes, 0);
      g_assert_true (g_utf8_validate (p->comm, -1, NULL));
      /* The other host's process name is shown as a local one is: its
       * control characters escaped. */
      g_assert_cmpstr (p->comm, ==, "b\xef\xbf\xbd(\\x1b[2J");
      /* Cut as a local command line is, and said to be cut. */
      g_assert_cmpuint (strlen (p->cmdline), <=, RTOP_TEXT_CMDLINE_MAX);
      g_assert_true (g_str_has_suffix (p->cmdline, "…"));
      g_assert_true (g_utf8_validate (((RtopDevice *) g_ptr_array_index (got->devices, 0))->name, -1, NULL));
      g_assert_cmpuint (((RtopDevice *) g_ptr_array_index (got->devices, 0))->ports->len, ==, 1);
    }
}

/* What deflate over the frames would save, with a flush per frame (a
 * reader must get each frame when it is sent): measured, not asserted. */
static double
deflated_rate (Encoded *e)
{
  z_stream zs = { 0 };
  guint8 buf[65536];
  gsize total = 0, prev = g_array_index (e->ends, gsize, 0);

  g_assert_cmpint (deflateInit (&zs, 6), ==, Z_OK);
  for (guint i = 1; i < e->ends->len; i++)
    {
      gsize end = g_array_index (e->ends, gsize, i);

      zs.next_in = e->bytes->data + prev;
      zs.avail_in = end - prev;
      do
        {
          zs.next_out = buf;
          zs.avail_out = sizeof buf;
          deflate (&zs, Z_SYNC_FLUSH);
          total += sizeof buf - zs.avail_out;
        }
      while (zs.avail_out == 0);
      prev = end;
    }
  deflateEnd (&zs);
  return total / (double) (e->ends->len - 1);
}

/* The figure the stream is built for: 16 busy ports at 1 s.  Bytes are
 * counted, not time, so the bound is exact. */
static void
test_bytes_per_second (void)
{
  StreamSynthOptions busy = { .n_devices = 16, .ports_per_device = 1, .busy = TRUE,
                              .processes = TRUE, .seed = 21 };
  StreamSynthOptions idle = { .n_devices = 16, .ports_per_device = 1, .seed = 22 };
  g_autoptr(Encoded) e = encode_run (&busy, 600, FALSE, 60, 0);
  g_autoptr(Encoded) i = encode_run (&idle, 600, FALSE, 60, 0);
  gsize first = g_array_index (e->ends, gsize, 0);
  double busy_rate = (e->bytes->len - first) / 599.0;
  double idle_rate = (i->bytes->len - g_array_index (i->ends, gsize, 0)) / 599.0;

  g_test_message ("16 ports at 1 s: %.0f bytes/s busy, %.0f idle (keyframe every 60 s), "
                  "first keyframe %" G_GSIZE_FORMAT " bytes", busy_rate, idle_rate, first);
  g_test_message ("with deflate and a flush per frame: %.0f bytes/s busy, %.0f idle",
                  deflated_rate (e), deflated_rate (i));
  g_assert_cmpfloat (busy_rate, <=, 2048);
  g_assert_cmpfloat (idle_rate, <, busy_rate);
  assert_round_trip (e, FALSE, 65536);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/stream/round-trip", test_round_trip);
  g_test_add_func ("/stream/processes-hidden", test_processes_hidden);
  g_test_add_func ("/stream/keyframe-resync", test_keyframe_resync);
  g_test_add_func ("/stream/every-prefix", test_every_prefix);
  g_test_add_func ("/stream/bit-flips", test_bit_flips);
  g_test_add_func ("/stream/version-mismatch", test_version_mismatch);
  g_test_add_func ("/stream/not-a-stream", test_not_a_stream);
  g_test_add_func ("/stream/oversized-and-garbled", test_oversized_and_garbled);
  g_test_add_func ("/stream/minimal-keyframe", test_minimal_keyframe);
  g_test_add_func ("/stream/frames/real-numbers", test_frames_real_numbers);
  g_test_add_func ("/stream/frames/numbers", test_frames_numbers);
  g_test_add_func ("/stream/frames/strings", test_frames_strings);
  g_test_add_func ("/stream/frames/counter-kinds", test_frames_counter_kinds);
  g_test_add_func ("/stream/frames/totals", test_frames_totals);
  g_test_add_func ("/stream/frames/metrics", test_frames_metrics);
  g_test_add_func ("/stream/frames/devices", test_frames_devices);
  g_test_add_func ("/stream/frames/processes-and-events", test_frames_processes_and_events);
  g_test_add_func ("/stream/frames/largest", test_frames_largest);
  g_test_add_func ("/stream/repaired-strings", test_repaired_strings);
  g_test_add_func ("/stream/read-time-overflow", test_read_time_overflow);
  g_test_add_func ("/stream/bytes-per-second", test_bytes_per_second);
  return g_test_run ();
}
