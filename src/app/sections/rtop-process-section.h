/* rtop-process-section.h: one process: what it holds on which device and
 * port, and its queue pairs (number, type, state, peer), with those in the
 * error state standing out.  Reached from a process row or a port's
 * Processes tab; it links to the process's ports. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-process-item.h"
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PROCESS_SECTION (rtop_process_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopProcessSection, rtop_process_section, RTOP, PROCESS_SECTION, RtopSection)

void rtop_process_section_set_process (RtopProcessSection *self, RtopProcessItem *process);

G_END_DECLS
