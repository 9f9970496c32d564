/* rtop-process-section.c: one process's page: what it holds on which device
 * and port, and its queue pairs. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-columns.h"
#include "rtop-format.h"
#include "rtop-jobs.h"
#include "rtop-process-section.h"
#include "rtop-qp-item.h"

struct _RtopProcessSection {
  RtopSection parent_instance;

  RtopProcessItem *process;
  gulong process_updated_id;
  GtkSortListModel *sorted;

  GtkLabel *title;
  GtkLabel *subtitle;
  GtkWidget *job_box;
  GtkWidget *job_link;
  GtkWidget *ports_box;
  GtkWidget *error_banner;
  GtkLabel *error_label;
  GtkColumnView *qps_view;
  GtkLabel *caption;
};

G_DEFINE_FINAL_TYPE (RtopProcessSection, rtop_process_section, RTOP_TYPE_SECTION)

/* ---- the QP table ----------------------------------------------------------- */

static char *
qpn_text (gpointer item)
{
  return g_strdup_printf ("%u", rtop_qp_item_get_qpn (item));
}

static double
qpn_key (gpointer item)
{
  return rtop_qp_item_get_qpn (item);
}

static char *
type_text (gpointer item)
{
  return g_strdup (rtop_qp_item_get_type_name (item));
}

static const char *
type_key (gpointer item)
{
  return rtop_qp_item_get_type_name (item);
}

/* A sign as well as a colour: ⚠ for the error state. */
static char *
qp_state_text (gpointer item)
{
  if (rtop_qp_item_get_in_error (item))
    return g_strdup_printf ("⚠ %s", rtop_qp_item_get_state_name (item));
  return g_strdup (rtop_qp_item_get_state_name (item));
}

static double
qp_state_key (gpointer item)
{
  /* Errors sort first when sorted descending. */
  return rtop_qp_item_get_in_error (item) ? 1 : 0;
}

static const char *
qp_state_css (gpointer item)
{
  return rtop_qp_item_get_in_error (item) ? "state-bad" : NULL;
}

static char *
location_text (gpointer item)
{
  return g_strdup (rtop_qp_item_get_location (item));
}

static const char *
location_key (gpointer item)
{
  return rtop_qp_item_get_location (item);
}

static char *
peer_text (gpointer item)
{
  guint32 qpn;

  if (rtop_qp_item_get_peer_qpn (item, &qpn))
    return g_strdup_printf ("%u", qpn);
  /* Translators: a QP with no peer (UD, not connected) */
  return g_strdup (C_("peer", "—"));
}

static char *
peer_addr_text (gpointer item)
{
  const char *addr = rtop_qp_item_get_peer_addr (item);

  /* Translators: a QP whose peer address the kernel does not report */
  return g_strdup (addr ? addr : C_("peer", "—"));
}

static const char *
peer_addr_key (gpointer item)
{
  return rtop_qp_item_get_peer_addr (item);
}

static const RtopColumnDef qp_columns[] = {
  { "qpn", N_("QP"), N_("Queue pair number"), qpn_text, qpn_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "type", N_("Type"), NULL, type_text, NULL, type_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "state", N_("State"), NULL, qp_state_text, qp_state_key, NULL, qp_state_css, NULL, NULL, FALSE, FALSE, 0 },
  { "port", N_("Port"), N_("Device and port the QP is bound to"), location_text, NULL, location_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "peer", N_("Peer QP"), N_("The remote queue pair, where the kernel reports one"), peer_text, NULL, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "peer-addr", N_("Peer address"), N_("Where rdma_cm connected the queue pair (address and port), where the kernel reports it"), peer_addr_text, NULL, peer_addr_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
};

/* ---- header, ports, error banner --------------------------------------------- */

static void
update_ports (RtopProcessSection *self)
{
  GtkWidget *child = gtk_widget_get_first_child (self->ports_box);
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  GListModel *ports = history ? rtop_history_get_ports (history) : NULL;
  guint n_links = 0;

  /* The first child is the "Ports:" label. */
  child = child ? gtk_widget_get_next_sibling (child) : NULL;
  while (child)
    {
      GtkWidget *next = gtk_widget_get_next_sibling (child);
      gtk_box_remove (GTK_BOX (self->ports_box), child);
      child = next;
    }
  for (guint i = 0; self->process && ports && i < g_list_model_get_n_items (ports); i++)
    {
      g_autoptr(RtopPortItem) port = g_list_model_get_item (ports, i);
      GtkWidget *link;

      if (!rtop_process_item_uses_device (self->process, rtop_port_item_get_device (port)))
        continue;
      link = gtk_button_new_with_label (rtop_port_item_get_key (port));
      gtk_widget_add_css_class (link, "flat");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (link), "win.show-port");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (link), "s", rtop_port_item_get_key (port));
      {
        /* Translators: accessible name of a link to a port's page, e.g. "Open port rxe0/1" */
        g_autofree char *name = g_strdup_printf (_("Open port %s"), rtop_port_item_get_key (port));
        gtk_widget_set_tooltip_text (link, name);
      }
      gtk_box_append (GTK_BOX (self->ports_box), link);
      n_links++;
    }
  gtk_widget_set_visible (self->ports_box, n_links > 0);
}

