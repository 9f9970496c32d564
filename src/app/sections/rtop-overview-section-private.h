/* rtop-overview-section-private.h: what rtop-overview-section.c,
 * rtop-overview-section-columns.c and the tests share. */
#pragma once

#include <adwaita.h>

#include "rtop-columns.h"
#include "rtop-host-strip.h"
#include "rtop-overview-section.h"

G_BEGIN_DECLS

struct _RtopOverviewSection {
  RtopSection parent_instance;

  GtkFilterListModel *filtered; /* the ports whose name holds the filter's text */
  GtkCustomFilter *filter;
  char *filter_text;            /* casefolded; NULL: every port */
  GtkSortListModel *sorted;
  GtkCustomSorter *trouble_sorter;
  gboolean trouble_first;       /* Errors, then Warnings, before the ports that are fine */
  GtkSliceListModel *recent;
  double window_s;
  gboolean scale_peak;          /* sparklines on their own peak, not their link's rate */
  guint narrow_level;           /* index into narrow_levels */
  guint narrow_idle;
  double refresh_period;        /* s between refreshes; 0: at every update */
  gboolean held;                /* updates wait: not seen, or refreshed recently */
  gboolean held_update;         /* an update came while held */
  guint refresh_timeout;

  GtkStack *state_stack;
  GtkSpinner *waiting_spinner;
  GtkColumnView *ports_view;
  GtkLabel *total_ports;
  GtkLabel *total_ports_caption;
  GtkLabel *total_tx;
  GtkLabel *total_rx;
  GtkLabel *total_pps;
  GtkLabel *total_problems;
  GtkLabel *total_problems_caption;
  GtkWidget *problems_caption;  /* what shows the caption: that label, or an inscription */
  GtkWidget *problems_card;     /* a toggle button: trouble first */
  GtkSearchBar *filter_bar;
  GtkSearchEntry *filter_entry;
  GtkWidget *vanished_banner;
  GtkLabel *vanished_label;
  GtkStack *events_stack;
  GtkListBox *recent_events;
  AdwStatusPage *unavailable_page;
  AdwStatusPage *empty_page;
  GtkWidget *empty_connect;      /* the no-devices page's first button */
  GtkLabel *sources_status;
  RtopHostStrip *host_strip;
};

GtkWidget *rtop_overview_section_new (void);

/* The ports in the order shown (after sorting). */
GListModel *rtop_overview_section_get_model (RtopOverviewSection *self);

/* Which page shows: "waiting", "ports", "empty", "unavailable". */
const char *rtop_overview_section_get_state (RtopOverviewSection *self);

/* Ctrl+F's filter bar: shown with the focus in its entry; text filters
 * the ports by name (NULL or "": all of them). */
void rtop_overview_section_set_filter (RtopOverviewSection *self, const char *text);

/* Whether new values wait (hidden, or within the refresh period). */
gboolean rtop_overview_section_get_held (RtopOverviewSection *self);

/* The ports table's columns, n_columns of them
 * (rtop-overview-section-columns.c). */
const RtopColumnDef *rtop_overview_section_get_port_columns (guint *n_columns);

G_END_DECLS
