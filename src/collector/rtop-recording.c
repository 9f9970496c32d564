/* rtop-recording.c: reads recordings made by rdmatop back into snapshots,
 * and repairs ones that were cut short.
 *
 * Everything in a recording is untrusted input: the file is read as a
 * stream of lines with a length limit (gzip inflated on the fly, with a
 * limit on the inflated size), each JSON line is checked for nesting depth
 * before json-glib sees it, every field is type-checked, and the number of
 * ports, slices and events is bounded.  A first pass counts the intervals so
 * a long recording can be merged down to the memory budget in the second. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "rtop-csv-writer.h"
#include "rtop-error.h"
#include "rtop-gpu.h"
#include "rtop-recording.h"
#include "rtop-trace-writer.h"

#define MAX_FILE_BYTES (G_GUINT64_CONSTANT (2) << 30)
#define MAX_TEXT_BYTES (G_GUINT64_CONSTANT (8) << 30)
#define MAX_LINE_BYTES (64 * 1024)
#define MAX_JSON_DEPTH 8
#define MAX_PORTS 4096
#define MAX_SLICES 65536
#define MAX_EVENTS_PER_SNAPSHOT 4096
#define MAX_EVENTS_TOTAL 200000
#define MAX_PROCESS_SAMPLES 500000
#define MAX_INTERVAL_BYTES (64 << 20)
#define MAX_TS_US (G_GINT64_CONSTANT (100) * 365 * 24 * 3600 * G_USEC_PER_SEC)
#define READ_CHUNK (64 * 1024)
#define PARTIAL_SUFFIX ".partial"
#define HEADER_PREFIX "{\"otherData\":"
#define HEADER_SUFFIX ",\"traceEvents\":["
#define TRAILER "]}"
#define COMMIT_PREFIX "{\"ph\":\"C\",\"pid\":1,"

/* Formats ----------------------------------------------------------------- */

static const struct {
  RtopRecordFormat format;
  const char *name;
  const char *extension;
} format_table[] = {
  { RTOP_RECORD_FORMAT_JSON, "json", ".json" },
  { RTOP_RECORD_FORMAT_JSON_GZ, "json.gz", ".json.gz" },
  { RTOP_RECORD_FORMAT_CSV, "csv", ".csv" },
};

const char *
rtop_record_format_to_string (RtopRecordFormat format)
{
  g_return_val_if_fail (format < G_N_ELEMENTS (format_table), NULL);
  return format_table[format].name;
}

gboolean
rtop_record_format_from_string (const char *s, RtopRecordFormat *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (g_strcmp0 (s, format_table[i].name) == 0)
      {
        *out = format_table[i].format;
        return TRUE;
      }
  return FALSE;
}

const char *
rtop_record_format_get_extension (RtopRecordFormat format)
{
  g_return_val_if_fail (format < G_N_ELEMENTS (format_table), NULL);
  return format_table[format].extension;
}

gboolean
rtop_record_format_from_path (const char *path, RtopRecordFormat *out)
{
  g_autofree char *lower = NULL;

  if (path == NULL)
    return FALSE;
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, PARTIAL_SUFFIX))
    lower[strlen (lower) - strlen (PARTIAL_SUFFIX)] = '\0';
  /* Longest extension first: ".json.gz" also ends in ".gz". */
  for (int i = G_N_ELEMENTS (format_table) - 1; i >= 0; i--)
    if (g_str_has_suffix (lower, format_table[i].extension))
      {
        *out = format_table[i].format;
        return TRUE;
      }
  return FALSE;
}

char *
rtop_recording_default_filename (RtopRecordFormat format)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

  return g_strconcat ("rdmatop-", stamp, rtop_record_format_get_extension (format), NULL);
}

/* A line source over a file or memory, gzip or plain ------------------------ */

typedef struct {
  int fd;                      /* -1 for memory */
  GBytes *bytes;
  gsize mem_pos;
  gboolean gz;
  gboolean zs_ready;
  z_stream zs;
  guint8 *in;
  gsize in_len, in_pos;
  guint8 *out;
  gsize out_len, out_pos;
  gboolean raw_eof;            /* no more input bytes */
  gboolean eof;                /* no more text */
  gboolean damaged;            /* the gzip stream was cut off or corrupt */
  guint64 total;
  guint64 line_no;
  GString *line;
} Source;

static void
source_clear (Source *src)
{
  if (src->fd >= 0)
    close (src->fd);
  src->fd = -1;
  g_clear_pointer (&src->bytes, g_bytes_unref);
  if (src->zs_ready)
    inflateEnd (&src->zs);
  src->zs_ready = FALSE;
  g_clear_pointer (&src->in, g_free);
  g_clear_pointer (&src->out, g_free);
  if (src->line != NULL)
    g_string_free (src->line, TRUE);
  src->line = NULL;
}

static gssize
read_raw (Source *src, guint8 *buf, gsize cap, GError **error)
{
  if (src->fd < 0)
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (src->bytes, &len);
      gsize n = MIN (cap, len - src->mem_pos);

      if (n == 0)
        return 0;   /* (empty GBytes have no data pointer) */
      memcpy (buf, data + src->mem_pos, n);
      src->mem_pos += n;
      return (gssize) n;
    }
  for (;;)
    {
      ssize_t n = read (src->fd, buf, cap);

      if (n >= 0)
        return n;
      if (errno == EINTR)
        continue;
      {
        int errsv = errno;
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                     _("Cannot read the recording: %s."), g_strerror (errsv));
      }
      return -1;
    }
}

static gboolean
source_start (Source *src, GError **error)
{
  gssize n;

  src->in = g_malloc (READ_CHUNK);
  src->out = g_malloc (READ_CHUNK);
  src->line = g_string_new (NULL);
  n = read_raw (src, src->in, READ_CHUNK, error);
  if (n < 0)
    return FALSE;
  src->in_len = (gsize) n;
  src->raw_eof = n == 0;
  src->gz = n >= 2 && src->in[0] == 0x1f && src->in[1] == 0x8b;
  if (src->gz)
    {
      /* 15 + 32: zlib or gzip header, detected. */
      if (inflateInit2 (&src->zs, 15 + 32) != Z_OK)
        {
          g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_FAILED, _("Out of memory."));
          return FALSE;
        }
      src->zs_ready = TRUE;
    }
  return TRUE;
}

