/* rtop-csv-writer-private.h: the CSV writer itself, for its own file and
 * the tests (everything else writes through rtop_csv_sink_class). */
#pragma once

#include "rtop-csv-writer.h"

G_BEGIN_DECLS

typedef struct _RtopCsvWriter RtopCsvWriter;

RtopCsvWriter *rtop_csv_writer_new (void);
void rtop_csv_writer_free (RtopCsvWriter *self);
/* Rows for one snapshot, with the header row first the first time. */
void rtop_csv_writer_add (RtopCsvWriter *self, const RtopSnapshot *snapshot,
                          GString *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopCsvWriter, rtop_csv_writer_free)

G_END_DECLS
