/* rtop-application.h: the GtkApplication: one instance, settings, the
 * session every window shows, and the application-wide actions (quit,
 * record, refresh, live/replay, show a port).  It creates windows and never
 * calls into one: windows bind to the session. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-session.h"

G_BEGIN_DECLS

#define RTOP_TYPE_APPLICATION (rtop_application_get_type ())
G_DECLARE_FINAL_TYPE (RtopApplication, rtop_application, RTOP, APPLICATION, GtkApplication)

RtopApplication *rtop_application_new (void);
/* Valid from startup to shutdown. */
RtopSession *rtop_application_get_session (RtopApplication *self);

G_END_DECLS
