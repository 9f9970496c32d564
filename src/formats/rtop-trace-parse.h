/* rtop-trace-parse.h: what the Chrome JSON trace's reader and its recovery
 * share: the header, checked JSON lines and their typed fields. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define RTOP_TRACE_HEADER_PREFIX "{\"otherData\":"
#define RTOP_TRACE_HEADER_SUFFIX ",\"traceEvents\":["
#define RTOP_TRACE_TRAILER "]}"
/* Timestamps beyond a century are not an rdmatop recording's. */
#define RTOP_TRACE_MAX_TS_US (G_GINT64_CONSTANT (100) * 365 * 24 * 3600 * G_USEC_PER_SEC)
/* Processes open at once (one slice each). */
#define RTOP_TRACE_MAX_SLICES 65536

typedef struct {
  double start_monotonic_us;
  double start_realtime_us;
  double interval_s;
  char *producer;
} RtopTraceHeader;

/* The first line: {"otherData":{...},"traceEvents":[ (checked: ours, a
 * version this reader knows, sane clocks).  header->producer is the
 * caller's to free. */
gboolean rtop_trace_parse_header (JsonParser *parser, const char *line, gsize len,
                                  RtopTraceHeader *header, GError **error);
/* One event line as an object, or NULL when it is not one (or nests
 * deeper than any line rdmatop writes). */
JsonObject *rtop_trace_parse_line (JsonParser *parser, const char *s, gsize len);
/* A member of the given type, or NULL / FALSE. */
const char *rtop_trace_get_string (JsonObject *obj, const char *name);
/* A finite number. */
gboolean rtop_trace_get_number (JsonObject *obj, const char *name, double *out);
/* A member object. */
JsonObject *rtop_trace_get_object (JsonObject *obj, const char *name);
/* An integer within [lo, hi]. */
gboolean rtop_trace_get_int (JsonObject *obj, const char *name, gint64 lo, gint64 hi,
                             gint64 *out);
/* Drops the comma that ends every event line but the last. */
void rtop_trace_strip_comma (const char *line, gsize *len);

G_END_DECLS
