/* rtop-session.h: what the application shows and does, as state that any
 * number of windows bind to.
 *
 * A session holds the sources that feed it (the live ones: this computer
 * and, later, remote hosts; or one recording being replayed), the history
 * models built from their snapshots, and the recording in progress.  It
 * never calls into a window: windows read its properties, listen to its
 * notifications and call its methods, so two windows stay in step.  No
 * widgets here, so it is tested without a window.
 *
 * Properties (read-only, notified only on change):
 *   "history"       RtopHistory*     the models the views show
 *   "sources"       GListModel*      RtopSource: what feeds the history now
 *   "recording"     gboolean         a recording is starting or running
 *   "recorder"      RtopRecorder*    the recording in progress, or NULL (its
 *                                    own properties say path, samples, time)
 *   "replay-title"  char*            the recording being shown, or NULL when live
 * Signal:
 *   void error (RtopSession *self, const char *title, const char *message)
 *     something the user asked for failed; the active window shows it. */
#pragma once

#include <gio/gio.h>
#include "rtop-history.h"
#include "rtop-recorder.h"
#include "rtop-source.h"

G_BEGIN_DECLS

#define RTOP_TYPE_SESSION (rtop_session_get_type ())
G_DECLARE_FINAL_TYPE (RtopSession, rtop_session, RTOP, SESSION, GObject)

/* settings: an io.github.rdmatop.Rdmatop GSettings (interval, recording
 * folder and format), or NULL (tests: defaults). */
RtopSession *rtop_session_new (GSettings *settings);
RtopHistory *rtop_session_get_history (RtopSession *self);
GListModel *rtop_session_get_sources (RtopSession *self);

/* A source of live data (the local sampler, a remote host); it feeds the
 * session whenever no recording is shown. */
void rtop_session_add_live_source (RtopSession *self, RtopSource *source);
gboolean rtop_session_remove_live_source (RtopSession *self, RtopSource *source);
/* Starts the live sources unless a recording is shown or being opened. */
void rtop_session_start (RtopSession *self);
/* Stops everything; a recording in progress is closed (this waits for the
 * file to be complete: only at exit).  FALSE with error when it could not be. */
gboolean rtop_session_shutdown (RtopSession *self, GError **error);
/* Asks every source for a snapshot now. */
void rtop_session_refresh (RtopSession *self);

/* Starts (asynchronously) or stops recording; FALSE with error when it
 * cannot start (a recording is shown). */
gboolean rtop_session_set_recording (RtopSession *self, gboolean recording, GError **error);
gboolean rtop_session_get_recording (RtopSession *self);
RtopRecorder *rtop_session_get_recorder (RtopSession *self);

/* Shows a recording instead of live data (loaded on a worker; errors are
 * the "error" signal). */
void rtop_session_open_recording (RtopSession *self, GFile *file);
/* Back to live data after a replay. */
void rtop_session_go_live (RtopSession *self);
const char *rtop_session_get_replay_title (RtopSession *self);

G_END_DECLS
