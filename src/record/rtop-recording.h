/* rtop-recording.h: recording files made by rdmatop loaded back into a
 * series of snapshots, and recovery of a file cut short.
 *
 * The formats are listed in rtop-record-format.h (the layouts in
 * rtop-trace-writer.h and rtop-csv-writer.h); the reader is picked from the
 * content, not the file name.
 *
 * While a recording runs it is written to "<target>.partial" and renamed
 * into place when it ends.  A recording cut short (crash, SIGKILL, power
 * loss) stays readable up to its last complete interval: the reader here
 * loads such a file directly, and rtop_recording_recover() (the CLI's
 * `rdmatop-cli recover FILE`) writes a complete, closed copy of it for tools
 * that insist on a closed JSON array (newer Perfetto reports "JSON trace
 * file is incomplete" for an unclosed one).
 *
 * Reading is bounded: the file size, the length of a line, the number of
 * devices, ports and processes are limited, and a recording with more
 * port-samples than a budget is loaded at a coarser interval (rates are
 * averaged over the merged intervals, every health event is kept).  Anything
 * that is not a recording made by rdmatop is refused with
 * RTOP_ERROR_INVALID_RECORDING and a sentence saying why. */
#pragma once

#include <gio/gio.h>
#include "rtop-record-format.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* Default load budget: port-samples (ports x intervals) kept in memory,
 * about 1 kB each: 16 ports over an hour at 10 samples/s load as 3,000
 * snapshots 1.2 s apart, in about 50 MB. */
#define RTOP_RECORDING_DEFAULT_MAX_PORT_SAMPLES 50000

/* "rdmatop-20260130T011502Z.json" (UTC, no colons so it is a valid file name
 * everywhere); the caller joins it to the recordings folder. */
char *rtop_recording_default_filename (RtopRecordFormat format);

#define RTOP_TYPE_RECORDING (rtop_recording_get_type ())
G_DECLARE_FINAL_TYPE (RtopRecording, rtop_recording, RTOP, RECORDING, GObject)

/* Loads a whole recording (any format of the table, detected from the
 * content) on a worker thread; the callback runs on the thread-default
 * main context of the caller. */
void rtop_recording_load_async (const char *path,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data);
RtopRecording *rtop_recording_load_finish (GAsyncResult *result, GError **error);

/* The snapshots, oldest first (transfer none; sealed, read-only).  Each has
 * the recorded devices/ports with metrics (rates; value is the total since
 * the recording began), the processes seen on each device, and the health
 * events, as far as the format holds them (RtopRecordHolds).
 * monotonic_us/realtime_us are those of the original run. */
guint rtop_recording_get_n_snapshots (RtopRecording *self);
RtopSnapshot *rtop_recording_get_snapshot (RtopRecording *self, guint index);
/* FALSE when the file was cut short and loaded up to its last complete interval. */
gboolean rtop_recording_is_complete (RtopRecording *self);

/* Writes a complete copy of a recording that was cut short (JSON or JSON.gz;
 * open process slices are ended at the last interval and the array is
 * closed; a CSV needs none and is refused).  output NULL: input without its
 * ".partial" suffix, or "<name>-recovered<extension>".  Never overwrites an
 * existing file.  Returns the path written (free it), or NULL with error
 * set. */
char *rtop_recording_recover (const char *input, const char *output, GError **error);

G_END_DECLS
