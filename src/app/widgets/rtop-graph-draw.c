/* rtop-graph-draw.c: one frame of the graph drawn with cairo: its axes,
 * legend and hover readout, and its channels as lines or boxes. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "rtop-graph-canvas.h"
#include "rtop-graph-private.h"

/* ---- colours and channels ----------------------------------------------- */

/* Fallbacks when the theme's CSS does not define our colours (GNOME palette). */
static const struct {
  const char *name;
  GdkRGBA rgba;
} fallback_colors[] = {
  { "rtop_tx_color", { 0.21, 0.52, 0.89, 1 } },
  { "rtop_rx_color", { 0.90, 0.38, 0.00, 1 } },
  { "rtop_read_color", { 0.15, 0.64, 0.41, 1 } },
  { "rtop_write_color", { 0.57, 0.25, 0.67, 1 } },
  { "rtop_retrans_color", { 0.90, 0.65, 0.04, 1 } },
  { "rtop_drop_color", { 0.75, 0.38, 0.16, 1 } },
  { "rtop_error_color", { 0.88, 0.11, 0.14, 1 } },
  { "rtop_compare_0", { 0.10, 0.37, 0.71, 1 } },
  { "rtop_compare_1", { 0.64, 0.24, 0.00, 1 } },
  { "rtop_compare_2", { 0.09, 0.48, 0.24, 1 } },
  { "rtop_compare_3", { 0.51, 0.24, 0.61, 1 } },
  { "rtop_compare_4", { 0.04, 0.43, 0.47, 1 } },
  { "rtop_compare_5", { 0.48, 0.35, 0.00, 1 } },
};

void
rtop_graph_lookup_color (GtkWidget *widget, const char *name, GdkRGBA *out)
{
  GtkStyleContext *ctx = gtk_widget_get_style_context (widget);

  if (name && gtk_style_context_lookup_color (ctx, name, out))
    return;
  for (guint i = 0; i < G_N_ELEMENTS (fallback_colors); i++)
    if (g_strcmp0 (fallback_colors[i].name, name) == 0)
      {
        *out = fallback_colors[i].rgba;
        return;
      }
  gtk_style_context_get_color (ctx, out);
}

static RtopSeries *
channel_series (RtopGraph *self, guint c)
{
  return self->channels[c].series ? self->channels[c].series : self->series;
}

/* The newest sample time over every channel's series. */
static gboolean
get_newest_time (RtopGraph *self, gint64 *last_us)
{
  gboolean any = FALSE;

  *last_us = 0;
  if (self->series && rtop_series_get_time_range (self->series, NULL, last_us))
    any = TRUE;
  for (guint c = 0; c < self->n_channels; c++)
    {
      gint64 last;

      if (self->channels[c].series &&
          rtop_series_get_time_range (self->channels[c].series, NULL, &last))
        {
          *last_us = any ? MAX (*last_us, last) : last;
          any = TRUE;
        }
    }
  return any;
}

/* ---- drawing ---------------------------------------------------------- */

static void
ensure_buffers (RtopGraph *self, guint columns)
{
  if (columns <= self->buf_columns)
    return;
  self->buf_columns = columns;
  self->mins = g_renew (double, self->mins, (gsize) columns * RTOP_GRAPH_MAX_CHANNELS);
  self->maxs = g_renew (double, self->maxs, (gsize) columns * RTOP_GRAPH_MAX_CHANNELS);
}

static PangoLayout *
make_layout (RtopGraph *self, const char *text)
{
  return gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
}

static void
show_text (cairo_t *cr, PangoLayout *layout, double x, double y, double align)
{
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_move_to (cr, x - w * align, y - h / 2.0);
  pango_cairo_show_layout (cr, layout);
}

static char *
format_tick (double value, double scale, const char *prefix, RtopUnit unit)
{
  if (value == 0)
    return g_strdup ("0");
  return g_strdup_printf ("%g %s%s", value / scale, prefix, rtop_unit_suffix (unit));
}

