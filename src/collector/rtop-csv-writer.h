/* rtop-csv-writer.h: turns snapshots into CSV (RFC 4180) text.  No I/O.
 *
 * Header row, then one row per port per interval:
 *   monotonic_us,time_s,realtime_utc,device,port,provider,netdev,state,link_gbps,
 *   tx_bytes,rx_bytes,tx_packets,...   (every canonical metric, by its
 *                                       rtop_metric_id_to_string() name)
 * monotonic_us is g_get_monotonic_time() of the pass, time_s the seconds
 * since the first snapshot, metric columns hold the cumulative value and are
 * empty where the provider lacks that metric.  The header row is fixed, so
 * the reader recognises an rdmatop CSV by it. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct _RtopCsvWriter RtopCsvWriter;

RtopCsvWriter *rtop_csv_writer_new (void);
void rtop_csv_writer_free (RtopCsvWriter *self);

/* The header row, with its newline. */
void rtop_csv_writer_begin (RtopCsvWriter *self, GString *out);
/* Rows for one snapshot; writes the header first if begin() was not called. */
void rtop_csv_writer_add (RtopCsvWriter *self, const RtopSnapshot *snapshot,
                          GString *out);
/* The header text without a newline (for the reader). */
const char *rtop_csv_header (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopCsvWriter, rtop_csv_writer_free)

G_END_DECLS
