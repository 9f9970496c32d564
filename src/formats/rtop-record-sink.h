/* rtop-record-sink.h: where a recording's text comes from.  Each format's
 * writer (rtop-trace-writer.c, rtop-csv-writer.c) implements this vtable;
 * the recorder holds an RtopRecordSink and never asks which format it is.
 *
 * A sink only builds text (appended to a GString); the recorder compresses
 * and writes it (rtop-record-file.h).  Not thread-safe: one sink per
 * recording, used on one thread. */
#pragma once

#include <glib.h>
#include "rtop-format-info.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

struct _RtopRecordSinkClass {
  gpointer (*create) (void);
  void (*destroy) (gpointer impl);
  /* The file header; first is the first snapshot (time zero), or NULL for
   * a recording that ends before any snapshot. */
  void (*begin) (gpointer impl, const RtopSnapshot *first, GString *out);
  /* One whole interval. */
  void (*add) (gpointer impl, const RtopSnapshot *snapshot, GString *out);
  /* Intervals were left out (memory full): the next add() must stand on its
   * own.  NULL when every interval does anyway. */
  void (*mark_gap) (gpointer impl);
  /* What closes the file. */
  void (*end) (gpointer impl, GString *out);
};

typedef struct _RtopRecordSink RtopRecordSink;

/* A sink of the given class (a format table row's; the table makes them:
 * rtop_record_format_new_sink()). */
RtopRecordSink *rtop_record_sink_new (const RtopRecordSinkClass *klass);
void rtop_record_sink_free (RtopRecordSink *self);
/* Appends one interval; the header first, for the first snapshot. */
void rtop_record_sink_add (RtopRecordSink *self, const RtopSnapshot *snapshot, GString *out);
void rtop_record_sink_mark_gap (RtopRecordSink *self);
/* Appends the end (a header first when nothing was added: an empty
 * recording is still a valid file).  Nothing may be added after. */
void rtop_record_sink_end (RtopRecordSink *self, GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopRecordSink, rtop_record_sink_free)

G_END_DECLS
