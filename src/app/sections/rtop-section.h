/* rtop-section.h: the base of every view in the window.
 *
 * A section is a composite widget with its own .c/.h/.ui that shows part of
 * a session (the overview, processes, events, a port's page).  The window
 * lists its sections in its template and hands each the session; a section
 * binds its models in bind() and lets go of them when bound to NULL.  The
 * base holds the session's history for it and disconnects the handlers it
 * connected with rtop_section_connect_history() before the unbind.  The
 * class says what the window shows for it (page name, title, icon), so a
 * new view is its own files and one line in the window's template.
 *
 * Property: "session" (RtopSession*, read-write). */
#pragma once

#include <gtk/gtk.h>
#include "rtop-session.h"

G_BEGIN_DECLS

#define RTOP_TYPE_SECTION (rtop_section_get_type ())
G_DECLARE_DERIVABLE_TYPE (RtopSection, rtop_section, RTOP, SECTION, GtkBox)

struct _RtopSectionClass {
  GtkBoxClass parent_class;

  /* Set by rtop_section_class_set_page(). */
  const char *page_name;
  const char *page_title;     /* translatable, with a mnemonic; NULL: no tab */
  const char *icon_name;

  /* The session changed (NULL: unbound).  rtop_section_get_history() is
   * the new session's history here; on unbind it is still the old one,
   * with the section's history handlers already gone.  Chain up is not
   * needed. */
  void (*bind) (RtopSection *self, RtopSession *session);
  /* Moves the keyboard focus to the section's search or main list. */
  void (*focus) (RtopSection *self);
  /* Ctrl+F: opens the section's search or filter; NULL: focus. */
  void (*find) (RtopSection *self);
  /* What the section shows, as text (tests, the end-to-end scenario). */
  char *(*dump) (RtopSection *self);
};

/* In class_init: the stack page's name, its tab title (N_() text, or NULL
 * for a page without a tab) and an icon. */
void rtop_section_class_set_page (RtopSectionClass *klass, const char *name,
                                  const char *title, const char *icon_name);

void rtop_section_set_session (RtopSection *self, RtopSession *session);
/* The bound session's history; NULL while unbound.  Transfer none. */
RtopHistory *rtop_section_get_history (RtopSection *self);
/* The session bound (transfer none), or NULL. */
RtopSession *rtop_section_get_session (RtopSection *self);
/* Connects callback (swapped: it gets the section) to a signal of the
 * history for as long as the section is bound to this session. */
void rtop_section_connect_history (RtopSection *self, const char *signal, GCallback callback);
const char *rtop_section_get_page_name (RtopSection *self);
/* Translated, or NULL. */
const char *rtop_section_get_page_title (RtopSection *self);
void rtop_section_focus (RtopSection *self);
void rtop_section_find (RtopSection *self);
/* Never NULL: "" when the section has nothing to say. */
char *rtop_section_dump (RtopSection *self);

G_END_DECLS
