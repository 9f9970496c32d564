/* rtop-processes-section.c: every process holding RDMA resources, searched and
 * sorted. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>
#include <adwaita.h>

#include "rtop-columns.h"
#include "rtop-format.h"
#include "rtop-held-model.h"
#include "rtop-process-item.h"
#include "rtop-processes-section-private.h"

struct _RtopProcessesSection {
  RtopSection parent_instance;

  RtopHeldModel *held;   /* the history's processes, held while the view is not shown */
  gboolean stale;        /* the history changed while the view was not shown */
  GtkFilterListModel *filtered;
  GtkSortListModel *sorted;
  GtkCustomFilter *filter;
  GtkMultiSorter *grouped;   /* by job, then by the view's column */
  char *search_text;   /* casefolded */
  gboolean group_by_job;

  GtkWidget *hidden_banner;
  GtkWidget *withheld_banner;
  GtkLabel *withheld_label;
  GtkSearchEntry *search;
  GtkLabel *count_label;
  AdwStatusPage *none_page;
  GtkStack *stack;
  GtkColumnView *view;
};

G_DEFINE_FINAL_TYPE (RtopProcessesSection, rtop_processes_section, RTOP_TYPE_SECTION)

enum { PROP_0, PROP_GROUP_BY_JOB, N_PROPS };
static GParamSpec *props[N_PROPS];

static char *
pid_text (gpointer item)
{
  if (rtop_process_item_get_kernel (item))
    return g_strdup (_("kernel"));
  /* Unknown: outside our PID namespace, or a host that does not say. */
  if (rtop_process_item_get_pid (item) == 0)
    return g_strdup ("—");
  return g_strdup_printf ("%d", rtop_process_item_get_pid (item));
}

static double
pid_key (gpointer item)
{
  return rtop_process_item_get_pid (item);
}

static char *
user_text (gpointer item)
{
  return g_strdup (rtop_process_item_get_user (item) ? rtop_process_item_get_user (item) : "—");
}

static const char *
user_key (gpointer item)
{
  return rtop_process_item_get_user (item);
}

static char *
job_text (gpointer item)
{
  const char *job = rtop_process_item_get_job_text (item);

  return g_strdup (job != NULL ? job : "—");
}

static const char *
job_key (gpointer item)
{
  return rtop_process_item_get_job_text (item);
}

static char *
command_text (gpointer item)
{
  const char *cmd = rtop_process_item_get_command (item);

  return g_strdup (cmd ? cmd : "—");
}

static const char *
command_key (gpointer item)
{
  return rtop_process_item_get_command (item);
}

static char *
devices_text (gpointer item)
{
  return g_strdup (rtop_process_item_get_devices (item));
}

static const char *
devices_key (gpointer item)
{
  return rtop_process_item_get_devices (item);
}

#define COUNT_COLUMN(name, getter)                                            \
  static char *name##_text (gpointer item) { return g_strdup_printf ("%u", getter (item)); } \
  static double name##_key (gpointer item) { return getter (item); }

COUNT_COLUMN (qps, rtop_process_item_get_qps)
COUNT_COLUMN (contexts, rtop_process_item_get_contexts)
COUNT_COLUMN (mrs, rtop_process_item_get_mrs)

/* A process has at least one thread: 0 is a host that does not say. */
static char *
threads_text (gpointer item)
{
  guint threads = rtop_process_item_get_threads (item);

  return threads > 0 ? g_strdup_printf ("%u", threads) : g_strdup ("—");
}

static double
threads_key (gpointer item)
{
  return rtop_process_item_get_threads (item);
}

static char *
mr_bytes_text (gpointer item)
{
  return rtop_format_bytes (rtop_process_item_get_mr_bytes (item));
}

static double
mr_bytes_key (gpointer item)
{
  return (double) rtop_process_item_get_mr_bytes (item);
}

static char *
rss_text (gpointer item)
{
  if (rtop_process_item_get_rss_bytes (item) == 0)
    return g_strdup ("—");
  return rtop_format_bytes (rtop_process_item_get_rss_bytes (item));
}

static double
rss_key (gpointer item)
{
  return (double) rtop_process_item_get_rss_bytes (item);
}

static char *
host_text (gpointer item)
{
  const char *host = rtop_process_item_get_host (item);

  return g_strdup (host != NULL ? host : _("This computer"));
}

static const char *
host_key (gpointer item)
{
  const char *host = rtop_process_item_get_host (item);

  /* This computer first. */
  return host != NULL ? host : "";
}

/* In a port's Processes tab: the QPs on that port's device (the table
 * carries the device's name as "rtop-device"). */
