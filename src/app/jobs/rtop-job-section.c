/* rtop-job-section.c: one job's page (rtop-job-section.h).
 *
 * The jobs are read from the hosts' newest snapshots (rtop-jobs.h) at most
 * once a second while the page is shown, and not at all while it is not:
 * showing it catches up.  The rows are made again only when the job's
 * processes, or its devices and their ports, change; otherwise only their
 * texts are. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-format.h"
#include "rtop-jobs.h"
#include "rtop-job-section-private.h"
#include "rtop-port-item.h"

/* The jobs are read again at most this often while the page is shown. */
#define JOBS_PERIOD_US G_USEC_PER_SEC

G_DEFINE_FINAL_TYPE (RtopJobSection, rtop_job_section, RTOP_TYPE_SECTION)

/* The lists' columns: a heading each, and how wide and aligned. */
typedef struct {
  const char *title;     /* N_() */
  int width_chars;
  gboolean numeric;
  gboolean expand;
} Column;

enum { P_HOST, P_PID, P_COMMAND, P_USER, P_PART, P_DEVICES, P_QPS, P_MRS, N_P };
static const Column process_columns[N_P] = {
  { N_("Host"), 10, FALSE, FALSE },
  { N_("PID"), 7, TRUE, FALSE },
  { N_("Command"), 16, FALSE, TRUE },
  { N_("User"), 8, FALSE, FALSE },
  /* Translators: a column: the Slurm step, or the pod's container, a process is in */
  { N_("Part"), 10, FALSE, FALSE },
  { N_("Devices"), 10, FALSE, FALSE },
  { N_("QPs"), 5, TRUE, FALSE },
  { N_("MRs"), 5, TRUE, FALSE },
};

enum { D_HOST, D_DEVICE, D_QPS, D_MRS, D_MEMORY, D_PORTS, N_D };
static const Column device_columns[N_D] = {
  { N_("Host"), 10, FALSE, FALSE },
  { N_("Device"), 10, FALSE, FALSE },
  { N_("QPs"), 5, TRUE, FALSE },
  { N_("MRs"), 5, TRUE, FALSE },
  /* Translators: a column: memory registered for RDMA */
  { N_("Registered"), 9, TRUE, FALSE },
  /* Translators: a column: the ports the job's queue pairs use on a device */
  { N_("Ports"), 10, FALSE, TRUE },
};

/* g_set_str() is GLib 2.76; the oldest GLib supported is 2.72. */
static void
set_str (char **where, const char *value)
{
  if (*where == value)
    return;
  g_free (*where);
  *where = g_strdup (value);
}

static const char *
host_text (const char *host)
{
  return host != NULL && host[0] != '\0' ? host : _("This computer");
}

static RtopJobSummary *
current_job (RtopJobSection *self)
{
  return rtop_jobs_find (self->jobs, self->job_key);
}

/* ---- rows ------------------------------------------------------------------- */

static GtkWidget *
make_cell (GPtrArray *groups, const Column *columns, guint i)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), columns[i].numeric ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_label_set_width_chars (GTK_LABEL (label), columns[i].width_chars);
  gtk_label_set_max_width_chars (GTK_LABEL (label), columns[i].expand ? 60 : columns[i].width_chars + 6);
  gtk_widget_set_hexpand (label, columns[i].expand);
  if (columns[i].numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_size_group_add_widget (g_ptr_array_index (groups, i), label);
  return label;
}

/* A row of labels, one a column (the ports column of the devices is a box
 * of buttons instead); "rtop-labels" holds them, NULL for that box. */
static GtkWidget *
make_row (GPtrArray *groups, const Column *columns, guint n, guint box_column)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GPtrArray *labels = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    {
      GtkWidget *cell;

      if (i == box_column)
        {
          cell = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
          gtk_widget_set_hexpand (cell, TRUE);
          g_object_set_data (G_OBJECT (row), "rtop-ports", cell);
          g_ptr_array_add (labels, NULL);
        }
      else
        {
          cell = make_cell (groups, columns, i);
          g_ptr_array_add (labels, cell);
        }
      gtk_box_append (GTK_BOX (box), cell);
    }
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_object_set_data_full (G_OBJECT (row), "rtop-labels", labels, (GDestroyNotify) g_ptr_array_unref);
  return row;
}

