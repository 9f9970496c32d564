/* rtop-rails-section.h: rails side by side: every port of every host in
 * reach as one row of a heatmap over time (throughput, or retransmits,
 * congestion notifications or drops), by host and device, so that eight
 * hosts of eight rails fit one screen and a slow rail is a pale row among
 * dark ones.  It can be narrowed to the ports one job's queue pairs use.
 * Hovering a cell names host, port, time and value; activating a row (a
 * click, or Enter) opens the port. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_RAILS_SECTION (rtop_rails_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopRailsSection, rtop_rails_section, RTOP, RAILS_SECTION, RtopSection)

/* Narrows the view to the ports of the job with this key (rtop-jobs.h:
 * "slurm/1234"); NULL: every port. */
void rtop_rails_section_set_job (RtopRailsSection *self, const char *job_key);

G_END_DECLS
