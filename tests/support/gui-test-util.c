/* gui-test-util.c */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "gui-test-util.h"

void
gui_test_spin (void)
{
  for (guint i = 0; i < 400 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

static gboolean
done_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

void
gui_test_run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, done_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
gui_test_wait_until_at (const char *file, int line, const char *func,
                        GuiTestCondition condition, gpointer data, const char *description)
{
  gint64 end = g_get_monotonic_time () + GUI_TEST_WAIT_S * G_USEC_PER_SEC;
  gboolean timed_out = FALSE;
  guint tick;

  /* A timeout wakes the loop now and then, so that a condition that no
   * event announces is still seen, and the bound is. */
  tick = g_timeout_add (50, wake_cb, NULL);
  while (!condition (data) && !(timed_out = g_get_monotonic_time () > end))
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  if (timed_out)
    {
      g_autofree char *message = g_strdup_printf ("gave up after %d s waiting for %s",
                                                  GUI_TEST_WAIT_S, description);

      g_assertion_message (G_LOG_DOMAIN, file, line, func, message);
    }
}

static gboolean
is_mapped (gpointer widget)
{
  return gtk_widget_get_mapped (widget);
}

void
gui_test_wait_mapped (GtkWidget *widget)
{
  gui_test_wait_until (is_mapped, widget, "the widget to be mapped");
}

static gboolean
is_gone (gpointer where)
{
  return *(gpointer *) where == NULL;
}

void
gui_test_wait_gone (gpointer *where)
{
  gui_test_wait_until (is_gone, where, "the object to be finalized");
}

static void
after_paint_cb (GdkFrameClock *clock, gboolean *painted)
{
  *painted = TRUE;
}

static gboolean
is_true (gpointer flag)
{
  return *(gboolean *) flag;
}

void
gui_test_wait_painted (GtkWidget *widget)
{
  GdkFrameClock *clock;
  gboolean painted = FALSE;
  gulong id;

  gui_test_wait_mapped (widget);
  clock = gtk_widget_get_frame_clock (widget);
  g_assert_nonnull (clock);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &painted);
  /* Only this widget's own drawing is queued: its children keep theirs
   * unless they changed. */
  gtk_widget_queue_draw (widget);
  gui_test_wait_until (is_true, &painted, "a frame to be painted");
  g_signal_handler_disconnect (clock, id);
}

void
gui_test_init (int *argc, char ***argv)
{
  gtk_test_init (argc, argv, NULL);
  if (!g_test_subprocess ())
    adw_init ();
}

gboolean
gui_test_theme_is_dark (void)
{
  return g_strcmp0 (g_getenv ("ADW_DEBUG_COLOR_SCHEME"), "prefer-dark") == 0;
}

typedef struct {
  GtkWidget *widget;
  gboolean painted;
  GskRenderNode *node;
} Picture;

/* Once a frame has been painted: what it drew, if nothing has been queued
 * for drawing since (else the next frame's). */
static gboolean
take_picture (gpointer data)
{
  Picture *p = data;
  g_autoptr(GdkPaintable) paintable = NULL;
  GtkSnapshot *snapshot;

  if (!p->painted)
    return FALSE;
  paintable = gtk_widget_paintable_new (p->widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (p->widget), gtk_widget_get_height (p->widget));
  p->node = gtk_snapshot_free_to_node (snapshot);
  if (p->node == NULL)
    {
      p->painted = FALSE;
      gtk_widget_queue_draw (p->widget);
    }
  return p->node != NULL;
}

GdkTexture *
gui_test_screenshot (GtkWidget *widget, const char *name)
{
  gboolean dark = gui_test_theme_is_dark () && g_str_has_suffix (name, ".png");
  g_autofree char *base = dark ? g_strdup_printf ("%.*s-dark.png", (int) (strlen (name) - 4), name)
                               : g_strdup (name);
  const char *dir = g_getenv ("RDMATOP_SCREENSHOT_DIR");
  g_autofree char *path = dir != NULL ? g_build_filename (dir, base, NULL)
                                      : g_test_build_filename (G_TEST_BUILT, base, NULL);
  Picture picture = { widget, FALSE, NULL };
  GdkFrameClock *clock;
  GdkTexture *texture;
  gulong id;

  gui_test_wait_mapped (widget);
  clock = gtk_widget_get_frame_clock (widget);
  id = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &picture.painted);
  gtk_widget_queue_draw (widget);
  gui_test_wait_until (take_picture, &picture, "a frame to be painted and kept");
  g_signal_handler_disconnect (clock, id);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), picture.node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  gsk_render_node_unref (picture.node);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
  return texture;
}

/* ---- pixels ------------------------------------------------------------- */

GuiTestPixels *
gui_test_pixels_new (GdkTexture *texture, GtkWidget *root)
{
  GuiTestPixels *pixels = g_new0 (GuiTestPixels, 1);

  pixels->width = gdk_texture_get_width (texture);
  pixels->height = gdk_texture_get_height (texture);
  pixels->scale = (double) pixels->width / MAX (gtk_widget_get_width (root), 1);
  pixels->data = g_new (guint32, (gsize) pixels->width * pixels->height);
  /* CAIRO_FORMAT_ARGB32: one native-endian 0xAARRGGBB per pixel. */
  gdk_texture_download (texture, (guchar *) pixels->data, (gsize) pixels->width * 4);
  return pixels;
}

