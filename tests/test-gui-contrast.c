/* test-gui-contrast.c: every colour rdmatop gives text reads against its
 * background, in whichever theme the test runs under (the suite runs it in
 * the light and the dark theme): WCAG contrast of at least 4.5:1, measured
 * on rendered pixels, in plain and in selected rows and in the cards.
 *
 * Each case is a label of solid block glyphs with the class (or classes)
 * the views give it, inside the container the views put it in; the pixels
 * inside the glyphs are the text's colour as drawn (opacity included), the
 * pixels beside the label the background it is drawn on. */
#include "config.h"

#include <math.h>
#include <gtk/gtk.h>

#include "rtop-window.h"
#include "support/gui-test-util.h"

#define MIN_CONTRAST 4.5

static double
channel (guint8 v)
{
  double c = v / 255.0;

  return c <= 0.04045 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
luminance (const guint8 *px)
{
  /* GDK_MEMORY_DEFAULT is B8G8R8A8 premultiplied; the window is opaque. */
  return 0.2126 * channel (px[2]) + 0.7152 * channel (px[1]) + 0.0722 * channel (px[0]);
}

typedef struct {
  GtkWidget *label;
  const char *what;
} Case;

static GtkWidget *
block_label (const char * const *classes)
{
  GtkWidget *label = gtk_label_new ("██████");

  gtk_widget_set_halign (label, GTK_ALIGN_START);
  gtk_widget_set_margin_start (label, 16);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  for (guint i = 0; classes[i]; i++)
    gtk_widget_add_css_class (label, classes[i]);
  return label;
}

static const char * const text_classes[][3] = {
  { "state-ok", NULL }, { "state-warn", NULL }, { "state-bad", NULL },
  { "problem", NULL }, { "rising", NULL },
  { "info", NULL }, { "warning", NULL }, { "error", NULL },
  /* The compare chart's legend: each port's name in its line's colour. */
  { "compare-0", "compare-legend" }, { "compare-1", "compare-legend" },
  { "compare-2", "compare-legend" }, { "compare-3", "compare-legend" },
  { "compare-4", "compare-legend" }, { "compare-5", "compare-legend" },
};

static void
measure (GtkWidget *window, GPtrArray *cases)
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (window);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  int w = gtk_widget_get_width (window), h = gtk_widget_get_height (window);
  GskRenderer *renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  GskRenderNode *node;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guint8 *pixels = NULL;
  gsize stride = (gsize) w * 4;
  guint failures = 0;

  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);
  pixels = g_malloc (stride * h);
  gdk_texture_download (texture, pixels, stride);

  for (guint i = 0; i < cases->len; i++)
    {
      Case *c = g_ptr_array_index (cases, i);
      graphene_rect_t r;
      int fx, fy, bx, by;
      double lf, lb, ratio;

      g_assert_true (gtk_widget_compute_bounds (c->label, window, &r));
      fx = (int) (r.origin.x + r.size.width / 2);
      fy = (int) (r.origin.y + r.size.height / 2);
      bx = (int) r.origin.x - 8;
      by = fy;
      g_assert_cmpint (bx, >=, 0);
      g_assert_cmpint (fx, <, w);
      lf = luminance (pixels + fy * stride + fx * 4);
      lb = luminance (pixels + by * stride + bx * 4);
      ratio = (MAX (lf, lb) + 0.05) / (MIN (lf, lb) + 0.05);
      g_test_message ("%-28s contrast %.2f:1", c->what, ratio);
      if (ratio < MIN_CONTRAST)
        {
          g_test_message ("  below %.1f:1", MIN_CONTRAST);
          failures++;
        }
    }
  g_assert_cmpuint (failures, ==, 0);
}

