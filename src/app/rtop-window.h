/* rtop-window.h: the main window: header bar, sections, port page.
 *
 * A window shows a session (rtop-session.h) and binds to it; any number of
 * windows show the same session in step.  Its actions ("win.*") and their
 * shortcuts are installed on the class; what belongs to the application
 * (record, refresh, live/replay) is an "app.*" action. */
#pragma once

#include <adwaita.h>
#include "rtop-session.h"

G_BEGIN_DECLS

#define RTOP_TYPE_WINDOW (rtop_window_get_type ())
G_DECLARE_FINAL_TYPE (RtopWindow, rtop_window, RTOP, WINDOW, GtkApplicationWindow)

/* application may be NULL (tests); settings: an io.github.rdmatop.Rdmatop
 * GSettings, or NULL. */
RtopWindow *rtop_window_new (GtkApplication *application, RtopSession *session,
                             GSettings *settings);

G_END_DECLS
