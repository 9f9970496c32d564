/* rtop-record-sink.c: the format-independent side of a sink (contract in
 * the header): it calls begin() once, before the first interval or the end. */
#include "config.h"

#include "rtop-record-sink.h"

struct _RtopRecordSink {
  const RtopRecordSinkClass *klass;
  gpointer impl;
  gboolean begun;
  gboolean ended;
};

RtopRecordSink *
rtop_record_sink_new (const RtopRecordSinkClass *klass)
{
  RtopRecordSink *self;

  g_return_val_if_fail (klass != NULL, NULL);

  self = g_new0 (RtopRecordSink, 1);
  self->klass = klass;
  self->impl = self->klass->create ();
  return self;
}

void
rtop_record_sink_free (RtopRecordSink *self)
{
  if (self == NULL)
    return;
  self->klass->destroy (self->impl);
  g_free (self);
}

static void
ensure_begun (RtopRecordSink *self, const RtopSnapshot *first, GString *out)
{
  if (self->begun)
    return;
  self->begun = TRUE;
  self->klass->begin (self->impl, first, out);
}

void
rtop_record_sink_add (RtopRecordSink *self, const RtopSnapshot *snapshot, GString *out)
{
  g_return_if_fail (snapshot != NULL);
  g_return_if_fail (!self->ended);

  ensure_begun (self, snapshot, out);
  self->klass->add (self->impl, snapshot, out);
}

void
rtop_record_sink_mark_gap (RtopRecordSink *self)
{
  if (self->klass->mark_gap != NULL)
    self->klass->mark_gap (self->impl);
}

void
rtop_record_sink_end (RtopRecordSink *self, GString *out)
{
  g_return_if_fail (!self->ended);

  ensure_begun (self, NULL, out);
  self->ended = TRUE;
  self->klass->end (self->impl, out);
}
