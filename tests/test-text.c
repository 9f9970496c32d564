/* test-text.c: outside text (comm, cmdline, user names) made safe to show. */
#include "config.h"

#include <string.h>

#include "rtop-text.h"
#include "support/text-oracle.h"

static void
check_escape (const char *in, gssize len, const char *want)
{
  g_autofree char *got = rtop_text_escape (in, len, 4096);

  g_assert_cmpstr (got, ==, want);
  g_assert_true (g_utf8_validate (got, -1, NULL));
  g_assert_true (rtop_text_is_safe (got, 4096));
}

static void
test_escapes (void)
{
  check_escape ("ib_write_bw -d mlx5_0", -1, "ib_write_bw -d mlx5_0");
  check_escape ("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac", -1, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
  /* A backslash doubles, so an escape cannot be forged by typing one. */
  check_escape ("a\\x1b", -1, "a\\\\x1b");
  /* Terminal escape sequences, tabs, newlines, DEL. */
  check_escape ("\x1b[2J\x1b]0;owned\x07red", -1, "\\x1b[2J\\x1b]0;owned\\x07red");
  check_escape ("a\tb\nc\rd\x7f", -1, "a\\x09b\\x0ac\\x0dd\\x7f");
  /* C1 controls: U+009B is a CSI to some terminals. */
  check_escape ("x\xc2\x9b" "31m", -1, "x\\u009b31m");
  /* Invalid UTF-8, byte by byte; a sequence cut short too. */
  check_escape ("caf\xe9", -1, "caf\\xe9");
  check_escape ("b\xc3\x28", -1, "b\\xc3(");
  check_escape ("\xe2\x80", -1, "\\xe2\\x80");
  check_escape ("\xf0\x9f\x98\x80", -1, "\xf0\x9f\x98\x80");
  /* An embedded NUL, when a length is given. */
  check_escape ("a\0b", 3, "a\\x00b");
}

static void
test_bidi (void)
{
  static const gunichar marks[] = {
    0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
    0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029, 0xFEFF,
  };

  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      char in[16] = "x";
      g_autofree char *want = g_strdup_printf ("x\\u%04x" "sh.exe", marks[i]);

      g_unichar_to_utf8 (marks[i], in + 1);
      strcat (in, "sh.exe");
      check_escape (in, -1, want);
      g_assert_false (rtop_text_is_safe (in, 4096));
    }
  /* "gpt.sh" shown as "hs.tpg" by a right-to-left override: not any more. */
  check_escape ("job\xe2\x80\xaehs.tpg", -1, "job\\u202ehs.tpg");
}

/* 64 KiB of arguments come out bounded, cut on a character, marked. */
static void
test_bounded (void)
{
  static const char * const fills[] = { "a", "\xe6\x97\xa5", "\x1b", "\xe2\x80\xae", "\xff" };

  for (guint f = 0; f < G_N_ELEMENTS (fills); f++)
    for (gsize max = 9; max < 80; max += 7)
      {
        g_autoptr(GString) big = g_string_new (NULL);
        g_autofree char *got = NULL;

        while (big->len < 65536)
          g_string_append (big, fills[f]);
        got = rtop_text_escape (big->str, big->len, max);
        g_test_message ("fill %u max %" G_GSIZE_FORMAT ": %s", f, max, got);
        g_assert_cmpuint (strlen (got), <=, max);
        g_assert_true (g_str_has_suffix (got, "…"));
        g_assert_true (g_utf8_validate (got, -1, NULL));
        g_assert_true (rtop_text_is_safe (got, max));
        /* No escape cut in half: what precedes the ellipsis is whole pieces. */
        if (f == 2)
          g_assert_cmpuint ((strlen (got) - strlen ("…")) % 4, ==, 0);
      }
}

/* make_safe is the identity on what escape gives, so every consumer can
 * apply it; and it escapes what is not safe. */
