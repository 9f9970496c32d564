/* rtop-stream.h: snapshots as a compact byte stream, and back.
 *
 * `rdmatop-cli serve --stdio` writes this stream to its stdout and a remote
 * source reads it from ssh.  The encoder and the decoder only turn
 * snapshots into bytes and bytes into snapshots: no I/O here.
 *
 * The stream (all integers are unsigned LEB128 varints unless said
 * otherwise, "zz" is a zigzag-coded signed varint, doubles are 8 bytes
 * IEEE 754 little-endian; docs/stream.md has the full layout):
 *
 *   "RTOPSTRM"                          8 bytes of magic, once
 *   frame*                              type byte, payload length, payload
 *
 *   'H' hello     protocol version, producer version (string), capabilities
 *   'S' snapshot  what changed since the previous snapshot frame, or a
 *                 keyframe (everything, against an empty state)
 *   'E' error     a sentence from the producer (it stops after it)
 *
 * Devices get ids in the stream (never reused until the next keyframe),
 * ports are known by index, counters by their position in the port's
 * counter layout, which is sent only when it changes; strings that repeat
 * (names, sources, rate texts) are sent once into a string table and then
 * by number.  A counter is sent only when its value changed, as the
 * difference; its delta, rate, has_rate and reset are predicted by the
 * decoder (delta = value difference, rate = delta / the port's elapsed
 * time) and sent only where the prediction is not exactly what the
 * producer had.  The decoder therefore rebuilds, field for field, the
 * snapshot the producer built (see rtop_stream_encoder_add() for the two
 * exceptions it makes on purpose).
 *
 * Every length, count and string in the input is checked against the
 * limits below; bad input is an RTOP_ERROR_PROTOCOL error with a sentence,
 * and the decoder never allocates more than the limits allow. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_STREAM_MAGIC "RTOPSTRM"
#define RTOP_STREAM_MAGIC_LEN 8
/* Bumped whenever a decoder of the previous version would misread. */
#define RTOP_STREAM_VERSION 2

/* Capabilities the producer announces in its hello. */
typedef enum {
  RTOP_STREAM_CAP_PROCESSES = 1 << 0,  /* pids, commands and users are included */
} RtopStreamCaps;

/* Limits, for both sides (the encoder keeps to them, the decoder enforces). */
#define RTOP_STREAM_MAX_FRAME (1024 * 1024)   /* bytes of one frame's payload */
#define RTOP_STREAM_MAX_STRING 8192           /* bytes of one string */
#define RTOP_STREAM_MAX_STRINGS 4096          /* string table entries */
#define RTOP_STREAM_MAX_DEVICES 256           /* devices per snapshot */
#define RTOP_STREAM_MAX_DEVICE_IDS 1024       /* device ids between keyframes */
#define RTOP_STREAM_MAX_PORTS 256             /* ports per device */
#define RTOP_STREAM_MAX_COUNTERS 1024         /* counters per port or device */
#define RTOP_STREAM_MAX_PROCESSES 4096        /* processes per snapshot */
#define RTOP_STREAM_MAX_PROCESS_DEVICES 256   /* devices per process */
#define RTOP_STREAM_MAX_EVENTS 1024           /* events per snapshot */

/* ---- Encoder ---- */

typedef struct _RtopStreamEncoder RtopStreamEncoder;

/* share_processes: include pids, start times, commands, command lines,
 * users, uids, memory and thread counts.  Without it a process is only its
 * resources (QPs, contexts, MRs per device), and snapshots say pids_hidden.
 * keyframe_every: a keyframe every this many snapshot frames (0: only the
 * first and those asked for). */
RtopStreamEncoder *rtop_stream_encoder_new (gboolean share_processes, guint keyframe_every);
void rtop_stream_encoder_free (RtopStreamEncoder *self);
/* Appends the magic and the hello frame to out.  Call once, first. */
void rtop_stream_encoder_hello (RtopStreamEncoder *self, GByteArray *out);
/* Appends one snapshot frame, against the previous snapshot given here (a
 * snapshot that was encoded but never sent is a bug: the decoder would not
 * know it).  Two things differ on the other side on purpose: processes are
 * stripped as said above unless shared, and a string that is not UTF-8 or
 * is longer than RTOP_STREAM_MAX_STRING arrives made valid and cut short.
 * Counts over the limits are cut to the limits. */
void rtop_stream_encoder_add (RtopStreamEncoder *self, RtopSnapshot *snapshot, GByteArray *out);
/* The next snapshot frame is a keyframe. */
void rtop_stream_encoder_request_keyframe (RtopStreamEncoder *self);
/* Appends an error frame: a sentence for the person on the other side. */
void rtop_stream_encode_error (GByteArray *out, const char *message);

/* ---- Decoder ---- */

typedef struct _RtopStreamDecoder RtopStreamDecoder;

RtopStreamDecoder *rtop_stream_decoder_new (void);
void rtop_stream_decoder_free (RtopStreamDecoder *self);
/* Decoded snapshots get this host name (copied; NULL: none). */
void rtop_stream_decoder_set_host (RtopStreamDecoder *self, const char *host);
/* Adds bytes read from the stream.  Fails (RTOP_ERROR_PROTOCOL) when more
 * is buffered than one frame can be: call rtop_stream_decoder_next() until
 * it returns NULL before pushing more. */
gboolean rtop_stream_decoder_push (RtopStreamDecoder *self, const guint8 *data, gsize len,
                                   GError **error);
/* Decodes the next complete frame.  Returns the next snapshot (transfer
 * full, sealed), or NULL: with *error set when the stream is bad (then the
 * decoder refuses anything more), without when it needs more bytes.
 * Errors: RTOP_ERROR_PROTOCOL (not a stream, garbled, over a limit),
 * RTOP_ERROR_VERSION (another protocol version; the message names both),
 * RTOP_ERROR_REMOTE (the producer's error frame: its sentence). */
RtopSnapshot *rtop_stream_decoder_next (RtopStreamDecoder *self, GError **error);
/* The stream ended (EOF): FALSE with RTOP_ERROR_PROTOCOL when it ended
 * inside a frame or before the hello. */
gboolean rtop_stream_decoder_finish (RtopStreamDecoder *self, GError **error);
/* Whether the hello has been read, and what it said. */
gboolean rtop_stream_decoder_has_hello (RtopStreamDecoder *self);
/* Bytes the decoder has taken so far (pushed), for statistics. */
guint64 rtop_stream_decoder_get_bytes (RtopStreamDecoder *self);


G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopStreamEncoder, rtop_stream_encoder_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopStreamDecoder, rtop_stream_decoder_free)

G_END_DECLS
