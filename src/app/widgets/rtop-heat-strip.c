/* rtop-heat-strip.c: one port's history as coloured cells (rtop-heat-strip.h).
 *
 * The cells are worked out from the port's series (its min/max pyramid:
 * O(cells log capacity)) only when the series changed, the strip was
 * resized or its metric or span changed; a frame paints them as one image
 * of cells x 1 pixels, scaled up without smoothing, so a repaint is one
 * image whatever the number of cells. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "rtop-format.h"
#include "rtop-heat-strip-private.h"

/* Cells are this wide, in pixels, or wider when the span has fewer samples. */
#define CELL_PX 3
/* A throughput without a known link rate is scaled against this. */
#define UNKNOWN_LINK_TOP_BPS 400e9

struct _RtopHeatStrip {
  GtkWidget parent_instance;

  RtopPortItem *port;
  RtopSeries *series;
  gulong series_handler;
  RtopHeatMetric metric;
  double span_s;
  double link_gbps;          /* the newest known link rate: a port that went down keeps it */

  /* The cells of the last frame, and what they were made from. */
  gboolean dirty;
  gboolean deferred;
  gboolean pending;          /* deferred: the series changed since the last flush */
  guint n_cells;
  double *levels;            /* n_cells, -1: no value */
  cairo_surface_t *image;    /* n_cells x 1 */
  gint64 end_us;             /* the right edge: the newest sample's time + 1 */
  GdkRGBA ramp[3];
  GdkRGBA mark_color;
  gboolean ramp_known;
  GArray *marks;             /* RtopHeatMark */
};

G_DEFINE_FINAL_TYPE (RtopHeatStrip, rtop_heat_strip, GTK_TYPE_WIDGET)

static const char *const ramp_names[2][3] = {
  { "rtop_heat_0", "rtop_heat_1", "rtop_heat_2" },
  { "rtop_heat_warn_0", "rtop_heat_warn_1", "rtop_heat_warn_2" },
};
static const GdkRGBA ramp_fallback[2][3] = {
  { { 0.89, 0.93, 0.97, 1 }, { 0.24, 0.56, 0.82, 1 }, { 0.04, 0.16, 0.37, 1 } },
  { { 0.97, 0.94, 0.91, 1 }, { 0.90, 0.55, 0.20, 1 }, { 0.55, 0.13, 0.07, 1 } },
};

/* The colour position, 0..1, of a value of metric (NAN: no value; -1) on
 * a port whose link runs at link_gbps (0: unknown, scaled by top instead). */
static double
rtop_heat_level (RtopHeatMetric metric, double value, double link_gbps, double top)
{
  if (isnan (value) || value < 0)
    return -1;
  if (metric == RTOP_HEAT_THROUGHPUT)
    {
      double full = link_gbps > 0 ? link_gbps * 1e9 : (top > 0 ? top : UNKNOWN_LINK_TOP_BPS);

      return CLAMP (value / full, 0, 1);
    }
  top = top > 1 ? top : RTOP_HEAT_COUNTER_TOP;
  return CLAMP (log10 (1 + value) / log10 (1 + top), 0, 1);
}

static RtopPortChannel
metric_channel (RtopHeatMetric metric)
{
  switch (metric)
    {
    case RTOP_HEAT_RETRANSMITS: return RTOP_PORT_CH_RETRANS;
    case RTOP_HEAT_CONGESTION: return RTOP_PORT_CH_CONGESTION;
    case RTOP_HEAT_DROPS: return RTOP_PORT_CH_DROPS;
    case RTOP_HEAT_THROUGHPUT:
    case RTOP_HEAT_N:
    default:
      return RTOP_PORT_CH_TX_BPS;
    }
}

static double
max_nan (double a, double b)
{
  return isnan (a) ? b : isnan (b) ? a : MAX (a, b);
}

/* The port's value of metric at a sample (throughput: max of transmit and
 * receive, bits/s); NAN when there is none. */
