/* rtop-askpass-dialog.h: ssh's question to the user, as a dialog.
 *
 * A password or passphrase is typed into a hidden entry; a host key
 * question is Yes or No; closing the dialog declines (ssh then fails, and
 * the host's card says the user declined). */
#pragma once

#include <gtk/gtk.h>
#include "rtop-askpass.h"

G_BEGIN_DECLS

/* The dialog holds request until it is answered. */
GtkWidget *rtop_askpass_dialog_new (GtkWindow *parent, RtopAskpassRequest *request);

G_END_DECLS