static gboolean
source_rewind (Source *src, GError **error)
{
  if (src->fd >= 0 && lseek (src->fd, 0, SEEK_SET) != 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot read the recording: %s."), g_strerror (errsv));
      return FALSE;
    }
  src->mem_pos = 0;
  if (src->zs_ready)
    inflateEnd (&src->zs);
  src->zs_ready = FALSE;
  g_clear_pointer (&src->in, g_free);
  g_clear_pointer (&src->out, g_free);
  g_string_free (src->line, TRUE);
  src->line = NULL;
  src->in_len = src->in_pos = src->out_len = src->out_pos = 0;
  src->raw_eof = src->eof = src->damaged = FALSE;
  src->total = src->line_no = 0;
  return source_start (src, error);
}

static gboolean
fill_input (Source *src, GError **error)
{
  gssize n;

  if (src->in_pos < src->in_len || src->raw_eof)
    return TRUE;
  n = read_raw (src, src->in, READ_CHUNK, error);
  if (n < 0)
    return FALSE;
  src->in_len = (gsize) n;
  src->in_pos = 0;
  src->raw_eof = n == 0;
  return TRUE;
}

/* Inflates the next piece.  A stream cut short or corrupt ends the text
 * (what came before stays usable) and marks the source damaged. */
static gboolean
fill_gz (Source *src, GError **error)
{
  int ret;

  if (!fill_input (src, error))
    return FALSE;
  if (src->in_pos == src->in_len && src->raw_eof)
    {
      src->eof = TRUE;
      return TRUE;
    }
  src->zs.next_in = src->in + src->in_pos;
  src->zs.avail_in = (uInt) (src->in_len - src->in_pos);
  src->zs.next_out = src->out;
  src->zs.avail_out = READ_CHUNK;
  ret = inflate (&src->zs, Z_NO_FLUSH);
  src->in_pos = src->in_len - src->zs.avail_in;
  src->out_len = READ_CHUNK - src->zs.avail_out;
  if (ret == Z_STREAM_END)
    {
      /* Concatenated gzip members are one stream. */
      if (inflateReset (&src->zs) != Z_OK)
        src->eof = TRUE;
    }
  else if (ret != Z_OK && !(ret == Z_BUF_ERROR && src->out_len > 0))
    {
      src->damaged = TRUE;
      src->eof = src->out_len == 0;
      src->raw_eof = TRUE;
      src->in_pos = src->in_len;
    }
  return TRUE;
}

static gboolean
fill_output (Source *src, GError **error)
{
  src->out_pos = 0;
  src->out_len = 0;
  while (src->out_len == 0 && !src->eof)
    {
      if (src->gz)
        {
          if (!fill_gz (src, error))
            return FALSE;
          continue;
        }
      if (!fill_input (src, error))
        return FALSE;
      if (src->in_pos == src->in_len)
        {
          src->eof = TRUE;
          break;
        }
      memcpy (src->out, src->in + src->in_pos, src->in_len - src->in_pos);
      src->out_len = src->in_len - src->in_pos;
      src->in_pos = src->in_len;
    }
  src->total += src->out_len;
  if (src->total > MAX_TEXT_BYTES)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("The recording is larger than rdmatop reads (%s)."), "8 GiB");
      return FALSE;
    }
  return TRUE;
}

/* The next line, without its newline (and without a trailing \r).
 * *complete is FALSE for a last line that has no newline (cut off).
 * Returns FALSE at the end of the text or on error (error set). */
static gboolean
source_next_line (Source *src, const char **line, gsize *len, gboolean *complete,
                  GError **error)
{
  g_string_truncate (src->line, 0);
  for (;;)
    {
      const guint8 *start, *nl;
      gsize avail;

      if (src->out_pos == src->out_len)
        {
          if (src->eof)
            break;
          if (!fill_output (src, error))
            return FALSE;
          continue;
        }
      start = src->out + src->out_pos;
      avail = src->out_len - src->out_pos;
      nl = memchr (start, '\n', avail);
      g_string_append_len (src->line, (const char *) start, nl != NULL ? nl - start : (gssize) avail);
      src->out_pos += nl != NULL ? (gsize) (nl - start) + 1 : avail;
      if (src->line->len > MAX_LINE_BYTES)
        {
          char line_text[32];

          /* A format macro inside _() cannot be translated: pass a string. */
          g_snprintf (line_text, sizeof line_text, "%" G_GUINT64_FORMAT, src->line_no + 1);
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                       _("Line %s of the recording is too long: this is not a recording made by rdmatop."),
                       line_text);
          return FALSE;
        }
      if (nl != NULL)
        {
          *complete = TRUE;
          goto found;
        }
    }
  if (src->line->len == 0)
    return FALSE;
  *complete = FALSE;

found:
  src->line_no++;
  if (src->line->len > 0 && src->line->str[src->line->len - 1] == '\r')
    g_string_truncate (src->line, src->line->len - 1);
  *line = src->line->str;
  *len = src->line->len;
  return TRUE;
}

static gboolean
source_open_file (Source *src, const char *path, GError **error)
{
  g_autofree char *display = g_filename_display_name (path);
  struct stat st;
  int errsv;

  src->fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (src->fd < 0)
    {
      errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot open “%s”: %s."), display, g_strerror (errsv));
      return FALSE;
    }
  if (fstat (src->fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("“%s” is not a regular file, so it is not a recording."), display);
      return FALSE;
    }
  if ((guint64) st.st_size > MAX_FILE_BYTES)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("“%s” is larger than any recording rdmatop reads (%s)."), display, "2 GiB");
      return FALSE;
    }
  return source_start (src, error);
}

static void
source_init (Source *src)
{
  memset (src, 0, sizeof *src);
  src->fd = -1;
}

/* JSON helpers ------------------------------------------------------------ */

/* json-glib parses recursively: refuse deep nesting before it sees a line.
 * Our lines nest three levels at most. */
