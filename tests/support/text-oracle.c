/* text-oracle.c: the text contract from the Unicode definitions (see
 * text-oracle.h). */
#include "config.h"

#include <string.h>

#include "text-oracle.h"

/* The control ranges as the Unicode standard defines them (general
 * category Cc), each with its first and last code point. */
static const struct {
  gunichar first, last;
  TextOracleClass klass;
} control_ranges[] = {
  { 0x0000, 0x001F, TEXT_ORACLE_C0 },
  { 0x007F, 0x007F, TEXT_ORACLE_DEL },
  { 0x0080, 0x009F, TEXT_ORACLE_C1 },
};

/* The format characters the contract names, one by one with their
 * Unicode names: the explicit bidirectional formatting characters (the
 * Bidi_Control property), the two separators that break a line, and the
 * zero-width no-break space. */
static const gunichar format_chars[] = {
  0x061C,                    /* ARABIC LETTER MARK */
  0x200E,                    /* LEFT-TO-RIGHT MARK */
  0x200F,                    /* RIGHT-TO-LEFT MARK */
  0x2028,                    /* LINE SEPARATOR */
  0x2029,                    /* PARAGRAPH SEPARATOR */
  0x202A,                    /* LEFT-TO-RIGHT EMBEDDING */
  0x202B,                    /* RIGHT-TO-LEFT EMBEDDING */
  0x202C,                    /* POP DIRECTIONAL FORMATTING */
  0x202D,                    /* LEFT-TO-RIGHT OVERRIDE */
  0x202E,                    /* RIGHT-TO-LEFT OVERRIDE */
  0x2066,                    /* LEFT-TO-RIGHT ISOLATE */
  0x2067,                    /* RIGHT-TO-LEFT ISOLATE */
  0x2068,                    /* FIRST STRONG ISOLATE */
  0x2069,                    /* POP DIRECTIONAL ISOLATE */
  0xFEFF,                    /* ZERO WIDTH NO-BREAK SPACE */
};

TextOracleClass
text_oracle_classify (gunichar c)
{
  if (c == 0x005C)
    return TEXT_ORACLE_BACKSLASH;
  for (guint i = 0; i < G_N_ELEMENTS (control_ranges); i++)
    if (c >= control_ranges[i].first && c <= control_ranges[i].last)
      return control_ranges[i].klass;
  for (guint i = 0; i < G_N_ELEMENTS (format_chars); i++)
    if (c == format_chars[i])
      return TEXT_ORACLE_FORMAT;
  return TEXT_ORACLE_PLAIN;
}

gboolean
text_oracle_must_escape (gunichar c)
{
  TextOracleClass klass = text_oracle_classify (c);

  return klass != TEXT_ORACLE_PLAIN && klass != TEXT_ORACLE_BACKSLASH;
}

/* The well-formed UTF-8 byte sequences of the Unicode standard (its
 * table 3-7): per lead byte, the sequence's length and the range its
 * second byte must be in (the ranges that keep out overlong forms,
 * surrogates and code points past U+10FFFF); every later byte is
 * 0x80..0xBF. */
static const struct {
  guint8 lead_first, lead_last;
  guint8 length;
  guint8 second_first, second_last;
} utf8_forms[] = {
  { 0x00, 0x7F, 1, 0, 0 },
  { 0xC2, 0xDF, 2, 0x80, 0xBF },
  { 0xE0, 0xE0, 3, 0xA0, 0xBF },
  { 0xE1, 0xEC, 3, 0x80, 0xBF },
  { 0xED, 0xED, 3, 0x80, 0x9F },
  { 0xEE, 0xEF, 3, 0x80, 0xBF },
  { 0xF0, 0xF0, 4, 0x90, 0xBF },
  { 0xF1, 0xF3, 4, 0x80, 0xBF },
  { 0xF4, 0xF4, 4, 0x80, 0x8F },
};

gsize
text_oracle_decode (const guint8 *bytes, gsize len, gunichar *c)
{
  static const guint8 lead_bits[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };

  if (len == 0)
    return 0;
  for (guint f = 0; f < G_N_ELEMENTS (utf8_forms); f++)
    {
      guint n = utf8_forms[f].length;
      gunichar value;

      if (bytes[0] < utf8_forms[f].lead_first || bytes[0] > utf8_forms[f].lead_last)
        continue;
      if (len < n)
        return 0;
      if (n > 1 && (bytes[1] < utf8_forms[f].second_first || bytes[1] > utf8_forms[f].second_last))
        return 0;
      value = bytes[0] & lead_bits[n];
      for (guint k = 1; k < n; k++)
        {
          if (bytes[k] < 0x80 || bytes[k] > 0xBF)
            return 0;
          value = (value << 6) | (bytes[k] & 0x3F);
        }
      *c = value;
      return n;
    }
  return 0;
}

char *
text_oracle_escape (const char *text, gsize len, gsize max_bytes)
{
  const guint8 *bytes = (const guint8 *) text;
  gsize limit = MAX (max_bytes, TEXT_ORACLE_MIN_BOUND);
  gsize ellipsis_len = strlen (TEXT_ORACLE_ELLIPSIS);
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  GString *out;
  gsize keep = 0;

  if (text == NULL)
    return NULL;
  out = g_string_new (NULL);
  for (gsize i = 0; i < len;)
    {
      gunichar c = 0;
      gsize n = text_oracle_decode (bytes + i, len - i, &c);

      if (n == 0)
        {
          /* One byte that starts no well-formed sequence. */
          g_string_append_printf (out, "\\x%02x", bytes[i]);
          i++;
        }
      else
        {
          switch (text_oracle_classify (c))
            {
            case TEXT_ORACLE_PLAIN:
              g_string_append_len (out, text + i, n);
              break;
            case TEXT_ORACLE_BACKSLASH:
              g_string_append (out, "\\\\");
              break;
            case TEXT_ORACLE_C0:
            case TEXT_ORACLE_DEL:
              g_string_append_printf (out, "\\x%02x", (guint) c);
              break;
            case TEXT_ORACLE_C1:
            case TEXT_ORACLE_FORMAT:
              g_string_append_printf (out, "\\u%04x", (guint) c);
              break;
            default:
              g_assert_not_reached ();
            }
          i += n;
        }
      g_array_append_val (ends, out->len);
    }
  if (out->len <= limit)
    return g_string_free (out, FALSE);
  /* Too long: the most whole pieces that leave room for the ellipsis. */
  for (guint k = 0; k < ends->len; k++)
    if (g_array_index (ends, gsize, k) + ellipsis_len <= limit)
      keep = g_array_index (ends, gsize, k);
  g_string_truncate (out, keep);
  g_string_append (out, TEXT_ORACLE_ELLIPSIS);
  return g_string_free (out, FALSE);
}

gboolean
text_oracle_is_safe (const char *text, gsize max_bytes)
{
  const guint8 *bytes = (const guint8 *) text;
  gsize len;

  if (text == NULL)
    return TRUE;
  len = strlen (text);
  if (len > max_bytes)
    return FALSE;
  for (gsize i = 0; i < len;)
    {
      gunichar c = 0;
      gsize n = text_oracle_decode (bytes + i, len - i, &c);

      if (n == 0 || text_oracle_must_escape (c))
        return FALSE;
      i += n;
    }
  return TRUE;
}

char *
text_oracle_make_safe (const char *text, gsize max_bytes)
{
  if (text == NULL)
    return NULL;
  if (text_oracle_is_safe (text, max_bytes))
    return g_strdup (text);
  return text_oracle_escape (text, strlen (text), max_bytes);
}
