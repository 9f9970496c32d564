/* rtop-job-section.h: one job's page (a Slurm job, a Kubernetes pod, a
 * container...): what it is and where it runs, its processes on every host
 * (each opens the process's page), and per host and device the queue pairs
 * and memory regions it holds there and the ports its queue pairs use (each
 * opens the port's page); Show Rails narrows the rails view to its ports.
 * Reached from a process's page and from the rails view's Job choice
 * (win.show-job); a job that has ended says so. */
#pragma once

#include <gtk/gtk.h>
#include "rtop-section.h"

G_BEGIN_DECLS

#define RTOP_TYPE_JOB_SECTION (rtop_job_section_get_type ())
G_DECLARE_FINAL_TYPE (RtopJobSection, rtop_job_section, RTOP, JOB_SECTION, RtopSection)

/* Shows the job with this key (rtop-jobs.h: "slurm/1234"). */
void rtop_job_section_set_job (RtopJobSection *self, const char *job_key);
/* The job's title when it was last seen (transfer none), or its key. */
const char *rtop_job_section_get_title (RtopJobSection *self);

G_END_DECLS