static char *
format_age (double seconds_ago)
{
  int s = (int) round (seconds_ago);

  if (s == 0)
    return g_strdup (_("now"));
  if (s % 60 == 0)
    /* Translators: an age on the time axis, "5 minutes ago" */
    return g_strdup_printf (_("−%d min"), s / 60);
  /* Translators: an age on the time axis, "30 seconds ago" */
  return g_strdup_printf (_("−%d s"), s);
}

/* A sparkline at least this wide keeps room right of its line for the
 * peak text, so the text is never drawn over the line. */
#define PEAK_MIN_WIDTH 200
#define PEAK_PAD 6

static char *
peak_text (RtopGraph *self, double value)
{
  g_autofree char *rate = rtop_format_rate (value, self->unit);

  /* Translators: the highest value a small graph shows, e.g. "peak 12.5 Gb/s" */
  return g_strdup_printf (_("peak %s"), rate);
}

/* The peak text's room: as wide as the widest value it may say. */
static double
peak_gutter (RtopGraph *self)
{
  if (self->peak_gutter <= 0)
    {
      g_autofree char *text = peak_text (self, 888.8e9);
      g_autoptr(PangoLayout) layout = make_layout (self, text);
      int w, h;

      pango_layout_get_pixel_size (layout, &w, &h);
      self->peak_gutter = w + 2 * PEAK_PAD;
    }
  return self->peak_gutter;
}

void
rtop_graph_compute_layout (RtopGraph *self, double width, double height)
{
  if (self->compact && width >= PEAK_MIN_WIDTH)
    self->plot = GRAPHENE_RECT_INIT (1, 2, width - 2 - peak_gutter (self), height - 3);
  else if (self->compact)
    self->plot = GRAPHENE_RECT_INIT (1, 2, width - 2, height - 3);
  else
    self->plot = GRAPHENE_RECT_INIT (64, 22, MAX (width - 64 - 10, 1), MAX (height - 22 - 20, 1));
}

/* Reduces every channel to plot columns; returns the largest value seen. */
static double
decimate_all (RtopGraph *self, guint columns)
{
  double data_max = 0;

  self->stats.cells_read = 0;
  for (guint c = 0; c < self->n_channels; c++)
    {
      double *mins = self->mins + (gsize) c * columns;
      double *maxs = self->maxs + (gsize) c * columns;

      if (channel_series (self, c) == NULL)
        continue;
      self->stats.cells_read += rtop_series_decimate (channel_series (self, c), self->channels[c].channel,
                                                      self->frame_start, self->frame_end + 1,
                                                      columns, mins, maxs);
      for (guint i = 0; i < columns; i++)
        if (!isnan (maxs[i]))
          data_max = MAX (data_max, maxs[i]);
    }
  return data_max;
}

static void
draw_grid (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg, double axis_max, double step)
{
  const graphene_rect_t *p = &self->plot;
  const char *prefix;
  double factor = rtop_unit_shown_factor (self->unit);
  double scale = rtop_unit_scale_for (axis_max * factor, &prefix);

  cairo_set_line_width (cr, 1);
  for (double v = 0; v <= axis_max * 1.0001; v += step)
    {
      double y = round (p->origin.y + p->size.height * (1 - v / axis_max)) + 0.5;

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, v == 0 ? 0.35 : 0.12);
      cairo_move_to (cr, p->origin.x, y);
      cairo_line_to (cr, p->origin.x + p->size.width, y);
      cairo_stroke (cr);
      if (!self->compact)
        {
          g_autofree char *text = format_tick (v * factor, scale, prefix, rtop_unit_shown (self->unit));
          g_autoptr(PangoLayout) layout = make_layout (self, text);

          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
          show_text (cr, layout, p->origin.x - 6, y, 1);
        }
    }
}

