/* rtop-port-section.c: one port's page: graphs over a time window, its
 * counters table and the processes using its device. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "rtop-columns.h"
#include "rtop-counter-item.h"
#include "rtop-format.h"
#include "rtop-graph.h"
#include "rtop-port-section-private.h"
#include "rtop-port-text.h"
#include "rtop-process-item.h"
#include "rtop-processes-section.h"

static void rtop_port_section_set_window_minutes (RtopPortSection *self, int minutes);

/* The time window menu; 0 is "All history" (a replayed recording's whole
 * length), which is not a setting. */
static const int window_minutes[] = { 1, 5, 15, 60, 0 };

struct _RtopPortSection {
  RtopSection parent_instance;

  RtopPortItem *port;
  gulong port_updated_id;
  double window_s;
  gboolean all_history;         /* the window is the whole history shown */
  gboolean following;           /* the graphs end at the newest sample */
  gboolean scrolling;           /* the scrollbar is being set by us */
  char *filter_text;

  GtkFilterListModel *counters_filtered;
  GtkSortListModel *counters_sorted;
  GtkCustomFilter *counter_filter;
  GtkFilterListModel *processes_filtered;
  GtkSortListModel *processes_sorted;
  GtkCustomFilter *process_filter;

  GtkWidget *banner;
  GtkLabel *banner_label;
  GtkLabel *title;
  GtkLabel *subtitle;
  GtkDropDown *window_dropdown;
  GtkWidget *compare_button;
  RtopGraph *throughput_graph;
  RtopGraph *packets_graph;
  RtopGraph *rdma_graph;
  RtopGraph *problems_graph;
  GtkWidget *rdma_card;
  GtkWidget *problems_card;
  GtkWidget *graph_grid;
  GtkScrollbar *time_scrollbar;
  GtkWidget *history_bar;
  GtkWidget *latest_button;
  GtkStack *tables_stack;
  GtkLabel *tables_caption;
  GtkSearchEntry *counter_search;
  GtkColumnView *counters_view;
  GtkStack *processes_stack;
  GtkColumnView *processes_view;
};

G_DEFINE_FINAL_TYPE (RtopPortSection, rtop_port_section, RTOP_TYPE_SECTION)

enum { PROP_0, PROP_TIME_WINDOW, N_PROPS };
static GParamSpec *props[N_PROPS];

/* ---- counters table ---------------------------------------------------- */

static const char *
class_label (RtopCounterClass klass)
{
  static const char * const labels[RTOP_COUNTER_CLASS_N] = {
    [RTOP_COUNTER_CLASS_INFO] = N_("Info"),
    [RTOP_COUNTER_CLASS_DATA] = N_("Data"),
    [RTOP_COUNTER_CLASS_DROP] = N_("Drop"),
    [RTOP_COUNTER_CLASS_RETRANSMIT] = N_("Retransmit"),
    [RTOP_COUNTER_CLASS_LINK_ERROR] = N_("Link error"),
    [RTOP_COUNTER_CLASS_TRANSPORT_ERROR] = N_("Transport error"),
    [RTOP_COUNTER_CLASS_OPERATION_ERROR] = N_("Operation error"),
    [RTOP_COUNTER_CLASS_CONGESTION] = N_("Congestion"),
  };

  return klass < RTOP_COUNTER_CLASS_N ? _(labels[klass]) : "?";
}

static const char *
source_label (RtopCounterItem *item)
{
  static const char * const labels[RTOP_COUNTER_SOURCE_N] = {
    [RTOP_COUNTER_SOURCE_NETLINK] = N_("netlink"),
    [RTOP_COUNTER_SOURCE_SYSFS_PORT] = N_("sysfs port"),
    [RTOP_COUNTER_SOURCE_SYSFS_HW] = N_("sysfs hw"),
    [RTOP_COUNTER_SOURCE_SYSFS_DEVICE] = N_("device"),
    [RTOP_COUNTER_SOURCE_NETDEV] = N_("netdev"),
    [RTOP_COUNTER_SOURCE_GPU] = N_("GPU library"),
  };
  RtopCounterSource source = rtop_counter_item_get_source (item);

  return source < RTOP_COUNTER_SOURCE_N ? _(labels[source]) : "?";
}

