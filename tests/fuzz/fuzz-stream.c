/* fuzz-stream.c: libFuzzer target for the snapshot stream's decoder, the
 * parser of what a remote host sends.
 *
 * The input is pushed in pieces whose sizes the first byte chooses (frames
 * then end anywhere), every snapshot that comes out is walked (the
 * sanitizers check the rest), and the decoder must stop at its first
 * error. */
#include "rtop-error.h"
#include "rtop-stream.h"

#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint64
walk_snapshot (const RtopSnapshot *snap)
{
  guint64 sum = snap->sequence + (guint64) snap->monotonic_us;

  sum += snap->status_message != NULL ? strlen (snap->status_message) : 0;
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      sum += strlen (dev->name) + (dev->provider != NULL ? strlen (dev->provider) : 0);
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);

          sum += port->index + port->state + (port->netdev != NULL ? strlen (port->netdev) : 0);
          for (guint k = 0; k < port->counters->len; k++)
            {
              const RtopCounter *c = g_ptr_array_index (port->counters, k);

              sum += strlen (c->name) + c->value + c->delta + (c->rate > 1 ? 1 : 0);
              g_assert (c->rate >= 0);
            }
          for (guint m = 0; m < RTOP_METRIC_N; m++)
            sum += port->metrics[m].present ? port->metrics[m].value +
                   (port->metrics[m].source != NULL ? strlen (port->metrics[m].source) : 0) : 0;
        }
    }
  for (guint i = 0; i < snap->processes->len; i++)
    {
      const RtopProcess *proc = g_ptr_array_index (snap->processes, i);

      sum += (guint64) proc->pid + proc->devices->len + (proc->cmdline ? strlen (proc->cmdline) : 0);
      for (guint j = 0; j < proc->devices->len; j++)
        {
          const char *d = g_array_index (proc->devices, RtopProcessDevice, j).device;
          sum += d != NULL ? strlen (d) : 0;
        }
    }
  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);
      sum += ev->kind + (ev->message != NULL ? strlen (ev->message) : 0);
    }
  return sum;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  RtopStreamDecoder *dec;
  GError *error = NULL;
  gsize chunk;
  gboolean from_next = FALSE;
  volatile guint64 sink = 0;

  if (size < 1)
    return 0;
  chunk = 1 + data[0] % 64 * 37;
  data++;
  size--;
  dec = rtop_stream_decoder_new ();
  for (gsize off = 0; off < size && error == NULL; off += chunk)
    {
      RtopSnapshot *snap;

      if (!rtop_stream_decoder_push (dec, data + off, MIN (chunk, size - off), &error))
        break;
      while ((snap = rtop_stream_decoder_next (dec, &error)) != NULL)
        {
          sink += walk_snapshot (snap);
          rtop_snapshot_unref (snap);
        }
      from_next = error != NULL;
    }
  if (error == NULL)
    rtop_stream_decoder_finish (dec, &error);
  if (error != NULL)
    {
      /* Once failed, it stays failed. */
      GError *again = NULL;

      g_assert (error->domain == RTOP_ERROR);
      if (from_next)
        {
          g_assert (rtop_stream_decoder_next (dec, &again) == NULL && again != NULL);
          g_error_free (again);
        }
      g_error_free (error);
    }
  rtop_stream_decoder_free (dec);
  (void) sink;
  return 0;
}