/* The lists' first rows: the columns' headings (not focusable). */
static void
add_heading_row (GtkListBox *list, GPtrArray *groups, const Column *columns, guint n)
{
  GtkWidget *row = make_row (groups, columns, n, G_MAXUINT);
  GPtrArray *labels = g_object_get_data (G_OBJECT (row), "rtop-labels");

  for (guint i = 0; i < n; i++)
    {
      gtk_label_set_text (g_ptr_array_index (labels, i), _(columns[i].title));
      gtk_widget_add_css_class (g_ptr_array_index (labels, i), "dim-label");
    }
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_set_focusable (row, FALSE);
  gtk_widget_add_css_class (row, "job-list-heading");
  gtk_list_box_append (list, row);
}

static void
set_cell (GtkWidget *row, guint i, const char *text)
{
  GtkLabel *label = g_ptr_array_index ((GPtrArray *) g_object_get_data (G_OBJECT (row), "rtop-labels"), i);

  if (g_strcmp0 (gtk_label_get_text (label), text) != 0)
    gtk_label_set_text (label, text);
}

static const char *
get_cell (GtkWidget *row, guint i)
{
  return gtk_label_get_text (g_ptr_array_index ((GPtrArray *) g_object_get_data (G_OBJECT (row), "rtop-labels"), i));
}

static void
set_cell_uint (GtkWidget *row, guint i, guint64 value)
{
  char text[24];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  set_cell (row, i, text);
}

static void
set_row_name (GtkWidget *row, const char *name)
{
  const char *old = g_object_get_data (G_OBJECT (row), "rtop-name");

  if (g_strcmp0 (old, name) == 0)
    return;
  g_object_set_data_full (G_OBJECT (row), "rtop-name", g_strdup (name), g_free);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
}

/* Whether the rows are for these keys, in this order. */
static gboolean
same_keys (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (g_strcmp0 (g_ptr_array_index (a, i), g_ptr_array_index (b, i)) != 0)
      return FALSE;
  return TRUE;
}

static void
clear_rows (GtkListBox *list, GPtrArray *rows, GPtrArray *keys)
{
  for (guint i = 0; i < rows->len; i++)
    gtk_list_box_remove (list, g_ptr_array_index (rows, i));
  g_ptr_array_set_size (rows, 0);
  g_ptr_array_set_size (keys, 0);
}

static void
update_processes (RtopJobSection *self, RtopJobSummary *job)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; job != NULL && i < job->processes->len; i++)
    g_ptr_array_add (keys, g_strdup (((RtopJobProcess *) g_ptr_array_index (job->processes, i))->key));
  if (!same_keys (keys, self->process_keys))
    {
      clear_rows (self->process_list, self->process_rows, self->process_keys);
      for (guint i = 0; i < keys->len; i++)
        {
          GtkWidget *row = make_row (self->process_groups, process_columns, N_P, G_MAXUINT);

          gtk_list_box_append (self->process_list, row);
          g_ptr_array_add (self->process_rows, row);
          g_ptr_array_add (self->process_keys, g_strdup (g_ptr_array_index (keys, i)));
        }
    }
  for (guint i = 0; i < self->process_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->process_rows, i);
      RtopJobProcess *p = g_ptr_array_index (job->processes, i);
      g_autofree char *name = NULL;

      set_cell (row, P_HOST, host_text (p->host));
      set_cell_uint (row, P_PID, (guint64) MAX (p->pid, 0));
      set_cell (row, P_COMMAND, p->command != NULL ? p->command : "—");
      set_cell (row, P_USER, p->user != NULL ? p->user : "—");
      set_cell (row, P_PART, p->part != NULL ? p->part : "—");
      set_cell (row, P_DEVICES, p->devices);
      set_cell_uint (row, P_QPS, p->qps);
      set_cell_uint (row, P_MRS, p->mrs);
      /* Translators: a process row's accessible name on a job's page: host,
       * pid, command, user, its part of the job, devices, queue pairs and
       * memory regions */
      name = g_strdup_printf (_("%s, pid %d, %s, user %s, %s, on %s, %u queue pairs, %u memory regions"),
                              host_text (p->host), p->pid, p->comm != NULL ? p->comm : "—",
                              p->user != NULL ? p->user : "—", p->part != NULL ? p->part : "—",
                              p->devices, p->qps, p->mrs);
      set_row_name (row, name);
    }
}

static char *
device_row_key (RtopJobDevice *d)
{
  GString *key = g_string_new (NULL);

  g_string_append_printf (key, "%s\t%s\t", d->host, d->device);
  for (guint i = 0; i < d->ports->len; i++)
    g_string_append_printf (key, "%u,", g_array_index (d->ports, guint32, i));
  return g_string_free (key, FALSE);
}

