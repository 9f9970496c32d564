/* fuzz-askpass.c: libFuzzer target for the message rdmatop-askpass sends
 * over the unix socket (one of ssh's questions), as the app reads it.
 *
 * The input is the whole message, in a heap buffer of exactly its size
 * (the sanitizers catch a read past it).  A message that is taken must
 * give a question that is valid UTF-8, no longer than what came in (three
 * bytes per replaced byte at most), without blanks around it, and a kind
 * that agrees with the message: "confirm" only when it says so, a host
 * key's "(yes/no" only when the question has it. */
#include <string.h>

#include "rtop-askpass-parse.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  char *copy = g_memdup2 (data, size);
  const gsize header_len = strlen (RTOP_ASKPASS_HEADER);
  RtopAskpassKind kind = (RtopAskpassKind) -1;
  char *prompt = NULL;
  gboolean taken = rtop_askpass_parse_request (copy, size, &kind, &prompt);

  if (!taken)
    {
      /* Declined: nothing handed back. */
      if (prompt != NULL || kind != (RtopAskpassKind) -1)
        __builtin_trap ();
      g_free (copy);
      return 0;
    }
  if (size > RTOP_ASKPASS_REQUEST_MAX || size < header_len ||
      memcmp (data, RTOP_ASKPASS_HEADER, header_len) != 0 ||
      memchr (data + header_len, '\n', size - header_len) == NULL)
    __builtin_trap ();
  if (prompt == NULL || !g_utf8_validate (prompt, -1, NULL) || strlen (prompt) > 3 * size)
    __builtin_trap ();
  if (*prompt != '\0' &&
      (g_ascii_isspace (prompt[0]) || g_ascii_isspace (prompt[strlen (prompt) - 1])))
    __builtin_trap ();
  switch (kind)
    {
    case RTOP_ASKPASS_CONFIRM:
      if (size < header_len + 8 || memcmp (data + header_len, "confirm\n", 8) != 0)
        __builtin_trap ();
      break;
    case RTOP_ASKPASS_YES_NO:
      if (strstr (prompt, "(yes/no") == NULL)
        __builtin_trap ();
      break;
    case RTOP_ASKPASS_SECRET:
      if (strstr (prompt, "(yes/no") != NULL)
        __builtin_trap ();
      break;
    default:
      __builtin_trap ();
    }
  g_free (prompt);
  g_free (copy);
  return 0;
}