/* Time-axis ticks per window: round minutes or seconds people read at a glance. */
static double
time_step_for (double window_s)
{
  static const struct {
    double window_s;
    double step_s;
  } steps[] = {
    { 60, 15 }, { 300, 60 }, { 900, 300 }, { 3600, 900 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (window_s <= steps[i].window_s)
      return window_s == steps[i].window_s ? steps[i].step_s : window_s / 4;
  return window_s / 4;
}

/* Whether the right edge shows an older time than the newest sample (the
 * view was scrolled back, or a replay is shown): then "now" would lie. */
static gboolean
off_live_edge (RtopGraph *self)
{
  return self->view_end > 0;
}

/* A tick's text: its age at the live edge ("−30 s", "now"), its clock
 * time ("14:03:22") off it. */
char *
rtop_graph_dup_time_label (RtopGraph *self, double ago)
{
  RtopSeries *series = self->n_channels > 0 ? channel_series (self, 0) : self->series;
  gint64 realtime_us;
  g_autoptr(GDateTime) when = NULL;

  if (!off_live_edge (self) || series == NULL)
    return format_age (ago);
  realtime_us = rtop_series_to_realtime (series, self->frame_end - (gint64) (ago * G_USEC_PER_SEC));
  when = g_date_time_new_from_unix_local (realtime_us / G_USEC_PER_SEC);
  /* Short enough for ticks side by side: seconds only where they step. */
  return when != NULL ? g_date_time_format (when, time_step_for (self->window_s) < 60 ? "%H:%M:%S" : "%H:%M")
                      : g_strdup ("");
}

/* Every how many ticks a label fits: the widest label (the oldest, or a
 * clock time) and a gap between two, however narrow the graph. */
static guint
time_label_every (RtopGraph *self, double step, gboolean *label_oldest)
{
  g_autofree char *widest = rtop_graph_dup_time_label (self, self->window_s);
  g_autoptr(PangoLayout) layout = make_layout (self, widest);
  double spacing = self->plot.size.width * step / self->window_s;
  guint every;
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  every = spacing > 0 ? MAX ((guint) ceil ((w + 12) / spacing), 1) : 1;
  /* The oldest label starts at its tick (the others are centred on
   * theirs): it needs a label and a half of room. */
  *label_oldest = spacing * every >= 1.5 * w + 12;
  return every;
}

static void
draw_time_axis (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg)
{
  const graphene_rect_t *p = &self->plot;
  double step = time_step_for (self->window_s);
  gboolean label_oldest;
  guint every = time_label_every (self, step, &label_oldest);

  for (double ago = self->window_s; ago > -step / 2; ago -= step)
    {
      double frac = 1 - ago / self->window_s;
      double x = p->origin.x + p->size.width * frac;
      /* Counted from the right edge, which is always labelled. */
      guint index = (guint) round (ago / step);

      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.12);
      cairo_move_to (cr, round (x) + 0.5, p->origin.y);
      cairo_line_to (cr, round (x) + 0.5, p->origin.y + p->size.height);
      cairo_stroke (cr);
      if (index % every == 0 && (frac >= 0.01 || label_oldest))
        {
          g_autofree char *text = rtop_graph_dup_time_label (self, ago);
          g_autoptr(PangoLayout) layout = make_layout (self, text);

          cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.7);
          show_text (cr, layout, x, p->origin.y + p->size.height + 10,
                     frac < 0.01 ? 0 : frac > 0.99 ? 1 : 0.5);
        }
    }
}

/* The column spacing beyond which an empty stretch is a real gap in the data
 * (sampling stopped, device absent) rather than columns narrower than the
 * sampling interval. */
static guint
max_bridge_columns (RtopGraph *self, RtopSeries *series, guint columns)
{
  gint64 first, last;
  guint len = rtop_series_get_length (series);
  double spacing_us, col_us = (double) (self->frame_end - self->frame_start) / columns;

  if (len < 2 || !rtop_series_get_time_range (series, &first, &last) || col_us <= 0)
    return 1;
  spacing_us = (double) (last - first) / (len - 1);
  return (guint) ceil (3 * spacing_us / col_us) + 1;
}

static double
y_of (RtopGraph *self, double value, double axis_max)
{
  double bottom = self->plot.origin.y + self->plot.size.height;

  return bottom - self->plot.size.height * CLAMP (value / axis_max, 0, 1);
}