static void
add_port_buttons (GtkWidget *row, RtopJobDevice *d)
{
  GtkWidget *box = g_object_get_data (G_OBJECT (row), "rtop-ports");

  for (guint i = 0; i < d->ports->len; i++)
    {
      guint32 port = g_array_index (d->ports, guint32, i);
      g_autofree char *key = rtop_port_item_key_for (d->host[0] != '\0' ? d->host : NULL, d->device, port);
      g_autofree char *label = g_strdup_printf ("%s/%u", d->device, port);
      /* Translators: accessible name of a link to a port's page, e.g. "Open port rxe0/1" */
      g_autofree char *tip = g_strdup_printf (_("Open port %s"), key);
      GtkWidget *button = gtk_button_new_with_label (label);

      gtk_widget_add_css_class (button, "flat");
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.show-port");
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", key);
      gtk_widget_set_tooltip_text (button, tip);
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tip, -1);
      gtk_box_append (GTK_BOX (box), button);
    }
  if (d->ports->len == 0)
    {
      /* A device where the job's queue pairs use no port yet. */
      GtkWidget *none = gtk_label_new ("—");

      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (GTK_BOX (box), none);
    }
}

static void
update_devices (RtopJobSection *self, RtopJobSummary *job)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; job != NULL && i < job->devices->len; i++)
    g_ptr_array_add (keys, device_row_key (g_ptr_array_index (job->devices, i)));
  if (!same_keys (keys, self->device_keys))
    {
      clear_rows (self->device_list, self->device_rows, self->device_keys);
      for (guint i = 0; i < keys->len; i++)
        {
          GtkWidget *row = make_row (self->device_groups, device_columns, N_D, D_PORTS);

          add_port_buttons (row, g_ptr_array_index (job->devices, i));
          gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
          gtk_list_box_append (self->device_list, row);
          g_ptr_array_add (self->device_rows, row);
          g_ptr_array_add (self->device_keys, g_strdup (g_ptr_array_index (keys, i)));
        }
    }
  for (guint i = 0; i < self->device_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->device_rows, i);
      RtopJobDevice *d = g_ptr_array_index (job->devices, i);
      g_autofree char *memory = rtop_format_bytes (d->mr_bytes);
      g_autofree char *name = NULL;

      set_cell (row, D_HOST, host_text (d->host));
      set_cell (row, D_DEVICE, d->device);
      set_cell_uint (row, D_QPS, d->qps);
      set_cell_uint (row, D_MRS, d->mrs);
      set_cell (row, D_MEMORY, memory);
      /* Translators: a device row's accessible name on a job's page: host,
       * device, the job's queue pairs, memory regions and registered memory there */
      name = g_strdup_printf (_("%s, %s: %u queue pairs, %u memory regions, %s registered"),
                              host_text (d->host), d->device, d->qps, d->mrs, memory);
      set_row_name (row, name);
    }
}

/* ---- the heading -------------------------------------------------------------- */

static void
update_heading (RtopJobSection *self, RtopJobSummary *job)
{
  g_autofree char *hosts = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *processes = NULL, *qps = NULL, *mrs = NULL, *memory = NULL, *registered = NULL;
  g_autofree char *totals = NULL;
  GString *names;

  gtk_label_set_text (self->title, self->job_title != NULL ? self->job_title : self->job_key != NULL ? self->job_key : "");
  if (job == NULL)
    {
      g_autofree char *markup = NULL;

      gtk_label_set_text (self->subtitle, "");
      gtk_label_set_text (self->totals, "");
      gtk_widget_set_visible (GTK_WIDGET (self->subtitle), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->totals), FALSE);
      g_free (self->gone_text);
      /* Translators: a job's page when the job is gone; %s is the job ("Slurm job 1234") */
      self->gone_text = g_strdup_printf (_("%s has no process on a host in reach now."),
                                         self->job_title != NULL ? self->job_title : self->job_key != NULL ? self->job_key : "");
      markup = g_markup_escape_text (self->gone_text, -1);
      adw_status_page_set_description (self->empty_page, markup);
      gtk_stack_set_visible_child_name (self->stack, "gone");
      return;
    }
  names = g_string_new (NULL);
  for (guint i = 0; i < job->hosts->len; i++)
    {
      if (i > 0)
        g_string_append (names, ", ");
      g_string_append (names, host_text (g_ptr_array_index (job->hosts, i)));
    }
  hosts = g_string_free (names, FALSE);
  /* Translators: a job's page: what kind of job it is and the hosts it
   * runs on, "Slurm job on node1, node2" */
  subtitle = g_strdup_printf (_("%s on %s"), rtop_jobs_kind_name (job->kind), hosts);
  gtk_label_set_text (self->subtitle, subtitle);
  processes = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u process", "%u processes", job->processes->len),
                               job->processes->len);
  qps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u queue pair", "%u queue pairs", job->qps), job->qps);
  mrs = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u memory region", "%u memory regions", job->mrs), job->mrs);
  memory = rtop_format_bytes (job->mr_bytes);
  /* Translators: memory registered for RDMA, "64.0 GiB registered" */
  registered = g_strdup_printf (_("%s registered"), memory);
  totals = g_strjoin (" · ", processes, qps, mrs, registered, NULL);
  gtk_label_set_text (self->totals, totals);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle), TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->totals), TRUE);
  gtk_stack_set_visible_child_name (self->stack, "job");
}

