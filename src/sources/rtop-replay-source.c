/* rtop-replay-source.c */
#include "config.h"

#include "rtop-replay-source.h"

struct _RtopReplaySource {
  GObject parent_instance;

  RtopSourceProps props;
  RtopRecording *recording;
  guint position;
  GSource *idle;
  GSource *nudge;            /* a chunk every NUDGE_MS however busy the loop is */
};

/* A window that redraws all the time (an animation on a slow display:
 * ssh -X, software rendering) leaves no idle time: the replay would never
 * start.  A chunk at default priority this often keeps it going, while
 * idle time, when there is some, still plays it fast. */
#define NUDGE_MS 100

enum { PROP_0, PROP_SOURCE_FIRST };

static void source_iface_init (RtopSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RtopReplaySource, rtop_replay_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RTOP_TYPE_SOURCE, source_iface_init))

static void
clear_sources (RtopReplaySource *self)
{
  if (self->idle)
    g_source_destroy (self->idle);
  g_clear_pointer (&self->idle, g_source_unref);
  if (self->nudge)
    g_source_destroy (self->nudge);
  g_clear_pointer (&self->nudge, g_source_unref);
}

static gboolean
chunk_cb (gpointer user_data)
{
  RtopReplaySource *self = user_data;
  guint n = rtop_recording_get_n_snapshots (self->recording);
  g_autoptr(RtopReplaySource) hold = g_object_ref (self);

  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_RUNNING, NULL);
  for (guint i = 0; i < RTOP_REPLAY_SOURCE_CHUNK && self->position < n && self->idle; i++)
    rtop_source_emit_snapshot (RTOP_SOURCE (self),
                               rtop_recording_get_snapshot (self->recording, self->position++));
  /* A handler may have stopped us. */
  if (self->idle == NULL)
    return G_SOURCE_REMOVE;
  if (self->position < n)
    return G_SOURCE_CONTINUE;
  clear_sources (self);
  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_FINISHED, NULL);
  return G_SOURCE_REMOVE;
}

static void
replay_start (RtopSource *source)
{
  RtopReplaySource *self = RTOP_REPLAY_SOURCE (source);

  if (self->idle != NULL)
    return;
  self->position = 0;
  self->idle = g_idle_source_new ();
  g_source_set_priority (self->idle, G_PRIORITY_DEFAULT_IDLE);
  g_source_set_callback (self->idle, chunk_cb, self, NULL);
  g_source_set_static_name (self->idle, "[rdmatop] replay");
  g_source_attach (self->idle, g_main_context_get_thread_default ());
  self->nudge = g_timeout_source_new (NUDGE_MS);
  g_source_set_callback (self->nudge, chunk_cb, self, NULL);
  g_source_set_static_name (self->nudge, "[rdmatop] replay nudge");
  g_source_attach (self->nudge, g_main_context_get_thread_default ());
  rtop_source_update (source, RTOP_SOURCE_STATE_CONNECTING, NULL);
}

static void
replay_stop (RtopSource *source)
{
  RtopReplaySource *self = RTOP_REPLAY_SOURCE (source);

  if (self->idle == NULL)
    return;
  clear_sources (self);
  rtop_source_update (source, RTOP_SOURCE_STATE_STOPPED, NULL);
}

static RtopSourceProps *
replay_get_props (RtopSource *source)
{
  return &RTOP_REPLAY_SOURCE (source)->props;
}

static void
source_iface_init (RtopSourceInterface *iface)
{
  iface->get_props = replay_get_props;
  iface->start = replay_start;
  iface->stop = replay_stop;
}

RtopReplaySource *
rtop_replay_source_new (RtopRecording *recording, const char *name)
{
  RtopReplaySource *self;

  g_return_val_if_fail (RTOP_IS_RECORDING (recording), NULL);
  self = g_object_new (RTOP_TYPE_REPLAY_SOURCE, NULL);
  self->recording = g_object_ref (recording);
  self->props.name = g_strdup (name);
  return self;
}

RtopRecording *
rtop_replay_source_get_recording (RtopReplaySource *self)
{
  g_return_val_if_fail (RTOP_IS_REPLAY_SOURCE (self), NULL);
  return self->recording;
}

static void
rtop_replay_source_dispose (GObject *object)
{
  RtopReplaySource *self = RTOP_REPLAY_SOURCE (object);

  clear_sources (self);
  g_clear_object (&self->recording);
  G_OBJECT_CLASS (rtop_replay_source_parent_class)->dispose (object);
}

static void
rtop_replay_source_finalize (GObject *object)
{
  rtop_source_props_clear (&RTOP_REPLAY_SOURCE (object)->props);
  G_OBJECT_CLASS (rtop_replay_source_parent_class)->finalize (object);
}

static void
rtop_replay_source_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (!rtop_source_get_common_property (RTOP_SOURCE (object), PROP_SOURCE_FIRST, prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
rtop_replay_source_class_init (RtopReplaySourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_replay_source_dispose;
  object_class->finalize = rtop_replay_source_finalize;
  object_class->get_property = rtop_replay_source_get_property;
  rtop_source_install_properties (object_class, PROP_SOURCE_FIRST);
}

static void
rtop_replay_source_init (RtopReplaySource *self)
{
  self->props.live = FALSE;
}
