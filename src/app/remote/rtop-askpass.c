/* rtop-askpass.c: relays ssh's questions from rdmatop-askpass to the user and
 * their answers back.
 *
 * Everything is asynchronous on the main context: a question is read with
 * a bound on its size, and a connection waits for its answer without
 * blocking anything. */
#include "config.h"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtop-askpass-private.h"

#define REQUEST_MAX RTOP_ASKPASS_REQUEST_MAX

struct _RtopAskpassRequest {
  GObject parent_instance;

  RtopAskpass *owner;          /* weak: NULL once it is gone */
  GSocketConnection *conn;
  GByteArray *data;
  char *prompt;
  RtopAskpassKind kind;
  gboolean answered;
};

struct _RtopAskpass {
  GObject parent_instance;

  GSocketService *service;
  char *dir;
  char *path;
  char *env[2];
  guint pending;
};

G_DEFINE_FINAL_TYPE (RtopAskpassRequest, rtop_askpass_request, G_TYPE_OBJECT)
G_DEFINE_FINAL_TYPE (RtopAskpass, rtop_askpass, G_TYPE_OBJECT)

enum { SIGNAL_REQUEST, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ---- requests ---- */

const char *
rtop_askpass_request_get_prompt (RtopAskpassRequest *self)
{
  g_return_val_if_fail (RTOP_IS_ASKPASS_REQUEST (self), NULL);
  return self->prompt;
}

RtopAskpassKind
rtop_askpass_request_get_kind (RtopAskpassRequest *self)
{
  g_return_val_if_fail (RTOP_IS_ASKPASS_REQUEST (self), RTOP_ASKPASS_SECRET);
  return self->kind;
}

static void
written_cb (GObject *stream, GAsyncResult *result, gpointer data)
{
  g_autoptr(GSocketConnection) conn = data;

  g_output_stream_write_all_finish (G_OUTPUT_STREAM (stream), result, NULL, NULL);
  g_io_stream_close (G_IO_STREAM (conn), NULL, NULL);
}

static void
send_answer (GSocketConnection *conn, const char *answer)
{
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (conn));
  char *reply = answer != NULL ? g_strconcat ("yes\n", answer, NULL) : g_strdup ("no\n");

  /* The reply is freed with the connection's last reference below. */
  g_object_set_data_full (G_OBJECT (conn), "rtop-reply", reply, g_free);
  g_output_stream_write_all_async (out, reply, strlen (reply), G_PRIORITY_DEFAULT, NULL,
                                   written_cb, g_object_ref (conn));
}

void
rtop_askpass_request_answer (RtopAskpassRequest *self, const char *answer)
{
  g_return_if_fail (RTOP_IS_ASKPASS_REQUEST (self));

  if (self->answered)
    return;
  self->answered = TRUE;
  if (self->owner != NULL)
    self->owner->pending--;
  if (self->conn != NULL)
    send_answer (self->conn, answer);
}

static void
rtop_askpass_request_dispose (GObject *object)
{
  RtopAskpassRequest *self = RTOP_ASKPASS_REQUEST (object);

  /* Nobody answered: ssh hears no. */
  rtop_askpass_request_answer (self, NULL);
  if (self->owner != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->owner), (gpointer *) &self->owner);
  self->owner = NULL;
  g_clear_object (&self->conn);
  G_OBJECT_CLASS (rtop_askpass_request_parent_class)->dispose (object);
}

static void
rtop_askpass_request_finalize (GObject *object)
{
  RtopAskpassRequest *self = RTOP_ASKPASS_REQUEST (object);

  g_clear_pointer (&self->data, g_byte_array_unref);
  g_free (self->prompt);
  G_OBJECT_CLASS (rtop_askpass_request_parent_class)->finalize (object);
}

static void
rtop_askpass_request_class_init (RtopAskpassRequestClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_askpass_request_dispose;
  G_OBJECT_CLASS (klass)->finalize = rtop_askpass_request_finalize;
}

static void
rtop_askpass_request_init (RtopAskpassRequest *self)
{
  self->data = g_byte_array_new ();
}

/* ---- reading a question ---- */