/* ---- reading ------------------------------------------------------------------ */

static void
update (RtopJobSection *self)
{
  RtopJobSummary *job = current_job (self);

  if (job != NULL)
    set_str (&self->job_title, job->title);
  update_heading (self, job);
  update_processes (self, job);
  update_devices (self, job);
}

static void
read_jobs (RtopJobSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));

  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  if (history != NULL && self->job_key != NULL)
    self->jobs = rtop_jobs_collect (history);
  self->jobs_read_us = g_get_monotonic_time ();
}

void
rtop_job_section_refresh (RtopJobSection *self)
{
  g_return_if_fail (RTOP_IS_JOB_SECTION (self));
  read_jobs (self);
  update (self);
  self->stale = FALSE;
}

void
rtop_job_section_set_job (RtopJobSection *self, const char *job_key)
{
  g_return_if_fail (RTOP_IS_JOB_SECTION (self));

  if (g_strcmp0 (self->job_key, job_key) != 0)
    {
      set_str (&self->job_key, job_key);
      g_clear_pointer (&self->job_title, g_free);
    }
  /* The target first: the action takes a string. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->rails_button), "s", job_key != NULL ? job_key : "");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->rails_button), job_key != NULL ? "win.show-job-rails" : NULL);
  gtk_widget_set_sensitive (self->rails_button, job_key != NULL);
  rtop_job_section_refresh (self);
}

const char *
rtop_job_section_get_job (RtopJobSection *self)
{
  g_return_val_if_fail (RTOP_IS_JOB_SECTION (self), NULL);
  return self->job_key;
}

const char *
rtop_job_section_get_title (RtopJobSection *self)
{
  g_return_val_if_fail (RTOP_IS_JOB_SECTION (self), NULL);
  return self->job_title != NULL ? self->job_title : self->job_key;
}

GPtrArray *
rtop_job_section_row_ports (GtkWidget *row)
{
  GPtrArray *out = g_ptr_array_new ();
  GtkWidget *box = g_object_get_data (G_OBJECT (row), "rtop-ports");

  for (GtkWidget *c = box != NULL ? gtk_widget_get_first_child (box) : NULL; c != NULL; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_BUTTON (c))
      g_ptr_array_add (out, c);
  return out;
}

static void
process_activated_cb (RtopJobSection *self, GtkListBoxRow *row)
{
  for (guint i = 0; i < self->process_rows->len; i++)
    if (g_ptr_array_index (self->process_rows, i) == (gpointer) row)
      {
        gtk_widget_activate_action (GTK_WIDGET (self), "win.show-process", "s",
                                    (const char *) g_ptr_array_index (self->process_keys, i));
        return;
      }
}

/* ---- the session ---------------------------------------------------------------- */

static void
history_updated_cb (RtopJobSection *self)
{
  if (self->job_key == NULL)
    return;
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }
  if (g_get_monotonic_time () - self->jobs_read_us >= JOBS_PERIOD_US)
    rtop_job_section_refresh (self);
}

static void
rtop_job_section_bind (RtopSection *section, RtopSession *session)
{
  RtopJobSection *self = RTOP_JOB_SECTION (section);

  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  if (session == NULL)
    {
      clear_rows (self->process_list, self->process_rows, self->process_keys);
      clear_rows (self->device_list, self->device_rows, self->device_keys);
      return;
    }
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
  self->stale = TRUE;
}

static void
rtop_job_section_map (GtkWidget *widget)
{
  RtopJobSection *self = RTOP_JOB_SECTION (widget);

  GTK_WIDGET_CLASS (rtop_job_section_parent_class)->map (widget);
  if (self->stale && rtop_section_get_history (RTOP_SECTION (self)) != NULL)
    rtop_job_section_refresh (self);
}

static void
rtop_job_section_focus (RtopSection *section)
{
  RtopJobSection *self = RTOP_JOB_SECTION (section);

  if (self->process_rows->len > 0)
    gtk_widget_grab_focus (g_ptr_array_index (self->process_rows, 0));
  else
    gtk_widget_grab_focus (self->rails_button);
}

