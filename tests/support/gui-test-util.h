/* gui-test-util.h: main-loop and picture helpers the GUI tests and the GUI
 * benchmarks share (the snapshots they feed come from gui-fixtures.h). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* gtk_test_init, then libadwaita's (its styles, its style manager), as
 * AdwApplication does for the app.  In a g_test_trap_subprocess child
 * libadwaita is left to the test, which may need a portal first. */
void gui_test_init (int *argc, char ***argv);

/* Runs what is pending without waiting, at most 400 iterations: a frame
 * clock (a spinner, a transition) always has something pending. */
void gui_test_spin (void);

/* Runs the main loop for ms milliseconds of real time, whatever happens:
 * for benchmarks that pace their updates like the app's interval.  Tests
 * wait for a condition instead. */
void gui_test_run_for (guint ms);

typedef gboolean (*GuiTestCondition) (gpointer data);

/* Iterates the main context until condition (data) holds.  The bound
 * (GUI_TEST_WAIT_S) only guards against a hang: past it the test fails,
 * saying what it waited for. */
#define GUI_TEST_WAIT_S 20
#define gui_test_wait_until(condition, data, description) \
  gui_test_wait_until_at (__FILE__, __LINE__, G_STRFUNC, (condition), (data), (description))
void gui_test_wait_until_at (const char *file, int line, const char *func,
                             GuiTestCondition condition, gpointer data, const char *description);

/* Waits until widget is mapped (its window shown, its page visible). */
void gui_test_wait_mapped (GtkWidget *widget);
/* Waits until widget has been finalized: *where, a weak pointer, is NULL. */
void gui_test_wait_gone (gpointer *where);
/* Waits until the frame clock of widget's window has painted a frame that
 * started after this call: what changed before it has been laid out and
 * drawn (widgets that need more frames are waited for by their own state). */
void gui_test_wait_painted (GtkWidget *widget);

/* Renders widget as a frame would, once a frame has been painted after the
 * call, and saves it as PNG under RDMATOP_SCREENSHOT_DIR, else the test's
 * build folder; in a dark theme (gui_test_theme_is_dark) "name.png"
 * becomes "name-dark.png", so the dark run keeps its pictures beside the
 * light ones.  Returns the picture, for the test to check what it shows. */
GdkTexture *gui_test_screenshot (GtkWidget *widget, const char *name) G_GNUC_WARN_UNUSED_RESULT;

/* Whether the tests run in the dark style (ADW_DEBUG_COLOR_SCHEME is
 * prefer-dark: libadwaita takes it as the desktop's choice). */
gboolean gui_test_theme_is_dark (void);

/* A picture's pixels, to check what a screenshot shows.  Colours are
 * 0xAARRGGBB (premultiplied: as drawn over an opaque window, plain RGB). */
typedef struct {
  int width, height;
  double scale;                 /* pixels per widget unit */
  guint32 *data;
} GuiTestPixels;

GuiTestPixels *gui_test_pixels_new (GdkTexture *texture, GtkWidget *root);
void gui_test_pixels_free (GuiTestPixels *pixels);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GuiTestPixels, gui_test_pixels_free)

/* The pixel rectangle of widget in a picture of root (clipped to it); the
 * whole picture for root itself.  Fails the test if widget is not mapped
 * or has no size. */
cairo_rectangle_int_t gui_test_pixels_area (GuiTestPixels *pixels, GtkWidget *root, GtkWidget *widget);
/* How many different colours the area holds. */
guint gui_test_pixels_count_colours (GuiTestPixels *pixels, const cairo_rectangle_int_t *area);
/* The colour most of the area's pixels have: its background. */
guint32 gui_test_pixels_dominant (GuiTestPixels *pixels, const cairo_rectangle_int_t *area);
/* The area's pixels whose red, green and blue are each within tolerance
 * of colour's. */
guint gui_test_pixels_count_near (GuiTestPixels *pixels, const cairo_rectangle_int_t *area,
                                  guint32 colour, guint tolerance);
/* Relative luminance of a colour, 0 (black) to 1 (white). */
double gui_test_colour_luminance (guint32 colour);
guint32 gui_test_colour_from_rgba (const GdkRGBA *rgba);

/* Asserts a window's picture is a page, not a blank or a half-drawn one:
 * many colours, and a background as light or dark as the theme. */
void gui_test_assert_page (GuiTestPixels *pixels);
/* Asserts widget, in a picture of root, shows something on its
 * background (text, a line): at least min_pixels that are not it. */
void gui_test_assert_drawn (GuiTestPixels *pixels, GtkWidget *root, GtkWidget *widget, guint min_pixels);

G_END_DECLS
