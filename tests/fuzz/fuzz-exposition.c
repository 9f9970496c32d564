/* fuzz-exposition.c: libFuzzer target for what the exporter reads from an
 * HTTP request and what it writes from outside strings.
 *
 * The input is an Accept header value, read from a heap buffer of exactly
 * its size (the sanitizers catch a read past it), and also a process's
 * command name in the exposition: every line that comes out must be valid
 * UTF-8 with the string escaped (no raw newline inside a label value, so
 * each sample stays one line). */
#include <string.h>

#include "rtop-openmetrics.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
check_exposition (const guint8 *data, size_t size)
{
  RtopOpenMetricsOptions options = { .processes = TRUE };
  RtopOpenMetrics *om = rtop_openmetrics_new (&options);
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopProcess *proc = rtop_process_new (1);
  RtopProcessDevice pd = { g_strdup ("rxe0"), 1, 1, 1, 1 };
  g_autofree char *comm = g_strndup ((const char *) data, size);
  GBytes *bytes;
  gsize len;
  const char *text;

  proc->comm = g_strdup (comm);
  g_array_append_val (proc->devices, pd);
  g_ptr_array_add (snap->processes, proc);
  rtop_snapshot_seal (snap);
  rtop_openmetrics_update (om, snap, 0);
  bytes = rtop_openmetrics_format (om, size % 2 ? RTOP_EXPOSITION_OPENMETRICS
                                                : RTOP_EXPOSITION_PROMETHEUS, NULL);
  text = g_bytes_get_data (bytes, &len);
  if (!g_utf8_validate (text, len, NULL))
    __builtin_trap ();
  /* One sample per process family, each on its own line. */
  for (const char *p = text; (p = strstr (p, "\nrdmatop_process_queue_pairs{")) != NULL; p++)
    {
      const char *eol = strchr (p + 1, '\n');

      if (eol == NULL || eol[-1] != '1' || eol[-2] != ' ')
        __builtin_trap ();
    }
  g_bytes_unref (bytes);
  rtop_snapshot_unref (snap);
  rtop_openmetrics_free (om);
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  char *copy = g_memdup2 (data, size);
  RtopExposition format = 99;

  if (rtop_exposition_negotiate (size > 0 ? copy : NULL, size, &format) &&
      format != RTOP_EXPOSITION_OPENMETRICS && format != RTOP_EXPOSITION_PROMETHEUS)
    __builtin_trap ();
  (void) rtop_http_accepts_gzip (size > 0 ? copy : NULL, size);
  g_free (copy);
  check_exposition (data, size);
  return 0;
}
