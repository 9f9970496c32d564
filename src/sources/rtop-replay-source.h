/* rtop-replay-source.h: a recording played back as a source.
 *
 * Started, it hands the recording's snapshots out in order, a chunk per
 * main-loop iteration so that a long recording never freezes the thread it
 * runs on, then says "finished".  Not live: its snapshots are history. */
#pragma once

#include "rtop-recording.h"
#include "rtop-source.h"

G_BEGIN_DECLS

/* Snapshots handed out per main-loop iteration. */
#define RTOP_REPLAY_SOURCE_CHUNK 64

#define RTOP_TYPE_REPLAY_SOURCE (rtop_replay_source_get_type ())
G_DECLARE_FINAL_TYPE (RtopReplaySource, rtop_replay_source, RTOP, REPLAY_SOURCE, GObject)

/* name: what people call it, e.g. the file's name. */
RtopReplaySource *rtop_replay_source_new (RtopRecording *recording, const char *name);
RtopRecording *rtop_replay_source_get_recording (RtopReplaySource *self);

G_END_DECLS