/* Copies columns from src to dst, filling each run of at most `bridge`
 * empty (NaN) columns between two samples along the straight line joining
 * them, as the stroked line of sparse samples does; longer runs (real gaps)
 * and the columns before the first and after the last sample stay empty. */
void
rtop_graph_bridge_columns (const double *src, double *dst, guint columns, guint bridge)
{
  guint last = G_MAXUINT;         /* the last sampled column so far */

  for (guint i = 0; i < columns; i++)
    {
      dst[i] = src[i];
      if (isnan (src[i]))
        continue;
      if (last != G_MAXUINT && i - last > 1 && i - last - 1 <= bridge)
        for (guint j = last + 1; j < i; j++)
          dst[j] = src[last] + (src[i] - src[last]) * (double) (j - last) / (i - last);
      last = i;
    }
}

/* Traces one run of non-empty columns [a, b): along the maxima left to right,
 * then (for the min/max band) back along the minima. */
static void
trace_run (RtopGraph *self, cairo_t *cr, const double *mins, const double *maxs,
           guint a, guint b, double col_w, double axis_max, gboolean band)
{
  double x0 = self->plot.origin.x + 0.5 * col_w;

  /* line_to continues a path the caller started (the area's base corner). */
  if (cairo_has_current_point (cr))
    cairo_line_to (cr, x0 + a * col_w, y_of (self, maxs[a], axis_max));
  else
    cairo_move_to (cr, x0 + a * col_w, y_of (self, maxs[a], axis_max));
  for (guint i = a; i < b; i++)
    if (!isnan (maxs[i]))
      cairo_line_to (cr, x0 + i * col_w, y_of (self, maxs[i], axis_max));
  if (!band)
    return;
  for (guint i = b; i-- > a;)
    if (!isnan (mins[i]))
      cairo_line_to (cr, x0 + i * col_w, y_of (self, mins[i], axis_max));
  cairo_close_path (cr);
}

/* Sparse data (fewer samples than columns): a line through the samples and
 * a light area under it; runs continue across columns that fall between two
 * samples, and break at real gaps. */
static void
draw_line (RtopGraph *self, cairo_t *cr, const double *mins, const double *maxs,
           guint columns, double axis_max, guint bridge, const GdkRGBA *color)
{
  double col_w = self->plot.size.width / columns;
  double bottom = self->plot.origin.y + self->plot.size.height;
  double x0 = self->plot.origin.x + 0.5 * col_w;
  guint i = 0;

  while (i < columns)
    {
      guint a, b, gap = 0;

      while (i < columns && isnan (maxs[i]))
        i++;
      if (i == columns)
        break;
      a = b = i;
      for (; i < columns; i++)
        {
          if (isnan (maxs[i]))
            {
              if (++gap > bridge)
                break;
              continue;
            }
          gap = 0;
          b = i + 1;
        }

      cairo_move_to (cr, x0 + a * col_w, bottom);
      trace_run (self, cr, mins, maxs, a, b, col_w, axis_max, FALSE);
      cairo_line_to (cr, x0 + (b - 1) * col_w, bottom);
      cairo_close_path (cr);
      cairo_set_source_rgba (cr, color->red, color->green, color->blue, 0.10);
      cairo_fill (cr);

      trace_run (self, cr, mins, maxs, a, b, col_w, axis_max, TRUE);
      cairo_set_source_rgba (cr, color->red, color->green, color->blue, 0.35);
      cairo_fill (cr);

      trace_run (self, cr, mins, maxs, a, b, col_w, axis_max, FALSE);
      gdk_cairo_set_source_rgba (cr, color);
      cairo_stroke (cr);
      self->stats.paths += 3;
    }
}

/* One box in device pixels, into the canvas or onto cr's path. */
static void
add_box (RtopGraph *self, cairo_t *cr, double px, int x, int y0, int w, int y1, guint32 color)
{
  if (self->canvas.on)
    rtop_graph_canvas_box (&self->canvas, x, y0, w, y1, color);
  else
    cairo_rectangle (cr, x / px, y0 / px, w / px, (y1 - y0) / px);
}