static void
read_cb (GObject *stream, GAsyncResult *result, gpointer data)
{
  g_autoptr(RtopAskpassRequest) req = data;
  g_autoptr(GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (stream), result, NULL);
  gsize len = bytes != NULL ? g_bytes_get_size (bytes) : 0;

  if (req->owner == NULL || bytes == NULL)
    return;
  if (len > 0 && req->data->len + len <= REQUEST_MAX)
    {
      g_byte_array_append (req->data, g_bytes_get_data (bytes, NULL), len);
      g_input_stream_read_bytes_async (G_INPUT_STREAM (stream), REQUEST_MAX - req->data->len + 1,
                                       G_PRIORITY_DEFAULT, NULL, read_cb, g_object_ref (req));
      return;
    }
  /* Too long, or not ours: declined when req goes. */
  if (len > 0 || !rtop_askpass_parse_request ((const char *) req->data->data, req->data->len,
                                                &req->kind, &req->prompt))
    return;
  g_signal_emit (req->owner, signals[SIGNAL_REQUEST], 0, req);
}

static gboolean
caller_is_us (GSocketConnection *conn)
{
  g_autoptr(GCredentials) cred = g_socket_get_credentials (g_socket_connection_get_socket (conn), NULL);

  return cred != NULL && g_credentials_get_unix_user (cred, NULL) == getuid ();
}

static gboolean
incoming_cb (GSocketService *service, GSocketConnection *conn, GObject *source, RtopAskpass *self)
{
  RtopAskpassRequest *req;

  if (!caller_is_us (conn) || self->pending >= RTOP_ASKPASS_MAX_PENDING)
    {
      send_answer (conn, NULL);
      return TRUE;
    }
  req = g_object_new (RTOP_TYPE_ASKPASS_REQUEST, NULL);
  req->conn = g_object_ref (conn);
  req->owner = self;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &req->owner);
  self->pending++;
  g_input_stream_read_bytes_async (g_io_stream_get_input_stream (G_IO_STREAM (conn)), REQUEST_MAX + 1,
                                   G_PRIORITY_DEFAULT, NULL, read_cb, req);
  return TRUE;
}

/* ---- folders left by an rdmatop that was killed ---- */

/* A folder of ours whose socket nobody listens on: connect() is refused at
 * once for a socket file without a listener (and a socket left by a
 * killed process has none), so no question is ever lost to the sweep.
 * Another rdmatop starting at the same moment has its folder for an
 * instant without a socket, or a socket not yet listening: anything
 * younger than this is left for a later sweep. */
#define STALE_AFTER_S 60

static gboolean
old_enough (const GStatBuf *st)
{
  return time (NULL) - st->st_mtime >= STALE_AFTER_S;
}

static gboolean
is_stale (const char *dir, const char *path)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocket) sock = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf dst, st;

  if (g_lstat (dir, &dst) != 0 || !S_ISDIR (dst.st_mode) || dst.st_uid != getuid ())
    return FALSE;
  if (g_lstat (path, &st) != 0)
    return errno == ENOENT && old_enough (&dst);  /* killed between mkdtemp and bind */
  if (!S_ISSOCK (st.st_mode) || st.st_uid != getuid () || !old_enough (&st))
    return FALSE;
  sock = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
  if (sock == NULL)
    return FALSE;
  address = g_unix_socket_address_new (path);
  if (g_socket_connect (sock, address, NULL, &error))
    return FALSE;
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
}

guint
rtop_askpass_sweep_stale (const char *runtime_dir)
{
  g_autoptr(GDir) dir = g_dir_open (runtime_dir, 0, NULL);
  const char *name;
  guint removed = 0, seen = 0;

  if (dir == NULL)
    return 0;
  while ((name = g_dir_read_name (dir)) != NULL && seen < RTOP_ASKPASS_SWEEP_MAX)
    {
      g_autofree char *path = NULL;
      g_autofree char *sock = NULL;

      if (!g_str_has_prefix (name, "rdmatop-askpass-") || strlen (name) != strlen ("rdmatop-askpass-XXXXXX"))
        continue;
      seen++;
      path = g_build_filename (runtime_dir, name, NULL);
      sock = g_build_filename (path, "socket", NULL);
      if (!is_stale (path, sock))
        continue;
      g_unlink (sock);
      if (g_rmdir (path) == 0)
        removed++;
    }
  return removed;
}

