/* rtop-graph.c: the time-series chart widget: its channels and properties,
 * held updates, the stepped frame's tiles and the pointer. */
#include "config.h"

#include <string.h>

#include "rtop-graph-canvas.h"
#include "rtop-graph-private.h"

/* A stepped frame is drawn in tiles of this many pixels: between steps a
 * tile whose time has passed stays the same node, so the node diff (and
 * on X11 the bytes sent) covers only the tiles new samples fall in. */
#define TILE_WIDTH 16

G_DEFINE_FINAL_TYPE (RtopGraph, rtop_graph, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_WINDOW_SECONDS,
  PROP_COMPACT,
  PROP_UNIT,
  PROP_FIXED_MAX,
  PROP_VIEW_END,
  PROP_HELD,
  N_PROPS
};
static GParamSpec *props[N_PROPS];

static void
series_changed_cb (RtopGraph *self)
{
  if (self->held)
    self->held_changes = TRUE;
  else
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Held: draws the samples that came meanwhile, and stays held. */
void
rtop_graph_show_held (RtopGraph *self)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));

  if (self->held_changes)
    gtk_widget_queue_draw (GTK_WIDGET (self));
  self->held_changes = FALSE;
}

/* Held, new samples are not drawn; released, the graph draws once if any
 * came meanwhile.  Everything else (size, scale, pointer) draws as usual. */
void
rtop_graph_set_held (RtopGraph *self, gboolean held)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));

  held = !!held;
  if (self->held == held)
    return;
  self->held = held;
  if (!held && self->held_changes)
    gtk_widget_queue_draw (GTK_WIDGET (self));
  self->held_changes = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HELD]);
}

void
rtop_graph_set_series (RtopGraph *self, RtopSeries *series)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));

  if (self->series == series)
    return;
  if (self->series)
    g_clear_signal_handler (&self->changed_id, self->series);
  g_set_object (&self->series, series);
  if (series)
    self->changed_id = g_signal_connect_object (series, "changed",
                                                G_CALLBACK (series_changed_cb),
                                                self, G_CONNECT_SWAPPED);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}


void
rtop_graph_add_channel (RtopGraph *self, guint channel, const char *label,
                        const char *color_name)
{
  RtopGraphChannel *c;

  g_return_if_fail (RTOP_IS_GRAPH (self));
  g_return_if_fail (self->n_channels < RTOP_GRAPH_MAX_CHANNELS);

  c = &self->channels[self->n_channels++];
  c->channel = channel;
  c->label = g_strdup (label);
  c->color_name = g_strdup (color_name);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
rtop_graph_add_series_channel (RtopGraph *self, RtopSeries *series, guint channel,
                               const char *label, const char *color_name)
{
  RtopGraphChannel *c;

  g_return_if_fail (RTOP_IS_GRAPH (self));
  g_return_if_fail (RTOP_IS_SERIES (series));
  g_return_if_fail (self->n_channels < RTOP_GRAPH_MAX_CHANNELS);

  rtop_graph_add_channel (self, channel, label, color_name);
  c = &self->channels[self->n_channels - 1];
  c->series = g_object_ref (series);
  c->changed_id = g_signal_connect_object (series, "changed", G_CALLBACK (series_changed_cb),
                                           self, G_CONNECT_SWAPPED);
}

guint
rtop_graph_get_n_channels (RtopGraph *self)
{
  g_return_val_if_fail (RTOP_IS_GRAPH (self), 0);
  return self->n_channels;
}

void
rtop_graph_set_show_legend (RtopGraph *self, gboolean show)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));
  self->hide_legend = !show;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
rtop_graph_clear_channels (RtopGraph *self)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));
  for (guint i = 0; i < self->n_channels; i++)
    {
      RtopGraphChannel *c = &self->channels[i];

      if (c->series)
        g_clear_signal_handler (&c->changed_id, c->series);
      g_clear_object (&c->series);
      g_clear_pointer (&c->label, g_free);
      g_clear_pointer (&c->color_name, g_free);
    }
  self->n_channels = 0;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
