/* rtop-a11y.c: accessible names without mnemonic underscores (see the header).
 *
 * Verified over AT-SPI with GTK 4.8: for a push button, removing the
 * accessible label makes GTK name it from its content ("Try Again");
 * setting a clean label instead gives "Try Again Try Again".  A stack
 * switcher tab named from its content falls back to its type name, so it
 * gets the clean text as its label.  A drop-down named by its own label
 * and by a mnemonic label was named twice.  tests/gui-a11y-check.py fails on a
 * name with a mnemonic underscore or said twice.
 *
 * SPDX-License-Identifier: Apache-2.0 */
#include "config.h"

#include <string.h>

#include "rtop-a11y-private.h"

char *
rtop_a11y_strip_mnemonic (const char *text)
{
  GString *out;

  if (text == NULL)
    return NULL;
  out = g_string_sized_new (strlen (text));
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          if (p[1] == '_')
            {
              g_string_append_c (out, '_');
              p++;
            }
          continue;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static gboolean
button_has_mnemonic (GtkButton *button)
{
  GtkWidget *child = gtk_button_get_child (button);

  return gtk_button_get_use_underline (button) ||
         (GTK_IS_LABEL (child) && gtk_label_get_use_underline (GTK_LABEL (child)));
}

static void
button_label_changed_cb (GtkButton *button, GParamSpec *pspec, gpointer user_data)
{
  /* gtk_button_set_label() sets the raw label again. */
  if (button_has_mnemonic (button))
    gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

static void
fix_tab (GtkWidget *tab)
{
  GtkWidget *child = gtk_button_get_child (GTK_BUTTON (tab));

  /* The tab's label child shows the title without the underscore. */
  if (GTK_IS_LABEL (child) && gtk_label_get_use_underline (GTK_LABEL (child)))
    gtk_accessible_update_property (GTK_ACCESSIBLE (tab), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    gtk_label_get_text (GTK_LABEL (child)), -1);
}

static void
fix_stack_pages (GtkStack *stack)
{
  g_autoptr(GListModel) pages = G_LIST_MODEL (gtk_stack_get_pages (stack));

  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (pages, i);
      GtkStackPage *page = GTK_STACK_PAGE (item);
      g_autofree char *title = NULL;

      if (!gtk_stack_page_get_use_underline (page) || gtk_stack_page_get_title (page) == NULL)
        continue;
      title = rtop_a11y_strip_mnemonic (gtk_stack_page_get_title (page));
      gtk_accessible_update_property (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      title, -1);
    }
}

static void
fix (GtkWidget *widget, gboolean in_switcher)
{
  /* A drop-down with its own accessible label and a visible mnemonic label
   * ("_Time window") was named both: "Time window Time window".  Its own
   * label (which every one of ours has: the a11y test checks) stays; the
   * mnemonic keeps working without the relation. */
  if (GTK_IS_LABEL (widget) &&
      GTK_IS_DROP_DOWN (gtk_label_get_mnemonic_widget (GTK_LABEL (widget))))
    gtk_accessible_reset_relation (GTK_ACCESSIBLE (gtk_label_get_mnemonic_widget (GTK_LABEL (widget))),
                                   GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  if (GTK_IS_STACK (widget))
    fix_stack_pages (GTK_STACK (widget));
  if (GTK_IS_BUTTON (widget) && in_switcher)
    fix_tab (widget);
  else if (GTK_IS_BUTTON (widget) &&
           !g_object_get_data (G_OBJECT (widget), "rtop-a11y-watched"))
    {
      g_object_set_data (G_OBJECT (widget), "rtop-a11y-watched", GINT_TO_POINTER (1));
      g_signal_connect (widget, "notify::label", G_CALLBACK (button_label_changed_cb), NULL);
      button_label_changed_cb (GTK_BUTTON (widget), NULL, NULL);
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    fix (child, GTK_IS_STACK_SWITCHER (widget));
}

void
rtop_a11y_fix_mnemonics (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));
  fix (root, FALSE);
}

void
rtop_widget_set_tooltip (GtkWidget *widget, const char *text)
{
  if (text != NULL && *text == '\0')
    text = NULL;   /* as GTK keeps it */
  if (g_strcmp0 (gtk_widget_get_tooltip_text (widget), text) != 0)
    gtk_widget_set_tooltip_text (widget, text);
}
