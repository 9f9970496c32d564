/* rtop-record-reader.c: what every reader shares: picking the reader of a
 * file from the format table, the first line, the merge factor, errors
 * (contract in the header). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-error.h"
#include "rtop-record-reader.h"

gboolean
rtop_record_reader_invalid (GError **error, const char *message)
{
  g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_INVALID_RECORDING, message);
  return FALSE;
}

void
rtop_record_reader_prefix_error (GError **error, const char *path)
{
  g_autofree char *display = NULL;

  if (error == NULL || *error == NULL || (*error)->domain != RTOP_ERROR)
    return;
  display = g_filename_display_name (path);
  g_prefix_error (error, _("Cannot open “%s”: "), display);
}

guint
rtop_record_reader_merge_factor (guint64 port_samples, guint budget)
{
  guint64 k = (port_samples + budget - 1) / MAX (budget, 1);

  return (guint) CLAMP (k, 1, G_MAXUINT);
}

gboolean
rtop_record_reader_first_line (RtopLineSource *src, const char **line, gsize *len,
                               GError **error)
{
  gboolean complete;
  GError *local = NULL;

  if (!rtop_line_source_next_line (src, line, len, &complete, &local))
    {
      if (local != NULL)
        g_propagate_error (error, local);
      else
        rtop_record_reader_invalid (error, _("The file is empty: it is not a recording."));
      return FALSE;
    }
  if (!complete)
    return rtop_record_reader_invalid (error, _("This file is not a recording made by rdmatop."));
  return TRUE;
}
