/* rtop-csv-writer.c: snapshots -> CSV rows (layout in the header). */
#include "config.h"

#include <string.h>

#include "rtop-csv-writer-private.h"
#include "rtop-trace-writer.h"

struct _RtopCsvWriter {
  gboolean begun;
  gint64 first_monotonic_us;
  gint64 first_realtime_us;
  gboolean have_first;
  GHashTable *clock_offsets;   /* host ("" here) -> gint64*: its monotonic clock to ours */
};

/* The fixed columns before the metric columns. */
static const char * const fixed_columns[] = {
  "monotonic_us", "time_s", "realtime_utc", "device", "port", "provider",
  "netdev", "state", "link_gbps",
};

static char *csv_header;

const char *
rtop_csv_header (void)
{
  if (g_once_init_enter (&csv_header))
    {
      GString *s = g_string_new (NULL);

      for (guint i = 0; i < G_N_ELEMENTS (fixed_columns); i++)
        g_string_append_printf (s, "%s%s", i > 0 ? "," : "", fixed_columns[i]);
      for (guint i = 0; i < RTOP_METRIC_N; i++)
        g_string_append_printf (s, ",%s", rtop_metric_id_to_string (i));
      g_once_init_leave (&csv_header, g_string_free (s, FALSE));
    }
  return csv_header;
}

RtopCsvWriter *
rtop_csv_writer_new (void)
{
  RtopCsvWriter *self = g_new0 (RtopCsvWriter, 1);

  self->clock_offsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

void
rtop_csv_writer_free (RtopCsvWriter *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->clock_offsets);
  g_free (self);
}

/* As the trace writer does: each host's monotonic clock is placed on the
 * recording's time line by the wall clocks at its first snapshot. */
static gint64
clock_offset (RtopCsvWriter *self, const RtopSnapshot *snapshot)
{
  return rtop_trace_host_clock_offset (self->clock_offsets, self->first_monotonic_us,
                                       self->first_realtime_us, snapshot);
}

static void
csv_writer_begin (RtopCsvWriter *self, GString *out)
{
  g_return_if_fail (!self->begun);

  self->begun = TRUE;
  g_string_append (out, rtop_csv_header ());
  g_string_append (out, "\r\n");
}

/* RFC 4180: a field with a comma, quote or line break is quoted, quotes
 * doubled. */
static void
append_field (GString *out, const char *s)
{
  gboolean quote;

  g_string_append_c (out, ',');
  if (s == NULL)
    return;
  quote = strpbrk (s, ",\"\r\n") != NULL;
  if (!quote)
    {
      g_string_append (out, s);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
append_realtime (GString *out, gint64 realtime_us)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (realtime_us / G_USEC_PER_SEC);

  g_string_append_c (out, ',');
  if (dt == NULL)
    return;
  g_string_append_printf (out, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                          g_date_time_get_year (dt), g_date_time_get_month (dt),
                          g_date_time_get_day_of_month (dt), g_date_time_get_hour (dt),
                          g_date_time_get_minute (dt), g_date_time_get_second (dt),
                          (int) (((realtime_us % G_USEC_PER_SEC) + G_USEC_PER_SEC) % G_USEC_PER_SEC));
}

static void
append_row (RtopCsvWriter *self, const RtopSnapshot *snapshot,
            const RtopDevice *dev, const RtopPort *port, GString *out)
{
  char port_text[16];
  gint64 mono = snapshot->monotonic_us + clock_offset (self, snapshot);

  g_string_append_printf (out, "%" G_GINT64_FORMAT ",", mono);
  rtop_json_append_double (out, (mono - self->first_monotonic_us) / 1e6);
  append_realtime (out, snapshot->realtime_us);
  if (snapshot->host != NULL)
    {
      /* A remote host's rows say whose they are, as the window's keys do. */
      g_autofree char *name = g_strdup_printf ("%s:%s", snapshot->host, dev->name);

      append_field (out, name);
    }
  else
    append_field (out, dev->name);
  g_snprintf (port_text, sizeof port_text, "%u", port->index);
  append_field (out, port_text);
  append_field (out, dev->provider);
  append_field (out, port->netdev);
  append_field (out, rtop_port_state_to_string (port->state));
  g_string_append_c (out, ',');
  if (port->rate_gbps > 0)
    rtop_json_append_double (out, port->rate_gbps);
  for (guint i = 0; i < RTOP_METRIC_N; i++)
    {
      g_string_append_c (out, ',');
      if (port->metrics[i].present)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, port->metrics[i].value);
    }
  g_string_append (out, "\r\n");
}

void
rtop_csv_writer_add (RtopCsvWriter *self, const RtopSnapshot *snapshot,
                     GString *out)
{
  g_return_if_fail (snapshot != NULL);

  if (!self->begun)
    csv_writer_begin (self, out);
  if (!self->have_first)
    {
      self->have_first = TRUE;
      self->first_monotonic_us = snapshot->monotonic_us;
      self->first_realtime_us = snapshot->realtime_us;
    }

  for (guint i = 0; i < snapshot->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snapshot->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        append_row (self, snapshot, dev, g_ptr_array_index (dev->ports, j), out);
    }
}

/* The sink ---------------------------------------------------------------- */

static gpointer
sink_create (void)
{
  return rtop_csv_writer_new ();
}

static void
sink_destroy (gpointer impl)
{
  rtop_csv_writer_free (impl);
}

static void
sink_begin (gpointer impl, const RtopSnapshot *first, GString *out)
{
  csv_writer_begin (impl, out);
}

static void
sink_add (gpointer impl, const RtopSnapshot *snapshot, GString *out)
{
  rtop_csv_writer_add (impl, snapshot, out);
}

static void
sink_end (gpointer impl, GString *out)
{
  /* Rows stand alone: nothing closes the file. */
}

const RtopRecordSinkClass rtop_csv_sink_class = {
  .create = sink_create,
  .destroy = sink_destroy,
  .begin = sink_begin,
  .add = sink_add,
  .mark_gap = NULL,
  .end = sink_end,
};
