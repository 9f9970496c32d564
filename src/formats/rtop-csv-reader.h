/* rtop-csv-reader.h: the reader of the CSV rows (the csv row of the format
 * table).  A file is taken when its first line is exactly the header
 * rtop-csv-writer.c writes. */
#pragma once

#include "rtop-record-reader.h"

G_BEGIN_DECLS

extern const RtopRecordReaderClass rtop_csv_reader_class;

G_END_DECLS