/* Dense data (several samples per column): each column is a bar from its
 * minimum to its maximum over a light bar down to zero.  Bars are boxes,
 * which cairo fills fastest, so the frame costs the same however many
 * samples stand behind each column; a jagged polyline would not. */
static void
draw_bars (RtopGraph *self, cairo_t *cr, const double *mins, const double *maxs,
           guint columns, double axis_max, const GdkRGBA *color)
{
  double col_w = self->plot.size.width / columns;
  double bottom = self->plot.origin.y + self->plot.size.height;
  double line = self->compact ? 1.25 : 1.5;
  double prev_lo = NAN, prev_hi = NAN;
  double px = gtk_widget_get_scale_factor (GTK_WIDGET (self));
  int thick = (int) MAX (1, round (line * px));  /* whole device pixels */
  int base = (int) round (bottom * px), w = (int) round (col_w * px);
  guint32 area = rtop_graph_canvas_color (color, 0.10), trace = rtop_graph_canvas_color (color, 1);

  /* Boxes on whole device pixels take cairo's rectilinear fast path. */
#define DEV(v) ((int) round ((v) * px))
  for (guint i = 0; i < columns; i++)
    if (!isnan (maxs[i]))
      add_box (self, cr, px, DEV (self->plot.origin.x + i * col_w), DEV (y_of (self, maxs[i], axis_max)), w,
               base, area);
  if (!self->canvas.on)
    {
      cairo_set_source_rgba (cr, color->red, color->green, color->blue, 0.10);
      cairo_fill (cr);
    }

  for (guint i = 0; i < columns; i++)
    {
      double hi, lo;
      int top, end;

      if (isnan (maxs[i]))
        {
          prev_lo = prev_hi = NAN;
          continue;
        }
      /* Overlap the previous column so the trace stays connected. */
      hi = isnan (prev_lo) ? maxs[i] : MAX (maxs[i], prev_lo);
      lo = isnan (prev_hi) ? mins[i] : MIN (mins[i], prev_hi);
      prev_lo = mins[i];
      prev_hi = maxs[i];
      /* The trace is as thick everywhere: a flat stretch is one band. */
      top = DEV (y_of (self, hi, axis_max) - thick / px / 2);
      end = MAX (DEV (y_of (self, lo, axis_max) - thick / px / 2) + thick, top + thick);
      add_box (self, cr, px, DEV (self->plot.origin.x + i * col_w), top, w, end, trace);
    }
#undef DEV
  if (!self->canvas.on)
    {
      gdk_cairo_set_source_rgba (cr, color);
      cairo_fill (cr);
    }
}

static gboolean
is_dense (RtopGraph *self, RtopSeries *series, guint columns)
{
  gint64 first, last;
  guint len = rtop_series_get_length (series);
  double col_us = (double) (self->frame_end - self->frame_start) / columns;

  if (len < 2 || !rtop_series_get_time_range (series, &first, &last))
    return FALSE;
  return (double) (last - first) / (len - 1) < col_us;
}

static void
draw_channel (RtopGraph *self, cairo_t *cr, guint c, guint columns, double axis_max)
{
  const double *mins = self->mins + (gsize) c * columns;
  const double *maxs = self->maxs + (gsize) c * columns;
  RtopSeries *series = channel_series (self, c);
  GdkRGBA color;

  if (series == NULL)
    return;
  rtop_graph_lookup_color (GTK_WIDGET (self), self->channels[c].color_name, &color);
  cairo_set_line_width (cr, self->compact ? 1.25 : 1.5);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_BEVEL);
  if (is_dense (self, series, columns))
    draw_bars (self, cr, mins, maxs, columns, axis_max, &color);
  else if (self->compact)
    {
      /* A sparkline of sparse samples is drawn as boxes too, the columns
       * between two samples filled in along the line joining them: an
       * anti-aliased filled and stroked path costs cairo a tessellation at
       * every repaint, and 16 of them were most of an update's time. */
      guint bridge = max_bridge_columns (self, series, columns);
      g_autofree double *filled = g_new (double, 2 * (gsize) columns);

      rtop_graph_bridge_columns (mins, filled, columns, bridge);
      rtop_graph_bridge_columns (maxs, filled + columns, columns, bridge);
      draw_bars (self, cr, filled, filled + columns, columns, axis_max, &color);
    }
  else
    draw_line (self, cr, mins, maxs, columns, axis_max,
               max_bridge_columns (self, series, columns), &color);
}