static const char *
counter_css (gpointer item)
{
  if (!rtop_counter_item_get_present (item))
    return "dim-label";
  return rtop_counter_item_get_rising (item) ? "rising" : NULL;
}

static char *
counter_name_text (gpointer item)
{
  /* A sign as well as the colour, for people who do not see the colour. */
  if (rtop_counter_item_get_rising (item))
    return g_strdup_printf ("▲ %s", rtop_counter_item_get_name (item));
  return g_strdup (rtop_counter_item_get_name (item));
}

static const char *
counter_name_key (gpointer item)
{
  return rtop_counter_item_get_name (item);
}

static char *
counter_value_text (gpointer item)
{
  if (!rtop_counter_item_get_present (item))
    return g_strdup (_("not reported"));
  return rtop_format_count (rtop_counter_item_get_value (item));
}

static double
counter_value_key (gpointer item)
{
  return (double) rtop_counter_item_get_value (item);
}

static char *
counter_delta_text (gpointer item)
{
  return rtop_format_count (rtop_counter_item_get_delta (item));
}

static double
counter_delta_key (gpointer item)
{
  return (double) rtop_counter_item_get_delta (item);
}

static char *
counter_rate_text (gpointer item)
{
  double rate = rtop_counter_item_get_rate (item);

  if (isnan (rate))
    return g_strdup ("—");
  if (rate >= 1000)
    return rtop_format_count ((guint64) round (rate));
  return g_strdup_printf ("%.1f", rate);
}

static double
counter_rate_key (gpointer item)
{
  return rtop_counter_item_get_rate (item);
}

static char *
counter_class_text (gpointer item)
{
  return g_strdup (class_label (rtop_counter_item_get_class (item)));
}

static const char *
counter_class_key (gpointer item)
{
  return class_label (rtop_counter_item_get_class (item));
}

static char *
counter_source_text (gpointer item)
{
  return g_strdup (source_label (item));
}

static const char *
counter_source_key (gpointer item)
{
  return source_label (item);
}

