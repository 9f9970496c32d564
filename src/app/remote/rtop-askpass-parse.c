/* rtop-askpass-parse.c: reads the message rdmatop-askpass sends for one of
 * ssh's questions. */
#include "config.h"

#include <string.h>

#include "rtop-askpass-parse.h"

gboolean
rtop_askpass_parse_request (const char *data, gsize len, RtopAskpassKind *kind, char **prompt)
{
  const gsize header_len = strlen (RTOP_ASKPASS_HEADER);
  const char *word, *nl;
  char *question;

  if (len > RTOP_ASKPASS_REQUEST_MAX || len < header_len ||
      memcmp (data, RTOP_ASKPASS_HEADER, header_len) != 0)
    return FALSE;
  word = data + header_len;
  nl = memchr (word, '\n', len - header_len);
  if (nl == NULL)
    return FALSE;
  question = g_utf8_make_valid (nl + 1, (gssize) (len - (gsize) (nl + 1 - data)));
  g_strstrip (question);
  if (nl - word == 7 && memcmp (word, "confirm", 7) == 0)
    *kind = RTOP_ASKPASS_CONFIRM;
  else if (strstr (question, "(yes/no") != NULL)
    *kind = RTOP_ASKPASS_YES_NO;
  else
    *kind = RTOP_ASKPASS_SECRET;
  *prompt = question;
  return TRUE;
}
