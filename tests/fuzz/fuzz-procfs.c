/* fuzz-procfs.c: libFuzzer target for what rdmatop reads from /proc.
 *
 * A process controls its comm (in stat, between parentheses that it may
 * write itself) and its command line.  The input goes, from a heap buffer
 * of exactly its size, to the stat, status and cmdline parsers; whatever
 * text comes out must be what rtop-text.h promises: valid UTF-8 with no
 * control or bidirectional character, within its bound.  It is judged by
 * the oracle of support/text-oracle.h, which shares none of the escaper's
 * rules, and where the parsers' input to the escaper is known, the text
 * must be the oracle's escape of it, byte for byte. */
#include <string.h>

#include "rtop-procfs-private.h"
#include "rtop-text.h"
#include "support/text-oracle.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
check_shown (const char *text, gsize max_bytes)
{
  if (text == NULL)
    return;
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpuint (strlen (text), <=, max_bytes);
  g_assert_true (text_oracle_is_safe (text, max_bytes));
  g_assert_true (rtop_text_is_safe (text, max_bytes));
  /* What is shown is shown as it is the next time through. */
  {
    g_autofree char *again = rtop_text_make_safe (text, max_bytes);

    g_assert_cmpstr (again, ==, text);
  }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *exact = g_memdup2 (data, size);
  g_autofree char *terminated = g_strndup ((const char *) data, size);
  g_autofree char *cmdline = NULL;
  g_autofree char *escaped = NULL;
  g_autoptr(GError) error = NULL;
  RtopProcInfo info = { 0 };
  guint32 uid = 12345;

  if (rtop_proc_parse_stat (exact, size, &info, &error))
    {
      /* The comm is what lies between the first '(' and the last ')'. */
      const char *lparen = memchr (exact, '(', size);
      const char *rparen = NULL;
      g_autofree char *want = NULL;

      for (gsize i = size; i > 0 && rparen == NULL; i--)
        if (exact[i - 1] == ')')
          rparen = exact + i - 1;
      g_assert_no_error (error);
      g_assert_nonnull (info.comm);
      g_assert_nonnull (lparen);
      g_assert_nonnull (rparen);
      want = text_oracle_escape (lparen + 1, rparen - lparen - 1, RTOP_TEXT_COMM_MAX);
      g_assert_cmpstr (info.comm, ==, want);
      check_shown (info.comm, RTOP_TEXT_COMM_MAX);
    }
  else
    g_assert_nonnull (error);
  rtop_proc_info_clear (&info);

  cmdline = rtop_proc_parse_cmdline (exact, size);
  {
    /* The arguments joined by spaces, without the NULs that end them. */
    gsize len = size;
    g_autofree char *joined = NULL;
    g_autofree char *want = NULL;

    while (len > 0 && exact[len - 1] == '\0')
      len--;
    /* Not g_strndup(), which stops at the first NUL. */
    joined = g_malloc (len + 1);
    if (len > 0)
      memcpy (joined, exact, len);
    joined[len] = '\0';
    for (gsize i = 0; i < len; i++)
      if (joined[i] == '\0')
        joined[i] = ' ';
    want = len > 0 ? text_oracle_escape (joined, len, RTOP_TEXT_CMDLINE_MAX) : NULL;
    g_assert_cmpstr (cmdline, ==, want);
  }
  check_shown (cmdline, RTOP_TEXT_CMDLINE_MAX);

  if (!rtop_proc_parse_status_uid (terminated, &uid))
    g_assert_cmpuint (uid, ==, 12345);

  escaped = rtop_text_escape (exact, size, 64);
  {
    g_autofree char *want = text_oracle_escape (exact, size, 64);

    g_assert_cmpstr (escaped, ==, want);
  }
  check_shown (escaped, 64);

  /* Text that is safe already comes back as it is, and the escaper's
   * verdict on it is the oracle's. */
  {
    g_autofree char *safe = rtop_text_make_safe (terminated, 64);
    g_autofree char *want = text_oracle_make_safe (terminated, 64);

    g_assert_cmpint (rtop_text_is_safe (terminated, 64), ==, text_oracle_is_safe (terminated, 64));
    g_assert_cmpstr (safe, ==, want);
  }
  return 0;
}
