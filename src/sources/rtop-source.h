/* rtop-source.h: something that yields snapshots.
 *
 * The local sampler, a recording being replayed and (later) a remote host
 * all implement this one interface.  Whatever consumes snapshots (the
 * application's session, the CLI, a recorder) holds sources and reads only
 * what the interface says: a name for people, a state, an error sentence and
 * whether its data happens now ("live") or is history.  Nothing above a
 * source knows which kind it is.
 *
 * Threads: a source is created, started and stopped on one thread; its
 * "snapshot" signal and property notifications come on the thread-default
 * GMainContext of the thread that started it.
 *
 * Properties (read-only, notified only on change):
 *   "name"   char*            what people call it ("This computer", a file name)
 *   "state"  RtopSourceState
 *   "error"  char*            a translated sentence while the source is in
 *                             trouble (no RDMA netlink, a connection lost),
 *                             NULL otherwise
 *   "live"   gboolean         its snapshots are happening now (only live
 *                             sources are recorded)
 * Signal:
 *   void snapshot (RtopSource *self, RtopSnapshot *snapshot, gpointer user_data)
 */
#pragma once

#include <glib-object.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef enum {
  RTOP_SOURCE_STATE_STOPPED,     /* not started, or stopped */
  RTOP_SOURCE_STATE_CONNECTING,  /* started, nothing delivered yet */
  RTOP_SOURCE_STATE_RUNNING,     /* delivering snapshots */
  RTOP_SOURCE_STATE_LOST,        /* was running, trying again */
  RTOP_SOURCE_STATE_FINISHED,    /* delivered everything it had (a replay) */
  RTOP_SOURCE_STATE_FAILED,      /* gave up: see "error" */
} RtopSourceState;

#define RTOP_TYPE_SOURCE_STATE (rtop_source_state_get_type ())
GType rtop_source_state_get_type (void) G_GNUC_CONST;

/* Implementations keep the common properties in this struct and update
 * them through rtop_source_update() and friends, which notify only on
 * change. */
typedef struct {
  char *name;
  char *error;
  RtopSourceState state;
  gboolean live;
} RtopSourceProps;

#define RTOP_TYPE_SOURCE (rtop_source_get_type ())
G_DECLARE_INTERFACE (RtopSource, rtop_source, RTOP, SOURCE, GObject)

struct _RtopSourceInterface {
  GTypeInterface parent_iface;

  /* Required: where the implementation keeps the common properties. */
  RtopSourceProps *(*get_props) (RtopSource *self);
  /* Required. */
  void (*start) (RtopSource *self);
  /* Required; no "snapshot" is emitted after it returns. */
  void (*stop) (RtopSource *self);
  /* Optional: take a snapshot now. */
  void (*refresh) (RtopSource *self);
  /* Optional: emit now, on the calling (the source's main) context, the
   * snapshots that are ready and wait only for that context's main loop,
   * in order, as if the loop had dispatched them. */
  void (*deliver_pending) (RtopSource *self);
  /* Optional: the period in seconds, for sources that sample. */
  void (*set_interval) (RtopSource *self, double seconds);
};

void rtop_source_start (RtopSource *self);
void rtop_source_stop (RtopSource *self);
void rtop_source_refresh (RtopSource *self);
void rtop_source_deliver_pending (RtopSource *self);
void rtop_source_set_interval (RtopSource *self, double seconds);

/* Property getters (transfer none; strings valid until the next change). */
const char *rtop_source_get_name (RtopSource *self);
RtopSourceState rtop_source_get_state (RtopSource *self);
const char *rtop_source_get_error (RtopSource *self);
gboolean rtop_source_get_live (RtopSource *self);
/* A short translated word for a state: "Running", "Lost, retrying", ... */
const char *rtop_source_state_to_label (RtopSourceState state);

/* For implementations. */
void rtop_source_props_clear (RtopSourceProps *props);
/* Overrides the interface's properties as ids first_prop_id ... + 3. */
void rtop_source_install_properties (GObjectClass *klass, guint first_prop_id);
/* get_property for those ids; FALSE for any other id. */
gboolean rtop_source_get_common_property (RtopSource *self, guint first_prop_id,
                                          guint prop_id, GValue *value);
/* Sets state and error (NULL: none), notifying what changed. */
void rtop_source_update (RtopSource *self, RtopSourceState state, const char *error);
void rtop_source_emit_snapshot (RtopSource *self, RtopSnapshot *snapshot);

/* The number of properties rtop_source_props_install() installs. */
#define RTOP_SOURCE_N_PROPS 4

G_END_DECLS
