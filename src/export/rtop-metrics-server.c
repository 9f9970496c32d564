/* rtop-metrics-server.c: the HTTP side of the exporter (libsoup 3).
 *
 * Connections are accepted here, not by SoupServer's own listener, so that
 * their number and their time are ours to bound; each accepted stream is
 * then handed to SoupServer, which parses HTTP.  A stream handed over this
 * way is closed after its response (no keep-alive), which suits scrapes:
 * one request per connection, every 15 s or so. */
#include "config.h"

#include <glib/gi18n.h>
#include <libsoup/soup.h>
#include <string.h>
#include <zlib.h>

#include "rtop-error.h"
#include "rtop-metrics-server.h"

#define DEFAULT_MAX_CONNECTIONS 32
#define DEFAULT_IDLE_TIMEOUT_S 10
#define DEFAULT_LIFETIME_S 30

typedef struct {
  RtopMetricsServer *server;
  GSocketConnection *conn;   /* weak: cleared when libsoup lets go of it */
  guint deadline_id;
  GList *link;               /* in server->conns; NULL once shut down */
} Conn;

struct _RtopMetricsServer {
  GObject parent_instance;
  RtopOpenMetrics *metrics;
  RtopMetricsServerLimits limits;
  SoupServer *soup;
  GSocketService *service;
  guint16 port;
  GQueue conns;              /* Conn*, oldest first */
  GBytes *cache[2][2];       /* per RtopExposition and gzip, for the latest snapshot */
  gint64 latest_arrival_us;
};

G_DEFINE_FINAL_TYPE (RtopMetricsServer, rtop_metrics_server, G_TYPE_OBJECT)

/* ---- Connections ---- */

/* Shutting the socket down (not closing it under libsoup) wakes libsoup's
 * pending read or write, which then fails and lets the connection go.  It
 * leaves the queue now, so the cap counts only connections still served. */
static void
conn_close (Conn *c)
{
  if (c->link == NULL)
    return;
  g_socket_shutdown (g_socket_connection_get_socket (c->conn), TRUE, TRUE, NULL);
  g_clear_handle_id (&c->deadline_id, g_source_remove);
  g_queue_delete_link (&c->server->conns, c->link);
  c->link = NULL;
}

static void
conn_gone_cb (gpointer data, GObject *where_the_object_was)
{
  Conn *c = data;

  g_clear_handle_id (&c->deadline_id, g_source_remove);
  if (c->link != NULL)
    g_queue_delete_link (&c->server->conns, c->link);
  g_free (c);
}

static gboolean
conn_deadline_cb (gpointer data)
{
  Conn *c = data;

  c->deadline_id = 0;
  conn_close (c);
  return G_SOURCE_REMOVE;
}

static gboolean
incoming_cb (GSocketService *service, GSocketConnection *connection, GObject *source,
             gpointer data)
{
  RtopMetricsServer *self = data;
  GSocket *sock = g_socket_connection_get_socket (connection);
  g_autoptr(GSocketAddress) local = g_socket_connection_get_local_address (connection, NULL);
  g_autoptr(GSocketAddress) remote = g_socket_connection_get_remote_address (connection, NULL);
  g_autoptr(GError) error = NULL;
  Conn *c;

  /* Full: the oldest goes, so a flood of idle connections cannot keep a
   * scraper out; it only shortens their own lives. */
  if (self->conns.length >= self->limits.max_connections)
    conn_close (g_queue_peek_head (&self->conns));
  g_socket_set_timeout (sock, self->limits.idle_timeout_s);
  c = g_new0 (Conn, 1);
  c->server = self;
  c->conn = connection;
  g_queue_push_tail (&self->conns, c);
  c->link = self->conns.tail;
  c->deadline_id = g_timeout_add_seconds (self->limits.lifetime_s, conn_deadline_cb, c);
  g_object_weak_ref (G_OBJECT (connection), conn_gone_cb, c);
  if (!soup_server_accept_iostream (self->soup, G_IO_STREAM (connection), local, remote, &error))
    {
      g_debug ("metrics server: could not take a connection: %s", error->message);
      conn_close (c);
    }
  return TRUE;
}

