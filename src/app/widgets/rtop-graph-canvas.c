/* rtop-graph-canvas.c: a sparkline's boxes written as pixels with integer
 * arithmetic.
 *
 * A sparkline's channels are boxes on whole device pixels: some 700 per
 * channel.  Recorded as cairo rectangles, each costs path and matrix
 * arithmetic when the frame is recorded and a separate composite whenever
 * its row is repainted; under an emulator's soft floats those were most of
 * an update.  So while a sparkline's frame is drawn, the boxes are written
 * into a canvas with integer arithmetic, the same pixels cairo's
 * rectilinear fast path would fill (pixman's OVER of a solid colour), and
 * the canvas is painted into the frame as one image. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rtop-graph-canvas.h"

/* x * y / 255, rounded, as pixman computes it. */
static inline guint
mul_un8 (guint x, guint y)
{
  guint t = x * y + 0x80;

  return ((t >> 8) + t) >> 8;
}

/* A colour at an alpha, as cairo hands a solid source to pixman:
 * premultiplied, 16 bits per channel, then the high 8 bits. */
guint32
rtop_graph_canvas_color (const GdkRGBA *color, double alpha)
{
  double a = CLAMP (color->alpha * alpha, 0, 1);
#define C8(v) (((guint32) (CLAMP ((v), 0, 1) * a * 65535.0 + 0.5)) >> 8)
  return (((guint32) (a * 65535.0 + 0.5) >> 8) << 24) | (C8 (color->red) << 16) |
         (C8 (color->green) << 8) | C8 (color->blue);
#undef C8
}

/* Starts a canvas over the device pixels cr's clip covers. */
void
rtop_graph_canvas_begin (RtopGraphCanvas *self, cairo_t *cr, int scale)
{
  double x0, y0, x1, y1;
  gsize len;

  cairo_clip_extents (cr, &x0, &y0, &x1, &y1);
  self->x = (int) floor (x0 * scale);
  self->y = (int) floor (y0 * scale);
  self->w = MAX ((int) ceil (x1 * scale) - self->x, 0);
  self->h = MAX ((int) ceil (y1 * scale) - self->y, 0);
  len = (gsize) self->w * self->h;
  if (len == 0 || self->w > 1 << 14 || self->h > 1 << 14)
    return;
  if (len > self->len)
    {
      g_free (self->pixels);
      self->pixels = g_new (guint32, len);
      self->len = len;
    }
  memset (self->pixels, 0, len * sizeof (guint32));
  self->on = TRUE;
  self->used = FALSE;
}

/* Paints device rows [y0, y1) of columns [x, x + w) with src over what the
 * canvas holds. */
void
rtop_graph_canvas_box (RtopGraphCanvas *self, int x, int y0, int w, int y1, guint32 src)
{
  guint inv = 255 - (src >> 24);
  int x1 = MIN (x + w, self->x + self->w);

  x = MAX (x, self->x);
  y0 = MAX (y0, self->y);
  y1 = MIN (y1, self->y + self->h);
  if (x >= x1 || y0 >= y1)
    return;
  self->used = TRUE;
  for (int y = y0; y < y1; y++)
    {
      guint32 *p = self->pixels + (gsize) (y - self->y) * self->w + (x - self->x);
      guint32 last_in = 0, last_out = src;

      for (int i = x; i < x1; i++, p++)
        {
          guint32 d = *p;

          if (inv == 0 || d == 0)
            {
              *p = src;
              continue;
            }
          if (d != last_in)
            {
              last_in = d;
              last_out = 0;
              for (int shift = 0; shift < 32; shift += 8)
                last_out |= (((src >> shift) & 0xff) + mul_un8 ((d >> shift) & 0xff, inv)) << shift;
            }
          *p = last_out;
        }
    }
}

/* Paints what the canvas holds into cr and ends it. */
gboolean
rtop_graph_canvas_end (RtopGraphCanvas *self, cairo_t *cr, int scale)
{
  cairo_surface_t *surface;

  if (!self->on)
    return FALSE;
  self->on = FALSE;
  if (!self->used)
    return FALSE;
  surface = cairo_image_surface_create_for_data ((guchar *) self->pixels, CAIRO_FORMAT_ARGB32,
                                                 self->w, self->h,
                                                 self->w * (int) sizeof (guint32));
  cairo_surface_set_device_scale (surface, scale, scale);
  cairo_save (cr);
  cairo_set_source_surface (cr, surface, (double) self->x / scale, (double) self->y / scale);
  cairo_paint (cr);
  cairo_restore (cr);
  /* A recording keeps its own copy of a painted image once the image is
   * finished; the canvas is written again at the next frame. */
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);
  return TRUE;
}

void
rtop_graph_canvas_clear (RtopGraphCanvas *self)
{
  g_clear_pointer (&self->pixels, g_free);
  self->len = 0;
  self->on = self->used = FALSE;
}