/* A channel's value at the right edge: the newest, or off the live edge
 * the sample there (NAN in a gap). */
double
rtop_graph_get_legend_value (RtopGraph *self, guint c)
{
  RtopSeries *series = channel_series (self, c);
  gint64 when;
  double value;

  if (series == NULL)
    return NAN;
  if (!off_live_edge (self))
    return rtop_series_get_last (series, self->channels[c].channel);
  return rtop_series_sample_at (series, self->channels[c].channel, self->frame_end, &when, &value)
         ? value : NAN;
}

static void
draw_legend (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg)
{
  double x = self->plot.origin.x;

  for (guint c = 0; c < self->n_channels; c++)
    {
      double last = rtop_graph_get_legend_value (self, c);
      g_autofree char *value = rtop_format_rate (last, self->unit);
      g_autofree char *text = g_strdup_printf ("%s  %s", self->channels[c].label, value);
      g_autoptr(PangoLayout) layout = make_layout (self, text);
      GdkRGBA color;
      int w, h;

      rtop_graph_lookup_color (GTK_WIDGET (self), self->channels[c].color_name, &color);
      gdk_cairo_set_source_rgba (cr, &color);
      cairo_rectangle (cr, x, 6, 10, 10);
      cairo_fill (cr);
      cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.9);
      show_text (cr, layout, x + 14, 11, 0);
      pango_layout_get_pixel_size (layout, &w, &h);
      x += 14 + w + 18;
    }
}

char *
rtop_graph_describe_at (RtopGraph *self, double x)
{
  const graphene_rect_t *p = &self->plot;
  RtopSeries *first_series = self->n_channels > 0 ? channel_series (self, 0) : self->series;
  GString *text;
  gint64 t, sample_t = 0, first_t = 0;
  g_autofree char *when = NULL;

  if (first_series == NULL || self->frame_end <= self->frame_start ||
      x < p->origin.x || x > p->origin.x + p->size.width)
    return NULL;
  t = self->frame_start + (gint64) ((x - p->origin.x) / p->size.width *
                                    (self->frame_end - self->frame_start));
  /* Where the window holds no samples (before the first, or a gap), the
   * nearest sample is elsewhere in time: say so at the pointer's time
   * instead of showing that sample's time and values. */
  {
    gint64 col_us = (gint64) ((self->frame_end - self->frame_start) / MAX (p->size.width, 1));
    gint64 nearest = 0, first = 0, last = 0;
    guint n = rtop_series_get_length (first_series);
    gint64 step_us;
    double v;

    rtop_series_get_time_range (first_series, &first, &last);
    step_us = n > 1 ? (last - first) / (n - 1) : 0;

    if (self->n_channels > 0 &&
        (!rtop_series_sample_at (first_series, self->channels[0].channel, t, &nearest, &v) ||
         ABS (nearest - t) > MAX (2 * col_us, 2 * step_us)))
      {
        when = rtop_format_time (rtop_series_to_realtime (first_series, t), FALSE);
        /* Translators: the hover readout of a graph where it has no samples */
        return g_strdup_printf (_("%s\nNo data"), when);
      }
  }
  text = g_string_new (NULL);
  for (guint c = 0; c < self->n_channels; c++)
    {
      double v;
      g_autofree char *value = NULL;

      RtopSeries *series = channel_series (self, c);

      /* A chart of several series: one without a sample here says so. */
      if (series == NULL || !rtop_series_sample_at (series, self->channels[c].channel, t, &sample_t, &v))
        {
          if (c == 0 || self->channels[c].series == NULL)
            break;
          v = NAN;
        }
      else if (c == 0)
        first_t = sample_t;
      value = rtop_format_rate (v, self->unit);
      g_string_append_printf (text, "\n%s: %s", self->channels[c].label, value);
    }
  if (text->len == 0)
    return (g_string_free (text, TRUE), NULL);
  when = rtop_format_time (rtop_series_to_realtime (first_series, first_t), TRUE);
  g_string_prepend (text, when);
  return g_string_free (text, FALSE);
}

