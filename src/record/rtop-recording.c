/* rtop-recording.c: a recording loaded back into snapshots, and a
 * complete copy of one cut short (the API in rtop-recording.h).  The format
 * table says which reader takes a file (rtop-record-format.c); the readers (rtop-trace-reader.c,
 * rtop-csv-reader.c) read it from a bounded line source
 * (rtop-line-source.c) within the memory budget. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-record-format.h"
#include "rtop-record-reader.h"
#include "rtop-recording-private.h"

char *
rtop_recording_default_filename (RtopRecordFormat format)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");

  return g_strconcat ("rdmatop-", stamp, rtop_record_format_get_extension (format), NULL);
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

/* Loading ----------------------------------------------------------------- */

static RtopRecording *
load_source (RtopLineSource *src, guint budget, GError **error)
{
  g_autoptr(RtopRecording) result = NULL;
  const RtopRecordFormatInfo *info = rtop_record_format_detect (src, error);
  RtopRecordLoad load = { 0 };

  if (info == NULL)
    return NULL;
  if (budget == 0)
    budget = RTOP_RECORDING_DEFAULT_MAX_PORT_SAMPLES;
  result = g_object_new (RTOP_TYPE_RECORDING, NULL);
  load.snapshots = result->snapshots;
  load.merge_factor = 1;
  if (!info->reader->load (src, budget, &load, error))
    {
      g_free (load.producer);
      return NULL;
    }
  result->format = info->id;
  result->interval_s = load.interval_s;
  result->merge_factor = load.merge_factor;
  result->complete = load.complete;
  result->producer = load.producer;
  return g_steal_pointer (&result);
}

RtopRecording *
rtop_recording_load_bytes (GBytes *data, guint max_port_samples, GError **error)
{
  RtopLineSource src;
  RtopRecording *result = NULL;

  g_return_val_if_fail (data != NULL, NULL);

  rtop_line_source_init (&src);
  if (rtop_line_source_open_bytes (&src, data, error))
    result = load_source (&src, max_port_samples, error);
  rtop_line_source_clear (&src);
  return result;
}

RtopRecording *
rtop_recording_load (const char *path, GError **error)
{
  RtopLineSource src;
  RtopRecording *result = NULL;
  GError *local = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  rtop_line_source_init (&src);
  if (rtop_line_source_open_file (&src, path, &local))
    result = load_source (&src, 0, &local);
  rtop_line_source_clear (&src);
  if (local != NULL)
    {
      rtop_record_reader_prefix_error (&local, path);
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

/* Recovery ------------------------------------------------------------------ */

/* The recovered file's default name: the input without ".partial", or
 * "<name>-recovered<extension>". */
static char *
recovered_path_for (const char *input, const RtopRecordFormatInfo *info)
{
  g_autofree char *base = NULL;

  if (g_str_has_suffix (input, RTOP_RECORD_PARTIAL_SUFFIX))
    return g_strndup (input, strlen (input) - strlen (RTOP_RECORD_PARTIAL_SUFFIX));
  base = g_str_has_suffix (input, info->extension)
         ? g_strndup (input, strlen (input) - strlen (info->extension))
         : g_strdup (input);
  return g_strconcat (base, "-recovered", info->extension, NULL);
}

/* Where the copy is written until it is complete: "<output>.partial",
 * unless that is the input itself (recovering "x.json.partial" into
 * "x.json"). */
static char *
recovery_partial_path (const char *input, const char *output)
{
  g_autofree char *partial = rtop_record_file_partial_path (output);

  if (strcmp (partial, input) != 0)
    return g_steal_pointer (&partial);
  return g_strconcat (output, ".recovering", RTOP_RECORD_PARTIAL_SUFFIX, NULL);
}

static gboolean
recover_into (RtopLineSource *src, const RtopRecordFormatInfo *info, const char *input,
              const char *output, char **written, GError **error)
{
  g_autofree char *out_path = output != NULL ? g_strdup (output) : recovered_path_for (input, info);
  g_autofree char *partial = recovery_partial_path (input, out_path);
  g_autoptr(RtopRecordFile) file = NULL;

  if (info->reader->recover == NULL)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING,
                   _("Recordings in the %s format need no recovery: every complete line is readable as it is."),
                   info->name);
      return FALSE;
    }
  file = rtop_record_file_create (out_path, partial, src->gz, error);
  if (file == NULL)
    return FALSE;
  if (!info->reader->recover (src, file, error) || !rtop_record_file_complete (file, error))
    {
      rtop_record_file_discard (file);
      return FALSE;
    }
  *written = g_steal_pointer (&out_path);
  return TRUE;
}

char *
rtop_recording_recover (const char *input, const char *output, GError **error)
{
  RtopLineSource src;
  const RtopRecordFormatInfo *info;
  char *written = NULL;
  GError *local = NULL;

  g_return_val_if_fail (input != NULL, NULL);

  rtop_line_source_init (&src);
  if (rtop_line_source_open_file (&src, input, &local)
      && (info = rtop_record_format_detect (&src, &local)) != NULL)
    recover_into (&src, info, input, output, &written, &local);
  rtop_line_source_clear (&src);
  if (written == NULL)
    {
      if (local == NULL)
        g_set_error (&local, G_IO_ERROR, G_IO_ERROR_FAILED, _("Cannot write the recovered recording."));
      rtop_record_reader_prefix_error (&local, input);
      g_propagate_error (error, local);
    }
  return written;
}
