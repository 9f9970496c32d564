/* rtop-window.h: the main window: header bar, views, port detail, actions. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-history.h"

G_BEGIN_DECLS

#define RTOP_TYPE_WINDOW (rtop_window_get_type ())
G_DECLARE_FINAL_TYPE (RtopWindow, rtop_window, RTOP, WINDOW, GtkApplicationWindow)

/* application may be NULL (tests); settings: an io.github.rdmatop.Rdmatop GSettings. */
RtopWindow *rtop_window_new (GtkApplication *application, RtopHistory *history,
                             GSettings *settings);
/* "overview", "processes", "events" or "detail". */
const char *rtop_window_get_visible_view (RtopWindow *self);
/* Shows a port's detail by "device/port"; FALSE when there is no such port. */
gboolean rtop_window_show_port (RtopWindow *self, const char *key);
/* Reflects the recorder / replay state in the header bar. */
void rtop_window_set_recording (RtopWindow *self, gboolean recording, const char *path);
void rtop_window_set_replay (RtopWindow *self, const char *title);
/* Shows an error the user can act on, in a dialog. */
void rtop_window_show_error (RtopWindow *self, const char *title, const char *message);
/* What the window shows now, as text (for tests and the VM scenario). */
char *rtop_window_dump (RtopWindow *self);

G_END_DECLS
