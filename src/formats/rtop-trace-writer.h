/* rtop-trace-writer.h: the sink of the json and json.gz formats: snapshots
 * as Chrome JSON trace text that ui.perfetto.dev imports.  No I/O here: the
 * text is appended to a GString and the recorder writes it.  Read back by
 * rtop-trace-reader.c.
 *
 * Layout (one JSON object per line so a cut-short file is easy to read back):
 *
 *   {"otherData":{"producer":"rdmatop","version":"0.1.0","rdmatop_format":1,
 *     "start_monotonic_us":...,"start_realtime_us":...,"interval_s":1},
 *    "traceEvents":[
 *   {"ph":"M","pid":1,"name":"process_name","args":{"name":"rdmatop"}},
 *   {"ph":"M","pid":2,"name":"process_name","args":{"name":"mlx5_0/1",
 *     "device":"mlx5_0","port":1,"provider":"mlx5",...}},
 *   {"ph":"M","pid":2,"name":"process_sort_index","args":{"sort_index":1}},
 *   {"ph":"C","pid":2,"ts":0,"name":"tx","args":{"Gbps":12.5}},
 *   ...
 *   {"ph":"C","pid":1,"ts":0,"name":"rdmatop","args":{"ports":16}},   <- interval end
 *   ...
 *   {"ph":"C","pid":1,"ts":1000000,"name":"rdmatop","args":{"ports":16}},
 *   {"ph":"i","pid":1,"ts":1000000,"s":"g","name":"recording ended","args":{...}}
 *   ]}
 *
 * - pid 1 is rdmatop's own track group; each device/port gets the next pid
 *   the first time it is seen (stable for the whole recording), named
 *   "<device>/<port>", with process_sort_index re-emitted in natural order
 *   whenever a port appears.
 * - Counter events carry one numeric key each (Perfetto names the track
 *   "<name> <key>"): tx/rx Gbps, tx/rx packets/s, drops/s, retransmits/s,
 *   errors/s, congestion/s, rdma read/write bytes/s (only where the provider
 *   has the metric), plus link Gbps and port state (the IB state number;
 *   -1 once the port is gone, when its rates also drop to 0).  A GPU's
 *   ports say "kind":"gpu" in their metadata (port 0 is its "all links"
 *   port, with the GPU's gauges as tracks of their own).  A value
 *   equal to the one last written on that track is not repeated (counter
 *   tracks hold their value until the next event), which keeps idle ports
 *   nearly free; close() writes the final value of every track.
 * - Health events are instant events: "s":"p" on their port's group, or
 *   "s":"g" for device-level and collection-wide events.
 * - A process using a device is a slice ("B" when first seen, "E" when gone
 *   or at close) on a thread track of its own under the device's first
 *   port; args hold pid, command, user.
 * - ts is in microseconds since the first snapshot (monotonic).
 * - A remote host's snapshot (RtopSnapshot.host) gives its ports, events
 *   and slices a "host" arg and its port groups the name
 *   "<host>:<device>/<port>", sorted after the recording computer's; its
 *   own monotonic clock is placed on the time line by the wall clocks at
 *   its first snapshot, and only its own snapshots mark its ports gone.
 *   The reader names such devices "<host>:<device>".
 * - Every interval ends with the counter event "rdmatop"/"ports" on pid 1;
 *   the reader treats it as "this interval is complete".  Every line but
 *   the last event ends in ",", so a closed file is strict JSON and a file
 *   cut short is the closed one minus its tail.
 *
 * Not thread-safe; one writer per recording. */
#pragma once

#include <glib.h>
#include "rtop-record-sink.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* The layout version written into every trace (otherData.rdmatop_format).
 * A reader accepts versions up to its own. */
#define RTOP_TRACE_FORMAT_VERSION 1

extern const RtopRecordSinkClass rtop_trace_sink_class;

#define RTOP_TRACE_PRODUCER "rdmatop"
#define RTOP_TRACE_OWN_PID 1
#define RTOP_TRACE_COMMIT_NAME "rdmatop"
#define RTOP_TRACE_COMMIT_KEY "ports"
#define RTOP_TRACE_END_NAME "recording ended"
#define RTOP_TRACE_LINK_NAME "link"
#define RTOP_TRACE_LINK_KEY "Gbps"
#define RTOP_TRACE_STATE_NAME "port"
#define RTOP_TRACE_STATE_KEY "state"

/* One counter track of a port: "<name> <key>" in Perfetto, the metric's
 * rate times scale (bytes/s -> Gbps).  Shared with the reader. */
typedef struct {
  RtopMetricId metric;
  const char *name;
  const char *key;
  double scale;
} RtopTraceCounter;

const RtopTraceCounter *rtop_trace_counters (guint *n_counters);

/* A GPU's gauges (RtopGpu) are tracks of its "all links" port, port 0:
 * "gpu <key>", the gauge's value as it is (percent, bytes, °C, W).
 * Shared with the reader. */
typedef struct {
  const char *name;
  const char *key;
  gsize offset;              /* of the double in RtopGpu */
} RtopTraceGauge;

const RtopTraceGauge *rtop_trace_gpu_gauges (guint *n_gauges);

/* Appends a finite number in a locale-independent, compact form ("%.6g");
 * NaN and infinities become 0 (shared with the CSV writer). */
void rtop_json_append_double (GString *out, double value);

/* A recording's clock for SNAPSHOT's host, kept in OFFSETS (host -> gint64*):
 * what to add to its monotonic time to place it on the recording's time
 * line, set by the wall clocks at the host's first snapshot; 0 for the
 * first host (shared with the CSV writer). */
gint64 rtop_trace_host_clock_offset (GHashTable *offsets, gint64 first_monotonic_us,
                                     gint64 first_realtime_us, const RtopSnapshot *snapshot);

G_END_DECLS
