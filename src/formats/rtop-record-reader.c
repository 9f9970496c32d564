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

static gboolean
has_state_event (const RtopSnapshot *snap, const char *device, guint32 port)
{
  for (guint i = 0; snap->events != NULL && i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if ((ev->kind == RTOP_EVENT_PORT_DOWN || ev->kind == RTOP_EVENT_PORT_STATE)
          && ev->port == port && g_strcmp0 (ev->device, device) == 0)
        return TRUE;
    }
  return FALSE;
}

void
rtop_record_reader_note_down_at_start (GHashTable *seen, RtopSnapshot *snap)
{
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);
          char *key;
          RtopEvent *ev;

          if (g_hash_table_size (seen) >= RTOP_RECORD_READER_MAX_PORTS_SEEN)
            return;
          key = g_strdup_printf ("%s/%u", dev->name, port->index);
          if (!g_hash_table_add (seen, key))
            continue;
          /* 1 DOWN, 2 INIT, 3 ARMED: not carrying traffic (0 is unknown). */
          if (port->state < 1 || port->state > 3 || has_state_event (snap, dev->name, port->index))
            continue;
          ev = rtop_event_new (RTOP_EVENT_PORT_DOWN, RTOP_SEVERITY_ERROR, dev->name, port->index, NULL);
          ev->message = g_strdup_printf (_("Port %s/%u was already down when the recording started: state %s."),
                                         dev->name, port->index, rtop_port_state_to_string (port->state));
          ev->new_value = g_strdup (rtop_port_state_to_string (port->state));
          ev->monotonic_us = snap->monotonic_us;
          ev->realtime_us = snap->realtime_us;
          g_ptr_array_add (snap->events, ev);
        }
    }
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
