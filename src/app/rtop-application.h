/* rtop-application.h: the GtkApplication: one instance, settings, the
 * sampler (live) or a recording (replay), and the app-wide actions. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-history.h"

G_BEGIN_DECLS

#define RTOP_TYPE_APPLICATION (rtop_application_get_type ())
G_DECLARE_FINAL_TYPE (RtopApplication, rtop_application, RTOP, APPLICATION, GtkApplication)

RtopApplication *rtop_application_new (void);
RtopHistory *rtop_application_get_history (RtopApplication *self);
GSettings *rtop_application_get_settings (RtopApplication *self);
/* Ask the sampler for a pass now. */
void rtop_application_refresh (RtopApplication *self);
/* Start or stop recording; FALSE with error when it cannot start. */
gboolean rtop_application_set_recording (RtopApplication *self, gboolean recording, GError **error);
gboolean rtop_application_get_recording (RtopApplication *self);
/* Replays a recording in the window (asynchronously; errors are shown). */
void rtop_application_open_recording (RtopApplication *self, GFile *file);
/* Back to live sampling after a replay. */
void rtop_application_go_live (RtopApplication *self);

G_END_DECLS
