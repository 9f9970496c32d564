/* rtop-a11y.h: accessible names without mnemonic underscores.
 *
 * SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* GTK 4.8 gives a button with a mnemonic label ("_Try Again") the raw
 * label as its accessible label, so a screen reader says "_Try Again Try
 * Again", and a stack page and its switcher tab "_Overview".  This gives
 * every such widget under root (buttons, stack switcher tabs, stack pages)
 * the text people see instead, and keeps it so when a button's label
 * changes; a drop-down with its own accessible label is no longer also
 * named by its mnemonic label.  Call it once the widgets exist (after the template). */
void rtop_a11y_fix_mnemonics (GtkWidget *root);


G_END_DECLS