rtop_graph_set_unit (RtopGraph *self, RtopUnit unit)
{
  g_return_if_fail (unit < RTOP_UNIT_N);

  if (self->unit == unit)
    return;
  self->unit = unit;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_UNIT]);
}

void
rtop_graph_set_window (RtopGraph *self, double seconds)
{
  seconds = CLAMP (seconds, 1, RTOP_GRAPH_MAX_WINDOW_S);
  if (self->window_s == seconds)
    return;
  self->window_s = seconds;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_WINDOW_SECONDS]);
}

static void
set_fixed_max (RtopGraph *self, double max)
{
  if (!(max > 0))   /* also NaN */
    max = 0;
  if (self->fixed_max == max)
    return;
  self->fixed_max = max;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_FIXED_MAX]);
}

void
rtop_graph_set_view_end (RtopGraph *self, gint64 end_us)
{
  end_us = MAX (end_us, 0);
  if (self->view_end == end_us)
    return;
  self->view_end = end_us;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_VIEW_END]);
}

double
rtop_graph_get_window (RtopGraph *self)
{
  return self->window_s;
}

void
rtop_graph_set_compact (RtopGraph *self, gboolean compact)
{
  compact = !!compact;
  if (self->compact == compact)
    return;
  self->compact = compact;
  if (compact)
    gtk_widget_add_css_class (GTK_WIDGET (self), "compact");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "compact");
  gtk_widget_queue_resize (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_COMPACT]);
}

void
rtop_graph_get_frame_stats (RtopGraph *self, RtopGraphFrameStats *stats)
{
  *stats = self->stats;
}

/* ---- a stepped frame, in tiles -------------------------------------------- */

static void
tile_key (RtopGraph *self, int width, int height, gint64 newest, RtopGraphTileKey *key)
{
  GtkWidget *widget = GTK_WIDGET (self);

  memset (key, 0, sizeof *key);
  key->width = width;
  key->height = height;
  key->scale = gtk_widget_get_scale_factor (widget);
  key->frame_end = rtop_graph_stepped_end (self, newest);
  key->window_s = self->window_s;
  key->fixed_max = self->fixed_max;
  key->n_channels = self->n_channels;
  key->series = self->series;
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &key->fg);
  for (guint c = 0; c < self->n_channels; c++)
    rtop_graph_lookup_color (widget, self->channels[c].color_name, &key->colors[c]);
}

static GskRenderNode *
draw_tile (RtopGraph *self, int width, int height, int x0, int x1)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  graphene_rect_t rect = GRAPHENE_RECT_INIT (x0, 0, x1 - x0, height);
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &rect);

  cairo_rectangle (cr, x0, 0, x1 - x0, height);
  cairo_clip (cr);
  self->in_tile = TRUE;
  rtop_graph_draw (self, cr, width, height);
  self->in_tile = FALSE;
  cairo_destroy (cr);
  return gtk_snapshot_free_to_node (snapshot);
}

/* Draws the tiles that new samples (or a new scale) reach; returns FALSE
 * when the scale changed under the kept ones, which must all be redrawn. */