/* A link to the process's job's page, when it has a job. */
static void
update_job_link (RtopProcessSection *self)
{
  const RtopJob *job = self->process != NULL ? rtop_process_item_get_job (self->process) : NULL;
  g_autofree char *key = job != NULL ? rtop_jobs_key_for (job) : NULL;
  g_autofree char *title = job != NULL ? rtop_jobs_title_for (job->kind, job->id) : NULL;
  g_autofree char *name = NULL;

  gtk_widget_set_visible (self->job_box, key != NULL && title != NULL);
  if (key == NULL || title == NULL)
    return;
  gtk_button_set_label (GTK_BUTTON (self->job_link), title);
  /* The target first: the action takes a string. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->job_link), "s", key);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->job_link), "win.show-job");
  /* Translators: a link to a job's page, e.g. "Open the page of Slurm job 1234" */
  name = g_strdup_printf (_("Open the page of %s"), title);
  gtk_widget_set_tooltip_text (self->job_link, name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->job_link), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

static void
update_header (RtopProcessSection *self)
{
  RtopProcessItem *p = self->process;
  g_autofree char *pid = NULL;
  g_autofree char *memory = NULL;
  g_autofree char *text = NULL;
  guint32 in_error;

  if (p == NULL)
    {
      gtk_label_set_label (self->title, "");
      gtk_label_set_label (self->subtitle, "");
      gtk_widget_set_visible (self->error_banner, FALSE);
      gtk_label_set_label (self->caption, "");
      return;
    }
  gtk_label_set_label (self->title, rtop_process_item_get_command (p) ? rtop_process_item_get_command (p) : "—");
  if (rtop_process_item_get_kernel (p))
    pid = g_strdup (_("kernel"));
  else if (rtop_process_item_get_pid (p) == 0)
    pid = g_strdup (_("pid —"));
  else
    /* Translators: a process's id on its page */
    pid = g_strdup_printf (_("pid %d"), rtop_process_item_get_pid (p));
  memory = rtop_format_bytes (rtop_process_item_get_mr_bytes (p));
  /* Translators: a process page's summary: pid, user, devices, QPs,
   * contexts, memory regions and registered bytes */
  text = g_strdup_printf (_("%s · %s · on %s · %u QPs · %u contexts · %u memory regions, %s registered"),
                          pid, rtop_process_item_get_user (p) ? rtop_process_item_get_user (p) : "—",
                          rtop_process_item_get_devices (p), rtop_process_item_get_qps (p),
                          rtop_process_item_get_contexts (p), rtop_process_item_get_mrs (p), memory);
  if (rtop_process_item_get_job_text (p) != NULL)
    {
      /* The job last: it may be long (a path, a pod UID). */
      char *with_job = g_strdup_printf ("%s · %s", text, rtop_process_item_get_job_text (p));

      g_free (text);
      text = with_job;
    }
  gtk_label_set_label (self->subtitle, text);

  in_error = rtop_process_item_get_qps_in_error (p);
  gtk_widget_set_visible (self->error_banner, in_error > 0);
  if (in_error > 0)
    {
      g_autofree char *count = g_strdup_printf ("%u", in_error);
      /* Translators: %s is a number of queue pairs */
      g_autofree char *msg = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                           "%s queue pair is in the error state: its work requests fail until the process resets or replaces it.",
                                                           "%s queue pairs are in the error state: their work requests fail until the process resets or replaces them.",
                                                           in_error), count);
      gtk_label_set_label (self->error_label, msg);
    }
  if (rtop_process_item_get_qps_not_listed (p) > 0)
    {
      g_autofree char *count = g_strdup_printf ("%u", rtop_process_item_get_qps_not_listed (p));
      /* Translators: %s is a number of queue pairs left out of the table */
      g_autofree char *msg = g_strdup_printf (_("%s more queue pairs are not listed (their counts above include them)."), count);
      gtk_label_set_label (self->caption, msg);
    }
  else
    gtk_label_set_label (self->caption, "");
  gtk_widget_set_visible (GTK_WIDGET (self->caption), rtop_process_item_get_qps_not_listed (p) > 0);
}

