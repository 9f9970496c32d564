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
#include "rtop-format-info.h"
#include "rtop-line-source.h"
#include "rtop-record-sink.h"

G_BEGIN_DECLS

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

/* The row whose reader takes the file src reads (from its first line and
 * its compression), with src rewound; NULL with an error when none does. */
const RtopRecordFormatInfo *rtop_record_format_detect (RtopLineSource *src, GError **error);
/* A sink writing format, or NULL when the table has no sink for it. */
RtopRecordSink *rtop_record_format_new_sink (RtopRecordFormat format);

G_END_DECLS
