/* rtop-remote-source-private.h: what only rtop-remote-source.c and the tests use. */
#pragma once

#include "rtop-remote-source.h"

G_BEGIN_DECLS

/* Bytes of stream read over every connection so far. */
guint64 rtop_remote_source_get_bytes (RtopRemoteSource *self);

/* How many times it has connected (reached running). */
guint rtop_remote_source_get_n_connections (RtopRemoteSource *self);

/* The argv it runs (for tests and for people who want to see it). */
char **rtop_remote_build_argv (const RtopRemoteOptions *options, double interval);

/* The seconds to wait before attempt n (0-based) after a loss, before
 * jitter: 1, 2, 4, ... 60. */
double rtop_remote_backoff_s (guint attempt);

G_END_DECLS
