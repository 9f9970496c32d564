/* rtop-process-page.h: one process: what it holds on which device and
 * port, and its queue pairs (number, type, state, peer), with those in the
 * error state standing out.  Reached from a process row or a port's
 * Processes tab; it links to the process's ports. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-process-item.h"
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PROCESS_PAGE (rtop_process_page_get_type ())
G_DECLARE_FINAL_TYPE (RtopProcessPage, rtop_process_page, RTOP, PROCESS_PAGE, RtopSection)

void rtop_process_page_set_process (RtopProcessPage *self, RtopProcessItem *process);

G_END_DECLS
