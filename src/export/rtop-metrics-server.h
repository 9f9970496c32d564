/* rtop-metrics-server.h: serves the latest snapshot to Prometheus over HTTP.
 *
 * A sink: it is fed each snapshot the sampler delivers (rtop_metrics_server_push)
 * and answers scrapes from the latest one, so a scrape never starts a pass
 * and many scrapes cost what one does.  libsoup 3 speaks HTTP; this object
 * accepts the connections itself to bound them: at most max_connections at
 * once (a new one past that closes the oldest, so idle connections cannot
 * lock a scraper out), each closed after idle_timeout seconds without
 * traffic and after lifetime seconds in all; request headers are capped by
 * libsoup (64 KiB) and request bodies are discarded unread into memory.
 *
 *   /metrics  OpenMetrics 1.0 or Prometheus text 0.0.4, from the Accept header
 *   /healthz  200 while the main loop runs (liveness)
 *   /readyz   200 once a recent pass succeeded, else 503 (readiness)
 *   /         a short page naming the above
 *
 * Runs on the GMainContext that is the thread-default when it is created. */
#pragma once

#include <gio/gio.h>
#include "rtop-openmetrics.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  guint max_connections;     /* 0: 32 */
  guint idle_timeout_s;      /* 0: 10 */
  guint lifetime_s;          /* 0: 30 */
} RtopMetricsServerLimits;

#define RTOP_METRICS_SERVER_DEFAULT_PORT 9315

#define RTOP_TYPE_METRICS_SERVER (rtop_metrics_server_get_type ())
G_DECLARE_FINAL_TYPE (RtopMetricsServer, rtop_metrics_server, RTOP, METRICS_SERVER, GObject)

/* Both are copied; either may be NULL for the defaults. */
RtopMetricsServer *rtop_metrics_server_new (const RtopOpenMetricsOptions *options,
                                            const RtopMetricsServerLimits *limits);

/* Listens on "ADDRESS:PORT": an IPv4 address, or an IPv6 address in
 * brackets ("[::1]:9315"); a literal, never a name to resolve.  PORT 0
 * picks a free port (see get_port).  RTOP_ERROR_INVALID_ARGUMENT for a
 * malformed address, a GIOError when the socket cannot be bound. */
gboolean rtop_metrics_server_listen (RtopMetricsServer *self, const char *address,
                                     GError **error);
/* The port bound by listen, 0 before. */
guint16 rtop_metrics_server_get_port (RtopMetricsServer *self);

/* The next snapshot from the sampler. */
void rtop_metrics_server_push (RtopMetricsServer *self, RtopSnapshot *snap);

/* Parses "ADDRESS:PORT" as listen does (exposed for tests). */
GInetSocketAddress *rtop_metrics_server_parse_address (const char *address, GError **error);

G_END_DECLS