static void
draw_hover (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg, double width)
{
  g_autofree char *text = rtop_graph_describe_at (self, self->hover_x);
  g_autoptr(PangoLayout) layout = NULL;
  double bx, by = self->plot.origin.y + 4;
  int w, h;

  if (text == NULL)
    return;
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.5);
  cairo_move_to (cr, round (self->hover_x) + 0.5, self->plot.origin.y);
  cairo_line_to (cr, round (self->hover_x) + 0.5, self->plot.origin.y + self->plot.size.height);
  cairo_stroke (cr);

  layout = make_layout (self, text);
  pango_layout_get_pixel_size (layout, &w, &h);
  bx = self->hover_x + 8;
  if (bx + w + 12 > width)
    bx = self->hover_x - w - 20;
  /* Background of the tooltip: the inverse of the text colour, nearly opaque. */
  cairo_set_source_rgba (cr, 1 - fg->red, 1 - fg->green, 1 - fg->blue, 0.92);
  cairo_rectangle (cr, bx, by, w + 12, h + 8);
  cairo_fill_preserve (cr);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.3);
  cairo_stroke (cr);
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 1);
  cairo_move_to (cr, bx + 6, by + 4);
  pango_cairo_show_layout (cr, layout);
}

static void
draw_empty (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg)
{
  g_autoptr(PangoLayout) layout = NULL;

  if (self->compact)
    return;
  layout = make_layout (self, _("Waiting for data…"));
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.55);
  show_text (cr, layout, self->plot.origin.x + self->plot.size.width / 2,
             self->plot.origin.y + self->plot.size.height / 2, 0.5);
}

/* The right edge of a stepped frame: the newest sample's time rounded up
 * to a whole step, so frames between steps map time to the same pixels. */
gint64
rtop_graph_stepped_end (RtopGraph *self, gint64 newest)
{
  gint64 step = (gint64) (self->window_s * self->scroll_step * G_USEC_PER_SEC);

  if (step <= 0 || newest <= 0)
    return newest;
  return (newest + step - 1) / step * step;
}

/* A sparkline says its own peak, right of its line: on the link's scale
 * it says how busy the port was, on its own scale what the full height
 * means.  Too narrow for it, the sparkline has none. */
static gboolean
peak_position (RtopGraph *self, PangoLayout *layout, double *x, double *y)
{
  int w, h;

  if (self->plot.origin.x + self->plot.size.width + peak_gutter (self) > gtk_widget_get_width (GTK_WIDGET (self)) + 2)
    return FALSE;
  pango_layout_get_pixel_size (layout, &w, &h);
  *x = self->plot.origin.x + self->plot.size.width + PEAK_PAD;
  *y = self->plot.origin.y + (self->plot.size.height - h) / 2;
  return TRUE;
}

static void
draw_peak (RtopGraph *self, cairo_t *cr, const GdkRGBA *fg, double data_max)
{
  g_autofree char *text = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  double x, y;

  if (data_max <= 0)
    return;
  text = peak_text (self, data_max);
  layout = make_layout (self, text);
  if (!peak_position (self, layout, &x, &y))
    return;
  cairo_set_source_rgba (cr, fg->red, fg->green, fg->blue, 0.85);
  cairo_move_to (cr, x, y);
  pango_cairo_show_layout (cr, layout);
}