static void
process_updated_cb (RtopProcessSection *self)
{
  update_header (self);
  update_job_link (self);
  update_ports (self);
  rtop_column_view_resort (self->qps_view);
}

void
rtop_process_section_set_process (RtopProcessSection *self, RtopProcessItem *process)
{
  GtkSortListModel *sorted = self->sorted;

  g_return_if_fail (RTOP_IS_PROCESS_SECTION (self));

  if (self->process == process)
    return;
  if (self->process)
    g_clear_signal_handler (&self->process_updated_id, self->process);
  g_set_object (&self->process, process);
  gtk_sort_list_model_set_model (sorted, process ? rtop_process_item_get_qp_list (process) : NULL);
  if (process)
    self->process_updated_id = g_signal_connect_object (process, "updated",
                                                        G_CALLBACK (process_updated_cb), self,
                                                        G_CONNECT_SWAPPED);
  process_updated_cb (self);
}


/* ---- section ------------------------------------------------------------ */

static void
rtop_process_section_focus (RtopSection *section)
{
  gtk_widget_grab_focus (GTK_WIDGET (RTOP_PROCESS_SECTION (section)->qps_view));
}

static char *
rtop_process_section_dump (RtopSection *section)
{
  RtopProcessSection *self = RTOP_PROCESS_SECTION (section);
  GListModel *model = G_LIST_MODEL (self->sorted);
  GString *out;

  if (self->process == NULL)
    return NULL;
  out = g_string_new (NULL);
  g_string_append_printf (out, "process-page\t%s\t%s\n", gtk_label_get_label (self->title),
                          gtk_label_get_label (self->subtitle));
  if (gtk_widget_get_visible (self->error_banner))
    g_string_append_printf (out, "process-error\t%s\n", gtk_label_get_label (self->error_label));
  if (gtk_widget_get_visible (self->job_box))
    g_string_append_printf (out, "process-job\t%s\n", gtk_button_get_label (GTK_BUTTON (self->job_link)));
  for (GtkWidget *c = gtk_widget_get_first_child (self->ports_box); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_BUTTON (c))
      g_string_append_printf (out, "process-port\t%s\n", gtk_button_get_label (GTK_BUTTON (c)));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);
      g_autofree char *row = rtop_column_defs_row_text (qp_columns, G_N_ELEMENTS (qp_columns), item);

      g_string_append_printf (out, "qp\t%s\n", row);
    }
  return g_string_free (out, FALSE);
}

static void
rtop_process_section_dispose (GObject *object)
{
  RtopProcessSection *self = RTOP_PROCESS_SECTION (object);

  if (self->process)
    g_clear_signal_handler (&self->process_updated_id, self->process);
  g_clear_object (&self->process);
  G_OBJECT_CLASS (rtop_process_section_parent_class)->dispose (object);
}

static void
rtop_process_section_finalize (GObject *object)
{
  g_clear_object (&RTOP_PROCESS_SECTION (object)->sorted);
  G_OBJECT_CLASS (rtop_process_section_parent_class)->finalize (object);
}

static void
rtop_process_section_class_init (RtopProcessSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_process_section_dispose;
  object_class->finalize = rtop_process_section_finalize;
  RTOP_SECTION_CLASS (klass)->focus = rtop_process_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_process_section_dump;
  /* A page of its own, reached from a process: no tab. */
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "process", NULL, NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-process-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, title);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, subtitle);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, job_box);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, job_link);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, ports_box);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, error_banner);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, error_label);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, qps_view);
  gtk_widget_class_bind_template_child (widget_class, RtopProcessSection, caption);
  gtk_widget_class_set_css_name (widget_class, "rtopprocesspage");
}

static void
rtop_process_section_init (RtopProcessSection *self)
{
  GtkNoSelection *selection;

  gtk_widget_init_template (GTK_WIDGET (self));
  rtop_column_view_add_columns (self->qps_view, qp_columns, G_N_ELEMENTS (qp_columns));
  self->sorted = gtk_sort_list_model_new (NULL, g_object_ref (gtk_column_view_get_sorter (self->qps_view)));
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_column_view_set_model (self->qps_view, GTK_SELECTION_MODEL (selection));
  g_object_unref (selection);
  gtk_widget_set_visible (GTK_WIDGET (self->caption), FALSE);
}