static gboolean
update_tiles (RtopGraph *self, int width, int height, const RtopGraphTileKey *key, gint64 newest)
{
  guint n = (width + TILE_WIDTH - 1) / TILE_WIDTH;
  double us_per_px;
  gint64 changed_from, first = 0;
  guint len = rtop_series_get_length (self->series);

  rtop_graph_compute_layout (self, width, height);
  us_per_px = self->window_s * G_USEC_PER_SEC / MAX (self->plot.size.width, 1);
  /* A new sample's line starts at the one before it, and a run bridges a
   * few columns: redraw from a little before the last newest sample. */
  rtop_series_get_time_range (self->series, &first, NULL);
  changed_from = newest == self->tiles_newest ? G_MAXINT64
                 : self->tiles_newest - 3 * (len > 1 ? (newest - first) / (len - 1) : 0) -
                   (gint64) (4 * us_per_px);
  g_ptr_array_set_size (self->tiles, n);
  self->stats.tiles_drawn = self->stats.tiles_kept = 0;
  for (guint t = 0; t < n; t++)
    {
      int x0 = t * TILE_WIDTH, x1 = MIN (width, x0 + TILE_WIDTH);
      gint64 tile_end = key->frame_end - (gint64) ((self->plot.origin.x + self->plot.size.width - x1) * us_per_px);

      /* Tiles right of the plot (the peak text's room) hold no line. */
      if (g_ptr_array_index (self->tiles, t) != NULL && self->tiles_newest > 0 &&
          (tile_end < changed_from || x0 > self->plot.origin.x + self->plot.size.width + 1))
        {
          self->stats.tiles_kept++;
          continue;
        }
      g_clear_pointer (&g_ptr_array_index (self->tiles, t), gsk_render_node_unref);
      g_ptr_array_index (self->tiles, t) = draw_tile (self, width, height, x0, x1);
      self->stats.tiles_drawn++;
      if (self->stats.axis_max != self->tiles_key.axis_max && self->tiles_newest > 0)
        return FALSE;
      self->tiles_key.axis_max = self->stats.axis_max;
    }
  return TRUE;
}

static void
clear_tiles (RtopGraph *self)
{
  if (self->tiles)
    g_ptr_array_set_size (self->tiles, 0);
  self->tiles_newest = 0;
}

static void
snapshot_tiled (RtopGraph *self, GtkSnapshot *snapshot, int width, int height)
{
  RtopGraphTileKey key;
  gint64 newest;

  if (!rtop_series_get_time_range (self->series, NULL, &newest))
    return;
  self->tile_columns_ready = FALSE;
  tile_key (self, width, height, newest, &key);
  key.axis_max = self->tiles_key.axis_max;
  if (self->tiles == NULL)
    self->tiles = g_ptr_array_new_with_free_func ((GDestroyNotify) gsk_render_node_unref);
  if (memcmp (&key, &self->tiles_key, sizeof key) != 0)
    clear_tiles (self);
  self->tiles_key = key;
  if (!update_tiles (self, width, height, &key, newest))
    {
      double axis = self->stats.axis_max;

      clear_tiles (self);
      self->tiles_key.axis_max = axis;
      update_tiles (self, width, height, &key, newest);
    }
  self->tiles_newest = newest;
  for (guint t = 0; t < self->tiles->len; t++)
    gtk_snapshot_append_node (snapshot, g_ptr_array_index (self->tiles, t));
  rtop_graph_append_peak (self, snapshot, &key.fg);
}

static void
rtop_graph_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  RtopGraph *self = RTOP_GRAPH (widget);
  double width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (width < 4 || height < 4)
    return;
  if (self->compact && self->scroll_step > 0 && self->view_end == 0 && self->series &&
      rtop_series_get_length (self->series) > 0)
    {
      self->stats.frames++;
      snapshot_tiled (self, snapshot, (int) width, (int) height);
      return;
    }
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, width, height));
  /* A sparkline's peak is a text node: it diffs apart from the line. */
  self->in_tile = self->compact;
  rtop_graph_draw (self, cr, width, height);
  self->in_tile = FALSE;
  cairo_destroy (cr);
  if (self->compact && self->series && self->stats.columns > 0)
    {
      GdkRGBA fg;

      gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
      rtop_graph_append_peak (self, snapshot, &fg);
    }
}

