/* rtop-port-section-private.h: what only rtop-port-section.c and the tests use. */
#pragma once

#include "rtop-port-section.h"

G_BEGIN_DECLS

GtkWidget *rtop_port_section_new (void);

/* The counters in the order shown (after filter and sort). */
GListModel *rtop_port_section_get_counters_model (RtopPortSection *self);

void rtop_port_section_set_counter_filter (RtopPortSection *self, const char *text);

G_END_DECLS
