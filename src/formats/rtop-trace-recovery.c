/* rtop-trace-recovery.c: the Chrome JSON trace's recover hook, which
 * closes a trace that was cut short: whole intervals are copied, the
 * process slices still open at the last one are ended there, and the array
 * is closed.  rtop_recording_recover() (rtop-recording.h) calls it through
 * the format table. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-trace-recovery.h"
#include "rtop-trace-parse.h"
#include "rtop-trace-writer.h"

/* One interval of text held before its commit line. */
#define MAX_INTERVAL_BYTES (64 << 20)

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

  if (!rtop_trace_get_int (ev, "tid", 0, G_MAXINT32, &tid)
      || !rtop_trace_get_int (ev, "pid", 0, G_MAXINT32, &pid))
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
      else if (g_hash_table_size (rc->open) < RTOP_TRACE_MAX_SLICES)
        g_hash_table_insert (rc->open, key, value);
    }
  g_hash_table_remove_all (rc->pending_open);
  rc->last_commit_ts = MAX (rc->last_commit_ts, ts);
  rc->intervals++;
}

/* Copies whole intervals of src to out; returns FALSE on a read error. */
static gboolean
recovery_copy (RtopLineSource *src, RtopRecordFile *out, Recovery *rc, JsonParser *parser,
               GError **error)
{
  const char *line;
  gsize len;
  gboolean complete;
  GError *local = NULL;

  while (rtop_line_source_next_line (src, &line, &len, &complete, &local))
    {
      JsonObject *ev;
      const char *ph, *name;
      gsize n = len;
      gint64 pid = 0, ts = 0;

      if (!complete || strcmp (line, RTOP_TRACE_TRAILER) == 0)
        break;
      rtop_trace_strip_comma (line, &n);
      if (g_str_has_prefix (line, "{\"ph\":\"i\"")
          && strstr (line, "\"name\":\"" RTOP_TRACE_END_NAME "\"") != NULL)
        continue;  /* an end marker: the new one goes last */
      if (rc->pending->len > MAX_INTERVAL_BYTES)
        break;     /* not an interval rdmatop wrote */
      if ((ev = rtop_trace_parse_line (parser, line, n)) == NULL)
        break;
      ph = rtop_trace_get_string (ev, "ph");
      name = rtop_trace_get_string (ev, "name");
      g_string_append_len (rc->pending, line, n);
      g_string_append (rc->pending, ",\n");
      if (g_strcmp0 (ph, "B") == 0 || g_strcmp0 (ph, "E") == 0)
        recovery_note_slice (rc, ev, ph);
      if (g_strcmp0 (ph, "C") == 0 && g_strcmp0 (name, RTOP_TRACE_COMMIT_NAME) == 0
          && rtop_trace_get_int (ev, "pid", 0, G_MAXINT32, &pid) && pid == RTOP_TRACE_OWN_PID
          && rtop_trace_get_int (ev, "ts", 0, RTOP_TRACE_MAX_TS_US, &ts))
        {
          recovery_commit (rc, ts);
          if (!rtop_record_file_append (out, rc->pending->str, rc->pending->len,
                                        RTOP_RECORD_FLUSH_SYNC, error))
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
recovery_finish (RtopRecordFile *out, Recovery *rc, GError **error)
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
  return rtop_record_file_append (out, tail->str, tail->len, RTOP_RECORD_FLUSH_FINISH, error);
}

gboolean
rtop_trace_recover (RtopLineSource *src, RtopRecordFile *out, GError **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  RtopTraceHeader header = { 0 };
  Recovery rc = { 0 };
  gboolean ok = FALSE;
  const char *line;
  gsize len;

  if (!rtop_record_reader_first_line (src, &line, &len, error))
    return FALSE;
  {
    g_autoptr(GString) first = g_string_new_len (line, (gssize) len);

    if (!rtop_trace_parse_header (parser, first->str, first->len, &header, error))
      goto done;
    g_string_append_c (first, '\n');
    if (!rtop_record_file_append (out, first->str, first->len, RTOP_RECORD_FLUSH_SYNC, error))
      goto done;
  }
  rc.pending = g_string_new (NULL);
  rc.open = g_hash_table_new (NULL, NULL);
  rc.pending_open = g_hash_table_new (NULL, NULL);
  if (recovery_copy (src, out, &rc, parser, error))
    ok = recovery_finish (out, &rc, error);
  g_string_free (rc.pending, TRUE);
  g_hash_table_unref (rc.open);
  g_hash_table_unref (rc.pending_open);

done:
  g_free (header.producer);
  return ok;
}