static gboolean
json_depth_ok (const char *s, gsize len)
{
  int depth = 0;
  gboolean in_string = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      char c = s[i];

      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
          continue;
        }
      if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        {
          if (++depth > MAX_JSON_DEPTH)
            return FALSE;
        }
      else if (c == '}' || c == ']')
        depth--;
    }
  return TRUE;
}

static JsonObject *
parse_object (JsonParser *parser, const char *s, gsize len)
{
  JsonNode *root;

  if (len == 0 || !json_depth_ok (s, len))
    return NULL;
  if (!json_parser_load_from_data (parser, s, (gssize) len, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_node_get_object (root);
}

static const char *
get_string (JsonObject *obj, const char *name)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
get_number (JsonObject *obj, const char *name, double *out)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return isfinite (*out);
}

/* An integer within [lo, hi]. */
static gboolean
get_int (JsonObject *obj, const char *name, gint64 lo, gint64 hi, gint64 *out)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;
  gint64 v;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  v = json_node_get_int (node);
  if (v < lo || v > hi)
    return FALSE;
  *out = v;
  return TRUE;
}

static JsonObject *
get_object (JsonObject *obj, const char *name)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

/* The recording object ---------------------------------------------------- */

struct _RtopRecording {
  GObject parent_instance;

  RtopRecordFormat format;
  GPtrArray *snapshots;
  double interval_s;
  guint merge_factor;
  gboolean complete;
  char *producer;
};

G_DEFINE_FINAL_TYPE (RtopRecording, rtop_recording, G_TYPE_OBJECT)

static void
rtop_recording_finalize (GObject *object)
{
  RtopRecording *self = RTOP_RECORDING (object);

  g_ptr_array_unref (self->snapshots);
  g_free (self->producer);
  G_OBJECT_CLASS (rtop_recording_parent_class)->finalize (object);
}

static void
rtop_recording_class_init (RtopRecordingClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_recording_finalize;
}

static void
rtop_recording_init (RtopRecording *self)
{
  self->snapshots = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  self->merge_factor = 1;
}

static gboolean
invalid (GError **error, const char *message)
{
  g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING, message);
  return FALSE;
}

/* JSON trace reading ------------------------------------------------------ */

typedef struct {
  double start_monotonic_us;
  double start_realtime_us;
  double interval_s;
  char *producer;
} TraceHeader;

/* The first line: {"otherData":{...},"traceEvents":[ */
static gboolean
parse_header (JsonParser *parser, const char *line, gsize len, TraceHeader *header,
              GError **error)
{
  g_autofree char *text = NULL;
  JsonObject *root, *other;
  const char *producer;
  gint64 version;

  if (len < strlen (HEADER_PREFIX) + strlen (HEADER_SUFFIX)
      || strncmp (line, HEADER_PREFIX, strlen (HEADER_PREFIX)) != 0
      || !g_str_has_suffix (line, HEADER_SUFFIX))
    return invalid (error, _("This file is not a recording made by rdmatop."));

  text = g_strndup (line, len - strlen (HEADER_SUFFIX));
  text = g_realloc (text, strlen (text) + 2);
  strcat (text, "}");
  root = parse_object (parser, text, strlen (text));
  other = get_object (root, "otherData");
  producer = get_string (other, "producer");
  if (g_strcmp0 (producer, RTOP_TRACE_PRODUCER) != 0)
    return invalid (error, _("This trace was not made by rdmatop, so rdmatop cannot show it (open it in ui.perfetto.dev)."));
  if (!get_int (other, "rdmatop_format", 1, G_MAXINT, &version))
    return invalid (error, _("This recording has no format version: it is damaged."));
  if (version > RTOP_RECORDING_FORMAT_VERSION)
    return invalid (error, _("This recording was made by a newer rdmatop: update rdmatop to open it."));
  if (!get_number (other, "start_monotonic_us", &header->start_monotonic_us)
      || !get_number (other, "start_realtime_us", &header->start_realtime_us)
      || !get_number (other, "interval_s", &header->interval_s)
      || header->interval_s < 0 || header->interval_s > 3600
      /* Clocks within +-2^62 us, so adding a ts stays in range. */
      || fabs (header->start_monotonic_us) > 4.6e18
      || fabs (header->start_realtime_us) > 4.6e18)
    return invalid (error, _("The header of this recording is damaged."));
  header->producer = g_strdup (get_string (other, "version"));
  return TRUE;
}

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
  guint32 qps, contexts, mrs;
  guint64 mr_bytes;
} SliceInfo;

typedef struct {
  TraceHeader header;
  const RtopTraceCounter *counters;
  guint n_counters;
  GPtrArray *ports;            /* PortState*, index = pid - 2 */
  GHashTable *slices;          /* tid -> SliceInfo* */
  GPtrArray *pending_events;   /* RtopEvent* for the snapshot being built */
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
  RtopRecording *result;
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
  g_free (s);
}

static void
trace_reader_clear (TraceReader *r)
{
  g_free (r->header.producer);
  g_clear_pointer (&r->ports, g_ptr_array_unref);
  g_clear_pointer (&r->slices, g_hash_table_unref);
  g_clear_pointer (&r->pending_events, g_ptr_array_unref);
}

static PortState *
port_for_pid (TraceReader *r, gint64 pid)
{
  if (pid < 2 || pid - 2 >= (gint64) r->ports->len)
    return NULL;
  return g_ptr_array_index (r->ports, pid - 2);
}