static void
sweep_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  guint removed = rtop_askpass_sweep_stale (data);

  if (removed > 0)
    g_debug ("askpass: removed %u folders left by rdmatop processes that were killed", removed);
  g_task_return_boolean (task, TRUE);
}

/* ---- the socket ---- */

static gboolean
listen_in_private_folder (RtopAskpass *self, GError **error)
{
  g_autofree char *template = g_build_filename (g_get_user_runtime_dir (), "rdmatop-askpass-XXXXXX", NULL);
  g_autoptr(GSocketAddress) address = NULL;

  self->dir = g_mkdtemp_full (template, 0700) != NULL ? g_steal_pointer (&template) : NULL;
  if (self->dir == NULL)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot make a private folder for ssh’s questions: %s"), g_strerror (saved));
      return FALSE;
    }
  self->path = g_build_filename (self->dir, "socket", NULL);
  address = g_unix_socket_address_new (self->path);
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address, G_SOCKET_TYPE_STREAM,
                                      G_SOCKET_PROTOCOL_DEFAULT, NULL, NULL, error))
    {
      g_autofree char *display = g_filename_display_name (self->dir);

      /* GLib's message names neither the folder nor what it costs. */
      g_prefix_error (error, _("Cannot listen for ssh’s questions in %s, so hosts that ask for a "
                               "password or passphrase will fail: "), display);
      return FALSE;
    }
  g_chmod (self->path, 0600);
  /* Connecting to every leftover socket is I/O: not on this thread.  Our
   * own folder listens already, so the sweep keeps it. */
  {
    g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);

    g_task_set_task_data (task, g_strdup (g_get_user_runtime_dir ()), g_free);
    g_task_run_in_thread (task, sweep_thread);
  }
  g_signal_connect (self->service, "incoming", G_CALLBACK (incoming_cb), self);
  g_socket_service_start (self->service);
  self->env[0] = g_strconcat ("RDMATOP_ASKPASS_SOCKET=", self->path, NULL);
  return TRUE;
}

RtopAskpass *
rtop_askpass_new (GError **error)
{
  g_autoptr(RtopAskpass) self = g_object_new (RTOP_TYPE_ASKPASS, NULL);

  if (!listen_in_private_folder (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

const char * const *
rtop_askpass_get_environment (RtopAskpass *self)
{
  g_return_val_if_fail (RTOP_IS_ASKPASS (self), NULL);
  return (const char * const *) self->env;
}

char *
rtop_askpass_find_helper (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  g_autofree char *beside = dir != NULL ? g_build_filename (dir, "rdmatop-askpass", NULL) : NULL;
  g_autofree char *installed = g_build_filename (LIBEXECDIR, "rdmatop-askpass", NULL);

  if (beside != NULL && g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&beside);
  if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&installed);
  return NULL;
}

static void
rtop_askpass_dispose (GObject *object)
{
  RtopAskpass *self = RTOP_ASKPASS (object);

  if (self->service != NULL)
    {
      g_socket_service_stop (self->service);
      g_socket_listener_close (G_SOCKET_LISTENER (self->service));
      g_signal_handlers_disconnect_by_data (self->service, self);
      g_clear_object (&self->service);
    }
  if (self->path != NULL)
    g_unlink (self->path);
  if (self->dir != NULL)
    g_rmdir (self->dir);
  G_OBJECT_CLASS (rtop_askpass_parent_class)->dispose (object);
}

static void
rtop_askpass_finalize (GObject *object)
{
  RtopAskpass *self = RTOP_ASKPASS (object);

  g_free (self->dir);
  g_free (self->path);
  g_free (self->env[0]);
  G_OBJECT_CLASS (rtop_askpass_parent_class)->finalize (object);
}

static void
rtop_askpass_class_init (RtopAskpassClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_askpass_dispose;
  G_OBJECT_CLASS (klass)->finalize = rtop_askpass_finalize;
  signals[SIGNAL_REQUEST] =
    g_signal_new ("request", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, RTOP_TYPE_ASKPASS_REQUEST);
}

static void
rtop_askpass_init (RtopAskpass *self)
{
}