static const RtopColumnDef counter_columns[] = {
  { "name", N_("Counter"), NULL, counter_name_text, NULL, counter_name_key, counter_css, NULL, NULL, FALSE, TRUE, 0 },
  { "value", N_("Value"), NULL, counter_value_text, counter_value_key, NULL, counter_css, NULL, NULL, TRUE, FALSE, 0 },
  { "delta", N_("Delta"), NULL, counter_delta_text, counter_delta_key, NULL, counter_css, NULL, NULL, TRUE, FALSE, 0 },
  { "rate", N_("Rate /s"), NULL, counter_rate_text, counter_rate_key, NULL, counter_css, NULL, NULL, TRUE, FALSE, 0 },
  { "class", N_("Class"), NULL, counter_class_text, NULL, counter_class_key, counter_css, NULL, NULL, FALSE, FALSE, 0 },
  { "source", N_("Source"), NULL, counter_source_text, NULL, counter_source_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
};

static gboolean
counter_filter_func (gpointer item, gpointer user_data)
{
  RtopPortSection *self = user_data;
  g_autofree char *name = NULL;

  if (self->filter_text == NULL || *self->filter_text == '\0')
    return TRUE;
  name = g_utf8_casefold (rtop_counter_item_get_name (item), -1);
  if (strstr (name, self->filter_text))
    return TRUE;
  {
    g_autofree char *klass = g_utf8_casefold (class_label (rtop_counter_item_get_class (item)), -1);
    return strstr (klass, self->filter_text) != NULL;
  }
}

void
rtop_port_section_set_counter_filter (RtopPortSection *self, const char *text)
{
  g_free (self->filter_text);
  self->filter_text = text ? g_utf8_casefold (text, -1) : NULL;
  gtk_filter_changed (GTK_FILTER (self->counter_filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
search_changed_cb (GtkSearchEntry *entry, RtopPortSection *self)
{
  rtop_port_section_set_counter_filter (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* ---- processes of this device ------------------------------------------ */

static gboolean
process_filter_func (gpointer item, gpointer user_data)
{
  RtopPortSection *self = user_data;

  return self->port && rtop_process_item_uses_device (item, rtop_port_item_get_device (self->port));
}

/* ---- header ------------------------------------------------------------ */

/* Without RDMA read/write metrics the problems graph takes the whole row. */
static void
show_rdma_card (RtopPortSection *self, gboolean show)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (self->graph_grid);
  GtkLayoutChild *child = gtk_layout_manager_get_layout_child (layout, self->problems_card);

  gtk_widget_set_visible (self->rdma_card, show);
  gtk_grid_layout_child_set_column (GTK_GRID_LAYOUT_CHILD (child), show ? 1 : 0);
  gtk_grid_layout_child_set_column_span (GTK_GRID_LAYOUT_CHILD (child), show ? 1 : 2);
}

static void
update_header (RtopPortSection *self)
{
  RtopPortItem *p = self->port;
  g_autofree char *title = NULL, *link = NULL;
  GString *sub = g_string_new (NULL);
  const char *error = rtop_port_item_get_error (p);

  title = rtop_port_item_title (p);
  gtk_label_set_label (self->title, title);
  link = rtop_port_item_link_text (p);
  g_string_append_printf (sub, "%s · %s · %s · %s",
                          rtop_port_item_get_provider (p) ? rtop_port_item_get_provider (p) : "?",
                          rtop_protocol_label (rtop_port_item_get_protocol (p)),
                          rtop_port_item_state_label (p), link);
  if (rtop_port_item_get_netdev (p))
    g_string_append_printf (sub, " · %s %s", _("netdev"), rtop_port_item_get_netdev (p));
  if (rtop_port_item_get_remote (p))
    /* Translators: the other end of a GPU link, e.g. "to GPU 0000:1b:00.0" */
    g_string_append_printf (sub, " · %s %s", _("to"), rtop_port_item_get_remote (p));
  if (rtop_port_item_get_gpu_text (p))
    g_string_append_printf (sub, "\n%s", rtop_port_item_get_gpu_text (p));
  if (rtop_port_item_scope_note (p))
    g_string_append_printf (sub, "\n%s", rtop_port_item_scope_note (p));
  if (rtop_port_item_get_fw_version (p))
    g_string_append_printf (sub, " · %s %s", _("firmware"), rtop_port_item_get_fw_version (p));
  if (rtop_port_item_get_node_guid (p))
    g_string_append_printf (sub, " · GUID %s", rtop_port_item_get_node_guid (p));
  if (rtop_port_item_get_channel_source (p, RTOP_PORT_CH_TX_BPS))
    g_string_append_printf (sub, "\n%s %s", _("Throughput from"),
                            rtop_port_item_get_channel_source (p, RTOP_PORT_CH_TX_BPS));
  gtk_label_set_label (self->subtitle, sub->str);
  g_string_free (sub, TRUE);

  show_rdma_card (self, rtop_port_item_has_channel (p, RTOP_PORT_CH_READ_BPS) ||
                       rtop_port_item_has_channel (p, RTOP_PORT_CH_WRITE_BPS));
  if (rtop_port_item_get_vanished (p))
    {
      gtk_label_set_label (self->banner_label,
                           _("This device was removed. The graphs keep its history; the port comes back here if a device with the same name is added again."));
      gtk_widget_set_visible (self->banner, TRUE);
    }
  else if (error)
    {
      g_autofree char *text = g_strdup_printf (_("Reading this port failed: %s"), error);
      gtk_label_set_label (self->banner_label, text);
      gtk_widget_set_visible (self->banner, TRUE);
    }
  else
    gtk_widget_set_visible (self->banner, FALSE);
}

static void
update_tables_caption (RtopPortSection *self)
{
  guint n_counters = g_list_model_get_n_items (G_LIST_MODEL (self->counters_sorted));
  guint n_processes = g_list_model_get_n_items (G_LIST_MODEL (self->processes_sorted));
  g_autofree char *text = NULL;

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->tables_stack), "processes") == 0)
    text = g_strdup_printf (ngettext ("%u process uses %s", "%u processes use %s", n_processes),
                            n_processes, self->port ? rtop_port_item_get_device (self->port) : "");
  else if (self->port && g_list_model_get_n_items (rtop_port_item_get_counters (self->port)) == 0)
    text = g_strdup (_("No raw counters: a recording keeps each port's rates, not its counters."));
  else
    text = g_strdup_printf (ngettext ("%u counter shown", "%u counters shown", n_counters), n_counters);
  gtk_label_set_label (self->tables_caption, text);
  gtk_stack_set_visible_child_name (self->processes_stack, n_processes ? "list" : "none");
}

/* ---- scrolling through history ----------------------------------------- */

static RtopGraph **
all_graphs (RtopPortSection *self, RtopGraph *graphs[4])
{
  graphs[0] = self->throughput_graph;
  graphs[1] = self->packets_graph;
  graphs[2] = self->rdma_graph;
  graphs[3] = self->problems_graph;
  return graphs;
}

static void
set_graphs_view (RtopPortSection *self, double window_s, gint64 end_us)
{
  RtopGraph *graphs[4];

  all_graphs (self, graphs);
  for (guint i = 0; i < 4; i++)
    {
      rtop_graph_set_window (graphs[i], window_s);
      rtop_graph_set_view_end (graphs[i], end_us);
    }
}

static gboolean
replaying (RtopPortSection *self)
{
  RtopSession *session = rtop_section_get_session (RTOP_SECTION (self));

  return session != NULL && rtop_session_get_replay_title (session) != NULL;
}

/* The scrollbar, and Jump to Latest while the graphs are scrolled back. */
static void
show_history_bar (RtopPortSection *self, gboolean scrollbar)
{
  gboolean latest = scrollbar && !self->following;

  gtk_widget_set_visible (GTK_WIDGET (self->time_scrollbar), scrollbar);
  gtk_widget_set_visible (self->latest_button, latest);
  gtk_widget_set_visible (self->history_bar, scrollbar || latest);
}

/* The scrollbar spans the port's whole history in seconds of its series'
 * clock; its page is the time window.  At its end the graphs follow the
 * newest sample, scrolled back they hold still while new samples come.
 * Scrolled back, or replaying a recording, the graphs' right edge is a
 * time of the series (their axes then read clock times, not "now"). */
static void
update_scroll (RtopPortSection *self)
{
  GtkAdjustment *adj = gtk_scrollbar_get_adjustment (self->time_scrollbar);
  RtopSeries *series = self->port ? rtop_port_item_get_series (self->port) : NULL;
  gint64 first = 0, last = 0;
  double lo, hi, span, window, page, value;

  if (series == NULL || !rtop_series_get_time_range (series, &first, &last))
    {
      show_history_bar (self, FALSE);
      set_graphs_view (self, self->all_history ? 60 : self->window_s, 0);
      return;
    }
  lo = first / (double) G_USEC_PER_SEC;
  hi = last / (double) G_USEC_PER_SEC;
  span = hi - lo;
  window = self->all_history ? MAX (span, 1) : self->window_s;
  page = MIN (window, MAX (span, 1e-3));
  value = self->following ? hi - page : CLAMP (gtk_adjustment_get_value (adj), lo, hi - page);
  self->scrolling = TRUE;
  gtk_adjustment_configure (adj, value, lo, hi, page / 10, page / 2, page);
  self->scrolling = FALSE;
  show_history_bar (self, span > window * 1.001);
  set_graphs_view (self, window, self->following ? (replaying (self) ? last : 0)
                                                 : (gint64) ((value + page) * G_USEC_PER_SEC));
}

static void
scrolled_cb (GtkAdjustment *adj, RtopPortSection *self)
{
  double end = gtk_adjustment_get_value (adj) + gtk_adjustment_get_page_size (adj);

  if (self->scrolling)
    return;
  self->following = end >= gtk_adjustment_get_upper (adj) - gtk_adjustment_get_step_increment (adj) / 2;
  update_scroll (self);
}

static void
scroll_by (RtopPortSection *self, double pages)
{
  GtkAdjustment *adj = gtk_scrollbar_get_adjustment (self->time_scrollbar);

  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + pages * gtk_adjustment_get_page_size (adj));
}

static void
scroll_action (GtkWidget *widget, const char *name, GVariant *param)
{
  RtopPortSection *self = RTOP_PORT_SECTION (widget);

  if (g_str_equal (name, "detail.scroll-back"))
    scroll_by (self, -0.5);
  else if (g_str_equal (name, "detail.scroll-forward"))
    scroll_by (self, 0.5);
  else
    {
      self->following = TRUE;
      update_scroll (self);
    }
}

static void
port_updated_cb (RtopPortSection *self)
{
  update_scroll (self);
  update_header (self);
  rtop_column_view_resort (self->counters_view);
  update_tables_caption (self);
}

static void
history_updated_cb (RtopPortSection *self)
{
  gtk_filter_changed (GTK_FILTER (self->process_filter), GTK_FILTER_CHANGE_DIFFERENT);
  rtop_column_view_resort (self->processes_view);
  update_tables_caption (self);
}

static void
set_graph_series (RtopPortSection *self, RtopSeries *series)
{
  RtopGraph *graphs[] = { self->throughput_graph, self->packets_graph, self->rdma_graph,
                          self->problems_graph };

  for (guint i = 0; i < G_N_ELEMENTS (graphs); i++)
    rtop_graph_set_series (graphs[i], series);
}

void
rtop_port_section_set_port (RtopPortSection *self, RtopPortItem *port)
{
  g_return_if_fail (RTOP_IS_PORT_SECTION (self));

  if (self->port == port)
    return;
  if (self->port)
    g_clear_signal_handler (&self->port_updated_id, self->port);
  g_set_object (&self->port, port);
  set_graph_series (self, port ? rtop_port_item_get_series (port) : NULL);
  self->following = TRUE;
  /* Its Processes tab counts the QPs on this port's device. */
  g_object_set_data_full (G_OBJECT (self->processes_view), "rtop-device",
                          port ? g_strdup (rtop_port_item_get_device (port)) : NULL, g_free);
  gtk_filter_list_model_set_model (self->counters_filtered,
                                   port ? rtop_port_item_get_counters (port) : NULL);
  gtk_filter_changed (GTK_FILTER (self->process_filter), GTK_FILTER_CHANGE_DIFFERENT);
  if (port == NULL)
    return;
  /* The target first: the action takes a port key. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->compare_button), "s",
                                    rtop_port_item_get_key (port));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->compare_button), "win.compare-with");
  self->port_updated_id = g_signal_connect_object (port, "updated", G_CALLBACK (port_updated_cb),
                                                   self, G_CONNECT_SWAPPED);
  port_updated_cb (self);
}


static void
rtop_port_section_bind (RtopSection *section, RtopSession *session)
{
  RtopPortSection *self = RTOP_PORT_SECTION (section);

  if (session == NULL)
    {
      gtk_filter_list_model_set_model (self->processes_filtered, NULL);
      return;
    }
  gtk_filter_list_model_set_model (self->processes_filtered,
                                   rtop_history_get_processes (rtop_section_get_history (section)));
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
}

GListModel *
rtop_port_section_get_counters_model (RtopPortSection *self)
{
  return G_LIST_MODEL (self->counters_sorted);
}

static void
rtop_port_section_focus (RtopSection *section)
{
  RtopPortSection *self = RTOP_PORT_SECTION (section);

  /* The page's first control; the counters table is the one shown. */
  gtk_stack_set_visible_child_name (self->tables_stack, "counters");
  gtk_widget_grab_focus (GTK_WIDGET (self->window_dropdown));
}

static char *
rtop_port_section_dump (RtopSection *section)
{
  RtopPortSection *self = RTOP_PORT_SECTION (section);
  GString *out;

  if (self->port == NULL)
    return NULL;
  out = g_string_new (NULL);
  GListModel *model = G_LIST_MODEL (self->counters_sorted);
  guint n = g_list_model_get_n_items (model);

  g_string_append_printf (out, "detail\t%s\n", gtk_label_get_label (self->title));
  {
    GtkAdjustment *adj = gtk_scrollbar_get_adjustment (self->time_scrollbar);
    double behind = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_value (adj) -
                    gtk_adjustment_get_page_size (adj);

    g_autofree char *end = self->following ? g_strdup ("newest") : g_strdup_printf ("-%.0f", behind);

    g_string_append_printf (out, "view\twindow=%.0f\tend=%s\tscrollbar=%s\tlatest=%s\n",
                            rtop_graph_get_window (self->throughput_graph), end,
                            gtk_widget_get_visible (GTK_WIDGET (self->time_scrollbar)) ? "shown" : "hidden",
                            gtk_widget_get_visible (self->latest_button) ? "shown" : "hidden");
  }
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      g_autofree char *row = rtop_column_defs_row_text (counter_columns, G_N_ELEMENTS (counter_columns), item);

      g_string_append_printf (out, "counter\t%s\n", row);
    }
  return g_string_free (out, FALSE);
}