static char *
qps_here_text (gpointer item, GtkWidget *cell)
{
  GtkWidget *view = cell ? gtk_widget_get_ancestor (cell, GTK_TYPE_COLUMN_VIEW) : NULL;
  const char *device = view ? g_object_get_data (G_OBJECT (view), "rtop-device") : NULL;

  if (device == NULL)
    return qps_text (item);
  return g_strdup_printf ("%u", rtop_process_item_get_qps_on (item, device));
}

static const RtopColumnDef process_columns[] = {
  { "pid", N_("PID"), NULL, pid_text, pid_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "host", N_("Host"), N_("The host the process runs on"), host_text, NULL, host_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "user", N_("User"), NULL, user_text, NULL, user_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "job", N_("Job"), N_("The job the process belongs to, from its cgroup: a Slurm job step, a Kubernetes pod, a container, a service or a login session"),
    job_text, NULL, job_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "command", N_("Command"), NULL, command_text, NULL, command_key, NULL, NULL, NULL, FALSE, TRUE, 0 },
  { "devices", N_("Devices"), NULL, devices_text, NULL, devices_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "qps", N_("QPs"), NULL, qps_text, qps_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0, qps_here_text },
  { "contexts", N_("Contexts"), NULL, contexts_text, contexts_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "mrs", N_("MRs"), NULL, mrs_text, mrs_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "mr_bytes", N_("Registered"), NULL, mr_bytes_text, mr_bytes_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "rss", N_("RSS"), NULL, rss_text, rss_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "threads", N_("Threads"), NULL, threads_text, threads_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
};

void
rtop_processes_section_add_columns (GtkColumnView *view)
{
  rtop_column_view_add_columns (view, process_columns, G_N_ELEMENTS (process_columns));
  /* Shown by the processes view once several hosts feed it; a port's own
   * table is on one host. */
  rtop_column_view_set_column_visible (view, "host", FALSE);
}

/* A process row opens its page. */
static void
activate_cb (GtkColumnView *view, guint position, gpointer user_data)
{
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (view));
  g_autoptr(RtopProcessItem) item = g_list_model_get_item (model, position);

  if (item)
    gtk_widget_activate_action (GTK_WIDGET (view), "win.show-process", "s",
                                rtop_process_item_get_key (item));
}

void
rtop_processes_section_connect_activate (GtkColumnView *view)
{
  g_signal_connect (view, "activate", G_CALLBACK (activate_cb), NULL);
}

static gboolean
contains_folded (const char *haystack, const char *needle)
{
  g_autofree char *folded = NULL;

  if (haystack == NULL)
    return FALSE;
  folded = g_utf8_casefold (haystack, -1);
  return strstr (folded, needle) != NULL;
}

static gboolean
filter_func (gpointer item, gpointer user_data)
{
  RtopProcessesSection *self = user_data;
  char pid[16];

  if (self->search_text == NULL || *self->search_text == '\0')
    return TRUE;
  g_snprintf (pid, sizeof pid, "%d", rtop_process_item_get_pid (item));
  return contains_folded (rtop_process_item_get_command (item), self->search_text) ||
         contains_folded (rtop_process_item_get_comm (item), self->search_text) ||
         contains_folded (rtop_process_item_get_user (item), self->search_text) ||
         contains_folded (rtop_process_item_get_job_text (item), self->search_text) ||
         contains_folded (rtop_process_item_get_devices (item), self->search_text) ||
         contains_folded (rtop_process_item_get_host (item), self->search_text) ||
         g_str_has_prefix (pid, self->search_text);
}

/* Grouped, a job's processes are next to each other: by the job's words,
 * processes without a job last. */
static int
job_compare_cb (gconstpointer a, gconstpointer b, gpointer data)
{
  const char *x = rtop_process_item_get_job_text ((RtopProcessItem *) a);
  const char *y = rtop_process_item_get_job_text ((RtopProcessItem *) b);

  if (x == NULL || y == NULL)
    return (x == NULL) - (y == NULL);
  return CLAMP (rtop_natural_compare (x, y), -1, 1);
}

gboolean
rtop_processes_section_get_group_by_job (RtopProcessesSection *self)
{
  return self->group_by_job;
}

void
rtop_processes_section_set_group_by_job (RtopProcessesSection *self, gboolean group)
{
  group = group != FALSE;
  if (self->group_by_job == group)
    return;
  self->group_by_job = group;
  gtk_sort_list_model_set_sorter (self->sorted, group ? GTK_SORTER (self->grouped)
                                                      : gtk_column_view_get_sorter (self->view));
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_GROUP_BY_JOB]);
}

