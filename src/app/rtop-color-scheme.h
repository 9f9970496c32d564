/* rtop-color-scheme.h: the desktop's light or dark style, followed through
 * the XDG desktop portal (org.freedesktop.appearance color-scheme). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Sets settings' gtk-application-prefer-dark-theme as the desktop's colour
 * scheme says, now and at every change, asynchronously.  Nothing happens
 * without a portal, or when GTK_THEME names a theme. */
void rtop_color_scheme_follow (GtkSettings *settings);

G_END_DECLS