static void
test_make_safe_idempotent (void)
{
  GRand *rand = g_rand_new_with_seed (17);
  static const char alphabet[] = "ab\\\x1b\n\x7f\xc2\x9b\xe2\x80\xae\xff\xe6\x97\xa5 ";

  for (guint round = 0; round < 2000; round++)
    {
      char in[64];
      gsize len = g_rand_int_range (rand, 0, sizeof in - 1);
      g_autofree char *once = NULL;
      g_autofree char *twice = NULL;
      g_autofree char *safe = NULL;

      for (gsize i = 0; i < len; i++)
        in[i] = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      in[len] = '\0';
      once = rtop_text_escape (in, len, 256);
      twice = rtop_text_make_safe (once, 256);
      g_assert_cmpstr (once, ==, twice);
      safe = rtop_text_make_safe (in, 256);
      g_assert_true (rtop_text_is_safe (safe, 256));
      if (rtop_text_is_safe (in, 256))
        g_assert_cmpstr (safe, ==, in);
    }
  g_assert_null (rtop_text_make_safe (NULL, 10));
  g_assert_true (rtop_text_is_safe (NULL, 10));
  g_assert_false (rtop_text_is_safe ("longer than four", 4));
  g_rand_free (rand);
}

/* ---- Judged by an oracle that shares none of the escaper's rules ---- */

/* Text for a test message: what the bytes are, whatever they are. */
static char *
printable (const char *text, gsize len)
{
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    {
      guchar b = (guchar) text[i];

      if (b >= 0x20 && b < 0x7F && b != '\\')
        g_string_append_c (out, b);
      else
        g_string_append_printf (out, "<%02X>", b);
    }
  return g_string_free (out, FALSE);
}

/* Escapes len bytes, makes them safe and asks whether they are, and
 * compares each answer with the oracle's. */
static void
check_against_oracle (const char *in, gsize len, gsize max_bytes)
{
  g_autofree char *want = text_oracle_escape (in, len, max_bytes);
  g_autofree char *got = rtop_text_escape (in, len, max_bytes);

  if (g_strcmp0 (got, want) != 0)
    {
      g_autofree char *shown_in = printable (in, len);
      g_autofree char *shown_got = printable (got, strlen (got));
      g_autofree char *shown_want = printable (want, strlen (want));

      g_test_message ("escaping %s (bound %" G_GSIZE_FORMAT "): got %s, the contract says %s",
                      shown_in, max_bytes, shown_got, shown_want);
    }
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpuint (strlen (got), <=, MAX (max_bytes, TEXT_ORACLE_MIN_BOUND));
  /* The other two take NUL-terminated text. */
  if (memchr (in, '\0', len) == NULL)
    {
      g_autofree char *copy = g_strndup (in, len);
      g_autofree char *want_safe = text_oracle_make_safe (copy, max_bytes);
      g_autofree char *got_safe = rtop_text_make_safe (copy, max_bytes);

      if (rtop_text_is_safe (copy, max_bytes) != text_oracle_is_safe (copy, max_bytes))
        {
          g_autofree char *shown_in = printable (in, len);

          g_test_message ("is_safe (%s, %" G_GSIZE_FORMAT ") disagrees with the contract",
                          shown_in, max_bytes);
        }
      g_assert_cmpint (rtop_text_is_safe (copy, max_bytes), ==, text_oracle_is_safe (copy, max_bytes));
      g_assert_cmpstr (got_safe, ==, want_safe);
    }
}

/* One code point between two letters, and alone.  g_unichar_to_utf8()
 * writes surrogates and values past U+10FFFF too, as the ill-formed bytes
 * they are. */
static void
check_code_point (gunichar c)
{
  char in[16] = "a";
  gsize len = 1 + g_unichar_to_utf8 (c, in + 1);

  in[len++] = 'b';
  check_against_oracle (in, len, 4096);
  check_against_oracle (in + 1, len - 2, 4096);
}

/* The oracle is only as good as its character classes: they must be those
 * of the Unicode character database (as GLib has it), and its decoder
 * must read back what GLib encodes, for every code point. */
static void
test_oracle_matches_unicode (void)
{
  for (gunichar c = 0; c <= 0x10FFFF; c++)
    {
      GUnicodeType type = g_unichar_type (c);
      TextOracleClass klass = text_oracle_classify (c);
      gboolean control = klass == TEXT_ORACLE_C0 || klass == TEXT_ORACLE_DEL ||
                         klass == TEXT_ORACLE_C1;
      gboolean format_type = type == G_UNICODE_FORMAT || type == G_UNICODE_LINE_SEPARATOR ||
                             type == G_UNICODE_PARAGRAPH_SEPARATOR;
      char buf[8];
      gsize n = g_unichar_to_utf8 (c, buf);
      gunichar back = 0;
      gsize read = text_oracle_decode ((const guint8 *) buf, n, &back);

      g_assert_cmpint (control, ==, type == G_UNICODE_CONTROL);
      if (type == G_UNICODE_LINE_SEPARATOR || type == G_UNICODE_PARAGRAPH_SEPARATOR)
        g_assert_cmpint (klass, ==, TEXT_ORACLE_FORMAT);
      if (klass == TEXT_ORACLE_FORMAT)
        g_assert_cmpint (format_type, ==, TRUE);
      if (c >= 0xD800 && c <= 0xDFFF)
        g_assert_cmpuint (read, ==, 0);
      else
        {
          g_assert_cmpuint (read, ==, n);
          g_assert_cmpuint (back, ==, c);
        }
    }
}