/* ---- Requests ---- */

static const char index_page[] =
  "rdmatop exporter\n"
  "\n"
  "/metrics  RDMA devices, ports and counters (OpenMetrics or Prometheus text)\n"
  "/healthz  liveness\n"
  "/readyz   readiness: a recent collection pass succeeded\n";

/* A body is never wanted: its chunks are dropped as they come, and the
 * request is refused before it is handled. */
static void
early_cb (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
          gpointer data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupEncoding encoding = soup_message_headers_get_encoding (headers);

  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  if (encoding == SOUP_ENCODING_CHUNKED ||
      (encoding == SOUP_ENCODING_CONTENT_LENGTH && soup_message_headers_get_content_length (headers) > 0))
    {
      soup_server_message_set_status (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL);
      soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                    "Connection", "close");
    }
}

static void
respond_text (SoupServerMessage *msg, guint status, const char *text)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY,
                                    text, strlen (text));
}

/* Why the latest data cannot be served as current, or NULL: no pass yet,
 * or none for much longer than the interval (a collector that hangs). */
static char *
staleness (RtopMetricsServer *self)
{
  RtopSnapshot *snap = rtop_openmetrics_get_latest (self->metrics);
  double interval, age, limit;

  if (snap == NULL)
    return g_strdup (_("No collection pass has finished yet."));
  interval = snap->interval_s > 0 ? snap->interval_s : 1;
  age = (g_get_monotonic_time () - self->latest_arrival_us) / (double) G_USEC_PER_SEC;
  limit = 3 * interval + 10;
  if (age <= limit)
    return NULL;
  /* The limit, not the age: a label value that changed every scrape would
   * make a new series every scrape. */
  return g_strdup_printf (_("No collection pass has finished for over %.0f s (the interval is %.1f s): "
                            "the collector is stuck or far too slow; see the exporter's log."),
                          limit, interval);
}

