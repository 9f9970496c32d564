/* rtop-job-section-private.h: what only rtop-job-section.c and the tests use. */
#pragma once

#include <adwaita.h>

#include "rtop-job-section.h"

G_BEGIN_DECLS

struct _RtopJobSection {
  RtopSection parent_instance;

  GtkLabel *title;
  GtkLabel *subtitle;
  GtkLabel *totals;
  GtkWidget *rails_button;
  GtkStack *stack;
  AdwStatusPage *empty_page;  /* the "gone" page */
  GtkListBox *process_list;
  GtkListBox *device_list;

  GPtrArray *process_groups;  /* GtkSizeGroup, one a column */
  GPtrArray *device_groups;
  GPtrArray *process_rows;    /* GtkListBoxRow, top to bottom (no heading row) */
  GPtrArray *process_keys;    /* char*, the rows' processes (rtop_process_item_key_for) */
  GPtrArray *device_rows;
  GPtrArray *device_keys;     /* char*, "host\tdevice\tports" */

  char *job_key;
  char *job_title;            /* its title when last seen */
  char *gone_text;            /* the "gone" page's description, as text */
  GPtrArray *jobs;            /* RtopJobSummary, the newest collection */
  gint64 jobs_read_us;
  gboolean stale;             /* something changed while unmapped */
};

/* The job shown, or NULL. */
const char *rtop_job_section_get_job (RtopJobSection *self);
/* Re-reads the jobs now instead of at most once a second. */
void rtop_job_section_refresh (RtopJobSection *self);
/* A device row's port buttons (GtkButton, transfer container). */
GPtrArray *rtop_job_section_row_ports (GtkWidget *row);

G_END_DECLS
