/* rtop-preferences.h: the preferences window (an AdwPreferencesWindow),
 * bound to GSettings. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define RTOP_TYPE_PREFERENCES (rtop_preferences_get_type ())
G_DECLARE_FINAL_TYPE (RtopPreferences, rtop_preferences, RTOP, PREFERENCES, AdwPreferencesWindow)

GtkWidget *rtop_preferences_new (GtkWindow *parent, GSettings *settings);

G_END_DECLS
