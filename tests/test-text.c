/* test-text.c: outside text (comm, cmdline, user names) made safe to show. */
#include "config.h"

#include <string.h>

#include "rtop-text.h"

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
  {
    /* What fits is not cut. */
    g_autofree char *got = rtop_text_escape ("12345678", -1, 8);

    g_assert_cmpstr (got, ==, "12345678");
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/text/escapes", test_escapes);
  g_test_add_func ("/collector/text/bidi", test_bidi);
  g_test_add_func ("/collector/text/bounded", test_bounded);
  g_test_add_func ("/collector/text/make-safe-idempotent", test_make_safe_idempotent);
  return g_test_run ();
}
