/* rtop-event-item.c */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-event-item.h"

struct _RtopEventItem {
  GObject parent_instance;

  RtopEvent *event;
  char *location;
};

G_DEFINE_FINAL_TYPE (RtopEventItem, rtop_event_item, G_TYPE_OBJECT)

static void
rtop_event_item_finalize (GObject *object)
{
  RtopEventItem *self = RTOP_EVENT_ITEM (object);

  g_clear_pointer (&self->event, rtop_event_free);
  g_free (self->location);
  G_OBJECT_CLASS (rtop_event_item_parent_class)->finalize (object);
}

static void
rtop_event_item_class_init (RtopEventItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_event_item_finalize;
}

static void
rtop_event_item_init (RtopEventItem *self)
{
}

RtopEventItem *
rtop_event_item_new (const RtopEvent *event)
{
  RtopEventItem *self = g_object_new (RTOP_TYPE_EVENT_ITEM, NULL);

  self->event = rtop_event_copy (event);
  if (event->device == NULL)
    self->location = g_strdup ("");
  else if (event->port == 0)
    self->location = g_strdup (event->device);
  else
    self->location = g_strdup_printf ("%s/%u", event->device, event->port);
  return self;
}

const RtopEvent *
rtop_event_item_get_event (RtopEventItem *self)
{
  return self->event;
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
