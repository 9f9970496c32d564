/* rtop-trace-recovery.h: closing a trace that was cut short (the trace
 * reader's recover hook; the public call is rtop_recording_recover()). */
#pragma once

#include "rtop-record-reader.h"

G_BEGIN_DECLS

/* Copies the whole intervals of src to out, ends the process slices still
 * open and closes the array. */
gboolean rtop_trace_recover (RtopLineSource *src, RtopRecordFile *out, GError **error);

G_END_DECLS
