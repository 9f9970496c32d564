/* rtop-openmetrics.h: snapshots as Prometheus metrics, with no I/O.
 *
 * RtopOpenMetrics is the exporter's long-lived state.  It is fed every
 * snapshot the sampler delivers, in order, and keeps what a scrape needs
 * beyond the latest snapshot: per counter and per canonical metric a 64-bit
 * total that never goes backwards (it starts at the kernel's value and adds
 * each pass's wrap-corrected delta, so a 32-bit wrap is no reset), restarted
 * only where the device really reset (RtopCounter.reset, a device re-added);
 * health events counted by kind; the exporter's own passes, errors and pass
 * time.  rtop_openmetrics_format() writes the exposition of the latest
 * snapshot in OpenMetrics 1.0 or Prometheus text 0.0.4.
 *
 * Not thread-safe: one thread (the exporter's main context). */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef enum {
  RTOP_EXPOSITION_OPENMETRICS,   /* application/openmetrics-text; version=1.0.0 */
  RTOP_EXPOSITION_PROMETHEUS,    /* text/plain; version=0.0.4 */
} RtopExposition;

/* The Content-Type header value for format. */
const char *rtop_exposition_content_type (RtopExposition format);

/* Chooses the format from an HTTP Accept header value (NULL, empty or
 * unparseable: OpenMetrics).  Media ranges are weighed by their q, the most
 * specific range that names a format deciding; on a tie OpenMetrics wins,
 * so the Prometheus text is served when a client prefers it.  FALSE when the
 * header accepts neither format (an HTTP 406).  Never reads past len bytes;
 * the value need not be NUL-terminated. */
gboolean rtop_exposition_negotiate (const char *accept, gsize len, RtopExposition *format);

/* Whether an HTTP Accept-Encoding header value takes a gzip body.  Read
 * with the same bounds as the Accept header. */
gboolean rtop_http_accepts_gzip (const char *accept_encoding, gsize len);

typedef struct {
  gboolean processes;        /* export per-process metrics (pids and commands) */
  guint max_process_series;  /* at most this many (pid, device) series; 0: the default, 100 */
  gboolean job_label;        /* process series carry "job_name" and "job_kind" labels */
  const char *host;          /* the "host" label of rdmatop_exporter_info; NULL: none */
  const char *version;       /* of rdmatop_exporter_info; NULL: none */
} RtopOpenMetricsOptions;

#define RTOP_OPENMETRICS_DEFAULT_MAX_PROCESS_SERIES 100

typedef struct _RtopOpenMetrics RtopOpenMetrics;

/* options and its strings are copied. */
RtopOpenMetrics *rtop_openmetrics_new (const RtopOpenMetricsOptions *options);
void rtop_openmetrics_free (RtopOpenMetrics *self);

/* Feeds the next snapshot (referenced, not copied).  pass_seconds is how
 * long the pass took to reach the exporter, negative when unknown. */
void rtop_openmetrics_update (RtopOpenMetrics *self, RtopSnapshot *snap, double pass_seconds);

/* The latest snapshot fed (transfer none), or NULL. */
RtopSnapshot *rtop_openmetrics_get_latest (RtopOpenMetrics *self);

/* The exposition of the latest snapshot.  failure, when not NULL, says
 * why the latest data cannot be trusted (no pass for too long): then, as
 * when the pass itself failed or none came yet, rdmatop_up is 0, the
 * reason is in rdmatop_collection_error_info and no device data is written. */
GBytes *rtop_openmetrics_format (RtopOpenMetrics *self, RtopExposition format,
                                 const char *failure);


G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopOpenMetrics, rtop_openmetrics_free)

G_END_DECLS