/* ---- time window ------------------------------------------------------- */

static void
rtop_port_section_set_window_minutes (RtopPortSection *self, int minutes)
{
  double seconds = minutes * 60.0;
  gboolean was_all = self->all_history;

  if (minutes < 1 || (self->window_s == seconds && !self->all_history))
    return;
  self->all_history = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (window_minutes); i++)
    if (window_minutes[i] == minutes)
      gtk_drop_down_set_selected (self->window_dropdown, i);
  if (self->window_s == seconds && was_all)
    {
      update_scroll (self);
      return;
    }
  self->window_s = seconds;
  update_scroll (self);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_TIME_WINDOW]);
}

static void
window_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, RtopPortSection *self)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (i >= G_N_ELEMENTS (window_minutes))
    return;
  if (window_minutes[i] == 0)
    {
      self->all_history = TRUE;
      self->following = TRUE;
      update_scroll (self);
    }
  else
    rtop_port_section_set_window_minutes (self, window_minutes[i]);
}

static void
tables_page_cb (RtopPortSection *self)
{
  gboolean counters = g_strcmp0 (gtk_stack_get_visible_child_name (self->tables_stack), "counters") == 0;

  gtk_widget_set_visible (GTK_WIDGET (self->counter_search), counters);
  update_tables_caption (self);
}

