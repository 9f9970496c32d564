/* rtop-source.c: the snapshot-source interface and the helpers its
 * implementations share. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "rtop-source.h"

G_DEFINE_INTERFACE (RtopSource, rtop_source, G_TYPE_OBJECT)

enum { SIGNAL_SNAPSHOT, N_SIGNALS };
static guint signals[N_SIGNALS];

static const char * const prop_names[RTOP_SOURCE_N_PROPS] = { "name", "state", "error", "live" };

GType
rtop_source_state_get_type (void)
{
  static gsize type_id;
  static const GEnumValue values[] = {
    { RTOP_SOURCE_STATE_STOPPED, "RTOP_SOURCE_STATE_STOPPED", "stopped" },
    { RTOP_SOURCE_STATE_CONNECTING, "RTOP_SOURCE_STATE_CONNECTING", "connecting" },
    { RTOP_SOURCE_STATE_RUNNING, "RTOP_SOURCE_STATE_RUNNING", "running" },
    { RTOP_SOURCE_STATE_LOST, "RTOP_SOURCE_STATE_LOST", "lost" },
    { RTOP_SOURCE_STATE_FINISHED, "RTOP_SOURCE_STATE_FINISHED", "finished" },
    { RTOP_SOURCE_STATE_FAILED, "RTOP_SOURCE_STATE_FAILED", "failed" },
    { 0, NULL, NULL },
  };

  if (g_once_init_enter (&type_id))
    g_once_init_leave (&type_id, g_enum_register_static ("RtopSourceState", values));
  return type_id;
}

static void
rtop_source_default_init (RtopSourceInterface *iface)
{
  g_object_interface_install_property (iface,
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_interface_install_property (iface,
    g_param_spec_enum ("state", NULL, NULL, RTOP_TYPE_SOURCE_STATE, RTOP_SOURCE_STATE_STOPPED,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_interface_install_property (iface,
    g_param_spec_string ("error", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_interface_install_property (iface,
    g_param_spec_boolean ("live", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * RtopSource::snapshot:
   * @snapshot: the new #RtopSnapshot (sealed, immutable)
   *
   * Emitted on the main context the source was started on.
   */
  signals[SIGNAL_SNAPSHOT] =
    g_signal_new ("snapshot", G_TYPE_FROM_INTERFACE (iface), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1,
                  RTOP_TYPE_SNAPSHOT | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static RtopSourceProps *
get_props (RtopSource *self)
{
  return RTOP_SOURCE_GET_IFACE (self)->get_props (self);
}

void
rtop_source_start (RtopSource *self)
{
  g_return_if_fail (RTOP_IS_SOURCE (self));
  RTOP_SOURCE_GET_IFACE (self)->start (self);
}

void
rtop_source_stop (RtopSource *self)
{
  g_return_if_fail (RTOP_IS_SOURCE (self));
  RTOP_SOURCE_GET_IFACE (self)->stop (self);
}

void
rtop_source_refresh (RtopSource *self)
{
  RtopSourceInterface *iface;

  g_return_if_fail (RTOP_IS_SOURCE (self));
  iface = RTOP_SOURCE_GET_IFACE (self);
  if (iface->refresh)
    iface->refresh (self);
}

void
rtop_source_deliver_pending (RtopSource *self)
{
  RtopSourceInterface *iface;

  g_return_if_fail (RTOP_IS_SOURCE (self));
  iface = RTOP_SOURCE_GET_IFACE (self);
  if (iface->deliver_pending)
    iface->deliver_pending (self);
}

void
rtop_source_set_interval (RtopSource *self, double seconds)
{
  RtopSourceInterface *iface;

  g_return_if_fail (RTOP_IS_SOURCE (self));
  iface = RTOP_SOURCE_GET_IFACE (self);
  if (iface->set_interval)
    iface->set_interval (self, seconds);
}

const char *
rtop_source_get_name (RtopSource *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE (self), NULL);
  return get_props (self)->name;
}

RtopSourceState
rtop_source_get_state (RtopSource *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE (self), RTOP_SOURCE_STATE_STOPPED);
  return get_props (self)->state;
}

const char *
rtop_source_get_error (RtopSource *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE (self), NULL);
  return get_props (self)->error;
}

gboolean
rtop_source_get_live (RtopSource *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE (self), FALSE);
  return get_props (self)->live;
}

const char *
rtop_source_state_to_label (RtopSourceState state)
{
  switch (state)
    {
    /* Translators: the state of a data source (this computer, a recording, a host) */
    case RTOP_SOURCE_STATE_STOPPED: return C_("source state", "Stopped");
    case RTOP_SOURCE_STATE_CONNECTING: return C_("source state", "Connecting");
    case RTOP_SOURCE_STATE_RUNNING: return C_("source state", "Live");
    case RTOP_SOURCE_STATE_LOST: return C_("source state", "Lost, retrying");
    case RTOP_SOURCE_STATE_FINISHED: return C_("source state", "Finished");
    case RTOP_SOURCE_STATE_FAILED: return C_("source state", "Failed");
    default: return C_("source state", "Unknown");
    }
}

void
rtop_source_props_clear (RtopSourceProps *props)
{
  g_clear_pointer (&props->name, g_free);
  g_clear_pointer (&props->error, g_free);
}

void
rtop_source_install_properties (GObjectClass *klass, guint first_prop_id)
{
  for (guint i = 0; i < RTOP_SOURCE_N_PROPS; i++)
    g_object_class_override_property (klass, first_prop_id + i, prop_names[i]);
}

gboolean
rtop_source_get_common_property (RtopSource *self, guint first_prop_id,
                                 guint prop_id, GValue *value)
{
  RtopSourceProps *props = get_props (self);

  if (prop_id < first_prop_id || prop_id >= first_prop_id + RTOP_SOURCE_N_PROPS)
    return FALSE;
  switch (prop_id - first_prop_id)
    {
    case 0: g_value_set_string (value, props->name); break;
    case 1: g_value_set_enum (value, props->state); break;
    case 2: g_value_set_string (value, props->error); break;
    default: g_value_set_boolean (value, props->live); break;
    }
  return TRUE;
}

void
rtop_source_update (RtopSource *self, RtopSourceState state, const char *error)
{
  RtopSourceProps *props = get_props (self);
  gboolean state_changed = props->state != state;
  gboolean error_changed = g_strcmp0 (props->error, error) != 0;

  props->state = state;
  if (error_changed)
    {
      g_free (props->error);
      props->error = g_strdup (error);
    }
  /* Both are set before either is notified, so a handler sees them agree. */
  if (state_changed)
    g_object_notify (G_OBJECT (self), "state");
  if (error_changed)
    g_object_notify (G_OBJECT (self), "error");
}

void
rtop_source_emit_snapshot (RtopSource *self, RtopSnapshot *snapshot)
{
  g_signal_emit (self, signals[SIGNAL_SNAPSHOT], 0, snapshot);
}