/* A list of its own per row: one selection each. */
static void
add_row (GtkBox *box, GPtrArray *cases, const char * const *classes, gboolean selected)
{
  GtkListBox *list = GTK_LIST_BOX (gtk_list_box_new ());
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *label = block_label (classes);
  Case *c = g_new0 (Case, 1);
  g_autofree char *what = g_strconcat (classes[0], classes[1] ? " " : "", classes[1] ? classes[1] : "",
                                       selected ? " (selected row)" : "", NULL);

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), label);
  gtk_list_box_append (list, row);
  gtk_widget_add_css_class (GTK_WIDGET (list), "data-table");
  gtk_box_append (box, GTK_WIDGET (list));
  /* Unselected rows can never be selected (focus would select one). */
  gtk_list_box_set_selection_mode (list, selected ? GTK_SELECTION_SINGLE : GTK_SELECTION_NONE);
  if (selected)
    gtk_list_box_select_row (list, GTK_LIST_BOX_ROW (row));
  c->label = label;
  c->what = g_intern_string (what);
  g_ptr_array_add (cases, c);
}

/* The overview's trouble card, a toggle button: a caption under a value,
 * in the Error's red, or the Warning's amber when only Warnings (extra:
 * "warn-only"), pressed or not. */
static GtkWidget *
problem_card (GPtrArray *cases, const char *extra, gboolean pressed, const char *what)
{
  GtkWidget *card = gtk_toggle_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  const char * const value_classes[] = { "card-value", NULL };
  const char * const caption_classes[] = { "card-caption", NULL };
  GtkWidget *value = block_label (value_classes);
  GtkWidget *caption = block_label (caption_classes);
  Case *cv = g_new0 (Case, 1), *cc = g_new0 (Case, 1);

  gtk_widget_add_css_class (card, "card");
  gtk_widget_add_css_class (card, "trouble-card");
  gtk_widget_add_css_class (card, "problem");
  if (extra)
    gtk_widget_add_css_class (card, extra);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (card), pressed);
  gtk_widget_set_halign (card, GTK_ALIGN_START);
  gtk_widget_set_margin_start (card, 12);
  gtk_box_append (GTK_BOX (box), value);
  gtk_box_append (GTK_BOX (box), caption);
  gtk_button_set_child (GTK_BUTTON (card), box);
  g_autofree char *value_what = g_strdup_printf ("%s value", what);
  g_autofree char *caption_what = g_strdup_printf ("%s caption", what);

  cv->label = value;
  cv->what = g_intern_string (value_what);
  cc->label = caption;
  cc->what = g_intern_string (caption_what);
  g_ptr_array_add (cases, cv);
  g_ptr_array_add (cases, cc);
  return card;
}

static void
test_state_colours (void)
{
  /* A window first: it loads the app's style for its display and theme. */
  RtopSession *session = rtop_session_new (NULL);
  GtkWidget *app_window = GTK_WIDGET (rtop_window_new (NULL, session, NULL));
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  g_autoptr(GPtrArray) cases = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (text_classes); i++)
    {
      add_row (GTK_BOX (box), cases, text_classes[i], FALSE);
      add_row (GTK_BOX (box), cases, text_classes[i], TRUE);
    }
  gtk_box_append (GTK_BOX (box), problem_card (cases, NULL, FALSE, "trouble card"));
  gtk_box_append (GTK_BOX (box), problem_card (cases, "warn-only", FALSE, "trouble card, Warnings only"));
  gtk_box_append (GTK_BOX (box), problem_card (cases, NULL, TRUE, "trouble card, pressed"));
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_set_default_size (GTK_WINDOW (window), 400, 900);
  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < 500 && !gtk_widget_get_mapped (window); i++)
    g_main_context_iteration (NULL, TRUE);
  gui_test_spin ();
  g_usleep (100000);
  gui_test_spin ();
  measure (window, cases);
  gtk_window_destroy (GTK_WINDOW (window));
  gtk_window_destroy (GTK_WINDOW (app_window));
  g_object_unref (session);
  gui_test_spin ();
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/gui/contrast/state-colours", test_state_colours);
  return g_test_run ();
}
