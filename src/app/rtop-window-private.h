/* rtop-window-private.h: what only rtop-window.c and the tests use. */
#pragma once

#include "rtop-window.h"

G_BEGIN_DECLS

RtopSession *rtop_window_get_session (RtopWindow *self);

/* The visible section's page name ("overview", "processes", "events") or
 * "detail" on a port's page. */
const char *rtop_window_get_visible_view (RtopWindow *self);

/* Whether the remote-display banner shows, and the command it offers. */
gboolean rtop_window_get_remote_banner (RtopWindow *self, const char **command);

/* What the window shows now, as text (for tests and the VM scenario). */
char *rtop_window_dump (RtopWindow *self);

G_END_DECLS