static double
rtop_heat_value_at (RtopPortItem *port, RtopHeatMetric metric, gint64 time_us,
                    gint64 *sample_time_us)
{
  RtopSeries *series = rtop_port_item_get_series (port);
  double value = NAN, rx = NAN;
  gint64 at = 0, rx_at = 0;

  if (!rtop_series_sample_at (series, metric_channel (metric), time_us, &at, &value))
    return NAN;
  if (sample_time_us != NULL)
    *sample_time_us = at;
  if (metric == RTOP_HEAT_THROUGHPUT && rtop_series_sample_at (series, RTOP_PORT_CH_RX_BPS, time_us, &rx_at, &rx))
    value = max_nan (value, rx);
  return value;
}

char *
rtop_heat_format (RtopHeatMetric metric, double value, double link_gbps)
{
  g_autofree char *rate = NULL;

  if (isnan (value))
    return g_strdup ("—");
  if (metric != RTOP_HEAT_THROUGHPUT)
    return rtop_format_rate (value, RTOP_UNIT_EVENTS_PER_S);
  rate = rtop_format_rate (value, RTOP_UNIT_BITS_PER_S);
  if (link_gbps > 0)
    {
      g_autofree char *share = rtop_format_percent (value / (link_gbps * 1e9));
      g_autofree char *link = rtop_format_gbps (link_gbps * 1e9);

      /* Translators: a port's throughput, its share of the link rate and the
       * link rate, e.g. "187 Gb/s, 93 % of 200 Gb/s" */
      return g_strdup_printf (_("%s, %s of %s"), rate, share, link);
    }
  return g_steal_pointer (&rate);
}

static void
mark_dirty (RtopHeatStrip *self)
{
  self->dirty = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
series_changed_cb (RtopHeatStrip *self)
{
  double link = rtop_port_item_get_link_gbps (self->port);

  if (link > 0)
    self->link_gbps = link;
  if (self->deferred)
    self->pending = TRUE;
  else if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    mark_dirty (self);
  else
    self->dirty = TRUE;
}

void
rtop_heat_strip_set_port (RtopHeatStrip *self, RtopPortItem *port)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));

  if (self->port == port)
    return;
  if (self->series_handler)
    g_clear_signal_handler (&self->series_handler, self->series);
  g_clear_object (&self->series);
  g_set_object (&self->port, port);
  self->link_gbps = 0;
  if (port != NULL)
    {
      self->series = g_object_ref (rtop_port_item_get_series (port));
      self->series_handler = g_signal_connect_swapped (self->series, "changed",
                                                       G_CALLBACK (series_changed_cb), self);
      self->link_gbps = rtop_port_item_get_link_gbps (port);
    }
  mark_dirty (self);
}

void
rtop_heat_strip_set_deferred (RtopHeatStrip *self, gboolean deferred)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));
  self->deferred = deferred;
}

void
rtop_heat_strip_flush (RtopHeatStrip *self)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));

  if (!self->pending)
    return;
  self->pending = FALSE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    mark_dirty (self);
  else
    self->dirty = TRUE;
}

RtopPortItem *
rtop_heat_strip_get_port (RtopHeatStrip *self)
{
  g_return_val_if_fail (RTOP_IS_HEAT_STRIP (self), NULL);
  return self->port;
}

void
rtop_heat_strip_set_metric (RtopHeatStrip *self, RtopHeatMetric metric)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));
  g_return_if_fail (metric < RTOP_HEAT_N);

  if (self->metric == metric)
    return;
  self->metric = metric;
  self->ramp_known = FALSE;
  mark_dirty (self);
}

void
rtop_heat_strip_set_span (RtopHeatStrip *self, double seconds)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));

  seconds = CLAMP (seconds, 1, 3600);
  if (self->span_s == seconds)
    return;
  self->span_s = seconds;
  mark_dirty (self);
}

static guint
cells_for_width (int width)
{
  return CLAMP (width / CELL_PX, 1, RTOP_HEAT_MAX_CELLS);
}