/* One gzip member, or NULL when zlib fails (then the plain text is sent). */
static GBytes *
gzip_bytes (GBytes *plain)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (plain, &len);
  z_stream zs = { 0 };
  guint8 *out;
  gsize out_len;

  if (deflateInit2 (&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return NULL;
  out_len = deflateBound (&zs, len);
  out = g_malloc (out_len);
  zs.next_in = (guint8 *) data;
  zs.avail_in = len;
  zs.next_out = out;
  zs.avail_out = out_len;
  if (deflate (&zs, Z_FINISH) != Z_STREAM_END)
    {
      deflateEnd (&zs);
      g_free (out);
      return NULL;
    }
  out_len = zs.total_out;
  deflateEnd (&zs);
  return g_bytes_new_take (g_realloc (out, out_len), out_len);
}

/* The body for format (gzipped or not), from the cache while the latest
 * snapshot is the one it was made from. */
static GBytes *
metrics_body (RtopMetricsServer *self, RtopExposition format, gboolean gzip,
              const char *failure, gboolean *gzipped)
{
  g_autoptr(GBytes) plain = NULL;
  GBytes *packed;

  *gzipped = FALSE;
  if (failure == NULL && self->cache[format][gzip] != NULL)
    {
      *gzipped = gzip;
      return g_bytes_ref (self->cache[format][gzip]);
    }
  if (failure == NULL && self->cache[format][FALSE] != NULL)
    plain = g_bytes_ref (self->cache[format][FALSE]);
  else
    plain = rtop_openmetrics_format (self->metrics, format, failure);
  if (failure == NULL && self->cache[format][FALSE] == NULL)
    self->cache[format][FALSE] = g_bytes_ref (plain);
  if (!gzip || (packed = gzip_bytes (plain)) == NULL)
    return g_steal_pointer (&plain);
  if (failure == NULL)
    self->cache[format][TRUE] = g_bytes_ref (packed);
  *gzipped = TRUE;
  return packed;
}

static void
serve_metrics (RtopMetricsServer *self, SoupServerMessage *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *reply = soup_server_message_get_response_headers (msg);
  const char *accept = soup_message_headers_get_list (headers, "Accept");
  const char *encoding = soup_message_headers_get_list (headers, "Accept-Encoding");
  g_autofree char *failure = staleness (self);
  g_autoptr(GBytes) body = NULL;
  gboolean gzipped;
  RtopExposition format;

  if (!rtop_exposition_negotiate (accept, accept != NULL ? strlen (accept) : 0, &format))
    {
      respond_text (msg, SOUP_STATUS_NOT_ACCEPTABLE,
                    "Accept application/openmetrics-text; version=1.0.0 or text/plain; version=0.0.4\n");
      return;
    }
  body = metrics_body (self, format,
                       rtop_http_accepts_gzip (encoding, encoding != NULL ? strlen (encoding) : 0),
                       failure, &gzipped);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_replace (reply, "Content-Type", rtop_exposition_content_type (format));
  soup_message_headers_replace (reply, "Vary", "Accept, Accept-Encoding");
  if (gzipped)
    soup_message_headers_replace (reply, "Content-Encoding", "gzip");
  soup_message_body_append_bytes (soup_server_message_get_response_body (msg), body);
}

static void
serve_ready (RtopMetricsServer *self, SoupServerMessage *msg)
{
  g_autofree char *failure = staleness (self);
  RtopSnapshot *snap = rtop_openmetrics_get_latest (self->metrics);

  if (failure == NULL && snap->status != RTOP_STATUS_OK)
    failure = g_strdup (snap->status_message != NULL ? snap->status_message : "");
  if (failure != NULL)
    {
      g_autofree char *text = g_strconcat (failure, "\n", NULL);
      respond_text (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, text);
    }
  else
    respond_text (msg, SOUP_STATUS_OK, "ready\n");
}

static void
handler_cb (SoupServer *soup, SoupServerMessage *msg, const char *path, GHashTable *query,
            gpointer data)
{
  RtopMetricsServer *self = data;
  const char *method = soup_server_message_get_method (msg);

  if (g_strcmp0 (method, "GET") != 0 && g_strcmp0 (method, "HEAD") != 0)
    {
      respond_text (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "Only GET and HEAD\n");
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow",
                                    "GET, HEAD");
    }
  else if (g_str_equal (path, "/metrics"))
    serve_metrics (self, msg);
  else if (g_str_equal (path, "/healthz"))
    respond_text (msg, SOUP_STATUS_OK, "ok\n");
  else if (g_str_equal (path, "/readyz"))
    serve_ready (self, msg);
  else if (g_str_equal (path, "/"))
    respond_text (msg, SOUP_STATUS_OK, index_page);
  else
    respond_text (msg, SOUP_STATUS_NOT_FOUND, "Not found: see /\n");
}

/* ---- Object ---- */

static void
clear_cache (RtopMetricsServer *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->cache); i++)
    for (guint j = 0; j < G_N_ELEMENTS (self->cache[i]); j++)
      g_clear_pointer (&self->cache[i][j], g_bytes_unref);
}

static void
rtop_metrics_server_dispose (GObject *object)
{
  RtopMetricsServer *self = RTOP_METRICS_SERVER (object);

  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
    }
  while (self->conns.length > 0)
    {
      Conn *c = g_queue_peek_head (&self->conns);

      /* Forget them: libsoup closes them with the server. */
      g_object_weak_unref (G_OBJECT (c->conn), conn_gone_cb, c);
      conn_gone_cb (c, NULL);
    }
  if (self->soup != NULL)
    soup_server_disconnect (self->soup);
  g_clear_object (&self->service);
  g_clear_object (&self->soup);
  clear_cache (self);
  G_OBJECT_CLASS (rtop_metrics_server_parent_class)->dispose (object);
}

static void
rtop_metrics_server_finalize (GObject *object)
{
  RtopMetricsServer *self = RTOP_METRICS_SERVER (object);

  rtop_openmetrics_free (self->metrics);
  G_OBJECT_CLASS (rtop_metrics_server_parent_class)->finalize (object);
}

static void
rtop_metrics_server_class_init (RtopMetricsServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_metrics_server_dispose;
  object_class->finalize = rtop_metrics_server_finalize;
}

static void
rtop_metrics_server_init (RtopMetricsServer *self)
{
  g_queue_init (&self->conns);
}

