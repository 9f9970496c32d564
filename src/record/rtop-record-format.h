/* rtop-record-format.h: the recording formats rdmatop writes and reads.
 *
 * One table (rtop-record-format.c) lists every format: its name (the CLI's
 * --format value and the GSettings nick), file extension, a display name,
 * the version of its layout, what it can hold, whether it is compressed,
 * the sink that writes it and the reader that loads it.  The recorder,
 * recovery, the CLI, the preferences and the Open dialog all read this
 * table; adding a format is its sink and reader in a file of their own and
 * one row here.
 *
 *   json     Chrome JSON trace, opened directly by ui.perfetto.dev
 *   json.gz  the same, gzip-compressed (Perfetto detects gzip itself)
 *   csv      one row per port per interval, cumulative counters
 *
 * While a recording runs it is written to "<target>.partial"
 * (RTOP_RECORD_PARTIAL_SUFFIX); a reader loads such a file as it is. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RTOP_RECORD_FORMAT_JSON,
  RTOP_RECORD_FORMAT_JSON_GZ,
  RTOP_RECORD_FORMAT_CSV,
} RtopRecordFormat;

/* What a format keeps of a snapshot (the rest is lost on the way). */
typedef enum {
  RTOP_RECORD_HOLDS_PORT_INFO = 1 << 0,  /* provider, netdev, state, link rate */
  RTOP_RECORD_HOLDS_RATES     = 1 << 1,  /* the main metrics' rates (6 digits) */
  RTOP_RECORD_HOLDS_COUNTERS  = 1 << 2,  /* every metric's cumulative value, exactly */
  RTOP_RECORD_HOLDS_EVENTS    = 1 << 3,  /* health events */
  RTOP_RECORD_HOLDS_PROCESSES = 1 << 4,  /* the processes using each device */
} RtopRecordHolds;

typedef enum {
  RTOP_RECORD_FORMAT_COMPRESSED = 1 << 0,  /* the file is gzip */
  RTOP_RECORD_FORMAT_RECORDABLE = 1 << 1,  /* offered by the CLI and the app */
} RtopRecordFormatFlags;

/* While a recording is written its file has this suffix. */
#define RTOP_RECORD_PARTIAL_SUFFIX ".partial"

/* The vtables behind a format (rtop-record-sink.h, rtop-record-reader.h). */
typedef struct _RtopRecordSinkClass RtopRecordSinkClass;
typedef struct _RtopRecordReaderClass RtopRecordReaderClass;

typedef struct {
  RtopRecordFormat id;
  const char *name;              /* "json.gz": --format, GSettings nick */
  const char *extension;         /* ".json.gz" */
  const char *display_name;      /* N_(): translate with _() before showing */
  guint version;                 /* of the layout written; readers take up to it */
  RtopRecordHolds holds;
  RtopRecordFormatFlags flags;
  /* Glob patterns of the files the reader loads, NULL-terminated: the
   * finished file and one cut short ("*.json", "*.json.partial"). */
  const char *patterns[3];
  const RtopRecordSinkClass *sink;       /* NULL: read-only */
  const RtopRecordReaderClass *reader;
} RtopRecordFormatInfo;

/* Every format, in table order (the order the preferences list them). */
const RtopRecordFormatInfo *rtop_record_formats (guint *n_formats);
/* NULL for a value that is not in the table. */
const RtopRecordFormatInfo *rtop_record_format_get_info (RtopRecordFormat format);

/* "json", "json.gz", "csv" (the CLI's --format values). */
const char *rtop_record_format_to_string (RtopRecordFormat format);
gboolean rtop_record_format_from_string (const char *s, RtopRecordFormat *out);
/* ".json", ".json.gz", ".csv" */
const char *rtop_record_format_get_extension (RtopRecordFormat format);
/* From a file name's extension (a ".partial" suffix is looked through);
 * FALSE when it has none of the table's. */
gboolean rtop_record_format_from_path (const char *path, RtopRecordFormat *out);
/* The names of the recordable formats joined by separator ("json, json.gz,
 * csv"), for help texts. */
char *rtop_record_format_list_names (const char *separator);

G_END_DECLS
