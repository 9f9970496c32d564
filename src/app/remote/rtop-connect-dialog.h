/* rtop-connect-dialog.h: "Connect to Host…": one host as ssh takes it.
 *
 * Connect checks the name (rtop_remote_host_is_valid()); a remembered host
 * goes into the settings' "hosts" (the application connects what that key
 * lists), any other is connected for this run through app.add-host.
 * "Show process names and ids" puts the host into the settings'
 * "process-hosts" (or takes it out) before it is connected.  Connect is
 * insensitive while the host field is empty. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define RTOP_TYPE_CONNECT_DIALOG (rtop_connect_dialog_get_type ())
G_DECLARE_FINAL_TYPE (RtopConnectDialog, rtop_connect_dialog, RTOP, CONNECT_DIALOG, GtkWindow)

GtkWidget *rtop_connect_dialog_new (GtkWindow *parent, GSettings *settings);

G_END_DECLS
