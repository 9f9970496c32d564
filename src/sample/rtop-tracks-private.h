/* rtop-tracks-private.h: what the tests of RtopTracks reach beyond its API. */
#pragma once

#include "rtop-tracks.h"

G_BEGIN_DECLS

/* rtop_tracks_clip() by sorting every point first, whatever their order
 * (what it falls back to when the realtime clock stepped back). */
RtopTrackPoint *rtop_tracks_clip_sorting (RtopTracks *self, gint64 start_ns, gint64 end_ns,
                                          gsize *n);

G_END_DECLS
