/* rtop-rails-section-private.h: what only rtop-rails-section.c and the tests use. */
#pragma once

#include <adwaita.h>

#include "rtop-heat-strip.h"
#include "rtop-rails-section.h"

G_BEGIN_DECLS

struct _RtopRailsSection {
  RtopSection parent_instance;

  GtkDropDown *metric_dropdown;
  GtkDropDown *job_dropdown;
  GtkWidget *job_page_button;  /* the chosen job's page; insensitive for every port */
  GtkLabel *count_label;
  GtkLabel *legend_low;
  GtkWidget *legend_bar;
  GtkLabel *legend_high;
  GtkStack *stack;
  AdwStatusPage *empty_page;
  GtkWidget *scroller;
  GtkListBox *list;
  GtkWidget *axis;
  GtkLabel *axis_start;

  GtkSizeGroup *host_group;
  GtkSizeGroup *port_group;
  GtkSizeGroup *value_group;

  GtkStringList *job_names;  /* "All ports", then the jobs' titles */
  GPtrArray *job_keys;       /* char*, the jobs' keys, job_names' items from 1 */
  GPtrArray *jobs;           /* RtopJobSummary, the newest collection */
  gint64 jobs_read_us;
  char *job_key;             /* the job narrowed to, NULL: every port */
  char *job_title;           /* its title when last seen */

  RtopHeatMetric metric;
  double span_s;
  GPtrArray *rows;           /* GtkListBoxRow, top to bottom */
  GPtrArray *row_ports;      /* RtopPortItem (ref), the rows' ports */
  guint n_hosts_shown;
  guint flush_source;        /* passes wait for one frame */
  gboolean stale;            /* something changed while unmapped */
  GHashTable *marks;         /* "host\tdevice\tport" -> GArray of RtopHeatMark, oldest first */
  gboolean marks_stale;      /* the event log changed since they were read */
  guint syncing;             /* the dropdowns are being set from code */
};


/* The job narrowed to, or NULL. */
const char *rtop_rails_section_get_job (RtopRailsSection *self);
void rtop_rails_section_set_metric (RtopRailsSection *self, RtopHeatMetric metric);
/* The rows shown now (GtkListBoxRow), top to bottom (transfer container). */
GPtrArray *rtop_rails_section_get_rows (RtopRailsSection *self);
/* A row's strip. */
RtopHeatStrip *rtop_rails_section_row_strip (GtkWidget *row);
/* Shows now what came since the last frame (instead of within a second). */
void rtop_rails_section_flush (RtopRailsSection *self);
/* Re-reads the jobs now instead of at most once a second. */
void rtop_rails_section_refresh_jobs (RtopRailsSection *self);

G_END_DECLS
