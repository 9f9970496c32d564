/* rtop-stream.c: the snapshot stream's encoder and decoder made and freed,
 * and the public entry points that only set or read their state.  Frames
 * are written in rtop-stream-encoder.c and read in rtop-stream-decoder.c,
 * over the wire format of rtop-stream-wire.h.
 *
 * Both sides keep the same state: the previous snapshot of the stream, a
 * string table and the device ids.  Everything that is not sent is
 * predicted from that state by the same functions on both sides, and the
 * encoder sends whatever its prediction would get wrong, so the decoder
 * ends with exactly the snapshot the encoder was given.  All lookups of the
 * previous state are by numbers the stream carries (device ids, port
 * indexes, counter positions, pids), never by decoded text: a string the
 * encoder had to repair cannot make the two sides disagree. */
#include "config.h"

#include "rtop-stream-wire.h"

/* ---- Encoder ---- */

RtopStreamEncoder *
rtop_stream_encoder_new (gboolean share_processes, guint keyframe_every)
{
  RtopStreamEncoder *self = g_new0 (RtopStreamEncoder, 1);

  self->share_processes = share_processes;
  self->keyframe_every = keyframe_every;
  self->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->device_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->ref_devices = g_hash_table_new (NULL, NULL);
  self->scratch = g_byte_array_new ();
  return self;
}

void
rtop_stream_encoder_free (RtopStreamEncoder *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  g_hash_table_unref (self->strings);
  g_hash_table_unref (self->device_ids);
  g_hash_table_unref (self->ref_devices);
  g_byte_array_unref (self->scratch);
  g_free (self);
}

void
rtop_stream_encoder_request_keyframe (RtopStreamEncoder *self)
{
  g_return_if_fail (self != NULL);
  self->keyframe_wanted = TRUE;
}

/* ---- Decoder ---- */

RtopStreamDecoder *
rtop_stream_decoder_new (void)
{
  RtopStreamDecoder *self = g_new0 (RtopStreamDecoder, 1);

  self->buf = g_byte_array_new ();
  self->strings = g_ptr_array_new_with_free_func (g_free);
  self->slots = g_ptr_array_new ();
  return self;
}

void
rtop_stream_decoder_free (RtopStreamDecoder *self)
{
  if (self == NULL)
    return;
  g_byte_array_unref (self->buf);
  g_ptr_array_unref (self->strings);
  g_ptr_array_unref (self->slots);
  g_clear_pointer (&self->ref, rtop_snapshot_unref);
  g_free (self->producer);
  g_free (self->host);
  g_free (self);
}

void
rtop_stream_decoder_set_host (RtopStreamDecoder *self, const char *host)
{
  g_return_if_fail (self != NULL);
  g_free (self->host);
  self->host = g_strdup (host);
}

gboolean
rtop_stream_decoder_has_hello (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->hello_seen;
}

const char *
rtop_stream_decoder_get_producer_version (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->producer;
}

guint
rtop_stream_decoder_get_capabilities (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->caps;
}

guint64
rtop_stream_decoder_get_bytes (RtopStreamDecoder *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->bytes;
}
