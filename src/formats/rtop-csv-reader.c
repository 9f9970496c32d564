/* rtop-csv-reader.c: CSV written by rtop-csv-writer.c read back into
 * snapshots (the layout is in rtop-csv-writer.h).  Counters are
 * cumulative, so rates come from the difference to the port's previous
 * row, and a long recording keeps every merge-th interval. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "rtop-csv-reader.h"
#include "rtop-csv-writer.h"

#define MAX_PORTS 4096

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

  /* The CSV has no device kind: a GPU library's provider id says it. */
  gboolean gpu = rtop_device_kind_for_provider (g_ptr_array_index (f, 5)) == RTOP_DEVICE_KIND_GPU;

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
  RtopRecordLoad *result;
  GHashTable *prevs;
  GHashTable *ports_seen;      /* "device/port" of the ports loaded so far */
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
  rtop_record_reader_note_down_at_start (c->ports_seen, snap);
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
csv_load (RtopLineSource *src, guint budget, RtopRecordLoad *result, GError **error)
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
  while (rtop_line_source_next_line (src, &line, &len, &complete, &local))
    rows += complete ? 1 : 0;
  if (local != NULL || !rtop_line_source_rewind (src, &local)
      || !rtop_line_source_next_line (src, &line, &len, &complete, &local))
    goto out;

  c.result = result;
  c.prevs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, csv_prev_free);
  c.ports_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  c.merge = rtop_record_reader_merge_factor (rows, budget);
  while (rtop_line_source_next_line (src, &line, &len, &complete, &local))
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
    rtop_record_reader_invalid (error, _("The recording holds no complete interval."));
  else
    {
      RtopSnapshot *first = g_ptr_array_index (result->snapshots, 0);
      RtopSnapshot *last = g_ptr_array_index (result->snapshots, result->snapshots->len - 1);

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
  g_clear_pointer (&c.ports_seen, g_hash_table_unref);
  g_clear_pointer (&c.building, rtop_snapshot_unref);
  return ok;
}

static gboolean
csv_probe (const char *first_line, gsize len)
{
  return len == strlen (rtop_csv_header ()) && memcmp (first_line, rtop_csv_header (), len) == 0;
}

const RtopRecordReaderClass rtop_csv_reader_class = {
  .probe = csv_probe,
  .load = csv_load,
  .recover = NULL,
};
