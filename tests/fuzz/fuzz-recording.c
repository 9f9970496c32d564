/* fuzz-recording.c: libFuzzer target for the recording readers.
 *
 * Arbitrary bytes (plain or gzip: the reader detects it) go through
 * rtop_recording_load_bytes() with a small budget so merging is exercised
 * too.  A load either fails with an error or yields sealed snapshots whose
 * fields are all walked here (the sanitizers check the rest).  The same
 * bytes then go through recovery, where the format taking them has it,
 * into a file that is thrown away. */
#include "rtop-error.h"
#include "rtop-record-format.h"
#include "rtop-record-reader.h"
#include "rtop-recording-private.h"

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint64
walk_snapshot (const RtopSnapshot *snap)
{
  guint64 sum = snap->sequence + (guint64) snap->monotonic_us;

  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      sum += strlen (dev->name) + (dev->provider != NULL ? strlen (dev->provider) : 0);
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);

          sum += port->index + port->state;
          for (guint m = 0; m < RTOP_METRIC_N; m++)
            sum += port->metrics[m].present ? port->metrics[m].value : 0;
        }
    }
  for (guint i = 0; i < snap->processes->len; i++)
    {
      const RtopProcess *proc = g_ptr_array_index (snap->processes, i);

      sum += (guint64) proc->pid + proc->devices->len;
      for (guint j = 0; j < proc->devices->len; j++)
        sum += strlen (g_array_index (proc->devices, RtopProcessDevice, j).device);
    }
  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);
      sum += ev->kind + (ev->message != NULL ? strlen (ev->message) : 0);
    }
  return sum;
}

static char *scratch_dir;

static void
remove_scratch_dir (void)
{
  g_rmdir (scratch_dir);
}

static void
fuzz_recover (GBytes *bytes)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  const RtopRecordFormatInfo *info;
  RtopLineSource src;

  if (scratch_dir == NULL)
    {
      scratch_dir = g_dir_make_tmp ("rdmatop-fuzz-XXXXXX", NULL);
      g_assert_nonnull (scratch_dir);
      atexit (remove_scratch_dir);
    }
  path = g_build_filename (scratch_dir, "recovered", NULL);
  rtop_line_source_init (&src);
  if (rtop_line_source_open_bytes (&src, bytes, NULL)
      && (info = rtop_record_format_detect (&src, NULL)) != NULL
      && info->reader->recover != NULL)
    {
      g_autoptr(RtopRecordFile) file = rtop_record_file_create (path, NULL, src.gz, &error);

      g_assert_no_error (error);
      if (!info->reader->recover (&src, file, &error))
        g_assert_nonnull (error);
      rtop_record_file_discard (file);
    }
  rtop_line_source_clear (&src);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = rtop_recording_load_bytes (bytes, 64, &error);
  volatile guint64 sink = 0;

  fuzz_recover (bytes);
  if (rec == NULL)
    {
      g_assert_nonnull (error);
      g_assert_nonnull (error->message);
      return 0;
    }
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), >, 0);
  for (guint i = 0; i < rtop_recording_get_n_snapshots (rec); i++)
    sink += walk_snapshot (rtop_recording_get_snapshot (rec, i));
  (void) sink;
  return 0;
}
