/* rtop-event-item.c: one health event of the log, with where it happened, for
 * the views that list events. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-event-item-private.h"

struct _RtopEventItem {
  GObject parent_instance;

  RtopEvent *event;
  char *host;
  char *location;
  gint64 last_us;
};

G_DEFINE_FINAL_TYPE (RtopEventItem, rtop_event_item, G_TYPE_OBJECT)

static void
rtop_event_item_finalize (GObject *object)
{
  RtopEventItem *self = RTOP_EVENT_ITEM (object);

  g_clear_pointer (&self->event, rtop_event_free);
  g_free (self->host);
  g_free (self->location);
  G_OBJECT_CLASS (rtop_event_item_parent_class)->finalize (object);
}

enum { UPDATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
rtop_event_item_class_init (RtopEventItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_event_item_finalize;
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
rtop_event_item_init (RtopEventItem *self)
{
}

RtopEventItem *
rtop_event_item_new (const RtopEvent *event, const char *host)
{
  RtopEventItem *self = g_object_new (RTOP_TYPE_EVENT_ITEM, NULL);
  g_autofree char *place = NULL;

  self->event = rtop_event_copy (event);
  self->host = g_strdup (host);
  self->last_us = event->monotonic_us;
  if (event->device == NULL)
    place = g_strdup ("");
  else if (event->port == 0)
    place = g_strdup (event->device);
  else
    place = g_strdup_printf ("%s/%u", event->device, event->port);
  /* Written as the port keys are, so that a location names its host. */
  if (host != NULL)
    self->location = *place != '\0' ? g_strdup_printf ("%s:%s", host, place) : g_strdup (host);
  else
    self->location = g_steal_pointer (&place);
  return self;
}

const char *
rtop_event_item_get_host (RtopEventItem *self)
{
  return self->host;
}

const RtopEvent *
rtop_event_item_get_event (RtopEventItem *self)
{
  return self->event;
}

void
rtop_event_item_update (RtopEventItem *self, const RtopEvent *event)
{
  RtopEvent *next;

  g_return_if_fail (RTOP_IS_EVENT_ITEM (self));

  next = rtop_event_copy (event);
  /* The row stays where the episode began. */
  next->realtime_us = self->event->realtime_us;
  next->monotonic_us = self->event->monotonic_us;
  next->severity = MAX (next->severity, self->event->severity);
  self->last_us = event->monotonic_us;
  rtop_event_free (self->event);
  self->event = next;
  g_signal_emit (self, signals[UPDATED], 0);
}

gint64
rtop_event_item_get_last_us (RtopEventItem *self)
{
  return self->last_us;
}

int
rtop_event_item_compare_rank (gconstpointer a, gconstpointer b, gpointer user_data)
{
  RtopEventItem *ea = (RtopEventItem *) a, *eb = (RtopEventItem *) b;

  if (ea->event->severity != eb->event->severity)
    return ea->event->severity > eb->event->severity ? -1 : 1;
  if (ea->last_us != eb->last_us)
    return ea->last_us > eb->last_us ? -1 : 1;
  return 0;
}

const char *
rtop_event_item_get_location (RtopEventItem *self)
{
  return self->location;
}

const char *
rtop_severity_to_label (RtopSeverity severity)
{
  static const char * const labels[] = {
    [RTOP_SEVERITY_INFO] = N_("Info"),
    [RTOP_SEVERITY_WARNING] = N_("Warning"),
    [RTOP_SEVERITY_ERROR] = N_("Error"),
  };

  if ((guint) severity >= G_N_ELEMENTS (labels))
    return "?";
  return _(labels[severity]);
}

const char *
rtop_severity_sign (RtopSeverity severity)
{
  switch (severity)
    {
    case RTOP_SEVERITY_ERROR: return RTOP_SIGN_ERROR;
    case RTOP_SEVERITY_WARNING: return RTOP_SIGN_WARNING;
    case RTOP_SEVERITY_INFO:
    default: return RTOP_SIGN_INFO;
    }
}
