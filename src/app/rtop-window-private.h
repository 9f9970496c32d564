/* rtop-window-private.h: what rtop-window.c, rtop-window-actions.c and the tests share. */
#pragma once

#include "rtop-compare-section.h"
#include "rtop-job-section.h"
#include "rtop-overview-section.h"
#include "rtop-port-section.h"
#include "rtop-process-section.h"
#include "rtop-rails-section.h"
#include "rtop-window.h"

G_BEGIN_DECLS

struct _RtopWindow {
  GtkApplicationWindow parent_instance;

  RtopSession *session;
  GSettings *settings;
  RtopRecorder *recorder;       /* the session's, while recording: we show its progress */
  GtkStringList *interval_labels;
  GArray *interval_values;      /* double, same order as interval_labels */
  gboolean syncing_interval;
  gboolean startup_reported;
  int time_window;              /* minutes: 1, 5, 15 or 60 */
  char *sparkline_scale;         /* "link-rate" or "peak" */
  char *message_path;           /* the file the message bar is about */
  AdwToast *toast;              /* the newest toast until it is dismissed (borrowed) */
  char *toast_title;            /* its text, for the state dump */
  gboolean closing;             /* close once the recording is saved */
  GtkWidget *close_question;    /* Save / Discard / Cancel, while it is shown */

  GtkWidget *back_button;
  GtkToggleButton *record_button;
  GtkWidget *refresh_button;
  GtkLabel *record_label;
  GtkLabel *mode_label;
  GtkStack *title_stack;
  GtkLabel *detail_title;
  GtkDropDown *interval_dropdown;
  GtkStack *main_stack;
  AdwToastOverlay *toast_overlay;
  GtkRevealer *message_revealer;
  GtkLabel *message_label;
  GtkWidget *message_repair_button;
  GtkWidget *message_folder_button;
  GtkWidget *message_copy_button;
  GtkWidget *remote_banner;
  GtkLabel *remote_command;
  GtkStack *views_stack;
  RtopOverviewSection *overview;
  RtopRailsSection *rails;
  RtopPortSection *port_detail;      /* NULL until first shown: rtop_window_ensure_*() */
  RtopCompareSection *compare_view;
  RtopProcessSection *process_page;
  RtopJobSection *job_page;
};

RtopSession *rtop_window_get_session (RtopWindow *self);

/* Every section of the window: the tabs in order, then the pages built so
 * far.  Free with g_ptr_array_unref (the sections are not referenced). */
GPtrArray *rtop_window_get_sections (RtopWindow *self);

/* The visible section's page name ("overview", "processes", "events") or
 * "detail" on a port's page. */
const char *rtop_window_get_visible_view (RtopWindow *self);

/* Whether the remote-display banner shows, and the command it offers. */
gboolean rtop_window_get_remote_banner (RtopWindow *self, const char **command);

/* What the window shows now, as text (for tests and the VM scenario). */
char *rtop_window_dump (RtopWindow *self);

/* The section shown: a tab, or the port, process or compare page
 * (rtop-window.c). */
RtopSection *rtop_window_get_visible_section (RtopWindow *self);

/* The header bar for a replay, or for live data (rtop-window-replay.c). */
void rtop_window_update_replay (RtopWindow *self);
/* A recording's length: "45 s", "5 min", "2 h 5 min". */
char *rtop_window_format_duration (double seconds);
/* The port, process, job and compare pages, built on first use
 * (rtop-window-actions.c) by rtop_window_add_page(): a section of type
 * in the main stack, bound to the session and the time window setting. */
GtkWidget *rtop_window_add_page (RtopWindow *self, GType type, GSettingsBindFlags time_flags);
RtopPortSection *rtop_window_ensure_port_detail (RtopWindow *self);
RtopProcessSection *rtop_window_ensure_process_page (RtopWindow *self);
RtopCompareSection *rtop_window_ensure_compare_view (RtopWindow *self);
RtopJobSection *rtop_window_ensure_job_page (RtopWindow *self);

/* Installs the window's actions and their keyboard shortcuts on the class
 * (rtop-window-actions.c). */
void rtop_window_class_actions_init (GtkWidgetClass *widget_class);

G_END_DECLS