static void
on_process_name (TraceReader *r, gint64 pid, JsonObject *args)
{
  const char *device = get_string (args, "device");
  gboolean gpu = g_strcmp0 (get_string (args, "kind"), "gpu") == 0;
  gint64 port = 0, dev_index = 0;
  PortState *p;

  if (pid < 2 || pid - 2 >= MAX_PORTS || device == NULL
      || !get_int (args, "port", gpu ? 0 : 1, G_MAXUINT32, &port))
    return;
  get_int (args, "dev_index", 0, G_MAXUINT32, &dev_index);
  if (pid - 2 >= (gint64) r->ports->len)
    g_ptr_array_set_size (r->ports, (guint) (pid - 1));
  if (g_ptr_array_index (r->ports, pid - 2) != NULL)
    return;   /* first name wins: a pid is one port for the whole recording */

  p = g_new0 (PortState, 1);
  p->device = g_strdup (device);
  p->port = (guint32) port;
  p->dev_index = (guint32) dev_index;
  p->provider = g_strdup (get_string (args, "provider"));
  p->protocol = g_strdup (get_string (args, "protocol"));
  p->netdev = g_strdup (get_string (args, "netdev"));
  p->link_layer = g_strdup (get_string (args, "link_layer"));
  p->rate_text = g_strdup (get_string (args, "rate"));
  p->gpu = gpu;
  p->remote = g_strdup (get_string (args, "remote"));
  p->gpu_vendor = g_strdup (get_string (args, "gpu_vendor"));
  p->gpu_model = g_strdup (get_string (args, "gpu_model"));
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
  for (int k = RTOP_EVENT_DEVICE_ADDED; k <= RTOP_EVENT_COLLECTION_RECOVERED; k++)
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

  if (g_strcmp0 (name, RTOP_TRACE_END_NAME) == 0 && get_string (args, "kind") == NULL)
    return;
  if (!kind_from_string (get_string (args, "kind"), &kind)
      || r->pending_events->len >= MAX_EVENTS_PER_SNAPSHOT
      || r->events_total >= MAX_EVENTS_TOTAL)
    return;
  r->events_total++;
  get_int (args, "port", 0, G_MAXUINT32, &port);
  event = rtop_event_new (kind, severity_from_string (get_string (args, "severity")),
                          get_string (args, "device"), (guint32) port,
                          get_string (args, "message"));
  event->monotonic_us = (gint64) r->header.start_monotonic_us + ts;
  event->realtime_us = (gint64) r->header.start_realtime_us + ts;
  event->counter = g_strdup (get_string (args, "counter"));
  event->old_value = g_strdup (get_string (args, "old"));
  event->new_value = g_strdup (get_string (args, "new"));
  g_ptr_array_add (r->pending_events, event);
}