/* No process, or no device a process could use: the page says which. */
static void
update_none_texts (RtopProcessesSection *self, RtopHistory *history)
{
  gboolean no_devices = history == NULL || !rtop_history_has_devices (history);

  g_autofree char *hint = g_markup_escape_text (no_devices
                                                ? _("No source has an RDMA device, so no process can use one. Processes appear here once a device is added or a host with devices is connected.")
                                                : _("A process appears here as soon as it opens a verbs context on an RDMA device."), -1);

  adw_status_page_set_icon_name (self->none_page, no_devices ? "network-offline-symbolic" : "system-run-symbolic");
  adw_status_page_set_title (self->none_page, no_devices ? _("No RDMA Devices") : _("No Processes Use RDMA"));
  adw_status_page_set_description (self->none_page, hint);
}

static void
update_count (RtopProcessesSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
  guint total = history ? g_list_model_get_n_items (rtop_history_get_processes (history)) : 0;
  g_autofree char *text = NULL;

  if (shown == total)
    text = g_strdup_printf (ngettext ("%u process", "%u processes", total), total);
  else
    /* Translators: "3 of 12 processes" */
    text = g_strdup_printf (ngettext ("%u of %u process", "%u of %u processes", total), shown, total);
  gtk_label_set_label (self->count_label, text);
  gtk_stack_set_visible_child_name (self->stack, total > 0 ? "list" : "none");
  update_none_texts (self, history);
}

void
rtop_processes_section_set_search (RtopProcessesSection *self, const char *text)
{
  g_free (self->search_text);
  self->search_text = text ? g_utf8_casefold (text, -1) : NULL;
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

static void
search_changed_cb (GtkSearchEntry *entry, RtopProcessesSection *self)
{
  rtop_processes_section_set_search (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

/* The hosts not asked for process names and ids, "node1, node2", or NULL. */
static char *
withheld_hosts (RtopHistory *history)
{
  GString *hosts = g_string_new (NULL);

  for (guint i = 0; i < rtop_history_get_n_hosts (history); i++)
    {
      const char *name = rtop_history_get_host_name (history, i);
      RtopSnapshot *latest = rtop_history_get_host_latest (history, name);

      if (latest == NULL || !latest->processes_withheld)
        continue;
      if (hosts->len > 0)
        g_string_append (hosts, ", ");
      g_string_append (hosts, name);
    }
  return g_string_free (hosts, hosts->len == 0);
}

static void
update_banners (RtopProcessesSection *self, RtopHistory *history)
{
  RtopSnapshot *snapshot = rtop_history_get_latest (history);
  g_autofree char *hosts = withheld_hosts (history);

  if (hosts != NULL)
    {
      /* Translators: %s is one host or several ("node1, node2") */
      g_autofree char *text = g_strdup_printf (_("Processes on %s are listed without names or ids: turn on “Process names and ids” for the host in Preferences."), hosts);

      gtk_label_set_label (self->withheld_label, text);
    }
  gtk_widget_set_visible (self->withheld_banner, hosts != NULL);
  gtk_widget_set_visible (self->hidden_banner, hosts == NULL && snapshot && snapshot->pids_hidden);
}

static void
refresh (RtopProcessesSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));

  self->stale = FALSE;
  update_banners (self, history);
  /* Which host a process runs on matters once there is more than one. */
  rtop_column_view_set_column_visible (self->view, "host", rtop_history_get_n_hosts (history) > 1);
  rtop_column_view_resort (self->view);
  update_count (self);
}

/* Not shown, the view only notes that the history changed: its rows, their
 * order and its count wait until it is shown (with eight hosts whose
 * processes come and go, the unseen table's rows being made and destroyed
 * were a quarter of the window's CPU). */
static void
history_updated_cb (RtopProcessesSection *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    refresh (self);
  else
    self->stale = TRUE;
}

static void
rtop_processes_section_bind (RtopSection *section, RtopSession *session)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (section);

  gtk_filter_list_model_set_model (self->filtered, NULL);
  g_clear_object (&self->held);
  if (session == NULL)
    return;
  self->held = rtop_held_model_new (rtop_history_get_processes (rtop_section_get_history (section)));
  rtop_held_model_set_held (self->held, !gtk_widget_get_mapped (GTK_WIDGET (self)));
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (self->held));
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
  history_updated_cb (self);
}

static void
rtop_processes_section_map (GtkWidget *widget)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (widget);

  if (self->held)
    rtop_held_model_set_held (self->held, FALSE);
  rtop_column_view_set_held (self->view, FALSE);
  GTK_WIDGET_CLASS (rtop_processes_section_parent_class)->map (widget);
  if (self->stale)
    refresh (self);
}