/* The cells' levels from the series, for n cells ending at its newest sample. */
static void
compute_levels (RtopHeatStrip *self, guint n)
{
  g_autofree double *mins = g_new (double, n);
  g_autofree double *maxs = g_new (double, n);
  g_autofree double *rx_maxs = NULL;
  gint64 first, last, start;

  if (n != self->n_cells)
    {
      g_free (self->levels);
      self->levels = g_new (double, n);
      self->n_cells = n;
    }
  for (guint i = 0; i < n; i++)
    self->levels[i] = -1;
  if (self->series == NULL || !rtop_series_get_time_range (self->series, &first, &last))
    return;
  self->end_us = last + 1;
  start = self->end_us - (gint64) (self->span_s * G_USEC_PER_SEC);
  rtop_series_decimate (self->series, metric_channel (self->metric), start, self->end_us, n, mins, maxs);
  if (self->metric == RTOP_HEAT_THROUGHPUT)
    {
      rx_maxs = g_new (double, n);
      rtop_series_decimate (self->series, RTOP_PORT_CH_RX_BPS, start, self->end_us, n, mins, rx_maxs);
    }
  for (guint i = 0; i < n; i++)
    {
      double v = rx_maxs ? max_nan (maxs[i], rx_maxs[i]) : maxs[i];

      self->levels[i] = rtop_heat_level (self->metric, v, self->link_gbps, 0);
    }
  /* A sample's rate is over the interval before it: cells narrower than
   * the interval that hold no sample take the next sample's colour, so a
   * row is a band, not stripes.  A longer gap (a host out of reach) stays
   * empty. */
  if (rtop_series_get_length (self->series) >= 2)
    {
      double interval_us = (double) (last - first) / (rtop_series_get_length (self->series) - 1);
      double cell_us = self->span_s * G_USEC_PER_SEC / n;
      guint reach = (guint) MIN (ceil (1.5 * interval_us / cell_us), n);
      gint next = -1;

      for (gint i = (gint) n - 1; i >= 0; i--)
        {
          if (self->levels[i] >= 0)
            next = i;
          else if (next >= 0 && (guint) (next - i) <= reach)
            self->levels[i] = self->levels[next];
        }
    }
}

static void
lookup_ramp (RtopHeatStrip *self)
{
  GtkStyleContext *ctx = gtk_widget_get_style_context (GTK_WIDGET (self));
  guint which = self->metric == RTOP_HEAT_THROUGHPUT ? 0 : 1;

  for (guint i = 0; i < 3; i++)
    if (!gtk_style_context_lookup_color (ctx, ramp_names[which][i], &self->ramp[i]))
      self->ramp[i] = ramp_fallback[which][i];
  if (!gtk_style_context_lookup_color (ctx, "rtop_heat_mark", &self->mark_color))
    self->mark_color = (GdkRGBA) { 0.78, 0.53, 0, 1 };
  self->ramp_known = TRUE;
}

/* Premultiplied ARGB32 of the ramp at level (0..1), opaque. */
static guint32
ramp_pixel (const GdkRGBA ramp[3], double level)
{
  double t = level <= 0.5 ? level * 2 : (level - 0.5) * 2;
  const GdkRGBA *a = level <= 0.5 ? &ramp[0] : &ramp[1];
  const GdkRGBA *b = level <= 0.5 ? &ramp[1] : &ramp[2];
#define MIX(c) ((guint32) CLAMP ((a->c + (b->c - a->c) * t) * 255 + 0.5, 0, 255))
  return 0xff000000u | (MIX (red) << 16) | (MIX (green) << 8) | MIX (blue);
#undef MIX
}

static void
update_image (RtopHeatStrip *self)
{
  guint32 *pixels;

  if (self->image == NULL || (guint) cairo_image_surface_get_width (self->image) != self->n_cells)
    {
      g_clear_pointer (&self->image, cairo_surface_destroy);
      self->image = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, self->n_cells, 1);
    }
  cairo_surface_flush (self->image);
  pixels = (guint32 *) cairo_image_surface_get_data (self->image);
  if (pixels == NULL)
    return;
  for (guint i = 0; i < self->n_cells; i++)
    pixels[i] = self->levels[i] < 0 ? 0 : ramp_pixel (self->ramp, self->levels[i]);
  cairo_surface_mark_dirty (self->image);
}

