/* rtop-recording-private.h: what only rtop-recording.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-recording.h"

G_BEGIN_DECLS

/* rtop_recording_load_async() without the thread: blocks. */
RtopRecording *rtop_recording_load (const char *path, GError **error);

/* From memory (tests, fuzzing).  max_port_samples 0 = default budget. */
RtopRecording *rtop_recording_load_bytes (GBytes *data, guint max_port_samples,
                                          GError **error);

RtopRecordFormat rtop_recording_get_format (RtopRecording *self);

/* Recording length in microseconds (last - first snapshot). */
gint64 rtop_recording_get_duration_us (RtopRecording *self);

/* Interval between loaded snapshots in seconds (larger than the recorded one
 * when the recording was merged to fit the budget). */
double rtop_recording_get_interval (RtopRecording *self);

/* How many recorded intervals were merged into one loaded snapshot (1 = none). */
guint rtop_recording_get_merge_factor (RtopRecording *self);

/* The rdmatop version that wrote it, e.g. "0.1.0"; NULL for CSV. */
const char *rtop_recording_get_producer (RtopRecording *self);

G_END_DECLS
