/* rtop-record-format.c: THE table of recording formats (the fields are
 * described in the header).  A new format is its sink and reader in a file
 * of their own, and one row here; the CLI, the preferences, the Open dialog
 * and the settings schema's enum (checked by a test) follow the table. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-csv-reader.h"
#include "rtop-csv-writer.h"
#include "rtop-record-format.h"
#include "rtop-trace-reader.h"
#include "rtop-trace-writer.h"

/* The finished file and one cut short. */
#define PATTERNS(extension) { "*" extension, "*" extension RTOP_RECORD_PARTIAL_SUFFIX, NULL }

#define TRACE_HOLDS (RTOP_RECORD_HOLDS_PORT_INFO | RTOP_RECORD_HOLDS_RATES \
                     | RTOP_RECORD_HOLDS_EVENTS | RTOP_RECORD_HOLDS_PROCESSES)

/* Indexed by RtopRecordFormat (checked in rtop_record_format_get_info). */
static const RtopRecordFormatInfo format_table[] = {
  {
    .id = RTOP_RECORD_FORMAT_JSON,
    .name = "json",
    .extension = ".json",
    .display_name = N_("Perfetto trace (.json)"),
    .version = RTOP_TRACE_FORMAT_VERSION,
    .holds = TRACE_HOLDS,
    .flags = RTOP_RECORD_FORMAT_RECORDABLE,
    .patterns = PATTERNS (".json"),
    .sink = &rtop_trace_sink_class,
    .reader = &rtop_trace_reader_class,
  },
  {
    .id = RTOP_RECORD_FORMAT_JSON_GZ,
    .name = "json.gz",
    .extension = ".json.gz",
    .display_name = N_("Compressed Perfetto trace (.json.gz)"),
    .version = RTOP_TRACE_FORMAT_VERSION,
    .holds = TRACE_HOLDS,
    .flags = RTOP_RECORD_FORMAT_RECORDABLE | RTOP_RECORD_FORMAT_COMPRESSED,
    .patterns = PATTERNS (".json.gz"),
    .sink = &rtop_trace_sink_class,
    .reader = &rtop_trace_reader_class,
  },
  {
    .id = RTOP_RECORD_FORMAT_CSV,
    .name = "csv",
    .extension = ".csv",
    .display_name = N_("Counters as CSV (.csv)"),
    .version = RTOP_CSV_FORMAT_VERSION,
    .holds = RTOP_RECORD_HOLDS_PORT_INFO | RTOP_RECORD_HOLDS_COUNTERS,
    .flags = RTOP_RECORD_FORMAT_RECORDABLE,
    .patterns = PATTERNS (".csv"),
    .sink = &rtop_csv_sink_class,
    .reader = &rtop_csv_reader_class,
  },
};

const RtopRecordFormatInfo *
rtop_record_formats (guint *n_formats)
{
  *n_formats = G_N_ELEMENTS (format_table);
  return format_table;
}

const RtopRecordFormatInfo *
rtop_record_format_get_info (RtopRecordFormat format)
{
  if ((guint) format >= G_N_ELEMENTS (format_table))
    return NULL;
  g_assert (format_table[format].id == format);
  return &format_table[format];
}

const char *
rtop_record_format_to_string (RtopRecordFormat format)
{
  const RtopRecordFormatInfo *info = rtop_record_format_get_info (format);

  g_return_val_if_fail (info != NULL, NULL);
  return info->name;
}

gboolean
rtop_record_format_from_string (const char *s, RtopRecordFormat *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (g_strcmp0 (s, format_table[i].name) == 0)
      {
        *out = format_table[i].id;
        return TRUE;
      }
  return FALSE;
}

const char *
rtop_record_format_get_extension (RtopRecordFormat format)
{
  const RtopRecordFormatInfo *info = rtop_record_format_get_info (format);

  g_return_val_if_fail (info != NULL, NULL);
  return info->extension;
}

gboolean
rtop_record_format_from_path (const char *path, RtopRecordFormat *out)
{
  g_autofree char *lower = NULL;
  gsize best = 0;

  if (path == NULL)
    return FALSE;
  lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, RTOP_RECORD_PARTIAL_SUFFIX))
    lower[strlen (lower) - strlen (RTOP_RECORD_PARTIAL_SUFFIX)] = '\0';
  /* The longest extension that fits: ".json.gz" also ends in ".gz". */
  for (guint i = 0; i < G_N_ELEMENTS (format_table); i++)
    {
      gsize len = strlen (format_table[i].extension);

      if (len > best && g_str_has_suffix (lower, format_table[i].extension))
        {
          best = len;
          *out = format_table[i].id;
        }
    }
  return best > 0;
}

char *
rtop_record_format_list_names (const char *separator)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < G_N_ELEMENTS (format_table); i++)
    if (format_table[i].flags & RTOP_RECORD_FORMAT_RECORDABLE)
      g_ptr_array_add (names, (gpointer) format_table[i].name);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (separator, (char **) names->pdata);
}

/* The row for a file whose first line is line: one whose reader knows the
 * line, and of two such rows (json, json.gz) the one of the file's
 * compression. */
static const RtopRecordFormatInfo *
detect_row (const char *line, gsize len, gboolean gz)
{
  const RtopRecordFormatInfo *formats, *fallback = NULL;
  guint n;

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    {
      const RtopRecordFormatInfo *info = &formats[i];

      if (info->reader == NULL || !info->reader->probe (line, len))
        continue;
      if (((info->flags & RTOP_RECORD_FORMAT_COMPRESSED) != 0) == gz)
        return info;
      if (fallback == NULL)
        fallback = info;
    }
  return fallback;
}

const RtopRecordFormatInfo *
rtop_record_format_detect (RtopLineSource *src, GError **error)
{
  const RtopRecordFormatInfo *info;
  const char *line;
  gsize len;

  if (!rtop_record_reader_first_line (src, &line, &len, error))
    return NULL;
  info = detect_row (line, len, src->gz);
  if (!rtop_line_source_rewind (src, error))
    return NULL;
  if (info == NULL)
    rtop_record_reader_invalid (error, _("This file is not a recording made by rdmatop."));
  return info;
}

RtopRecordSink *
rtop_record_format_new_sink (RtopRecordFormat format)
{
  const RtopRecordFormatInfo *info = rtop_record_format_get_info (format);

  if (info == NULL || info->sink == NULL)
    return NULL;
  return rtop_record_sink_new (info->sink);
}
