/* rtop-recorder-private.h: what only rtop-recorder.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-recorder.h"

G_BEGIN_DECLS

/* The file being written now: "<path>.partial" until closed. */
const char *rtop_recorder_get_partial_path (RtopRecorder *self);

guint64 rtop_recorder_get_dropped (RtopRecorder *self);

/* Snapshots added but not yet taken by the writer thread (for a caller
 * that wants to pace itself, e.g. a benchmark feeding as fast as it can). */
guint rtop_recorder_get_queued (RtopRecorder *self);

/* The current write error, or NULL while the file is being written fine
 * (transfer none; valid until the next main-loop iteration). */
const GError *rtop_recorder_get_error (RtopRecorder *self);

G_END_DECLS
