/* rtop-format-info.h: what a row of the recording format table is made
 * of: the formats' ids, what each can hold, and the row itself, which
 * points at the format's sink and reader.  The table that lists the rows
 * is rtop-record-format.h, above the sinks and readers it names. */
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

G_END_DECLS
