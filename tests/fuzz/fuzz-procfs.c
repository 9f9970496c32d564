/* fuzz-procfs.c: libFuzzer target for what rdmatop reads from /proc.
 *
 * A process controls its comm (in stat, between parentheses that it may
 * write itself) and its command line.  The input goes, from a heap buffer
 * of exactly its size, to the stat, status and cmdline parsers; whatever
 * text comes out must be what rtop-text.h promises: valid UTF-8 with no
 * control or bidirectional character, within its bound. */
#include <string.h>

#include "rtop-procfs-private.h"
#include "rtop-text.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
check_shown (const char *text, gsize max_bytes)
{
  if (text == NULL)
    return;
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpuint (strlen (text), <=, max_bytes);
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
      g_assert_no_error (error);
      g_assert_nonnull (info.comm);
      check_shown (info.comm, RTOP_TEXT_COMM_MAX);
    }
  else
    g_assert_nonnull (error);
  rtop_proc_info_clear (&info);

  cmdline = rtop_proc_parse_cmdline (exact, size);
  check_shown (cmdline, RTOP_TEXT_CMDLINE_MAX);

  if (!rtop_proc_parse_status_uid (terminated, &uid))
    g_assert_cmpuint (uid, ==, 12345);

  escaped = rtop_text_escape (exact, size, 64);
  check_shown (escaped, 64);
  return 0;
}
