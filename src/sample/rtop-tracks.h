/* rtop-tracks.h: counter samples to counter-track points, as a trace viewer
 * draws them: one track per port and counter, holding a rate per second
 * until its next point.
 *
 * Rates are taken over CLOCK_MONOTONIC (it never jumps) and placed at the
 * later sample's time on the clock chosen.  A counter that goes backwards
 * was reset (a device re-added, a driver reloaded): that interval gives no
 * point rather than a spike.  With compaction, a point that repeats its
 * track's rate is held back and only the newest such point kept, as the
 * track's end, so an idle port costs two points however long it is
 * watched.  A capture can feed tracks on its own thread
 * (rtop_capture_set_tracks()); reading them is safe from another thread.
 * What is kept is bounded: points past max_points and tracks past
 * RTOP_TRACKS_MAX_TRACKS are dropped and counted. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define RTOP_TRACKS_MAX_TRACKS 65536
/* Points kept unless the caller says otherwise: 96 MiB of 24-byte points. */
#define RTOP_TRACKS_DEFAULT_MAX_POINTS (1u << 22)
#define RTOP_TRACKS_MAX_POINTS (1u << 28)

typedef struct _RtopTracks RtopTracks;

/* One counter of one port at one read (what a capture reads). */
typedef struct {
  gint64 realtime_ns;
  gint64 monotonic_ns;
  const char *device;
  guint32 port;
  const char *counter;
  guint64 value;             /* raw and cumulative */
} RtopTrackSample;

typedef enum {
  RTOP_TRACKS_CLOCK_REALTIME = 0,
  RTOP_TRACKS_CLOCK_MONOTONIC = 1,
} RtopTracksClock;

typedef struct {
  gint64 time_ns;            /* on the tracks' clock */
  guint32 track;             /* rtop_tracks_get_track()'s index */
  guint32 reserved;
  double rate;               /* per second */
} RtopTrackPoint;

/* RTOP_ERROR_INVALID_ARGUMENT for an unknown clock or max_points over
 * RTOP_TRACKS_MAX_POINTS; 0 max_points: the default. */
RtopTracks *rtop_tracks_new (RtopTracksClock clock, gboolean compact, gsize max_points,
                             GError **error);
/* Takes in samples of any order within the call (they are taken in
 * CLOCK_MONOTONIC order); later calls continue earlier ones. */
void rtop_tracks_feed (RtopTracks *self, const RtopTrackSample *samples, gsize n);
guint rtop_tracks_get_n_tracks (RtopTracks *self);
/* FALSE when there is no such track; strings live as long as self. */
gboolean rtop_tracks_get_track (RtopTracks *self, guint track, const char **device,
                                guint32 *port, const char **counter);
/* The points of [start_ns, end_ns], sorted by time: the value a track holds
 * at start_ns becomes a point there, and where a track goes on past
 * end_ns, the value it holds there a point at end_ns.  Free with g_free. */
RtopTrackPoint *rtop_tracks_clip (RtopTracks *self, gint64 start_ns, gint64 end_ns, gsize *n);
/* Points and samples not kept because a bound was reached. */
guint64 rtop_tracks_get_dropped (RtopTracks *self);
/* Bytes held, for the memory bound. */
gsize rtop_tracks_get_size (RtopTracks *self);
void rtop_tracks_free (RtopTracks *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopTracks, rtop_tracks_free)

G_END_DECLS