/* ---- GObject ------------------------------------------------------------ */

static void
rtop_port_section_dispose (GObject *object)
{
  RtopPortSection *self = RTOP_PORT_SECTION (object);

  /* Destroying the column view re-sorts; nothing of ours may listen then. */
  if (self->counters_sorted)
    g_signal_handlers_disconnect_by_data (self->counters_sorted, self);

  if (self->port)
    g_clear_signal_handler (&self->port_updated_id, self->port);
  g_clear_object (&self->port);
  G_OBJECT_CLASS (rtop_port_section_parent_class)->dispose (object);
}

static void
rtop_port_section_finalize (GObject *object)
{
  RtopPortSection *self = RTOP_PORT_SECTION (object);

  g_clear_object (&self->counters_filtered);
  g_clear_object (&self->counters_sorted);
  g_clear_object (&self->processes_filtered);
  g_clear_object (&self->processes_sorted);
  g_free (self->filter_text);
  G_OBJECT_CLASS (rtop_port_section_parent_class)->finalize (object);
}

static void
rtop_port_section_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopPortSection *self = RTOP_PORT_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      g_value_set_double (value, self->window_s);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_port_section_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopPortSection *self = RTOP_PORT_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      rtop_port_section_set_window_minutes (self, (int) round (g_value_get_double (value) / 60));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_port_section_class_init (RtopPortSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_port_section_dispose;
  RTOP_SECTION_CLASS (klass)->bind = rtop_port_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_port_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_port_section_dump;
  /* A page of its own, reached from a port: no tab. */
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "detail", NULL, NULL);
  object_class->finalize = rtop_port_section_finalize;
  object_class->get_property = rtop_port_section_get_property;
  object_class->set_property = rtop_port_section_set_property;

  props[PROP_TIME_WINDOW] =
    g_param_spec_double ("time-window", NULL, NULL, 60, 3600, 300,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  g_type_ensure (RTOP_TYPE_GRAPH);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-port-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, banner);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, compare_button);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, banner_label);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, title);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, subtitle);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, window_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, throughput_graph);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, packets_graph);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, rdma_graph);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, problems_graph);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, rdma_card);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, problems_card);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, graph_grid);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, time_scrollbar);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, history_bar);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, latest_button);
  gtk_widget_class_install_action (widget_class, "detail.scroll-back", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "detail.scroll-forward", NULL, scroll_action);
  gtk_widget_class_install_action (widget_class, "detail.scroll-newest", NULL, scroll_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Up, GDK_ALT_MASK, "detail.scroll-back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Page_Down, GDK_ALT_MASK, "detail.scroll-forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_End, GDK_ALT_MASK, "detail.scroll-newest", NULL);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, tables_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, tables_caption);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, counter_search);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, counters_view);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, processes_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopPortSection, processes_view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_set_css_name (widget_class, "rtopportdetail");
}

