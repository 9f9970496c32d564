/* rtop-text.c: outside text made safe to show (see rtop-text.h). */
#include "config.h"

#include <string.h>

#include "rtop-text.h"

#define ELLIPSIS "…"
#define ELLIPSIS_LEN (sizeof ELLIPSIS - 1)
/* The longest piece one character becomes ("\u202e"). */
#define LONGEST_PIECE 6

/* Characters that change how the text around them is laid out or read,
 * though they show nothing themselves. */
static gboolean
is_invisible_format (gunichar c)
{
  return c == 0x061C ||                      /* Arabic letter mark */
         c == 0x200E || c == 0x200F ||       /* LRM, RLM */
         (c >= 0x202A && c <= 0x202E) ||     /* LRE, RLE, PDF, LRO, RLO */
         (c >= 0x2066 && c <= 0x2069) ||     /* LRI, RLI, FSI, PDI */
         c == 0x2028 || c == 0x2029 ||       /* line and paragraph separators */
         c == 0xFEFF;                        /* zero-width no-break space */
}

static gboolean
needs_escape (gunichar c)
{
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || is_invisible_format (c);
}

char *
rtop_text_escape (const char *text, gssize len, gsize max_bytes)
{
  GString *out;
  const char *p, *end;
  gsize limit, cut = 0;

  if (text == NULL)
    return NULL;
  if (len < 0)
    len = strlen (text);
  limit = MAX (max_bytes, LONGEST_PIECE + ELLIPSIS_LEN);
  out = g_string_sized_new (MIN ((gsize) len, limit) + 1);
  p = text;
  end = text + len;
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);
      char piece[16];
      gsize n;
      gsize step;

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          n = g_snprintf (piece, sizeof piece, "\\x%02x", (guchar) *p);
          step = 1;
        }
      else
        {
          step = g_utf8_next_char (p) - p;
          if (c == '\\')
            n = g_strlcpy (piece, "\\\\", sizeof piece);
          else if (c < 0x80 && needs_escape (c))
            n = g_snprintf (piece, sizeof piece, "\\x%02x", c);
          else if (needs_escape (c))
            n = g_snprintf (piece, sizeof piece, "\\u%04x", c);
          else
            {
              memcpy (piece, p, step);
              n = step;
            }
        }
      if (out->len + n > limit)
        {
          /* Cut after the last whole piece that leaves room for the mark. */
          g_string_truncate (out, cut);
          g_string_append (out, ELLIPSIS);
          break;
        }
      g_string_append_len (out, piece, n);
      if (out->len + ELLIPSIS_LEN <= limit)
        cut = out->len;
      p += step;
    }
  return g_string_free (out, FALSE);
}

gboolean
rtop_text_is_safe (const char *text, gsize max_bytes)
{
  const char *end;

  if (text == NULL)
    return TRUE;
  if (!g_utf8_validate (text, -1, &end) || (gsize) (end - text) > max_bytes)
    return FALSE;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      guchar b = (guchar) *p;

      /* ASCII is most text: the table below is only for the rest. */
      if (b >= 0x20 && b < 0x7F)
        continue;
      if (needs_escape (g_utf8_get_char (p)))
        return FALSE;
    }
  return TRUE;
}

char *
rtop_text_make_safe (const char *text, gsize max_bytes)
{
  if (text == NULL)
    return NULL;
  if (rtop_text_is_safe (text, max_bytes))
    return g_strdup (text);
  return rtop_text_escape (text, -1, max_bytes);
}