static void
on_slice_begin (TraceReader *r, gint64 tid, JsonObject *args)
{
  SliceInfo *s;
  gint64 v;
  const char *device = get_string (args, "device");

  if (device == NULL || g_hash_table_size (r->slices) >= MAX_SLICES)
    return;
  s = g_new0 (SliceInfo, 1);
  s->pid = get_int (args, "pid", G_MININT32, G_MAXINT32, &v) ? (gint32) v : 0;
  {
    JsonNode *k = json_object_get_member (args, "kernel");
    s->kernel = k != NULL && JSON_NODE_HOLDS_VALUE (k)
                && json_node_get_value_type (k) == G_TYPE_BOOLEAN && json_node_get_boolean (k);
  }
  s->start_time = get_int (args, "start_time", 0, G_MAXINT64, &v) ? (guint64) v : 0;
  s->uid = get_int (args, "uid", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->qps = get_int (args, "qps", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->contexts = get_int (args, "contexts", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->mrs = get_int (args, "mrs", 0, G_MAXUINT32, &v) ? (guint32) v : 0;
  s->mr_bytes = get_int (args, "mr_bytes", 0, G_MAXINT64, &v) ? (guint64) v : 0;
  s->comm = g_strdup (get_string (args, "comm"));
  s->user = g_strdup (get_string (args, "user"));
  s->cmdline = g_strdup (get_string (args, "cmdline"));
  s->device = g_strdup (device);
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
      /* The recording keeps a GPU's identity, not its gauges. */
      dev->kind = RTOP_DEVICE_KIND_GPU;
      dev->gpu = rtop_gpu_new (p->gpu_vendor);
      dev->gpu->model = g_strdup (p->gpu_model);
    }
  g_ptr_array_add (snap->devices, dev);
  return dev;
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
set_gpu_gauges (RtopGpu *gpu, const PortState *p)
{
  guint n_gauges;
  const RtopTraceGauge *gauges = rtop_trace_gpu_gauges (&n_gauges);

  for (guint i = 0; i < MIN (n_gauges, G_N_ELEMENTS (p->gauge)); i++)
    G_STRUCT_MEMBER (double, gpu, gauges[i].offset) = p->gauge[i];
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
  return get_number (args, *key, v);
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
      || !scan_int (&p, end, MAX_TS_US, &ts)
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
  ev = parse_object (parser, line, len);
  JsonObject *args;
  const char *ph, *name;
  gint64 pid = 0, ts = 0, tid = 0;

  if (ev == NULL)
    return FALSE;
  ph = get_string (ev, "ph");
  name = get_string (ev, "name");
  args = get_object (ev, "args");
  if (ph == NULL || !get_int (ev, "pid", 0, G_MAXINT32, &pid))
    return FALSE;
  if (strcmp (ph, "M") != 0 && !get_int (ev, "ts", 0, MAX_TS_US, &ts))
    return FALSE;
  get_int (ev, "tid", 0, G_MAXINT32, &tid);

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

static void
strip_comma (const char *line, gsize *len)
{
  while (*len > 0 && (line[*len - 1] == ',' || line[*len - 1] == ' '))
    (*len)--;
}

/* Pass 1: the number of port-samples, from the commit events. */
static gboolean
trace_count (Source *src, guint64 *port_samples, GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;

  *port_samples = 0;
  while (source_next_line (src, &line, &len, &complete, &local))
    {
      const char *ports;

      if (!complete || strcmp (line, TRAILER) == 0)
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

static guint
merge_factor_for (guint64 port_samples, guint budget)
{
  guint64 k = (port_samples + budget - 1) / MAX (budget, 1);

  return (guint) CLAMP (k, 1, G_MAXUINT);
}

static gboolean
read_header_line (Source *src, JsonParser *parser, TraceHeader *header, GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;

  if (!source_next_line (src, &line, &len, &complete, &local))
    {
      if (local != NULL)
        g_propagate_error (error, local);
      else
        invalid (error, _("The file is empty: it is not a recording."));
      return FALSE;
    }
  if (!complete)
    return invalid (error, _("This file is not a recording made by rdmatop."));
  return parse_header (parser, line, len, header, error);
}

static gboolean
trace_load (Source *src, guint budget, RtopRecording *result, GError **error)
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
      || !source_rewind (src, error))
    goto out;
  g_clear_pointer (&r.header.producer, g_free);
  if (!read_header_line (src, parser, &r.header, error))
    goto out;

  r.counters = rtop_trace_counters (&r.n_counters);
  g_assert (r.n_counters <= G_N_ELEMENTS (((PortState *) NULL)->value));
  r.ports = g_ptr_array_new_with_free_func (port_state_free);
  r.slices = g_hash_table_new_full (NULL, NULL, NULL, slice_info_free);
  r.pending_events = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_event_free);
  r.merge = merge_factor_for (port_samples, budget);
  r.result = result;

  while (source_next_line (src, &line, &len, &complete, &local))
    {
      if (complete && strcmp (line, TRAILER) == 0)
        {
          r.ended = TRUE;
          break;
        }
      strip_comma (line, &len);
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
      invalid (error, _("The recording holds no complete interval."));
      goto out;
    }
  result->format = src->gz ? RTOP_RECORD_FORMAT_JSON_GZ : RTOP_RECORD_FORMAT_JSON;
  result->interval_s = r.header.interval_s * r.merge;
  result->merge_factor = r.merge;
  result->complete = r.ended && !src->damaged;
  result->producer = g_steal_pointer (&r.header.producer);
  ok = TRUE;

out:
  trace_reader_clear (&r);
  return ok;
}

/* CSV reading ------------------------------------------------------------- */

#define CSV_FIXED_COLUMNS 9
#define CSV_COLUMNS (CSV_FIXED_COLUMNS + RTOP_METRIC_N)

/* Splits one RFC 4180 line into exactly CSV_COLUMNS fields. */
static gboolean
csv_split (const char *line, gsize len, GPtrArray *fields)
{
  gsize i = 0;

  g_ptr_array_set_size (fields, 0);
  for (;;)
    {
      GString *f = g_string_new (NULL);

      if (i < len && line[i] == '"')
        {
          for (i++; i < len; i++)
            {
              if (line[i] == '"' && i + 1 < len && line[i + 1] == '"')
                g_string_append_c (f, '"'), i++;
              else if (line[i] == '"')
                break;
              else
                g_string_append_c (f, line[i]);
            }
          if (i >= len)
            {
              g_string_free (f, TRUE);
              return FALSE;
            }
          i++;
        }
      else
        for (; i < len && line[i] != ','; i++)
          g_string_append_c (f, line[i]);
      g_ptr_array_add (fields, g_string_free (f, FALSE));
      if (fields->len > CSV_COLUMNS)
        return FALSE;
      if (i >= len)
        break;
      if (line[i] != ',')
        return FALSE;
      i++;
    }
  return fields->len == CSV_COLUMNS;
}

typedef struct {
  char *key;
  guint64 value[RTOP_METRIC_N];
  gboolean present[RTOP_METRIC_N];
  gint64 monotonic_us;
} CsvPrev;

static void
csv_prev_free (gpointer data)
{
  CsvPrev *prev = data;

  g_free (prev->key);
  g_free (prev);
}

static gboolean
parse_u64 (const char *s, guint64 *out)
{
  return s[0] != '\0' && g_ascii_string_to_unsigned (s, 10, 0, G_MAXUINT64, out, NULL);
}

static guint8
state_from_string (const char *s)
{
  for (guint i = 0; i <= 5; i++)
    if (g_strcmp0 (rtop_port_state_to_string (i), s) == 0)
      return i;
  return 0;
}

/* The CSV has no device kind: a GPU library's provider id says it. */
static gboolean
is_gpu_provider (const char *provider)
{
  guint n;
  const RtopGpuLibrary *libs = rtop_gpu_libraries (&n);

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (provider, libs[i].id) == 0)
      return TRUE;
  return FALSE;
}

/* One row into the snapshot being built. */
static gboolean
csv_row (RtopSnapshot *snap, GPtrArray *f, GHashTable *prevs)
{
  gint64 mono = snap->monotonic_us;
  guint64 port_index;
  RtopDevice *dev;
  RtopPort *port;
  CsvPrev *prev;
  g_autofree char *key = NULL;
  double link = 0;

  gboolean gpu = is_gpu_provider (g_ptr_array_index (f, 5));

  /* Port 0 is a GPU's "all links" port; RDMA ports count from 1. */
  if (!parse_u64 (g_ptr_array_index (f, 4), &port_index) || (port_index == 0 && !gpu)
      || port_index > G_MAXUINT32 || ((char *) g_ptr_array_index (f, 3))[0] == '\0')
    return FALSE;
  dev = rtop_snapshot_find_device (snap, g_ptr_array_index (f, 3));
  if (dev == NULL)
    {
      if (snap->devices->len >= MAX_PORTS)
        return FALSE;
      dev = rtop_device_new (0, g_ptr_array_index (f, 3));
      dev->provider = ((char *) g_ptr_array_index (f, 5))[0] != '\0'
                      ? g_strdup (g_ptr_array_index (f, 5)) : NULL;
      if (gpu)
        {
          /* CSV keeps a GPU's links and rates, not its gauges. */
          dev->kind = RTOP_DEVICE_KIND_GPU;
          dev->gpu = rtop_gpu_new (NULL);
        }
      g_ptr_array_add (snap->devices, dev);
    }
  if (rtop_device_find_port (dev, (guint32) port_index) != NULL || dev->ports->len >= MAX_PORTS)
    return FALSE;
  port = rtop_port_new ((guint32) port_index);
  if (((char *) g_ptr_array_index (f, 6))[0] != '\0')
    port->netdev = g_strdup (g_ptr_array_index (f, 6));
  port->state = state_from_string (g_ptr_array_index (f, 7));
  if (((char *) g_ptr_array_index (f, 8))[0] != '\0')
    link = g_ascii_strtod (g_ptr_array_index (f, 8), NULL);
  port->rate_gbps = isfinite (link) && link > 0 ? link : 0;
  port->read_time_us = mono;
  g_ptr_array_add (dev->ports, port);
  dev->port_count = MAX (dev->port_count, port->index);

  key = g_strdup_printf ("%s/%u", dev->name, port->index);
  prev = g_hash_table_lookup (prevs, key);
  if (prev == NULL && g_hash_table_size (prevs) < MAX_PORTS)
    {
      prev = g_new0 (CsvPrev, 1);
      prev->key = g_strdup (key);
      prev->monotonic_us = G_MININT64;
      g_hash_table_insert (prevs, prev->key, prev);
    }
  for (guint i = 0; i < RTOP_METRIC_N; i++)
    {
      RtopMetric *m = &port->metrics[i];
      guint64 v;

      if (!parse_u64 (g_ptr_array_index (f, CSV_FIXED_COLUMNS + i), &v))
        continue;
      m->present = TRUE;
      m->value = v;
      if (prev != NULL && prev->present[i] && prev->monotonic_us < mono && v >= prev->value[i])
        {
          m->has_rate = TRUE;
          m->rate = (v - prev->value[i]) / ((mono - prev->monotonic_us) / 1e6);
        }
      if (prev != NULL)
        {
          prev->value[i] = v;
          prev->present[i] = TRUE;
        }
    }
  if (prev != NULL)
    {
      port->elapsed_s = prev->monotonic_us != G_MININT64 ? (mono - prev->monotonic_us) / 1e6 : 0;
      prev->monotonic_us = mono;
    }
  return TRUE;
}

typedef struct {
  RtopRecording *result;
  GHashTable *prevs;
  RtopSnapshot *building;
  guint merge;
  guint64 groups;
  guint64 sequence;
  gboolean have_current;
  gint64 current_mono;
  gboolean current_kept;
} CsvReader;

static void
csv_finish_group (CsvReader *c)
{
  RtopSnapshot *snap = g_steal_pointer (&c->building);

  if (snap == NULL)
    return;
  rtop_snapshot_seal (snap);
  g_ptr_array_add (c->result->snapshots, snap);
}

static gint64
parse_realtime (const char *s)
{
  g_autoptr(GDateTime) dt = s[0] != '\0' ? g_date_time_new_from_iso8601 (s, NULL) : NULL;

  return dt != NULL ? g_date_time_to_unix (dt) * G_USEC_PER_SEC
                      + g_date_time_get_microsecond (dt) : 0;
}

/* Rows of one interval share its monotonic_us.  Only every merge-th
 * interval is kept: counters are cumulative, so the rates of a kept one
 * span the skipped ones before it. */
static gboolean
csv_line (CsvReader *c, GPtrArray *fields)
{
  guint64 mono;

  if (!parse_u64 (g_ptr_array_index (fields, 0), &mono) || mono > G_MAXINT64)
    return FALSE;
  if (c->have_current && (gint64) mono == c->current_mono)
    return !c->current_kept || csv_row (c->building, fields, c->prevs);
  if (c->have_current && (gint64) mono < c->current_mono)
    return FALSE;

  csv_finish_group (c);
  c->have_current = TRUE;
  c->current_mono = (gint64) mono;
  c->current_kept = c->groups++ % c->merge == 0;
  if (!c->current_kept)
    return TRUE;
  c->building = rtop_snapshot_new ();
  c->building->monotonic_us = (gint64) mono;
  c->building->realtime_us = parse_realtime (g_ptr_array_index (fields, 2));
  c->building->sequence = ++c->sequence;
  return csv_row (c->building, fields, c->prevs);
}

static gboolean
csv_load (Source *src, guint budget, RtopRecording *result, GError **error)
{
  g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func (g_free);
  CsvReader c = { 0 };
  const char *line;
  gsize len;
  gboolean complete;
  guint64 rows = 0;
  GError *local = NULL;
  gboolean ok = FALSE;
  gboolean cut = FALSE;

  /* Pass 1 counts rows (port-samples) for the merge factor. */
  while (source_next_line (src, &line, &len, &complete, &local))
    rows += complete ? 1 : 0;
  if (local != NULL || !source_rewind (src, &local)
      || !source_next_line (src, &line, &len, &complete, &local))
    goto out;

  c.result = result;
  c.prevs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, csv_prev_free);
  c.merge = merge_factor_for (rows, budget);
  while (source_next_line (src, &line, &len, &complete, &local))
    {
      if (!complete || !csv_split (line, len, fields) || !csv_line (&c, fields))
        {
          cut = TRUE;
          break;
        }
    }
  csv_finish_group (&c);

out:
  if (local != NULL)
    g_propagate_error (error, local);
  else if (result->snapshots->len == 0)
    invalid (error, _("The recording holds no complete interval."));
  else
    {
      RtopSnapshot *first = g_ptr_array_index (result->snapshots, 0);
      RtopSnapshot *last = g_ptr_array_index (result->snapshots, result->snapshots->len - 1);

      result->format = RTOP_RECORD_FORMAT_CSV;
      result->merge_factor = c.merge;
      result->complete = !src->damaged && !cut;
      result->interval_s = result->snapshots->len > 1
        ? (last->monotonic_us - first->monotonic_us) / 1e6 / (result->snapshots->len - 1)
        : 0;
      for (guint i = 0; i < result->snapshots->len; i++)
        ((RtopSnapshot *) g_ptr_array_index (result->snapshots, i))->interval_s = result->interval_s;
      ok = TRUE;
    }
  g_clear_pointer (&c.prevs, g_hash_table_unref);
  g_clear_pointer (&c.building, rtop_snapshot_unref);
  return ok;
}

/* Loading ----------------------------------------------------------------- */

/* Looks at the first line (without consuming the source for good) to pick
 * the reader. */
static gboolean
is_csv (Source *src, GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;
  gboolean csv;

  if (!source_next_line (src, &line, &len, &complete, &local))
    {
      if (local != NULL)
        g_propagate_error (error, local);
      else
        invalid (error, _("The file is empty: it is not a recording."));
      return FALSE;
    }
  csv = complete && strcmp (line, rtop_csv_header ()) == 0;
  return source_rewind (src, error) && csv;
}

static RtopRecording *
load_source (Source *src, guint budget, GError **error)
{
  g_autoptr(RtopRecording) result = g_object_new (RTOP_TYPE_RECORDING, NULL);
  GError *local = NULL;
  gboolean csv;

  if (budget == 0)
    budget = RTOP_RECORDING_DEFAULT_MAX_PORT_SAMPLES;
  csv = is_csv (src, &local);
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return NULL;
    }
  if (csv ? !csv_load (src, budget, result, error) : !trace_load (src, budget, result, error))
    return NULL;
  return g_steal_pointer (&result);
}

