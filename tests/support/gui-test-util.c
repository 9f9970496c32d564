/* gui-test-util.c */
#include "config.h"

#include <string.h>

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

void
gui_test_wait_frames (void)
{
  gui_test_run_for (150);
}

void
gui_test_screenshot (GtkWidget *widget, const char *name)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  const char *theme = g_getenv ("GTK_THEME");
  gboolean dark = theme != NULL && strstr (theme, "dark") != NULL && g_str_has_suffix (name, ".png");
  g_autofree char *base = dark ? g_strdup_printf ("%.*s-dark.png", (int) (strlen (name) - 4), name)
                               : g_strdup (name);
  const char *dir = g_getenv ("RDMATOP_SCREENSHOT_DIR");
  g_autofree char *path = dir != NULL ? g_build_filename (dir, base, NULL)
                                      : g_test_build_filename (G_TEST_BUILT, base, NULL);
  g_autoptr(GdkTexture) texture = NULL;
  GskRenderNode *node;

  gui_test_wait_frames ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}
