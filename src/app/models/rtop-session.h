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
 *   "replay-path"   char*            its file, or NULL
 *   "replay-complete" gboolean       FALSE when the file shown was cut short
 * Signals:
 *   void error (RtopSession *self, const char *title, const char *message)
 *     something the user asked for failed; the active window shows it.
 *   void recording-failed (RtopSession *self, const char *title, const char *message)
 *     the recording cannot be written where it is; nothing is lost, and it
 *     can be saved elsewhere with rtop_session_save_recording_as().
 *   void recording-saved (RtopSession *self, const char *path, gboolean repaired)
 *     a recording was completed at path (repaired: a closed copy of a
 *     recording that was cut short). */
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
/* A remote host over ssh (rtop-remote-source.h), beside the others, with
 * the settings' remote command; FALSE with error when host is not a host
 * ssh would take.  A host already there is not added twice. */
gboolean rtop_session_add_host (RtopSession *self, const char *host, GError **error);
/* Disconnects it and forgets its ports; FALSE when it was not there. */
gboolean rtop_session_remove_host (RtopSession *self, const char *host);
/* The program ssh gets as SSH_ASKPASS for the hosts added from now on,
 * with what it needs in its environment ("KEY=VALUE"); NULL: ssh never
 * asks (BatchMode). */
void rtop_session_set_askpass (RtopSession *self, const char *program,
                               const char * const *environment);
/* Whether Record can be used: a recording to stop, or live sources of
 * which one has a device (an empty recording helps nobody). */
gboolean rtop_session_can_record (RtopSession *self);
/* The host whose snapshots a source brings (as RtopSnapshot.host and the
 * history name it): NULL for this computer and recordings. */
const char *rtop_session_source_host (RtopSource *source);

/* Starts the live sources unless a recording is shown or being opened. */
void rtop_session_start (RtopSession *self);
/* Stops everything; a recording in progress is closed (this waits for the
 * file to be complete: only at exit).  FALSE with error when it could not be. */
gboolean rtop_session_shutdown (RtopSession *self, GError **error);
/* Asks every source for a snapshot now. */
void rtop_session_refresh (RtopSession *self);
/* Until release (or 2 s, or 16 snapshots), snapshots are kept as they come
 * instead of shown and recorded: the window's first frame is painted with
 * what is known, not after the first snapshot's rows.  Release takes them
 * in order, nothing lost. */
void rtop_session_hold_snapshots (RtopSession *self);
void rtop_session_release_snapshots (RtopSession *self);
/* Takes now the snapshots that are ready and wait only for the main loop
 * (the first pass, done while the window was built), held or shown as
 * any snapshot is. */
void rtop_session_take_ready_snapshots (RtopSession *self);

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
const char *rtop_session_get_replay_path (RtopSession *self);
gboolean rtop_session_get_replay_complete (RtopSession *self);

/* Moves everything recorded so far to path and goes on recording there (or
 * completes it there, after a failed stop); asynchronous, errors are the
 * "recording-failed" signal. */
void rtop_session_save_recording_as (RtopSession *self, const char *path);
/* Stops recording and removes what was recorded. */
void rtop_session_discard_recording (RtopSession *self);
/* Writes a closed copy of the recording being shown, which was cut short,
 * beside it (on a worker); "recording-saved" with repaired TRUE, or "error". */
void rtop_session_repair_replay (RtopSession *self);

/* The folder recordings go to: the recordings-folder setting, or, when it
 * is "" (or settings is NULL), rdmatop/ in the user's documents. */
char *rtop_session_get_recordings_folder (GSettings *settings);

G_END_DECLS