static void
setup_graphs (RtopPortSection *self)
{
  rtop_graph_add_channel (self->throughput_graph, RTOP_PORT_CH_TX_BPS, _("TX"), "rtop_tx_color");
  rtop_graph_add_channel (self->throughput_graph, RTOP_PORT_CH_RX_BPS, _("RX"), "rtop_rx_color");
  rtop_graph_add_channel (self->packets_graph, RTOP_PORT_CH_TX_PPS, _("TX"), "rtop_tx_color");
  rtop_graph_add_channel (self->packets_graph, RTOP_PORT_CH_RX_PPS, _("RX"), "rtop_rx_color");
  rtop_graph_add_channel (self->rdma_graph, RTOP_PORT_CH_READ_BPS, _("Read"), "rtop_read_color");
  rtop_graph_add_channel (self->rdma_graph, RTOP_PORT_CH_WRITE_BPS, _("Write"), "rtop_write_color");
  rtop_graph_add_channel (self->problems_graph, RTOP_PORT_CH_RETRANS, _("Retransmits"), "rtop_retrans_color");
  rtop_graph_add_channel (self->problems_graph, RTOP_PORT_CH_DROPS, _("Drops"), "rtop_drop_color");
  rtop_graph_add_channel (self->problems_graph, RTOP_PORT_CH_ERRORS, _("Errors"), "rtop_error_color");
}

