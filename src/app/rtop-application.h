/* rtop-application.h: the application (an AdwApplication): one instance, settings, the
 * session every window shows, and the application-wide actions (quit,
 * record, refresh, live/replay, show a port).  It creates windows and never
 * calls into one: windows bind to the session. */
#pragma once

#include <adwaita.h>
#include "rtop-session.h"

G_BEGIN_DECLS

#define RTOP_TYPE_APPLICATION (rtop_application_get_type ())
G_DECLARE_FINAL_TYPE (RtopApplication, rtop_application, RTOP, APPLICATION, AdwApplication)

RtopApplication *rtop_application_new (void);

G_END_DECLS