RtopRecording *
rtop_recording_load_bytes (GBytes *data, guint max_port_samples, GError **error)
{
  Source src;
  RtopRecording *result = NULL;

  g_return_val_if_fail (data != NULL, NULL);

  source_init (&src);
  src.bytes = g_bytes_ref (data);
  if (g_bytes_get_size (data) > MAX_FILE_BYTES)
    invalid (error, _("The data is larger than any recording rdmatop reads."));
  else if (source_start (&src, error))
    result = load_source (&src, max_port_samples, error);
  source_clear (&src);
  return result;
}

static void
prefix_error (GError **error, const char *path)
{
  g_autofree char *display = NULL;

  if (error == NULL || *error == NULL || (*error)->domain != RTOP_ERROR)
    return;
  display = g_filename_display_name (path);
  g_prefix_error (error, _("Cannot open “%s”: "), display);
}

RtopRecording *
rtop_recording_load (const char *path, GError **error)
{
  Source src;
  RtopRecording *result = NULL;
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  source_init (&src);
  if (source_open_file (&src, path, &local))
    result = load_source (&src, 0, &local);
  source_clear (&src);
  if (local != NULL)
    {
      prefix_error (&local, path);
      g_propagate_error (error, local);
    }
  return result;
}

static void
load_thread (GTask *task, gpointer source_object, gpointer task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  RtopRecording *result = rtop_recording_load (task_data, &error);

  if (result != NULL)
    g_task_return_pointer (task, result, g_object_unref);
  else
    g_task_return_error (task, error);
}

