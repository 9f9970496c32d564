/* rtop-trace-parse.c: the pieces of the Chrome JSON trace that its reader
 * and its recovery both read: the header line, event lines checked for
 * depth before json-glib sees them, and their typed fields. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "rtop-record-reader.h"
#include "rtop-trace-parse.h"
#include "rtop-trace-writer.h"

#define MAX_JSON_DEPTH 8

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

JsonObject *
rtop_trace_parse_line (JsonParser *parser, const char *s, gsize len)
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

const char *
rtop_trace_get_string (JsonObject *obj, const char *name)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

gboolean
rtop_trace_get_number (JsonObject *obj, const char *name, double *out)
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
gboolean
rtop_trace_get_int (JsonObject *obj, const char *name, gint64 lo, gint64 hi, gint64 *out)
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

JsonObject *
rtop_trace_get_object (JsonObject *obj, const char *name)
{
  JsonNode *node = obj != NULL ? json_object_get_member (obj, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

/* The first line: {"otherData":{...},"traceEvents":[ */
gboolean
rtop_trace_parse_header (JsonParser *parser, const char *line, gsize len,
                         RtopTraceHeader *header, GError **error)
{
  g_autofree char *text = NULL;
  JsonObject *root, *other;
  const char *producer;
  gint64 version;

  if (len < strlen (RTOP_TRACE_HEADER_PREFIX) + strlen (RTOP_TRACE_HEADER_SUFFIX)
      || strncmp (line, RTOP_TRACE_HEADER_PREFIX, strlen (RTOP_TRACE_HEADER_PREFIX)) != 0
      || !g_str_has_suffix (line, RTOP_TRACE_HEADER_SUFFIX))
    return rtop_record_reader_invalid (error, _("This file is not a recording made by rdmatop."));

  text = g_strndup (line, len - strlen (RTOP_TRACE_HEADER_SUFFIX));
  text = g_realloc (text, strlen (text) + 2);
  strcat (text, "}");
  root = rtop_trace_parse_line (parser, text, strlen (text));
  other = rtop_trace_get_object (root, "otherData");
  producer = rtop_trace_get_string (other, "producer");
  if (g_strcmp0 (producer, RTOP_TRACE_PRODUCER) != 0)
    return rtop_record_reader_invalid (error, _("This trace was not made by rdmatop, so rdmatop cannot show it (open it in ui.perfetto.dev)."));
  if (!rtop_trace_get_int (other, "rdmatop_format", 1, G_MAXINT, &version))
    return rtop_record_reader_invalid (error, _("This recording has no format version: it is damaged."));
  if (version > RTOP_TRACE_FORMAT_VERSION)
    return rtop_record_reader_invalid (error, _("This recording was made by a newer rdmatop: update rdmatop to open it."));
  if (!rtop_trace_get_number (other, "start_monotonic_us", &header->start_monotonic_us)
      || !rtop_trace_get_number (other, "start_realtime_us", &header->start_realtime_us)
      || !rtop_trace_get_number (other, "interval_s", &header->interval_s)
      || header->interval_s < 0 || header->interval_s > 3600
      /* Clocks within +-2^62 us, so adding a ts stays in range. */
      || fabs (header->start_monotonic_us) > 4.6e18
      || fabs (header->start_realtime_us) > 4.6e18)
    return rtop_record_reader_invalid (error, _("The header of this recording is damaged."));
  header->producer = g_strdup (rtop_trace_get_string (other, "version"));
  return TRUE;
}

void
rtop_trace_strip_comma (const char *line, gsize *len)
{
  while (*len > 0 && (line[*len - 1] == ',' || line[*len - 1] == ' '))
    (*len)--;
}
