/* rtop-window-replay.c: the header bar while a recording is replayed.
 *
 * A replay is labelled as one ("Replaying rec.json.gz, 5 min"), alone at
 * the start of the header bar: the Record button, which cannot record a
 * replay, goes, and so do Refresh and the sampling interval, which have
 * nothing to act on. */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-port-item.h"
#include "rtop-series.h"
#include "rtop-window-private.h"

/* The longest span of any port's samples, in seconds (0 before any). */
static double
history_span_s (RtopHistory *history)
{
  GListModel *ports = rtop_history_get_ports (history);
  double span = 0;

  for (guint i = 0; i < g_list_model_get_n_items (ports); i++)
    {
      g_autoptr(RtopPortItem) port = g_list_model_get_item (ports, i);
      gint64 first, last;

      if (rtop_series_get_time_range (rtop_port_item_get_series (port), &first, &last))
        span = MAX (span, (double) (last - first) / G_USEC_PER_SEC);
    }
  return span;
}

/* "45 s", "5 min", "2 h 5 min". */
char *
rtop_window_format_duration (double seconds)
{
  int s = (int) round (seconds);

  if (s < 60)
    /* Translators: a recording's length in seconds */
    return g_strdup_printf (_("%d s"), s);
  if (s < 3600)
    /* Translators: a recording's length in minutes */
    return g_strdup_printf (_("%d min"), (s + 30) / 60);
  /* Translators: a recording's length in hours and minutes */
  return g_strdup_printf (_("%d h %d min"), s / 3600, (s % 3600 + 30) / 60);
}

void
rtop_window_update_replay (RtopWindow *self)
{
  const char *title = rtop_session_get_replay_title (self->session);
  double span = title != NULL ? history_span_s (rtop_session_get_history (self->session)) : 0;

  gtk_widget_set_visible (GTK_WIDGET (self->mode_label), title != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->record_button), title == NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->refresh_button), title == NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->interval_dropdown), title == NULL);
  if (title == NULL)
    return;
  if (span > 0)
    {
      g_autofree char *duration = rtop_window_format_duration (span);
      /* Translators: the header bar while a recording is shown: its name
       * and length ("Replaying rec.json.gz, 5 min") */
      g_autofree char *text = g_strdup_printf (_("Replaying %s, %s"), title, duration);

      gtk_label_set_label (self->mode_label, text);
    }
  else
    {
      /* Translators: the header bar while a recording is being opened */
      g_autofree char *text = g_strdup_printf (_("Replaying %s"), title);

      gtk_label_set_label (self->mode_label, text);
    }
}