void
rtop_recording_load_async (const char *path, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (path != NULL);
  g_task_set_source_tag (task, rtop_recording_load_async);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, load_thread);
}

RtopRecording *
rtop_recording_load_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

RtopRecordFormat
rtop_recording_get_format (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), RTOP_RECORD_FORMAT_JSON);
  return self->format;
}

GPtrArray *
rtop_recording_get_snapshots (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), NULL);
  return self->snapshots;
}

guint
rtop_recording_get_n_snapshots (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), 0);
  return self->snapshots->len;
}

RtopSnapshot *
rtop_recording_get_snapshot (RtopRecording *self, guint index)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), NULL);
  g_return_val_if_fail (index < self->snapshots->len, NULL);
  return g_ptr_array_index (self->snapshots, index);
}

gint64
rtop_recording_get_duration_us (RtopRecording *self)
{
  RtopSnapshot *first, *last;

  g_return_val_if_fail (RTOP_IS_RECORDING (self), 0);
  if (self->snapshots->len == 0)
    return 0;
  first = g_ptr_array_index (self->snapshots, 0);
  last = g_ptr_array_index (self->snapshots, self->snapshots->len - 1);
  return last->monotonic_us - first->monotonic_us;
}

double
rtop_recording_get_interval (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), 0);
  return self->interval_s;
}

guint
rtop_recording_get_merge_factor (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), 1);
  return self->merge_factor;
}

gboolean
rtop_recording_is_complete (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), FALSE);
  return self->complete;
}

const char *
rtop_recording_get_producer (RtopRecording *self)
{
  g_return_val_if_fail (RTOP_IS_RECORDING (self), NULL);
  return self->producer;
}

/* Recovery ---------------------------------------------------------------- */

typedef struct {
  int fd;
  char *path;
  gboolean gz;
  z_stream zs;
  guint64 offset;
} Sink;

static gboolean
sink_write (Sink *sink, const char *data, gsize len, int flush, GError **error)
{
  guint8 buf[16384];
  int ret;

  if (!sink->gz)
    {
      while (len > 0)
        {
          ssize_t n = write (sink->fd, data, len);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            goto failed;
          data += n;
          len -= (gsize) n;
        }
      return TRUE;
    }
  sink->zs.next_in = (Bytef *) data;
  sink->zs.avail_in = (uInt) len;
  do
    {
      gsize have;
      sink->zs.next_out = buf;
      sink->zs.avail_out = sizeof buf;
      ret = deflate (&sink->zs, flush);
      have = sizeof buf - sink->zs.avail_out;
      for (gsize done = 0; done < have;)
        {
          ssize_t n = write (sink->fd, buf + done, have - done);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0)
            goto failed;
          done += (gsize) n;
        }
    }
  while (sink->zs.avail_out == 0 || (flush == Z_FINISH && ret == Z_OK));
  return TRUE;

failed:
  {
    int errsv = errno != 0 ? errno : ENOSPC;
    g_autofree char *display = g_filename_display_name (sink->path);
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                 _("Cannot write “%s”: %s."), display, g_strerror (errsv));
  }
  return FALSE;
}

static char *
recovered_path_for (const char *input, gboolean gz)
{
  const char *ext = gz ? ".json.gz" : ".json";
  g_autofree char *base = NULL;

  if (g_str_has_suffix (input, PARTIAL_SUFFIX))
    return g_strndup (input, strlen (input) - strlen (PARTIAL_SUFFIX));
  base = g_str_has_suffix (input, ext) ? g_strndup (input, strlen (input) - strlen (ext))
                                       : g_strdup (input);
  return g_strconcat (base, "-recovered", ext, NULL);
}

typedef struct {
  GString *pending;            /* lines of the interval not committed yet */
  GHashTable *open;            /* tid -> pid of committed open slices */
  GHashTable *pending_open;    /* tid -> pid (or -1 for an end) this interval */
  gint64 last_commit_ts;
  guint64 intervals;
} Recovery;

/* Notes slice begins and ends of the current interval. */
static void
recovery_note_slice (Recovery *rc, JsonObject *ev, const char *ph)
{
  gint64 tid = 0, pid = 0;

  if (!get_int (ev, "tid", 0, G_MAXINT32, &tid) || !get_int (ev, "pid", 0, G_MAXINT32, &pid))
    return;
  g_hash_table_insert (rc->pending_open, GINT_TO_POINTER ((gint) tid),
                       GINT_TO_POINTER (strcmp (ph, "B") == 0 ? (gint) pid : -1));
}

