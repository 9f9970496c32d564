/* rdmatop-askpass: what OpenSSH runs as SSH_ASKPASS for rdmatop.
 *
 * ssh runs it with its question as the only argument (a password, a key's
 * passphrase, "Are you sure you want to continue connecting
 * (yes/no/[fingerprint])?") and reads the answer from its stdout; exit
 * status 1 means the user declined.  It relays the question to the rdmatop
 * that started ssh, over the private socket named by
 * RDMATOP_ASKPASS_SOCKET (a folder only that user can enter; rdmatop checks
 * the caller's uid too), and waits for the user's answer there.
 *
 * The exchange:  -> "rdmatop-askpass 1\n" KIND "\n" QUESTION   (then EOF)
 *                <- "yes\n" ANSWER   or   "no\n"
 * KIND is "confirm" when ssh only wants yes or no (SSH_ASKPASS_PROMPT),
 * "text" otherwise.  Nothing else is read from the socket or printed. */
#include "config.h"

#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <stdio.h>
#include <string.h>

#include "rtop-askpass-parse.h"

#define ANSWER_MAX 4096

static int
fail (const char *message)
{
  /* ssh's stderr is rdmatop's: it shows as the reason. */
  g_printerr ("rdmatop-askpass: %s\n", message);
  return 1;
}

int
main (int argc, char *argv[])
{
  const char *socket_path = g_getenv ("RDMATOP_ASKPASS_SOCKET");
  const char *kind = g_strcmp0 (g_getenv ("SSH_ASKPASS_PROMPT"), "confirm") == 0 ? "confirm" : "text";
  g_autoptr(GSocketClient) client = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  g_autoptr(GSocketConnection) conn = NULL;
  g_autoptr(GString) request = NULL;
  g_autoptr(GError) error = NULL;
  char answer[ANSWER_MAX + 8];
  gsize got = 0, n;
  GInputStream *in;

  if (socket_path == NULL || *socket_path == '\0')
    return fail ("no rdmatop to ask (RDMATOP_ASKPASS_SOCKET is not set)");
  request = g_string_new (RTOP_ASKPASS_HEADER);
  g_string_append_printf (request, "%s\n", kind);
  g_string_append_len (request, argc > 1 ? argv[1] : "", argc > 1 ? (gssize) strnlen (argv[1], RTOP_ASKPASS_QUESTION_MAX) : 0);
  client = g_socket_client_new ();
  address = g_unix_socket_address_new (socket_path);
  conn = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, &error);
  if (conn == NULL)
    return fail (error->message);
  if (!g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (conn)),
                                  request->str, request->len, NULL, NULL, &error) ||
      !g_socket_shutdown (g_socket_connection_get_socket (conn), FALSE, TRUE, &error))
    return fail (error->message);
  in = g_io_stream_get_input_stream (G_IO_STREAM (conn));
  while (got < sizeof answer - 1 &&
         g_input_stream_read_all (in, answer + got, sizeof answer - 1 - got, &n, NULL, &error) && n > 0)
    got += n;
  if (error != NULL)
    return fail (error->message);
  answer[got] = '\0';
  if (!g_str_has_prefix (answer, "yes\n"))
    return fail ("cancelled by the user");
  /* ssh reads one line. */
  fputs (answer + 4, stdout);
  fputc ('\n', stdout);
  return fflush (stdout) == 0 ? 0 : 1;
}
