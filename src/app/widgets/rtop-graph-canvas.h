/* rtop-graph-canvas.h: a sparkline's boxes written as pixels with integer
 * arithmetic.
 *
 * While a sparkline's frame is drawn, RtopGraph writes its channels' boxes
 * into a canvas instead of onto cairo's path, then paints the canvas into
 * the frame as one image (rtop-graph-canvas.c says why). */
#pragma once

#include <gdk/gdk.h>

G_BEGIN_DECLS

typedef struct {
  guint32 *pixels;              /* premultiplied ARGB32, w * h */
  gsize len;                    /* pixels allocated */
  int x, y, w, h;               /* device pixels the canvas covers */
  gboolean on;                  /* between begin and end: boxes go here */
  gboolean used;                /* a box was written since begin */
} RtopGraphCanvas;

/* A colour at an alpha, as cairo hands a solid source to pixman. */
guint32 rtop_graph_canvas_color (const GdkRGBA *color, double alpha);

/* Starts a canvas over the device pixels cr's clip covers, at this scale
 * (device pixels per unit); stays off when that area is empty or huge. */
void rtop_graph_canvas_begin (RtopGraphCanvas *self, cairo_t *cr, int scale);

/* Paints device rows [y0, y1) of columns [x, x + w) with src over what the
 * canvas holds. */
void rtop_graph_canvas_box (RtopGraphCanvas *self, int x, int y0, int w, int y1, guint32 src);

/* Paints what the canvas holds into cr and ends it; TRUE when it painted
 * an image. */
gboolean rtop_graph_canvas_end (RtopGraphCanvas *self, cairo_t *cr, int scale);

/* Frees the pixels. */
void rtop_graph_canvas_clear (RtopGraphCanvas *self);

G_END_DECLS