/* A mark's span as x from the left edge, in a strip width wide; FALSE
 * when it lies outside the strip's time. */
static gboolean
mark_span (RtopHeatStrip *self, const RtopHeatMark *mark, double width, double *x0, double *x1)
{
  gint64 offset, start, end;
  double span_us = self->span_s * G_USEC_PER_SEC;

  if (self->series == NULL || self->end_us == 0)
    return FALSE;
  /* The series' clock against the wall clock, at its newest sample. */
  offset = rtop_series_to_realtime (self->series, self->end_us - 1) - (self->end_us - 1);
  start = mark->start_us - offset;
  end = mark->end_us != 0 ? mark->end_us - offset : self->end_us;
  if (end < self->end_us - span_us || start > self->end_us || end < start)
    return FALSE;
  *x0 = width * CLAMP (1 - (self->end_us - start) / span_us, 0, 1);
  *x1 = width * CLAMP (1 - (self->end_us - end) / span_us, 0, 1);
  /* A moment still shows. */
  if (*x1 - *x0 < 2)
    *x1 = MIN (*x0 + 2, width);
  return TRUE;
}

void
rtop_heat_strip_set_marks (RtopHeatStrip *self, const RtopHeatMark *marks, guint n_marks)
{
  g_return_if_fail (RTOP_IS_HEAT_STRIP (self));

  if (n_marks > RTOP_HEAT_MAX_MARKS)
    {
      marks += n_marks - RTOP_HEAT_MAX_MARKS;
      n_marks = RTOP_HEAT_MAX_MARKS;
    }
  if (self->marks->len == n_marks
      && (n_marks == 0 || memcmp (self->marks->data, marks, n_marks * sizeof (RtopHeatMark)) == 0))
    return;
  g_array_set_size (self->marks, 0);
  g_array_append_vals (self->marks, marks, n_marks);
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
rtop_heat_strip_mark_at (RtopHeatStrip *self, double x)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  double x0, x1;

  g_return_val_if_fail (RTOP_IS_HEAT_STRIP (self), FALSE);
  for (guint i = 0; i < self->marks->len; i++)
    if (mark_span (self, &g_array_index (self->marks, RtopHeatMark, i), width, &x0, &x1)
        && x >= x0 && x <= x1)
      return TRUE;
  return FALSE;
}

static void
rtop_heat_strip_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  RtopHeatStrip *self = RTOP_HEAT_STRIP (widget);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  guint n = cells_for_width (width);
  cairo_t *cr;

  if (width <= 0 || height <= 0)
    return;
  if (!self->ramp_known)
    {
      lookup_ramp (self);
      self->dirty = TRUE;
    }
  if (self->dirty || n != self->n_cells || self->image == NULL)
    {
      compute_levels (self, n);
      update_image (self);
      self->dirty = FALSE;
    }
  if (self->image == NULL)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  cairo_scale (cr, (double) width / self->n_cells, height);
  cairo_set_source_surface (cr, self->image, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_destroy (cr);
  for (guint i = 0; i < self->marks->len; i++)
    {
      double x0, x1, bar = MAX (2, height / 4);

      if (mark_span (self, &g_array_index (self->marks, RtopHeatMark, i), width, &x0, &x1))
        gtk_snapshot_append_color (snapshot, &self->mark_color,
                                   &GRAPHENE_RECT_INIT (x0, height - bar, x1 - x0, bar));
    }
}

static void
rtop_heat_strip_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  RtopHeatStrip *self = RTOP_HEAT_STRIP (widget);

  GTK_WIDGET_CLASS (rtop_heat_strip_parent_class)->css_changed (widget, change);
  self->ramp_known = FALSE;
  gtk_widget_queue_draw (widget);
}

static void
rtop_heat_strip_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (rtop_heat_strip_parent_class)->map (widget);
  /* Changes while unmapped only marked it. */
  gtk_widget_queue_draw (widget);
}

