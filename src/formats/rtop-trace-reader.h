/* rtop-trace-reader.h: the reader of the Chrome JSON trace (the json and
 * json.gz rows of the format table). */
#pragma once

#include "rtop-record-reader.h"

G_BEGIN_DECLS

extern const RtopRecordReaderClass rtop_trace_reader_class;

G_END_DECLS