static void
rtop_processes_section_unmap (GtkWidget *widget)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (widget);

  if (self->held)
    rtop_held_model_set_held (self->held, TRUE);
  rtop_column_view_set_held (self->view, TRUE);
  GTK_WIDGET_CLASS (rtop_processes_section_parent_class)->unmap (widget);
}

GListModel *
rtop_processes_section_get_model (RtopProcessesSection *self)
{
  return G_LIST_MODEL (self->sorted);
}

static void
rtop_processes_section_focus (RtopSection *section)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (section);

  gtk_widget_grab_focus (GTK_WIDGET (self->search));
}

static char *
rtop_processes_section_dump (RtopSection *section)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (section);
  GString *out = g_string_new (NULL);
  guint n;

  /* What the view would show: a hidden one catches up first. */
  if (self->held)
    rtop_held_model_catch_up (self->held);
  if (self->stale)
    refresh (self);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "none") == 0)
    g_string_append_printf (out, "processes-none\t%s\n", adw_status_page_get_title (self->none_page));
  if (gtk_widget_get_visible (self->withheld_banner))
    g_string_append_printf (out, "processes-withheld\t%s\n", gtk_label_get_label (self->withheld_label));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (self->sorted), i);
      g_autofree char *row = rtop_column_defs_row_text (process_columns, G_N_ELEMENTS (process_columns), item);

      g_string_append_printf (out, "process\t%s\n", row);
    }
  return g_string_free (out, FALSE);
}

static void
rtop_processes_section_dispose (GObject *object)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (object);

  /* Destroying the column view re-sorts; nothing of ours may listen then. */
  if (self->sorted)
    g_signal_handlers_disconnect_by_data (self->sorted, self);
  G_OBJECT_CLASS (rtop_processes_section_parent_class)->dispose (object);
}

static void
rtop_processes_section_finalize (GObject *object)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (object);

  g_clear_object (&self->filtered);
  g_clear_object (&self->held);
  g_clear_object (&self->sorted);
  g_clear_object (&self->grouped);
  g_free (self->search_text);
  G_OBJECT_CLASS (rtop_processes_section_parent_class)->finalize (object);
}

static void
rtop_processes_section_get_property (GObject *object, guint prop_id, GValue *value,
                                     GParamSpec *pspec)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (object);

  switch (prop_id)
    {
    case PROP_GROUP_BY_JOB:
      g_value_set_boolean (value, self->group_by_job);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_processes_section_set_property (GObject *object, guint prop_id, const GValue *value,
                                     GParamSpec *pspec)
{
  RtopProcessesSection *self = RTOP_PROCESSES_SECTION (object);

  switch (prop_id)
    {
    case PROP_GROUP_BY_JOB:
      rtop_processes_section_set_group_by_job (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_processes_section_class_init (RtopProcessesSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = rtop_processes_section_get_property;
  object_class->set_property = rtop_processes_section_set_property;
  object_class->dispose = rtop_processes_section_dispose;
  widget_class->map = rtop_processes_section_map;
  widget_class->unmap = rtop_processes_section_unmap;
  RTOP_SECTION_CLASS (klass)->bind = rtop_processes_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_processes_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_processes_section_dump;
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "processes", N_("_Processes"),
                               "system-run-symbolic");
  object_class->finalize = rtop_processes_section_finalize;

  props[PROP_GROUP_BY_JOB] =
    g_param_spec_boolean ("group-by-job", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
  gtk_widget_class_install_property_action (widget_class, "processes.group-by-job", "group-by-job");

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-processes-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, hidden_banner);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, withheld_banner);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, withheld_label);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, none_page);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, search);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, count_label);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, stack);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessesSection, view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_set_css_name (widget_class, "rtopprocesses");
}

static void
rtop_processes_section_init (RtopProcessesSection *self)
{
  GtkSingleSelection *selection;

  gtk_widget_init_template (GTK_WIDGET (self));
  rtop_processes_section_add_columns (self->view);
  self->filter = gtk_custom_filter_new (filter_func, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          g_object_ref (gtk_column_view_get_sorter (self->view)));
  self->grouped = gtk_multi_sorter_new ();
  gtk_multi_sorter_append (self->grouped,
                           GTK_SORTER (gtk_custom_sorter_new (job_compare_cb, NULL, NULL)));
  gtk_multi_sorter_append (self->grouped, g_object_ref (gtk_column_view_get_sorter (self->view)));
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_column_view_set_model (self->view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  g_signal_connect_swapped (self->sorted, "items-changed", G_CALLBACK (update_count), self);
  rtop_column_view_set_held (self->view, TRUE);
  rtop_processes_section_connect_activate (self->view);
}

GtkWidget *
rtop_processes_section_new (void)
{
  return g_object_new (RTOP_TYPE_PROCESSES_SECTION, NULL);
}