/* Every edge of every range the contract names, with two neighbours on
 * each side: an edge off by one shows here. */
static void
test_oracle_range_edges (void)
{
  static const gunichar edges[] = {
    0x0000,                  /* the first C0 control */
    0x001F,                  /* the last C0 control */
    0x005C,                  /* the backslash */
    0x007F,                  /* DEL */
    0x0080,                  /* the first C1 control */
    0x009F,                  /* the last C1 control */
    0x061C,                  /* ARABIC LETTER MARK */
    0x200E, 0x200F,          /* LRM, RLM */
    0x2028, 0x2029,          /* line and paragraph separators */
    0x202A, 0x202E,          /* the first and last embedding or override */
    0x2066, 0x2069,          /* the first and last isolate */
    0xFEFF,                  /* ZERO WIDTH NO-BREAK SPACE */
    0xD800, 0xDFFF,          /* the surrogates, which UTF-8 cannot carry */
    0x10FFFF,                /* the last code point */
  };

  for (guint i = 0; i < G_N_ELEMENTS (edges); i++)
    for (gint d = -2; d <= 2; d++)
      if ((gint64) edges[i] + d >= 0)
        check_code_point (edges[i] + d);
}

/* Then every code point there is, and a few past the last. */
static void
test_oracle_every_code_point (void)
{
  for (gunichar c = 0; c <= 0x110002; c++)
    check_code_point (c);
}

/* Byte sequences at each edge of the well-formed UTF-8 table: what is
 * well-formed is shown (or escaped) as its character, what is not is
 * escaped byte by byte.  The expected text is written out by hand. */
