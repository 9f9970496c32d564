/* rtop-section.c: the base of every view in the window: the session, its
 * history and the handlers connected to it. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-section.h"

typedef struct {
  RtopSession *session;
  RtopHistory *history;      /* the session's, while bound */
} RtopSectionPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (RtopSection, rtop_section, GTK_TYPE_BOX)

enum { PROP_0, PROP_SESSION, N_PROPS };
static GParamSpec *props[N_PROPS];

void
rtop_section_class_set_page (RtopSectionClass *klass, const char *name,
                             const char *title, const char *icon_name)
{
  klass->page_name = name;
  klass->page_title = title;
  klass->icon_name = icon_name;
}

RtopSession *
rtop_section_get_session (RtopSection *self)
{
  RtopSectionPrivate *priv = rtop_section_get_instance_private (self);

  g_return_val_if_fail (RTOP_IS_SECTION (self), NULL);
  return priv->session;
}


void
rtop_section_set_session (RtopSection *self, RtopSession *session)
{
  RtopSectionPrivate *priv = rtop_section_get_instance_private (self);
  RtopSectionClass *klass;

  g_return_if_fail (RTOP_IS_SECTION (self));
  g_return_if_fail (session == NULL || RTOP_IS_SESSION (session));

  if (priv->session == session)
    return;
  klass = RTOP_SECTION_GET_CLASS (self);
  /* Unbind first, so a section never holds models of two sessions; its
   * handlers go before its models, so none runs on a half-unbound view. */
  if (priv->history)
    g_signal_handlers_disconnect_by_data (priv->history, self);
  if (priv->session && klass->bind)
    klass->bind (self, NULL);
  g_clear_object (&priv->history);
  g_set_object (&priv->session, session);
  if (session)
    priv->history = g_object_ref (rtop_session_get_history (session));
  if (session && klass->bind)
    klass->bind (self, session);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_SESSION]);
}

RtopHistory *
rtop_section_get_history (RtopSection *self)
{
  RtopSectionPrivate *priv = rtop_section_get_instance_private (self);

  g_return_val_if_fail (RTOP_IS_SECTION (self), NULL);
  return priv->history;
}

void
rtop_section_connect_history (RtopSection *self, const char *signal, GCallback callback)
{
  RtopSectionPrivate *priv = rtop_section_get_instance_private (self);

  g_return_if_fail (RTOP_IS_SECTION (self));
  g_return_if_fail (priv->history != NULL);
  g_signal_connect_object (priv->history, signal, callback, self, G_CONNECT_SWAPPED);
}

const char *
rtop_section_get_page_name (RtopSection *self)
{
  g_return_val_if_fail (RTOP_IS_SECTION (self), NULL);
  return RTOP_SECTION_GET_CLASS (self)->page_name;
}

const char *
rtop_section_get_page_title (RtopSection *self)
{
  const char *title;

  g_return_val_if_fail (RTOP_IS_SECTION (self), NULL);
  title = RTOP_SECTION_GET_CLASS (self)->page_title;
  return title ? _(title) : NULL;
}


void
rtop_section_focus (RtopSection *self)
{
  RtopSectionClass *klass;

  g_return_if_fail (RTOP_IS_SECTION (self));
  klass = RTOP_SECTION_GET_CLASS (self);
  if (klass->focus)
    klass->focus (self);
  else
    gtk_widget_grab_focus (GTK_WIDGET (self));
}

void
rtop_section_find (RtopSection *self)
{
  RtopSectionClass *klass;

  g_return_if_fail (RTOP_IS_SECTION (self));
  klass = RTOP_SECTION_GET_CLASS (self);
  if (klass->find)
    klass->find (self);
  else
    rtop_section_focus (self);
}

char *
rtop_section_dump (RtopSection *self)
{
  RtopSectionClass *klass;
  char *text = NULL;

  g_return_val_if_fail (RTOP_IS_SECTION (self), NULL);
  klass = RTOP_SECTION_GET_CLASS (self);
  if (klass->dump)
    text = klass->dump (self);
  return text ? text : g_strdup ("");
}

static void
rtop_section_dispose (GObject *object)
{
  RtopSectionPrivate *priv = rtop_section_get_instance_private (RTOP_SECTION (object));

  /* The subclass's dispose, which ran first, let go of its models. */
  if (priv->history)
    g_signal_handlers_disconnect_by_data (priv->history, object);
  g_clear_object (&priv->history);
  g_clear_object (&priv->session);
  G_OBJECT_CLASS (rtop_section_parent_class)->dispose (object);
}

static void
rtop_section_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, rtop_section_get_session (RTOP_SECTION (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_section_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_SESSION:
      rtop_section_set_session (RTOP_SECTION (object), g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_section_class_init (RtopSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_section_dispose;
  object_class->get_property = rtop_section_get_property;
  object_class->set_property = rtop_section_set_property;

  props[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, RTOP_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
rtop_section_init (RtopSection *self)
{
}
