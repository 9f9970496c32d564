/* gui-test-util.h: main-loop and picture helpers the GUI tests and the GUI
 * benchmarks share (the snapshots they feed come from gui-fixtures.h). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Runs what is pending without waiting, at most 400 iterations: a frame
 * clock (a spinner, a transition) always has something pending. */
void gui_test_spin (void);
/* Runs the main loop for ms milliseconds (frames, timeouts, I/O happen). */
void gui_test_run_for (guint ms);
/* Lets a few frames happen (layout, drawing): 150 ms of the main loop. */
void gui_test_wait_frames (void);
/* Renders widget as a frame would and saves it as PNG under
 * RDMATOP_SCREENSHOT_DIR, else the test's build folder; in a dark theme
 * (GTK_THEME ending in ":dark") "name.png" becomes "name-dark.png", so the
 * dark run keeps its pictures beside the light ones. */
void gui_test_screenshot (GtkWidget *widget, const char *name);

G_END_DECLS
