/* rtop-heat-value.c: a number drawn at a fixed width (rtop-heat-value.h). */
#include "config.h"

#include "rtop-heat-value.h"

struct _RtopHeatValue {
  GtkWidget parent_instance;

  char *text;
  char *widest;
  PangoLayout *layout;       /* the text; NULL until drawn after a change */
};

G_DEFINE_FINAL_TYPE (RtopHeatValue, rtop_heat_value, GTK_TYPE_WIDGET)

void
rtop_heat_value_set_text (RtopHeatValue *self, const char *text)
{
  g_return_if_fail (RTOP_IS_HEAT_VALUE (self));

  if (g_strcmp0 (self->text, text) == 0)
    return;
  g_free (self->text);
  self->text = g_strdup (text);
  g_clear_object (&self->layout);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const char *
rtop_heat_value_get_text (RtopHeatValue *self)
{
  g_return_val_if_fail (RTOP_IS_HEAT_VALUE (self), NULL);
  return self->text != NULL ? self->text : "";
}

static void
rtop_heat_value_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                         int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
  RtopHeatValue *self = RTOP_HEAT_VALUE (widget);
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (widget, self->widest);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  *minimum = *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? width : height;
}

static void
rtop_heat_value_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  RtopHeatValue *self = RTOP_HEAT_VALUE (widget);
  GdkRGBA color;
  int width, height;

  if (self->text == NULL || self->text[0] == '\0')
    return;
  if (self->layout == NULL)
    self->layout = gtk_widget_create_pango_layout (widget, self->text);
  pango_layout_get_pixel_size (self->layout, &width, &height);
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &color);
  /* Right-aligned, centred in its height. */
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) - width,
                                                          (gtk_widget_get_height (widget) - height) / 2));
  gtk_snapshot_append_layout (snapshot, self->layout, &color);
  gtk_snapshot_restore (snapshot);
}

static void
rtop_heat_value_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  RtopHeatValue *self = RTOP_HEAT_VALUE (widget);

  GTK_WIDGET_CLASS (rtop_heat_value_parent_class)->css_changed (widget, change);
  /* A new font: new sizes and a new layout. */
  g_clear_object (&self->layout);
  gtk_widget_queue_resize (widget);
}

static void
rtop_heat_value_finalize (GObject *object)
{
  RtopHeatValue *self = RTOP_HEAT_VALUE (object);

  g_clear_object (&self->layout);
  g_free (self->text);
  g_free (self->widest);
  G_OBJECT_CLASS (rtop_heat_value_parent_class)->finalize (object);
}

static void
rtop_heat_value_class_init (RtopHeatValueClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = rtop_heat_value_finalize;
  widget_class->measure = rtop_heat_value_measure;
  widget_class->snapshot = rtop_heat_value_snapshot;
  widget_class->css_changed = rtop_heat_value_css_changed;
  gtk_widget_class_set_css_name (widget_class, "heatvalue");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_PRESENTATION);
}

static void
rtop_heat_value_init (RtopHeatValue *self)
{
}

GtkWidget *
rtop_heat_value_new (const char *widest)
{
  RtopHeatValue *self = g_object_new (RTOP_TYPE_HEAT_VALUE, NULL);

  self->widest = g_strdup (widest != NULL ? widest : "");
  return GTK_WIDGET (self);
}
