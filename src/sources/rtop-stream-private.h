/* rtop-stream-private.h: what only rtop-stream.c and the tests use. */
#pragma once

#include "rtop-stream.h"

G_BEGIN_DECLS

const char *rtop_stream_decoder_get_producer_version (RtopStreamDecoder *self);

guint rtop_stream_decoder_get_capabilities (RtopStreamDecoder *self);

G_END_DECLS