void
rtop_graph_set_scroll_step (RtopGraph *self, double share)
{
  g_return_if_fail (RTOP_IS_GRAPH (self));

  share = CLAMP (share, 0, 1);
  if (self->scroll_step == share)
    return;
  self->scroll_step = share;
  clear_tiles (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
rtop_graph_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                    int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  RtopGraph *self = RTOP_GRAPH (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = self->compact ? 60 : 200;
      *natural = self->compact ? 120 : 480;
    }
  else
    {
      *minimum = self->compact ? 24 : 120;
      *natural = self->compact ? 28 : 180;
    }
}

/* ---- pointer ------------------------------------------------------------ */

static void
motion_cb (GtkEventControllerMotion *motion, double x, double y, RtopGraph *self)
{
  self->hover_x = x;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (GtkEventControllerMotion *motion, RtopGraph *self)
{
  self->hover_x = -1;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* ---- GObject ----------------------------------------------------------- */

static void
rtop_graph_dispose (GObject *object)
{
  RtopGraph *self = RTOP_GRAPH (object);

  rtop_graph_set_series (self, NULL);
  rtop_graph_clear_channels (self);
  G_OBJECT_CLASS (rtop_graph_parent_class)->dispose (object);
}

static void
rtop_graph_finalize (GObject *object)
{
  RtopGraph *self = RTOP_GRAPH (object);

  g_free (self->mins);
  g_free (self->maxs);
  rtop_graph_canvas_clear (&self->canvas);
  g_clear_pointer (&self->tiles, g_ptr_array_unref);
  G_OBJECT_CLASS (rtop_graph_parent_class)->finalize (object);
}

static void
rtop_graph_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopGraph *self = RTOP_GRAPH (object);

  switch (prop_id)
    {
    case PROP_WINDOW_SECONDS:
      g_value_set_double (value, self->window_s);
      break;
    case PROP_COMPACT:
      g_value_set_boolean (value, self->compact);
      break;
    case PROP_UNIT:
      g_value_set_int (value, self->unit);
      break;
    case PROP_FIXED_MAX:
      g_value_set_double (value, self->fixed_max);
      break;
    case PROP_VIEW_END:
      g_value_set_int64 (value, self->view_end);
      break;
    case PROP_HELD:
      g_value_set_boolean (value, self->held);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_graph_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopGraph *self = RTOP_GRAPH (object);

  switch (prop_id)
    {
    case PROP_WINDOW_SECONDS:
      rtop_graph_set_window (self, g_value_get_double (value));
      break;
    case PROP_COMPACT:
      rtop_graph_set_compact (self, g_value_get_boolean (value));
      break;
    case PROP_UNIT:
      rtop_graph_set_unit (self, g_value_get_int (value));
      break;
    case PROP_FIXED_MAX:
      set_fixed_max (self, g_value_get_double (value));
      break;
    case PROP_VIEW_END:
      rtop_graph_set_view_end (self, g_value_get_int64 (value));
      break;
    case PROP_HELD:
      rtop_graph_set_held (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_graph_class_init (RtopGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_graph_dispose;
  object_class->finalize = rtop_graph_finalize;
  object_class->get_property = rtop_graph_get_property;
  object_class->set_property = rtop_graph_set_property;
  widget_class->snapshot = rtop_graph_snapshot;
  widget_class->measure = rtop_graph_measure;

  props[PROP_WINDOW_SECONDS] =
    g_param_spec_double ("window-seconds", NULL, NULL, 1, RTOP_GRAPH_MAX_WINDOW_S, 300,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_COMPACT] =
    g_param_spec_boolean ("compact", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_UNIT] =
    g_param_spec_int ("unit", NULL, NULL, 0, RTOP_UNIT_N - 1, RTOP_UNIT_BITS_PER_S,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The top of the y axis at least (0: the graph's own data decides). */
  props[PROP_FIXED_MAX] =
    g_param_spec_double ("fixed-max", NULL, NULL, 0, G_MAXDOUBLE, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The series time (monotonic microseconds) at the right edge: scrolled
   * back through history; 0 follows the newest sample. */
  props[PROP_VIEW_END] =
    g_param_spec_int64 ("view-end", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  props[PROP_HELD] =
    g_param_spec_boolean ("held", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  gtk_widget_class_set_css_name (widget_class, "rtopgraph");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
rtop_graph_init (RtopGraph *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();

  self->window_s = 300;
  self->hover_x = -1;
  g_signal_connect (motion, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect (motion, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
}

GtkWidget *
rtop_graph_new (void)
{
  return g_object_new (RTOP_TYPE_GRAPH, NULL);
}
