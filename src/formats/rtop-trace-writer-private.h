/* rtop-trace-writer-private.h: the trace writer itself, for its own file
 * and the tests (everything else writes through rtop_trace_sink_class). */
#pragma once

#include "rtop-trace-writer.h"

G_BEGIN_DECLS

typedef struct _RtopTraceWriter RtopTraceWriter;

RtopTraceWriter *rtop_trace_writer_new (void);
void rtop_trace_writer_free (RtopTraceWriter *self);

/* Appends one interval (ending in the commit event and a newline), with
 * the file header first for the first snapshot (time zero). */
void rtop_trace_writer_add (RtopTraceWriter *self, const RtopSnapshot *snapshot,
                            GString *out);
/* Some intervals were not written (spool full): the next add() writes every
 * track's value again instead of only the changed ones. */
void rtop_trace_writer_mark_gap (RtopTraceWriter *self);
/* Appends the end: final track values, "E" for open slices, "]}".  An empty
 * recording (no snapshot) still becomes a valid trace. */
void rtop_trace_writer_end (RtopTraceWriter *self, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopTraceWriter, rtop_trace_writer_free)

G_END_DECLS