static void
test_oracle_invalid_bytes (void)
{
  static const struct {
    const char *in;
    const char *want;
  } cases[] = {
    { "\x80", "\\x80" },                                     /* the first continuation byte, alone */
    { "\xbf", "\\xbf" },                                     /* the last */
    { "\xc0\x80", "\\xc0\\x80" },                            /* an overlong NUL */
    { "\xc1\xbf", "\\xc1\\xbf" },                            /* an overlong U+007F */
    { "\xc2\x80", "\\u0080" },                               /* the first two-byte character */
    { "\xc2" "A", "\\xc2" "A" },                             /* no continuation */
    { "\xc2\xc0", "\\xc2\\xc0" },                            /* a lead byte where one should be */
    { "\xdf\xbf", "\xdf\xbf" },                              /* U+07FF */
    { "\xe0\x9f\xbf", "\\xe0\\x9f\\xbf" },                   /* an overlong U+07FF */
    { "\xe0\xa0\x80", "\xe0\xa0\x80" },                      /* U+0800 */
    { "\xed\x9f\xbf", "\xed\x9f\xbf" },                      /* U+D7FF */
    { "\xed\xa0\x80", "\\xed\\xa0\\x80" },                   /* U+D800, a surrogate */
    { "\xed\xbf\xbf", "\\xed\\xbf\\xbf" },                   /* U+DFFF */
    { "\xee\x80\x80", "\xee\x80\x80" },                      /* U+E000 */
    { "\xef\xbb\xbf", "\\ufeff" },                           /* a byte order mark */
    { "\xef\xbf\xbf", "\xef\xbf\xbf" },                      /* U+FFFF: no character, yet well-formed */
    { "\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf" },          /* an overlong U+FFFF */
    { "\xf0\x90\x80\x80", "\xf0\x90\x80\x80" },              /* U+10000 */
    { "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },              /* U+10FFFF */
    { "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" },          /* U+110000 */
    { "\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80" },          /* a lead byte of nothing */
    { "\xfe", "\\xfe" },
    { "\xff", "\\xff" },
    /* Cut short at the end, or by a character that is not its next byte. */
    { "\xe2\x80", "\\xe2\\x80" },
    { "\xf0\x9f\x98", "\\xf0\\x9f\\x98" },
    { "\xe2\x80" "a", "\\xe2\\x80" "a" },
    { "\xf0\x9f\x98\xe2\x80\xae", "\\xf0\\x9f\\x98\\u202e" },
    { "\xe2\xc2\x9b", "\\xe2\\u009b" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = rtop_text_escape (cases[i].in, -1, 4096);

      g_assert_cmpstr (got, ==, cases[i].want);
      check_against_oracle (cases[i].in, strlen (cases[i].in), 4096);
    }
  /* And every input of one or two bytes. */
  for (guint a = 0; a < 256; a++)
    {
      char in[2] = { (char) a, 0 };

      check_against_oracle (in, 1, 4096);
      for (guint b = 0; b < 256; b++)
        {
          in[1] = (char) b;
          check_against_oracle (in, 2, 4096);
        }
    }
  /* Three and four bytes from each lead byte, with each edge of the
   * continuation ranges after it. */
  {
    static const guint8 next[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF };

    for (guint a = 0xE0; a <= 0xFF; a++)
      for (guint b = 0; b < G_N_ELEMENTS (next); b++)
        for (guint c = 0; c < G_N_ELEMENTS (next); c++)
          for (guint d = 0; d < G_N_ELEMENTS (next); d++)
            {
              char in[4] = { (char) a, (char) next[b], (char) next[c], (char) next[d] };

              check_against_oracle (in, 3, 4096);
              check_against_oracle (in, 4, 4096);
            }
  }
}

/* Text of pad times 'x' and then piece, escaped under max_bytes, must be
 * want. */
static void
check_cut (gsize pad, const char *piece, gsize max_bytes, const char *want)
{
  g_autoptr(GString) in = g_string_new (NULL);
  g_autofree char *got = NULL;

  for (gsize i = 0; i < pad; i++)
    g_string_append_c (in, 'x');
  g_string_append (in, piece);
  got = rtop_text_escape (in->str, in->len, max_bytes);
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpuint (strlen (got), <=, MAX (max_bytes, TEXT_ORACLE_MIN_BOUND));
  check_against_oracle (in->str, in->len, max_bytes);
}

/* Escaped text exactly at the bound is whole; one byte under, too; one
 * byte over, it is cut after the most whole pieces that leave room for
 * the ellipsis, and marked.  The expected text is built by hand: padding,
 * then the piece's escaped form. */
static void
test_bound_edges (void)
{
  static const struct {
    const char *in;
    const char *escaped;
  } pieces[] = {
    { "a", "a" },
    { "\\", "\\\\" },
    { "\xe6\x97\xa5", "\xe6\x97\xa5" },
    { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },
    { "\x1b", "\\x1b" },
    { "\xff", "\\xff" },
    { "\xc2\x9b", "\\u009b" },
    { "\xe2\x80\xae", "\\u202e" },
  };
  static const gsize bounds[] = { 9, 10, 16, 64, RTOP_TEXT_COMM_MAX, RTOP_TEXT_CMDLINE_MAX };

  for (guint p = 0; p < G_N_ELEMENTS (pieces); p++)
    for (guint b = 0; b < G_N_ELEMENTS (bounds); b++)
      {
        gsize max = bounds[b];
        gsize piece_len = strlen (pieces[p].escaped);

        for (gsize escaped_len = max - 1; escaped_len <= max + 1; escaped_len++)
          {
            gsize pad = escaped_len - piece_len;
            g_autoptr(GString) want = g_string_new (NULL);

            g_test_message ("piece %u, bound %" G_GSIZE_FORMAT ", %" G_GSIZE_FORMAT " bytes escaped",
                            p, max, escaped_len);
            if (escaped_len <= max)
              {
                for (gsize i = 0; i < pad; i++)
                  g_string_append_c (want, 'x');
                g_string_append (want, pieces[p].escaped);
              }
            else
              {
                /* The piece does not fit; of the padding, what leaves
                 * room for the three bytes of the ellipsis. */
                for (gsize i = 0; i < MIN (pad, max - 3); i++)
                  g_string_append_c (want, 'x');
                g_string_append (want, "…");
              }
            check_cut (pad, pieces[p].in, max, want->str);
          }
      }
}

/* A bound under 9 is 9: one escape of the longest kind and the ellipsis. */
static void
test_bound_floor (void)
{
  for (gsize max = 0; max < 9; max++)
    {
      check_cut (9, "", max, "xxxxxxxxx");
      check_cut (10, "", max, "xxxxxx…");
      check_cut (0, "\xe2\x80\xae", max, "\\u202e");
      check_cut (0, "\xe2\x80\xae\xe2\x80\xae", max, "\\u202e…");
      check_cut (5, "\x1b", max, "xxxxx\\x1b");
      check_cut (6, "\x1b", max, "xxxxxx…");
    }
}

/* A character or an escape that straddles the bound is left out whole:
 * never some of its bytes. */
static void
test_bound_straddle (void)
{
  /* 12 bytes and two of three: the byte where an ellipsis would have to
   * start (the 14th of 16) is inside the first character. */
  check_cut (12, "\xe6\x97\xa5\xe6\x97\xa5", 16, "xxxxxxxxxxxx…");
  check_cut (12, "\xe6\x97\xa5" "a", 16, "xxxxxxxxxxxx\xe6\x97\xa5" "a");
  check_cut (11, "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 16, "xxxxxxxxxxx…");
  check_cut (11, "\xf0\x9f\x98\x80" "a", 16, "xxxxxxxxxxx\xf0\x9f\x98\x80" "a");
  /* The same for escapes. */
  check_cut (11, "\x1b" "ab", 16, "xxxxxxxxxxx…");
  check_cut (11, "\x1b" "a", 16, "xxxxxxxxxxx\\x1b" "a");
  check_cut (12, "\xe2\x80\xae" "a", 16, "xxxxxxxxxxxx…");
  check_cut (10, "\xe2\x80\xae", 16, "xxxxxxxxxx\\u202e");
  check_cut (12, "\xff\xfe", 16, "xxxxxxxxxxxx…");
  /* A doubled backslash is one piece too: kept when it ends where the
   * ellipsis starts, left out when it would end after. */
  check_cut (11, "\\\\\\", 16, "xxxxxxxxxxx\\\\…");
  check_cut (12, "\\\\\\", 16, "xxxxxxxxxxxx…");
}

/* Random text of the characters at the edges, and of bytes that start or
 * cut sequences, at random bounds. */
static void
test_oracle_random (void)
{
  static const char * const atoms[] = {
    "a", "\\", "\x1f", " ", "\x7f", "\x7e", "\xc2\x80", "\xc2\x9f", "\xc2\xa0", "\xd8\x9c",
    "\xe2\x80\x8d", "\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\x90", "\xe2\x80\xa8",
    "\xe2\x80\xa9", "\xe2\x80\xaa", "\xe2\x80\xae", "\xe2\x80\xaf",
    "\xe2\x81\xa5", "\xe2\x81\xa6", "\xe2\x81\xa9", "\xe2\x81\xaa", "\xef\xbb\xbf",
    "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "\x00", "\x80", "\xc3", "\xe2\x80", "\xf0\x9f",
    "\xed\xa0\x80", "\xff",
  };
  GRand *rand = g_rand_new_with_seed (23);

  for (guint round = 0; round < 20000; round++)
    {
      g_autoptr(GString) in = g_string_new (NULL);
      guint n = g_rand_int_range (rand, 0, 24);
      gsize max = g_rand_int_range (rand, 0, 64);

      for (guint i = 0; i < n; i++)
        {
          const char *atom = atoms[g_rand_int_range (rand, 0, G_N_ELEMENTS (atoms))];

          /* "\x00" is one byte, the NUL. */
          g_string_append_len (in, atom, *atom != '\0' ? (gssize) strlen (atom) : 1);
        }
      check_against_oracle (in->str, in->len, max);
    }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/text/escapes", test_escapes);
  g_test_add_func ("/collector/text/bidi", test_bidi);
  g_test_add_func ("/collector/text/bounded", test_bounded);
  g_test_add_func ("/collector/text/make-safe-idempotent", test_make_safe_idempotent);
  g_test_add_func ("/collector/text/oracle/matches-unicode", test_oracle_matches_unicode);
  g_test_add_func ("/collector/text/oracle/range-edges", test_oracle_range_edges);
  g_test_add_func ("/collector/text/oracle/every-code-point", test_oracle_every_code_point);
  g_test_add_func ("/collector/text/oracle/invalid-bytes", test_oracle_invalid_bytes);
  g_test_add_func ("/collector/text/oracle/random", test_oracle_random);
  g_test_add_func ("/collector/text/bound/edges", test_bound_edges);
  g_test_add_func ("/collector/text/bound/floor", test_bound_floor);
  g_test_add_func ("/collector/text/bound/straddle", test_bound_straddle);
  return g_test_run ();
}