char *
rtop_heat_strip_describe_at (RtopHeatStrip *self, double x)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self));
  gint64 at, sample_us = 0;
  double value;
  g_autofree char *when = NULL;
  g_autofree char *what = NULL;
  const char *host;

  g_return_val_if_fail (RTOP_IS_HEAT_STRIP (self), NULL);
  if (self->port == NULL || width <= 0 || self->end_us == 0 || x < 0 || x > width)
    return NULL;
  at = self->end_us - (gint64) ((1 - x / width) * self->span_s * G_USEC_PER_SEC);
  value = rtop_heat_value_at (self->port, self->metric, at, &sample_us);
  if (isnan (value))
    return NULL;
  when = rtop_format_time (rtop_series_to_realtime (self->series, sample_us), FALSE);
  what = rtop_heat_format (self->metric, value, self->link_gbps);
  host = rtop_port_item_get_host (self->port);
  if (rtop_heat_strip_mark_at (self, x))
    /* Translators: a heatmap cell's tooltip: host, port (e.g. "mlx5_2/1"),
     * the time and the value, in a rail imbalance episode */
    return g_strdup_printf (_("%s · %s/%u · %s · %s · rail imbalance"), host != NULL ? host : _("This computer"),
                            rtop_port_item_get_device (self->port), rtop_port_item_get_port (self->port),
                            when, what);
  /* Translators: a heatmap cell's tooltip: host, port (e.g. "mlx5_2/1"),
   * the time and the value */
  return g_strdup_printf (_("%s · %s/%u · %s · %s"), host != NULL ? host : _("This computer"),
                          rtop_port_item_get_device (self->port), rtop_port_item_get_port (self->port),
                          when, what);
}

static gboolean
query_tooltip_cb (GtkWidget *widget, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  g_autofree char *text = NULL;

  /* From the keyboard: the newest cell. */
  text = rtop_heat_strip_describe_at (RTOP_HEAT_STRIP (widget),
                                      keyboard ? gtk_widget_get_width (widget) : x);
  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

double *
rtop_heat_strip_get_levels (RtopHeatStrip *self, guint *n_cells)
{
  g_return_val_if_fail (RTOP_IS_HEAT_STRIP (self), NULL);

  if (self->dirty || self->levels == NULL)
    compute_levels (self, cells_for_width (MAX (gtk_widget_get_width (GTK_WIDGET (self)), CELL_PX)));
  *n_cells = self->n_cells;
  return g_memdup2 (self->levels, sizeof (double) * self->n_cells);
}

static void
rtop_heat_strip_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
  /* Narrow is fine (fewer cells); the row gives it the width there is. */
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 60 : 10;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 600 : 12;
}

static void
rtop_heat_strip_dispose (GObject *object)
{
  RtopHeatStrip *self = RTOP_HEAT_STRIP (object);

  rtop_heat_strip_set_port (self, NULL);
  g_clear_pointer (&self->image, cairo_surface_destroy);
  g_clear_pointer (&self->levels, g_free);
  self->n_cells = 0;
  G_OBJECT_CLASS (rtop_heat_strip_parent_class)->dispose (object);
}

static void
rtop_heat_strip_finalize (GObject *object)
{
  g_array_unref (RTOP_HEAT_STRIP (object)->marks);
  G_OBJECT_CLASS (rtop_heat_strip_parent_class)->finalize (object);
}

static void
rtop_heat_strip_class_init (RtopHeatStripClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_heat_strip_dispose;
  object_class->finalize = rtop_heat_strip_finalize;
  widget_class->snapshot = rtop_heat_strip_snapshot;
  widget_class->measure = rtop_heat_strip_measure;
  widget_class->css_changed = rtop_heat_strip_css_changed;
  widget_class->map = rtop_heat_strip_map;
  widget_class->query_tooltip = query_tooltip_cb;
  gtk_widget_class_set_css_name (widget_class, "heatstrip");
  /* The row around it is what is named and focused. */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rtop_heat_strip_init (RtopHeatStrip *self)
{
  self->span_s = 300;
  self->dirty = TRUE;
  self->marks = g_array_new (FALSE, FALSE, sizeof (RtopHeatMark));
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
}

GtkWidget *
rtop_heat_strip_new (void)
{
  return g_object_new (RTOP_TYPE_HEAT_STRIP, NULL);
}