void
gui_test_pixels_free (GuiTestPixels *pixels)
{
  g_free (pixels->data);
  g_free (pixels);
}

cairo_rectangle_int_t
gui_test_pixels_area (GuiTestPixels *pixels, GtkWidget *root, GtkWidget *widget)
{
  graphene_rect_t bounds;
  int x0, y0, x1, y1;

  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_bounds (widget, root, &bounds));
  x0 = CLAMP ((int) (bounds.origin.x * pixels->scale), 0, pixels->width);
  y0 = CLAMP ((int) (bounds.origin.y * pixels->scale), 0, pixels->height);
  x1 = CLAMP ((int) ((bounds.origin.x + bounds.size.width) * pixels->scale), 0, pixels->width);
  y1 = CLAMP ((int) ((bounds.origin.y + bounds.size.height) * pixels->scale), 0, pixels->height);
  g_assert_cmpint (x1, >, x0);
  g_assert_cmpint (y1, >, y0);
  return (cairo_rectangle_int_t) { x0, y0, x1 - x0, y1 - y0 };
}

#define PIXEL(p, x, y) ((p)->data[(gsize) (y) * (p)->width + (x)])

static GHashTable *
histogram (GuiTestPixels *pixels, const cairo_rectangle_int_t *area)
{
  GHashTable *counts = g_hash_table_new (NULL, NULL);

  for (int y = area->y; y < area->y + area->height; y++)
    for (int x = area->x; x < area->x + area->width; x++)
      {
        gpointer key = GUINT_TO_POINTER (PIXEL (pixels, x, y));

        g_hash_table_insert (counts, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1));
      }
  return counts;
}

guint
gui_test_pixels_count_colours (GuiTestPixels *pixels, const cairo_rectangle_int_t *area)
{
  g_autoptr(GHashTable) counts = histogram (pixels, area);

  return g_hash_table_size (counts);
}

guint32
gui_test_pixels_dominant (GuiTestPixels *pixels, const cairo_rectangle_int_t *area)
{
  g_autoptr(GHashTable) counts = histogram (pixels, area);
  GHashTableIter iter;
  gpointer key, value;
  guint32 best = 0;
  guint most = 0;

  g_hash_table_iter_init (&iter, counts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) > most)
      {
        most = GPOINTER_TO_UINT (value);
        best = GPOINTER_TO_UINT (key);
      }
  return best;
}

static guint
channel (guint32 colour, guint shift)
{
  return (colour >> shift) & 0xff;
}

static gboolean
near (guint32 a, guint32 b, guint tolerance)
{
  for (guint shift = 0; shift <= 16; shift += 8)
    if ((guint) ABS ((int) channel (a, shift) - (int) channel (b, shift)) > tolerance)
      return FALSE;
  return TRUE;
}

guint
gui_test_pixels_count_near (GuiTestPixels *pixels, const cairo_rectangle_int_t *area,
                            guint32 colour, guint tolerance)
{
  guint n = 0;

  for (int y = area->y; y < area->y + area->height; y++)
    for (int x = area->x; x < area->x + area->width; x++)
      n += near (PIXEL (pixels, x, y), colour, tolerance);
  return n;
}

double
gui_test_colour_luminance (guint32 colour)
{
  return (0.2126 * channel (colour, 16) + 0.7152 * channel (colour, 8) + 0.0722 * channel (colour, 0)) / 255;
}

guint32
gui_test_colour_from_rgba (const GdkRGBA *rgba)
{
  return 0xff000000u | (guint32) (CLAMP (rgba->red, 0, 1) * 255 + 0.5) << 16 |
         (guint32) (CLAMP (rgba->green, 0, 1) * 255 + 0.5) << 8 | (guint32) (CLAMP (rgba->blue, 0, 1) * 255 + 0.5);
}

void
gui_test_assert_page (GuiTestPixels *pixels)
{
  cairo_rectangle_int_t all = { 0, 0, pixels->width, pixels->height };
  guint32 background = gui_test_pixels_dominant (pixels, &all);
  double luminance = gui_test_colour_luminance (background);

  g_test_message ("page: %u colours, background #%06x (luminance %.2f)",
                  gui_test_pixels_count_colours (pixels, &all), background & 0xffffff, luminance);
  /* Text, icons and graphs are antialiased: a real page has hundreds. */
  g_assert_cmpuint (gui_test_pixels_count_colours (pixels, &all), >, 64);
  if (gui_test_theme_is_dark ())
    g_assert_cmpfloat (luminance, <, 0.3);
  else
    g_assert_cmpfloat (luminance, >, 0.7);
}

void
gui_test_assert_drawn (GuiTestPixels *pixels, GtkWidget *root, GtkWidget *widget, guint min_pixels)
{
  cairo_rectangle_int_t area = gui_test_pixels_area (pixels, root, widget);
  guint32 background = gui_test_pixels_dominant (pixels, &area);
  guint total = area.width * area.height;
  guint drawn = total - gui_test_pixels_count_near (pixels, &area, background, 24);

  g_test_message ("%s at %d,%d %dx%d: %u of %u pixels drawn on #%06x", G_OBJECT_TYPE_NAME (widget),
                  area.x, area.y, area.width, area.height, drawn, total, background & 0xffffff);
  g_assert_cmpuint (drawn, >=, min_pixels);
}