static char *
rtop_job_section_dump (RtopSection *section)
{
  RtopJobSection *self = RTOP_JOB_SECTION (section);
  GString *out;

  if (self->job_key == NULL)
    return NULL;
  out = g_string_new (NULL);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "gone") == 0)
    {
      g_string_append_printf (out, "job: %s; %s; %s\n", gtk_label_get_text (self->title),
                              adw_status_page_get_title (self->empty_page),
                              self->gone_text != NULL ? self->gone_text : "");
      return g_string_free (out, FALSE);
    }
  g_string_append_printf (out, "job: %s; %s; %s\n", gtk_label_get_text (self->title),
                          gtk_label_get_text (self->subtitle), gtk_label_get_text (self->totals));
  for (guint i = 0; i < self->process_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->process_rows, i);

      g_string_append (out, "job process:");
      for (guint c = 0; c < N_P; c++)
        g_string_append_printf (out, "%s%s", c == 0 ? " " : "\t", get_cell (row, c));
      g_string_append_c (out, '\n');
    }
  for (guint i = 0; i < self->device_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->device_rows, i);
      g_autoptr(GPtrArray) ports = rtop_job_section_row_ports (row);

      g_string_append_printf (out, "job device: %s %s qps=%s mrs=%s registered=%s ports=", get_cell (row, D_HOST),
                              get_cell (row, D_DEVICE), get_cell (row, D_QPS), get_cell (row, D_MRS),
                              get_cell (row, D_MEMORY));
      for (guint p = 0; p < ports->len; p++)
        g_string_append_printf (out, "%s%s", p > 0 ? "," : "", gtk_button_get_label (g_ptr_array_index (ports, p)));
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

/* ---- GObject ---------------------------------------------------------------- */

static void
rtop_job_section_dispose (GObject *object)
{
  RtopJobSection *self = RTOP_JOB_SECTION (object);

  if (self->process_rows != NULL)
    {
      clear_rows (self->process_list, self->process_rows, self->process_keys);
      clear_rows (self->device_list, self->device_rows, self->device_keys);
    }
  G_OBJECT_CLASS (rtop_job_section_parent_class)->dispose (object);
}

static void
rtop_job_section_finalize (GObject *object)
{
  RtopJobSection *self = RTOP_JOB_SECTION (object);

  g_clear_pointer (&self->process_groups, g_ptr_array_unref);
  g_clear_pointer (&self->device_groups, g_ptr_array_unref);
  g_clear_pointer (&self->process_rows, g_ptr_array_unref);
  g_clear_pointer (&self->process_keys, g_ptr_array_unref);
  g_clear_pointer (&self->device_rows, g_ptr_array_unref);
  g_clear_pointer (&self->device_keys, g_ptr_array_unref);
  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  g_free (self->job_key);
  g_free (self->job_title);
  g_free (self->gone_text);
  G_OBJECT_CLASS (rtop_job_section_parent_class)->finalize (object);
}

static void
rtop_job_section_class_init (RtopJobSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_job_section_dispose;
  object_class->finalize = rtop_job_section_finalize;
  RTOP_SECTION_CLASS (klass)->bind = rtop_job_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_job_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_job_section_dump;
  /* A page of its own, reached from a process or the rails view: no tab. */
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "job", NULL, NULL);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-job-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, title);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, subtitle);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, totals);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, rails_button);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, stack);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, empty_page);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, process_list);
  gtk_widget_class_bind_template_child (widget_class, RtopJobSection, device_list);
  widget_class->map = rtop_job_section_map;
  gtk_widget_class_set_css_name (widget_class, "rtopjobpage");
}

static GPtrArray *
new_groups (guint n)
{
  GPtrArray *groups = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (groups, gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL));
  return groups;
}

static void
rtop_job_section_init (RtopJobSection *self)
{
  self->process_rows = g_ptr_array_new ();
  self->process_keys = g_ptr_array_new_with_free_func (g_free);
  self->device_rows = g_ptr_array_new ();
  self->device_keys = g_ptr_array_new_with_free_func (g_free);
  self->process_groups = new_groups (N_P);
  self->device_groups = new_groups (N_D);
  gtk_widget_init_template (GTK_WIDGET (self));
  add_heading_row (self->process_list, self->process_groups, process_columns, N_P);
  add_heading_row (self->device_list, self->device_groups, device_columns, N_D);
  g_signal_connect_swapped (self->process_list, "row-activated", G_CALLBACK (process_activated_cb), self);
  gtk_widget_set_sensitive (self->rails_button, FALSE);
  update_heading (self, NULL);
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
}