static void
recovery_commit (Recovery *rc, gint64 ts)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, rc->pending_open);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (GPOINTER_TO_INT (value) < 0)
        g_hash_table_remove (rc->open, key);
      else if (g_hash_table_size (rc->open) < MAX_SLICES)
        g_hash_table_insert (rc->open, key, value);
    }
  g_hash_table_remove_all (rc->pending_open);
  rc->last_commit_ts = MAX (rc->last_commit_ts, ts);
  rc->intervals++;
}

/* Copies whole intervals of src to sink; returns FALSE on a read error. */
static gboolean
recovery_copy (Source *src, Sink *sink, Recovery *rc, JsonParser *parser, GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;

  while (source_next_line (src, &line, &len, &complete, &local))
    {
      JsonObject *ev;
      const char *ph, *name;
      gsize n = len;
      gint64 pid = 0, ts = 0;

      if (!complete || strcmp (line, TRAILER) == 0)
        break;
      strip_comma (line, &n);
      if (g_str_has_prefix (line, "{\"ph\":\"i\"")
          && strstr (line, "\"name\":\"" RTOP_TRACE_END_NAME "\"") != NULL)
        continue;  /* an end marker: the new one goes last */
      if (rc->pending->len > MAX_INTERVAL_BYTES)
        break;     /* not an interval rdmatop wrote */
      if ((ev = parse_object (parser, line, n)) == NULL)
        break;
      ph = get_string (ev, "ph");
      name = get_string (ev, "name");
      g_string_append_len (rc->pending, line, n);
      g_string_append (rc->pending, ",\n");
      if (g_strcmp0 (ph, "B") == 0 || g_strcmp0 (ph, "E") == 0)
        recovery_note_slice (rc, ev, ph);
      if (g_strcmp0 (ph, "C") == 0 && g_strcmp0 (name, RTOP_TRACE_COMMIT_NAME) == 0
          && get_int (ev, "pid", 0, G_MAXINT32, &pid) && pid == RTOP_TRACE_OWN_PID
          && get_int (ev, "ts", 0, MAX_TS_US, &ts))
        {
          recovery_commit (rc, ts);
          if (!sink_write (sink, rc->pending->str, rc->pending->len, Z_SYNC_FLUSH, error))
            return FALSE;
          g_string_truncate (rc->pending, 0);
        }
    }
  if (local != NULL)
    {
      g_propagate_error (error, local);
      return FALSE;
    }
  return TRUE;
}

static gboolean
recovery_finish (Sink *sink, Recovery *rc, GError **error)
{
  g_autoptr(GString) tail = g_string_new (NULL);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, rc->open);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_string_append_printf (tail, "{\"ph\":\"E\",\"pid\":%d,\"ts\":%" G_GINT64_FORMAT
                            ",\"tid\":%d},\n", GPOINTER_TO_INT (value),
                            rc->last_commit_ts, GPOINTER_TO_INT (key));
  g_string_append_printf (tail, "{\"ph\":\"i\",\"pid\":%d,\"ts\":%" G_GINT64_FORMAT
                          ",\"s\":\"g\",\"name\":\"%s\",\"args\":{\"intervals\":%"
                          G_GUINT64_FORMAT ",\"recovered\":true}}\n]}\n",
                          RTOP_TRACE_OWN_PID, rc->last_commit_ts, RTOP_TRACE_END_NAME,
                          rc->intervals);
  return sink_write (sink, tail->str, tail->len, Z_FINISH, error);
}

static gboolean
recover_source (Source *src, Sink *sink, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  TraceHeader header = { 0 };
  Recovery rc = { 0 };
  gboolean ok = FALSE;
  const char *line;
  gsize len;
  gboolean complete;

  if (!source_next_line (src, &line, &len, &complete, error) || !complete)
    return invalid (error, _("This file is not a recording made by rdmatop."));
  {
    g_autofree char *first = g_strndup (line, len);
    if (!parse_header (parser, first, len, &header, error)
        || !sink_write (sink, first, len, Z_NO_FLUSH, error)
        || !sink_write (sink, "\n", 1, Z_SYNC_FLUSH, error))
      goto out;
  }
  rc.pending = g_string_new (NULL);
  rc.open = g_hash_table_new (NULL, NULL);
  rc.pending_open = g_hash_table_new (NULL, NULL);
  if (recovery_copy (src, sink, &rc, parser, error))
    ok = recovery_finish (sink, &rc, error);
  g_string_free (rc.pending, TRUE);
  g_hash_table_unref (rc.open);
  g_hash_table_unref (rc.pending_open);

out:
  g_free (header.producer);
  return ok;
}

char *
rtop_recording_recover (const char *input, const char *output, GError **error)
{
  Source src;
  Sink sink = { .fd = -1 };
  g_autofree char *out_path = NULL;
  GError *local = NULL;
  gboolean ok = FALSE;

  g_return_val_if_fail (input != NULL, NULL);

  source_init (&src);
  if (!source_open_file (&src, input, &local))
    goto out;
  if (is_csv (&src, &local))
    {
      invalid (&local, _("CSV recordings need no recovery: every complete row is readable as it is."));
      goto out;
    }
  if (local != NULL)
    goto out;
  out_path = output != NULL ? g_strdup (output) : recovered_path_for (input, src.gz);
  sink.path = out_path;
  sink.gz = src.gz;
  sink.fd = open (out_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (sink.fd < 0)
    {
      int errsv = errno;
      g_autofree char *display = g_filename_display_name (out_path);
      g_set_error (&local, G_IO_ERROR, g_io_error_from_errno (errsv),
                   _("Cannot create “%s”: %s."), display, g_strerror (errsv));
      goto out;
    }
  if (sink.gz && deflateInit2 (&sink.zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                               Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("zlib deflateInit2 failed: out of memory");
  ok = recover_source (&src, &sink, &local) && fsync (sink.fd) == 0;
  if (sink.gz)
    deflateEnd (&sink.zs);

out:
  source_clear (&src);
  if (sink.fd >= 0)
    {
      close (sink.fd);
      if (!ok)
        g_unlink (out_path);
    }
  if (!ok)
    {
      prefix_error (&local, input);
      if (local == NULL)
        g_set_error (&local, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write the recovered recording."));
      g_propagate_error (error, local);
      return NULL;
    }
  return g_steal_pointer (&out_path);
}
