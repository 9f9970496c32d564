/* rtop-a11y.h: accessible names without mnemonic underscores; tooltips
 * (accessible descriptions) set only when they change.
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

/* gtk_widget_set_tooltip_text, only when the text changes: GTK answers
 * every call by asking the display where the pointer is (on X11 a round
 * trip), which a view refreshed each pass pays every pass.  The tooltip is
 * also the widget's accessible description. */
void rtop_widget_set_tooltip (GtkWidget *widget, const char *text);


G_END_DECLS