static GtkSortListModel *
sorted_view (GtkColumnView *view, GListModel *model)
{
  GtkSortListModel *sorted = gtk_sort_list_model_new (model, g_object_ref (gtk_column_view_get_sorter (view)));
  GtkSingleSelection *selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (sorted)));

  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_column_view_set_model (view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  return sorted;
}

static void
rtop_port_section_init (RtopPortSection *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  setup_graphs (self);
  self->window_s = 0;
  self->following = TRUE;
  g_signal_connect (gtk_scrollbar_get_adjustment (self->time_scrollbar), "value-changed",
                    G_CALLBACK (scrolled_cb), self);
  rtop_port_section_set_window_minutes (self, 5);
  g_signal_connect (self->window_dropdown, "notify::selected", G_CALLBACK (window_selected_cb), self);
  g_signal_connect_swapped (self->tables_stack, "notify::visible-child", G_CALLBACK (tables_page_cb), self);

  rtop_column_view_add_columns (self->counters_view, counter_columns, G_N_ELEMENTS (counter_columns));
  self->counter_filter = gtk_custom_filter_new (counter_filter_func, self, NULL);
  self->counters_filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->counter_filter));
  self->counters_sorted = sorted_view (self->counters_view,
                                       g_object_ref (G_LIST_MODEL (self->counters_filtered)));

  rtop_processes_section_add_columns (self->processes_view);
  rtop_processes_section_connect_activate (self->processes_view);
  self->process_filter = gtk_custom_filter_new (process_filter_func, self, NULL);
  self->processes_filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->process_filter));
  self->processes_sorted = sorted_view (self->processes_view,
                                        g_object_ref (G_LIST_MODEL (self->processes_filtered)));
  g_signal_connect_swapped (self->counters_sorted, "items-changed", G_CALLBACK (update_tables_caption), self);
}

GtkWidget *
rtop_port_section_new (void)
{
  return g_object_new (RTOP_TYPE_PORT_SECTION, NULL);
}