RtopMetricsServer *
rtop_metrics_server_new (const RtopOpenMetricsOptions *options,
                         const RtopMetricsServerLimits *limits)
{
  RtopMetricsServer *self = g_object_new (RTOP_TYPE_METRICS_SERVER, NULL);

  self->metrics = rtop_openmetrics_new (options);
  if (limits != NULL)
    self->limits = *limits;
  if (self->limits.max_connections == 0)
    self->limits.max_connections = DEFAULT_MAX_CONNECTIONS;
  if (self->limits.idle_timeout_s == 0)
    self->limits.idle_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
  if (self->limits.lifetime_s == 0)
    self->limits.lifetime_s = DEFAULT_LIFETIME_S;
  self->soup = soup_server_new ("server-header", "rdmatop/" PACKAGE_VERSION, NULL);
  soup_server_add_early_handler (self->soup, NULL, early_cb, self, NULL);
  soup_server_add_handler (self->soup, NULL, handler_cb, self, NULL);
  return self;
}

static gboolean
parse_port (const char *s, guint16 *port)
{
  guint64 v;

  if (*s == '\0' || !g_ascii_string_to_unsigned (s, 10, 0, 65535, &v, NULL))
    return FALSE;
  *port = (guint16) v;
  return TRUE;
}

GInetSocketAddress *
rtop_metrics_server_parse_address (const char *address, GError **error)
{
  g_autofree char *host = NULL;
  g_autoptr(GInetAddress) inet = NULL;
  const char *colon;
  guint16 port = 0;

  if (address != NULL && address[0] == '[')
    {
      const char *close = strchr (address, ']');

      if (close != NULL && close[1] == ':')
        {
          host = g_strndup (address + 1, close - address - 1);
          colon = close + 1;
        }
      else
        colon = NULL;
    }
  else
    {
      colon = address != NULL ? strrchr (address, ':') : NULL;
      if (colon != NULL && memchr (address, ':', colon - address) == NULL)
        host = g_strndup (address, colon - address);
    }
  if (host != NULL)
    inet = g_inet_address_new_from_string (host);
  if (inet == NULL || !parse_port (colon + 1, &port) ||
      (address[0] == '[' && g_inet_address_get_family (inet) != G_SOCKET_FAMILY_IPV6))
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not an address to listen on: give an IP address and a port, "
                     "such as 127.0.0.1:%d, 0.0.0.0:%d or [::1]:%d"),
                   address != NULL ? address : "", RTOP_METRICS_SERVER_DEFAULT_PORT,
                   RTOP_METRICS_SERVER_DEFAULT_PORT, RTOP_METRICS_SERVER_DEFAULT_PORT);
      return NULL;
    }
  return G_INET_SOCKET_ADDRESS (g_inet_socket_address_new (inet, port));
}

gboolean
rtop_metrics_server_listen (RtopMetricsServer *self, const char *address, GError **error)
{
  g_autoptr(GInetSocketAddress) addr = rtop_metrics_server_parse_address (address, error);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) local_error = NULL;

  if (addr == NULL)
    return FALSE;
  g_return_val_if_fail (self->service == NULL, FALSE);
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), G_SOCKET_ADDRESS (addr),
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                      &effective, &local_error))
    {
      g_set_error (error, local_error->domain, local_error->code,
                   _("Cannot listen on %s: %s"), address, local_error->message);
      g_clear_object (&self->service);
      return FALSE;
    }
  self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
  g_signal_connect (self->service, "incoming", G_CALLBACK (incoming_cb), self);
  g_socket_service_start (self->service);
  return TRUE;
}

guint16
rtop_metrics_server_get_port (RtopMetricsServer *self)
{
  return self->port;
}

void
rtop_metrics_server_push (RtopMetricsServer *self, RtopSnapshot *snap)
{
  gint64 now = g_get_monotonic_time ();
  double pass_s = snap->monotonic_us > 0 && now >= snap->monotonic_us
                    ? (now - snap->monotonic_us) / (double) G_USEC_PER_SEC : -1;

  rtop_openmetrics_update (self->metrics, snap, pass_s);
  self->latest_arrival_us = now;
  clear_cache (self);
}
