/* rtop-csv-writer.h: the sink of the csv format: snapshots as CSV
 * (RFC 4180) text.  No I/O.  Read back by rtop-csv-reader.c.
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
#include "rtop-record-sink.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* The layout's version (the header row is its mark). */
#define RTOP_CSV_FORMAT_VERSION 1

extern const RtopRecordSinkClass rtop_csv_sink_class;

/* The header text without a newline (for the reader). */
const char *rtop_csv_header (void);

G_END_DECLS