void
rtop_graph_draw (RtopGraph *self, cairo_t *cr, double width, double height)
{
  GtkWidget *widget = GTK_WIDGET (self);
  int scale = gtk_widget_get_scale_factor (widget);
  guint columns;
  double step, axis_max, data_max;
  GdkRGBA fg;

  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  rtop_graph_compute_layout (self, width, height);

  self->stats.frames++;
  self->stats.paths = 0;
  self->stats.canvas_frames = 0;
  if (!get_newest_time (self, &self->frame_end))
    {
      guint frames = self->stats.frames;

      memset (&self->stats, 0, sizeof self->stats);
      self->stats.frames = frames;
      self->frame_start = self->frame_end = 0;
      draw_empty (self, cr, &fg);
      return;
    }
  /* One column per device pixel: HiDPI gets its full resolution. */
  columns = MAX ((guint) (self->plot.size.width * scale), 1);
  ensure_buffers (self, columns);
  if (self->view_end > 0 && self->view_end < self->frame_end)
    self->frame_end = self->view_end;
  else if (self->scroll_step > 0)
    self->frame_end = rtop_graph_stepped_end (self, self->frame_end);
  self->frame_start = self->frame_end - (gint64) (self->window_s * G_USEC_PER_SEC);
  /* The tiles of one frame share its columns: reduced once. */
  if (self->in_tile && self->tile_columns_ready)
    data_max = self->stats.data_max;
  else
    data_max = decimate_all (self, columns);
  self->tile_columns_ready = self->in_tile && self->scroll_step > 0;
  if (self->fixed_max > 0 && data_max <= self->fixed_max)
    {
      /* A link's rate is the top itself, not rounded up: full is full. */
      axis_max = self->fixed_max;
      step = axis_max / (self->compact ? 2 : 4);
    }
  else
    {
      double top = data_max;
      /* Round steps in the unit shown (1, 2, 5 Gb/s, not 8, 16, 40). */
      double factor = rtop_unit_shown_factor (self->unit);

      step = rtop_nice_step (top > 0 ? top * factor : 1, self->compact ? 2 : 4) / factor;
      axis_max = MAX (ceil (top / step), 1) * step;
    }
  self->stats.columns = columns;
  self->stats.axis_max = axis_max;
  self->stats.data_max = data_max;

  draw_grid (self, cr, &fg, axis_max, step);
  if (!self->compact)
    {
      draw_time_axis (self, cr, &fg);
      if (!self->hide_legend)
        draw_legend (self, cr, &fg);
    }
  cairo_save (cr);
  cairo_rectangle (cr, self->plot.origin.x, self->plot.origin.y - 1,
                   self->plot.size.width, self->plot.size.height + 2);
  cairo_clip (cr);
  if (self->compact)
    rtop_graph_canvas_begin (&self->canvas, cr, scale);
  for (guint c = 0; c < self->n_channels; c++)
    draw_channel (self, cr, c, columns, axis_max);
  if (rtop_graph_canvas_end (&self->canvas, cr, scale))
    self->stats.canvas_frames++;
  cairo_restore (cr);
  if (self->compact && !self->in_tile)
    draw_peak (self, cr, &fg, data_max);
  if (self->hover_x >= 0 && !self->compact)
    draw_hover (self, cr, &fg, width);
}

/* A sparkline's peak as a text node of its own, beside the frame's cairo
 * node (draw_peak() draws it into the frame instead). */
void
rtop_graph_append_peak (RtopGraph *self, GtkSnapshot *snapshot, const GdkRGBA *fg)
{
  g_autofree char *text = NULL;
  g_autoptr(PangoLayout) layout = NULL;
  GdkRGBA color = { fg->red, fg->green, fg->blue, 0.85f };
  double x, y;

  if (self->stats.data_max <= 0)
    return;
  text = peak_text (self, self->stats.data_max);
  layout = make_layout (self, text);
  if (!peak_position (self, layout, &x, &y))
    return;
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x, y));
  gtk_snapshot_append_layout (snapshot, layout, &color);
  gtk_snapshot_restore (snapshot);
}
