/* rtop-rails-section.c: rails side by side (rtop-rails-section.h).
 *
 * The rows are made again only when the set of ports shown changes (a port
 * comes or goes, the job narrowed to changes its ports); each row's strip
 * redraws itself when its port's series changes, and each pass only the
 * rows' value texts are updated.  Nothing is done while the view is not
 * shown: showing it catches up. */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-event-item.h"
#include "rtop-format.h"
#include "rtop-heat-value.h"
#include "rtop-jobs.h"
#include "rtop-rails-section-private.h"

/* The jobs are read again at most this often while the view is shown. */
#define JOBS_PERIOD_US G_USEC_PER_SEC
/* Passes that come within this long of the first are drawn in one frame:
 * eight hosts sampling at 1 s, each at its own moment, make one frame a
 * second, not eight. */
#define FLUSH_DELAY_MS 1000


G_DEFINE_FINAL_TYPE (RtopRailsSection, rtop_rails_section, RTOP_TYPE_SECTION)

enum { PROP_0, PROP_TIME_WINDOW, N_PROPS };
static GParamSpec *props[N_PROPS];

static void rebuild (RtopRailsSection *self);

/* g_set_str() is GLib 2.76; the oldest GLib supported is 2.72. */
static void
set_str (char **where, const char *value)
{
  if (*where == value)
    return;
  g_free (*where);
  *where = g_strdup (value);
}
static void update_values (RtopRailsSection *self);

/* ---- jobs ------------------------------------------------------------------- */

static void
sync_job_dropdown (RtopRailsSection *self)
{
  guint selected = 0;

  for (guint i = 0; self->job_key != NULL && i < self->job_keys->len; i++)
    if (g_strcmp0 (g_ptr_array_index (self->job_keys, i), self->job_key) == 0)
      selected = i + 1;
  self->syncing++;
  gtk_drop_down_set_selected (self->job_dropdown, selected);
  self->syncing--;
  gtk_widget_set_sensitive (self->job_page_button, self->job_key != NULL);
}

static void
job_page_clicked_cb (RtopRailsSection *self)
{
  if (self->job_key != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.show-job", "s", self->job_key);
}

/* The jobs' list in the dropdown, when its keys changed; the job narrowed to
 * stays in it while it is gone (its ports are then none). */
static void
update_job_list (RtopRailsSection *self)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  gboolean same;
  RtopJobSummary *chosen = rtop_jobs_find (self->jobs, self->job_key);

  for (guint i = 0; self->jobs != NULL && i < self->jobs->len; i++)
    {
      RtopJobSummary *job = g_ptr_array_index (self->jobs, i);

      g_ptr_array_add (keys, g_strdup (job->key));
      g_ptr_array_add (titles, g_strdup (job->title));
    }
  if (chosen != NULL)
    set_str (&self->job_title, chosen->title);
  else if (self->job_key != NULL)
    {
      g_ptr_array_add (keys, g_strdup (self->job_key));
      g_ptr_array_add (titles, g_strdup (self->job_title != NULL ? self->job_title : self->job_key));
    }
  same = keys->len == self->job_keys->len;
  for (guint i = 0; same && i < keys->len; i++)
    same = g_strcmp0 (g_ptr_array_index (keys, i), g_ptr_array_index (self->job_keys, i)) == 0;
  if (same)
    {
      sync_job_dropdown (self);
      return;
    }
  g_ptr_array_add (titles, NULL);
  self->syncing++;
  gtk_string_list_splice (self->job_names, 1, g_list_model_get_n_items (G_LIST_MODEL (self->job_names)) - 1,
                          (const char * const *) titles->pdata);
  self->syncing--;
  g_ptr_array_set_size (self->job_keys, 0);
  for (guint i = 0; i < keys->len; i++)
    g_ptr_array_add (self->job_keys, g_strdup (g_ptr_array_index (keys, i)));
  sync_job_dropdown (self);
}

static void
read_jobs (RtopRailsSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));

  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  if (history != NULL)
    self->jobs = rtop_jobs_collect (history);
  self->jobs_read_us = g_get_monotonic_time ();
  update_job_list (self);
}

void
rtop_rails_section_refresh_jobs (RtopRailsSection *self)
{
  g_return_if_fail (RTOP_IS_RAILS_SECTION (self));
  read_jobs (self);
  rebuild (self);
  update_values (self);
}

void
rtop_rails_section_set_job (RtopRailsSection *self, const char *job_key)
{
  g_return_if_fail (RTOP_IS_RAILS_SECTION (self));

  if (g_strcmp0 (self->job_key, job_key) == 0)
    return;
  set_str (&self->job_key, job_key);
  g_clear_pointer (&self->job_title, g_free);
  read_jobs (self);
  rebuild (self);
  update_values (self);
}

const char *
rtop_rails_section_get_job (RtopRailsSection *self)
{
  g_return_val_if_fail (RTOP_IS_RAILS_SECTION (self), NULL);
  return self->job_key;
}

static void
job_selected_cb (RtopRailsSection *self)
{
  guint selected = gtk_drop_down_get_selected (self->job_dropdown);

  if (self->syncing)
    return;
  rtop_rails_section_set_job (self, selected >= 1 && selected - 1 < self->job_keys->len
                                    ? g_ptr_array_index (self->job_keys, selected - 1) : NULL);
}

/* ---- rows ------------------------------------------------------------------- */

typedef struct {
  RtopPortItem *port;
  guint host_index;
} Ordered;

static int
compare_ordered (gconstpointer a, gconstpointer b)
{
  const Ordered *x = a, *y = b;
  int c;

  if (x->host_index != y->host_index)
    return x->host_index < y->host_index ? -1 : 1;
  if ((c = rtop_natural_compare (rtop_port_item_get_device (x->port), rtop_port_item_get_device (y->port))) != 0)
    return c;
  return rtop_port_item_get_port (x->port) < rtop_port_item_get_port (y->port) ? -1
       : rtop_port_item_get_port (x->port) > rtop_port_item_get_port (y->port);
}

/* The ports to show, in order: the RDMA ports that are there (not a GPU's
 * links, not vanished ones), of the job narrowed to. */
static GArray *
wanted_ports (RtopRailsSection *self, guint *n_hosts)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Ordered));
  RtopJobSummary *job = NULL;
  GListModel *ports;
  guint hosts, n;
  g_autoptr(GHashTable) seen_hosts = g_hash_table_new (g_direct_hash, g_direct_equal);

  *n_hosts = 0;
  if (history == NULL)
    return out;
  if (self->job_key != NULL && (job = rtop_jobs_find (self->jobs, self->job_key)) == NULL)
    return out;
  ports = rtop_history_get_ports (history);
  hosts = rtop_history_get_n_hosts (history);
  n = g_list_model_get_n_items (ports);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) port = g_list_model_get_item (ports, i);
      Ordered o = { port, hosts };

      if (rtop_port_item_get_is_gpu (port) || rtop_port_item_get_vanished (port))
        continue;
      if (job != NULL && !rtop_job_summary_uses_port (job, rtop_port_item_get_key (port)))
        continue;
      for (guint h = 0; h < hosts; h++)
        if (g_strcmp0 (rtop_history_get_host_name (history, h), rtop_port_item_get_host (port)) == 0)
          {
            o.host_index = h;
            break;
          }
      g_hash_table_add (seen_hosts, GUINT_TO_POINTER (o.host_index + 1));
      g_array_append_val (out, o);
    }
  g_array_sort (out, compare_ordered);
  *n_hosts = g_hash_table_size (seen_hosts);
  return out;
}

static void
row_activated_cb (RtopRailsSection *self, GtkListBoxRow *row)
{
  RtopHeatStrip *strip = rtop_rails_section_row_strip (GTK_WIDGET (row));
  RtopPortItem *port = strip != NULL ? rtop_heat_strip_get_port (strip) : NULL;

  if (port != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.show-port", "s", rtop_port_item_get_key (port));
}

static GtkWidget *
make_label (GtkSizeGroup *group, float xalign)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_size_group_add_widget (group, label);
  return label;
}

static GtkWidget *
make_row (RtopRailsSection *self, RtopPortItem *port, gboolean first_of_host)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *host = make_label (self->host_group, 0);
  GtkWidget *name = make_label (self->port_group, 0);
  GtkWidget *strip = rtop_heat_strip_new ();
  /* As wide as the widest value: "100.0 %", "999 k/s", "Down". */
  GtkWidget *value = rtop_heat_value_new ("100.0 % ");
  const char *host_name = rtop_port_item_get_host (port);
  g_autofree char *port_text = g_strdup_printf ("%s/%u", rtop_port_item_get_device (port),
                                                rtop_port_item_get_port (port));

  gtk_label_set_width_chars (GTK_LABEL (host), 10);
  gtk_label_set_max_width_chars (GTK_LABEL (host), 16);
  gtk_label_set_width_chars (GTK_LABEL (name), 10);
  if (first_of_host)
    gtk_label_set_text (GTK_LABEL (host), host_name != NULL ? host_name : _("This computer"));
  gtk_label_set_text (GTK_LABEL (name), port_text);
  gtk_widget_add_css_class (host, "rails-host");
  gtk_size_group_add_widget (self->value_group, value);
  gtk_widget_add_css_class (value, "numeric");
  gtk_widget_set_hexpand (strip, TRUE);
  rtop_heat_strip_set_deferred (RTOP_HEAT_STRIP (strip), TRUE);
  rtop_heat_strip_set_port (RTOP_HEAT_STRIP (strip), port);
  rtop_heat_strip_set_metric (RTOP_HEAT_STRIP (strip), self->metric);
  rtop_heat_strip_set_span (RTOP_HEAT_STRIP (strip), self->span_s);
  gtk_box_append (GTK_BOX (box), host);
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), strip);
  gtk_box_append (GTK_BOX (box), value);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  if (first_of_host)
    gtk_widget_add_css_class (row, "first-of-host");
  g_object_set_data (G_OBJECT (row), "rtop-strip", strip);
  g_object_set_data (G_OBJECT (row), "rtop-value", value);
  g_object_set_data (G_OBJECT (row), "rtop-port-label", name);
  return row;
}

static void
update_count (RtopRailsSection *self)
{
  guint n = self->rows->len;
  /* Translators: how many hosts the rails view shows, ending "64 ports on 8 hosts" */
  g_autofree char *hosts = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u host", "%u hosts",
                                                         self->n_hosts_shown), self->n_hosts_shown);
  g_autofree char *text = NULL;

  if (self->job_key != NULL)
    /* Translators: "12 ports of Slurm job 1234 on 3 hosts" */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u port of %s on %s", "%u ports of %s on %s", n),
                            n, self->job_title != NULL ? self->job_title : self->job_key, hosts);
  else
    /* Translators: "64 ports on 8 hosts" */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u port on %s", "%u ports on %s", n), n, hosts);
  gtk_label_set_text (self->count_label, text);
}

static void
update_empty (RtopRailsSection *self)
{
  if (self->rows->len > 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "rails");
      return;
    }
  if (self->job_key != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("%s has no queue pairs on a port of a host in reach now."),
                                               self->job_title != NULL ? self->job_title : self->job_key);
      g_autofree char *markup = g_markup_escape_text (text, -1);

      adw_status_page_set_title (self->empty_page, _("No Ports in Use"));
      adw_status_page_set_description (self->empty_page, markup);
    }
  else
    {
      g_autofree char *markup = g_markup_escape_text (_("Ports of RDMA devices on this computer and on the hosts you connect to appear here, one row each."), -1);

      adw_status_page_set_title (self->empty_page, _("No Ports"));
      adw_status_page_set_description (self->empty_page, markup);
    }
  gtk_stack_set_visible_child_name (self->stack, "none");
}

/* Makes the rows again when the ports to show changed. */
static void
rebuild (RtopRailsSection *self)
{
  g_autoptr(GArray) wanted = NULL;
  gboolean same;
  guint n_hosts;
  const char *last_host = NULL;

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }
  wanted = wanted_ports (self, &n_hosts);
  self->n_hosts_shown = n_hosts;
  same = wanted->len == self->row_ports->len;
  for (guint i = 0; same && i < wanted->len; i++)
    same = g_array_index (wanted, Ordered, i).port == g_ptr_array_index (self->row_ports, i);
  if (!same)
    {
      for (guint i = 0; i < self->rows->len; i++)
        gtk_list_box_remove (self->list, g_ptr_array_index (self->rows, i));
      g_ptr_array_set_size (self->rows, 0);
      g_ptr_array_set_size (self->row_ports, 0);
      for (guint i = 0; i < wanted->len; i++)
        {
          RtopPortItem *port = g_array_index (wanted, Ordered, i).port;
          const char *host = rtop_port_item_get_host (port);
          GtkWidget *row = make_row (self, port, i == 0 || g_strcmp0 (host, last_host) != 0);

          last_host = host;
          gtk_list_box_append (self->list, row);
          g_ptr_array_add (self->rows, row);
          g_ptr_array_add (self->row_ports, g_object_ref (port));
        }
    }
  update_count (self);
  update_empty (self);
}

/* The newest value of the metric on a port, and its text. */
static char *
value_text (RtopRailsSection *self, RtopPortItem *port, char **full)
{
  double value;
  double link = rtop_port_item_get_link_gbps (port);

  *full = NULL;
  if (rtop_port_item_get_state (port) != 0 && !rtop_port_item_get_link_up (port))
    {
      *full = g_strdup (_("link down"));
      /* Translators: a rail whose port is down, in the rails view */
      return g_strdup (_("Down"));
    }
  switch (self->metric)
    {
    case RTOP_HEAT_RETRANSMITS:
      value = rtop_port_item_get_rate (port, RTOP_PORT_CH_RETRANS);
      break;
    case RTOP_HEAT_CONGESTION:
      value = rtop_port_item_get_rate (port, RTOP_PORT_CH_CONGESTION);
      break;
    case RTOP_HEAT_DROPS:
      value = rtop_port_item_get_rate (port, RTOP_PORT_CH_DROPS);
      break;
    case RTOP_HEAT_THROUGHPUT:
    case RTOP_HEAT_N:
    default:
      {
        double tx = rtop_port_item_get_rate (port, RTOP_PORT_CH_TX_BPS);
        double rx = rtop_port_item_get_rate (port, RTOP_PORT_CH_RX_BPS);

        value = isnan (tx) ? rx : isnan (rx) ? tx : MAX (tx, rx);
        *full = rtop_heat_format (self->metric, value, link);
        if (!isnan (value) && link > 0)
          return rtop_format_percent (value / (link * 1e9));
        return rtop_format_rate (value, RTOP_UNIT_BITS_PER_S);
      }
    }
  *full = rtop_heat_format (self->metric, value, link);
  return rtop_format_rate (value, RTOP_UNIT_EVENTS_PER_S);
}

static const char *
metric_name (RtopHeatMetric metric)
{
  switch (metric)
    {
    case RTOP_HEAT_RETRANSMITS: return _("retransmits");
    case RTOP_HEAT_CONGESTION: return _("congestion notifications");
    case RTOP_HEAT_DROPS: return _("drops");
    case RTOP_HEAT_THROUGHPUT:
    case RTOP_HEAT_N:
    default:
      return _("throughput");
    }
}

/* ---- rail imbalance episodes --------------------------------------------- */

static char *
mark_key (const char *host, const char *device, guint port)
{
  return g_strdup_printf ("%s\t%s\t%u", host != NULL ? host : "", device, port);
}

/* Each rail's imbalance episodes in the event log, as marks, read again
 * only when the log changed. */
static void
read_marks (RtopRailsSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  GListModel *events;

  if (!self->marks_stale || history == NULL)
    return;
  self->marks_stale = FALSE;
  g_hash_table_remove_all (self->marks);
  events = rtop_history_get_events (history);
  /* Newest first in the log: oldest first here. */
  for (guint i = g_list_model_get_n_items (events); i-- > 0;)
    {
      g_autoptr(RtopEventItem) item = g_list_model_get_item (events, i);
      const RtopEvent *ev = rtop_event_item_get_event (item);
      g_autofree char *key = NULL;
      RtopHeatMark mark;
      GArray *list;

      if (ev->kind != RTOP_EVENT_RAIL_IMBALANCE || ev->device == NULL || ev->episode == 0)
        continue;
      key = mark_key (rtop_event_item_get_host (item), ev->device, ev->port);
      list = g_hash_table_lookup (self->marks, key);
      if (list == NULL)
        {
          list = g_array_new (FALSE, FALSE, sizeof (RtopHeatMark));
          g_hash_table_insert (self->marks, g_steal_pointer (&key), list);
        }
      /* The log keeps the episode's first event's times (when it was
       * raised) and its newest duration: it began started_us on the
       * source's clock, before it was raised. */
      mark.start_us = ev->realtime_us;
      if (ev->started_us > 0 && ev->started_us <= ev->monotonic_us)
        mark.start_us -= ev->monotonic_us - ev->started_us;
      mark.end_us = ev->ongoing ? 0 : mark.start_us + MAX (ev->duration_us, 0);
      g_array_append_val (list, mark);
    }
}

static void
events_changed_cb (RtopRailsSection *self)
{
  self->marks_stale = TRUE;
}

/* The port's marks; whether one still lasts. */
static gboolean
apply_marks (RtopRailsSection *self, GtkWidget *row, RtopPortItem *port)
{
  g_autofree char *key = mark_key (rtop_port_item_get_host (port), rtop_port_item_get_device (port),
                                   rtop_port_item_get_port (port));
  GArray *list = g_hash_table_lookup (self->marks, key);
  RtopHeatStrip *strip = rtop_rails_section_row_strip (row);

  if (list == NULL)
    {
      rtop_heat_strip_set_marks (strip, NULL, 0);
      return FALSE;
    }
  rtop_heat_strip_set_marks (strip, (const RtopHeatMark *) (gpointer) list->data, list->len);
  return g_array_index (list, RtopHeatMark, list->len - 1).end_us == 0;
}

static void
update_values (RtopRailsSection *self)
{
  read_marks (self);
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);
      RtopPortItem *port = g_ptr_array_index (self->row_ports, i);
      RtopHeatValue *value = g_object_get_data (G_OBJECT (row), "rtop-value");
      GtkLabel *name_label = g_object_get_data (G_OBJECT (row), "rtop-port-label");
      gboolean imbalanced = apply_marks (self, row, port);
      g_autofree char *full = NULL;
      g_autofree char *text = value_text (self, port, &full);
      g_autofree char *port_text = g_strdup_printf ("%s%s/%u", imbalanced ? RTOP_SIGN_WARNING " " : "",
                                                    rtop_port_item_get_device (port),
                                                    rtop_port_item_get_port (port));

      if (g_strcmp0 (rtop_heat_value_get_text (value), text) != 0
          || g_strcmp0 (gtk_label_get_text (name_label), port_text) != 0)
        {
          const char *host = rtop_port_item_get_host (port);
          g_autofree char *name = NULL;

          if (imbalanced)
            /* Translators: a rails row's accessible name: host, port, what
             * is shown ("throughput") and its newest value, while the rail
             * carries far less than its peers */
            name = g_strdup_printf (_("%s, %s/%u, %s %s, rail imbalance"), host != NULL ? host : _("This computer"),
                                    rtop_port_item_get_device (port), rtop_port_item_get_port (port),
                                    metric_name (self->metric), full != NULL ? full : text);
          else
            /* Translators: a rails row's accessible name: host, port,
             * what is shown ("throughput") and its newest value */
            name = g_strdup_printf (_("%s, %s/%u, %s %s"), host != NULL ? host : _("This computer"),
                                    rtop_port_item_get_device (port), rtop_port_item_get_port (port),
                                    metric_name (self->metric), full != NULL ? full : text);
          rtop_heat_value_set_text (value, text);
          gtk_label_set_text (name_label, port_text);
          gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        }
    }
}

static void
update_legend (RtopRailsSection *self)
{
  gboolean counter = self->metric != RTOP_HEAT_THROUGHPUT;

  if (counter)
    {
      g_autofree char *top = rtop_format_rate (RTOP_HEAT_COUNTER_TOP, RTOP_UNIT_EVENTS_PER_S);

      gtk_label_set_text (self->legend_low, "0");
      gtk_label_set_text (self->legend_high, top);
      gtk_widget_add_css_class (self->legend_bar, "warn");
    }
  else
    {
      /* Translators: the low end of the rails view's colour scale */
      gtk_label_set_text (self->legend_low, _("idle"));
      /* Translators: the high end of the rails view's colour scale */
      gtk_label_set_text (self->legend_high, _("link rate"));
      gtk_widget_remove_css_class (self->legend_bar, "warn");
    }
}

void
rtop_rails_section_set_metric (RtopRailsSection *self, RtopHeatMetric metric)
{
  g_return_if_fail (RTOP_IS_RAILS_SECTION (self));
  g_return_if_fail (metric < RTOP_HEAT_N);

  if (gtk_drop_down_get_selected (self->metric_dropdown) != (guint) metric)
    {
      gtk_drop_down_set_selected (self->metric_dropdown, metric);
      return;   /* back here through the dropdown */
    }
  self->metric = metric;
  for (guint i = 0; i < self->rows->len; i++)
    rtop_heat_strip_set_metric (rtop_rails_section_row_strip (g_ptr_array_index (self->rows, i)), metric);
  update_legend (self);
  /* Every row's text is new. */
  for (guint i = 0; i < self->rows->len; i++)
    rtop_heat_value_set_text (g_object_get_data (G_OBJECT (g_ptr_array_index (self->rows, i)), "rtop-value"), "");
  update_values (self);
}

static void
metric_selected_cb (RtopRailsSection *self)
{
  guint selected = gtk_drop_down_get_selected (self->metric_dropdown);

  if (selected < RTOP_HEAT_N)
    rtop_rails_section_set_metric (self, selected);
}

GPtrArray *
rtop_rails_section_get_rows (RtopRailsSection *self)
{
  GPtrArray *out = g_ptr_array_new ();

  g_return_val_if_fail (RTOP_IS_RAILS_SECTION (self), out);
  for (guint i = 0; i < self->rows->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (self->rows, i));
  return out;
}

RtopHeatStrip *
rtop_rails_section_row_strip (GtkWidget *row)
{
  return g_object_get_data (G_OBJECT (row), "rtop-strip");
}

static void
update_axis (RtopRailsSection *self)
{
  int minutes = (int) round (self->span_s / 60);
  g_autofree char *text = NULL;

  if (self->span_s >= 60)
    /* Translators: the left end of the rails view's time axis */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d min ago", "%d min ago", minutes), minutes);
  else
    text = g_strdup_printf (_("%d s ago"), (int) self->span_s);
  gtk_label_set_text (self->axis_start, text);
}

/* ---- the session ------------------------------------------------------------- */

/* What came since the last frame, shown at once. */
static void
flush (RtopRailsSection *self)
{
  if (g_get_monotonic_time () - self->jobs_read_us >= JOBS_PERIOD_US)
    read_jobs (self);
  rebuild (self);
  for (guint i = 0; i < self->rows->len; i++)
    rtop_heat_strip_flush (rtop_rails_section_row_strip (g_ptr_array_index (self->rows, i)));
  update_values (self);
}

static gboolean
flush_cb (gpointer data)
{
  RtopRailsSection *self = data;

  self->flush_source = 0;
  flush (self);
  return G_SOURCE_REMOVE;
}

static void
history_updated_cb (RtopRailsSection *self)
{
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->stale = TRUE;
      return;
    }
  if (self->flush_source == 0)
    self->flush_source = g_timeout_add (FLUSH_DELAY_MS, flush_cb, self);
}

void
rtop_rails_section_flush (RtopRailsSection *self)
{
  g_return_if_fail (RTOP_IS_RAILS_SECTION (self));
  g_clear_handle_id (&self->flush_source, g_source_remove);
  flush (self);
}

static void
ports_changed_cb (RtopRailsSection *self)
{
  rebuild (self);
}

static void
clear_rows (RtopRailsSection *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    gtk_list_box_remove (self->list, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->row_ports, 0);
}

static void
rtop_rails_section_bind (RtopSection *section, RtopSession *session)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (section);
  RtopHistory *history = rtop_section_get_history (section);

  if (session == NULL)
    {
      g_clear_handle_id (&self->flush_source, g_source_remove);
      if (history != NULL)
        {
          g_signal_handlers_disconnect_by_data (rtop_history_get_ports (history), self);
          g_signal_handlers_disconnect_by_data (rtop_history_get_events (history), self);
        }
      g_hash_table_remove_all (self->marks);
      clear_rows (self);
      g_clear_pointer (&self->jobs, g_ptr_array_unref);
      return;
    }
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
  g_signal_connect_swapped (rtop_history_get_ports (history), "items-changed",
                            G_CALLBACK (ports_changed_cb), self);
  g_signal_connect_swapped (rtop_history_get_events (history), "items-changed",
                            G_CALLBACK (events_changed_cb), self);
  self->marks_stale = TRUE;
  self->stale = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    rtop_rails_section_flush (self);
}

static void
rtop_rails_section_map (GtkWidget *widget)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (widget);

  GTK_WIDGET_CLASS (rtop_rails_section_parent_class)->map (widget);
  if (self->stale && rtop_section_get_history (RTOP_SECTION (self)) != NULL)
    {
      self->stale = FALSE;
      read_jobs (self);
      rtop_rails_section_flush (self);
    }
}

static void
rtop_rails_section_focus (RtopSection *section)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (section);

  if (self->rows->len > 0)
    gtk_widget_grab_focus (g_ptr_array_index (self->rows, 0));
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->metric_dropdown));
}

static char *
rtop_rails_section_dump (RtopSection *section)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (section);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "rails: %s; show %s; job %s\n", gtk_label_get_text (self->count_label),
                          metric_name (self->metric), self->job_key != NULL ? self->job_key : "all");
  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);
      RtopPortItem *port = g_ptr_array_index (self->row_ports, i);

      GtkLabel *name = g_object_get_data (G_OBJECT (row), "rtop-port-label");

      g_string_append_printf (out, "rails row: %s %s%s\n", rtop_port_item_get_key (port),
                              rtop_heat_value_get_text (g_object_get_data (G_OBJECT (row), "rtop-value")),
                              g_str_has_prefix (gtk_label_get_text (name), RTOP_SIGN_WARNING) ? " imbalance" : "");
    }
  return g_string_free (out, FALSE);
}

/* ---- GObject ---------------------------------------------------------------- */

static void
rtop_rails_section_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      g_value_set_double (value, self->span_s);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_rails_section_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      if (self->span_s != g_value_get_double (value))
        {
          self->span_s = g_value_get_double (value);
          for (guint i = 0; i < self->rows->len; i++)
            rtop_heat_strip_set_span (rtop_rails_section_row_strip (g_ptr_array_index (self->rows, i)), self->span_s);
          update_axis (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_rails_section_dispose (GObject *object)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (object);

  g_clear_handle_id (&self->flush_source, g_source_remove);
  if (self->rows != NULL)
    clear_rows (self);
  G_OBJECT_CLASS (rtop_rails_section_parent_class)->dispose (object);
}

static void
rtop_rails_section_finalize (GObject *object)
{
  RtopRailsSection *self = RTOP_RAILS_SECTION (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->row_ports, g_ptr_array_unref);
  g_clear_pointer (&self->job_keys, g_ptr_array_unref);
  g_clear_pointer (&self->jobs, g_ptr_array_unref);
  g_clear_pointer (&self->marks, g_hash_table_unref);
  g_clear_object (&self->host_group);
  g_clear_object (&self->port_group);
  g_clear_object (&self->value_group);
  g_free (self->job_key);
  g_free (self->job_title);
  G_OBJECT_CLASS (rtop_rails_section_parent_class)->finalize (object);
}

static void
rtop_rails_section_class_init (RtopRailsSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = rtop_rails_section_get_property;
  object_class->set_property = rtop_rails_section_set_property;
  object_class->dispose = rtop_rails_section_dispose;
  object_class->finalize = rtop_rails_section_finalize;
  RTOP_SECTION_CLASS (klass)->bind = rtop_rails_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_rails_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_rails_section_dump;
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "rails", N_("_Rails"),
                               "view-grid-symbolic");

  /* Seconds of history each row spans (the window's time window). */
  props[PROP_TIME_WINDOW] =
    g_param_spec_double ("time-window", NULL, NULL, 1, 3600, 300,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-rails-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, job_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, job_page_button);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, count_label);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, legend_low);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, legend_bar);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, legend_high);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, stack);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, empty_page);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, scroller);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, list);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, axis);
  gtk_widget_class_bind_template_child (widget_class, RtopRailsSection, axis_start);
  widget_class->map = rtop_rails_section_map;
  gtk_widget_class_set_css_name (widget_class, "rtoprails");
}

static void
rtop_rails_section_init (RtopRailsSection *self)
{
  const char *all[] = { _("All ports"), NULL };
  GtkWidget *spacer;

  self->span_s = 300;
  self->rows = g_ptr_array_new ();
  self->marks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  self->row_ports = g_ptr_array_new_with_free_func (g_object_unref);
  self->job_keys = g_ptr_array_new_with_free_func (g_free);
  gtk_widget_init_template (GTK_WIDGET (self));
  self->job_names = gtk_string_list_new (all);
  gtk_drop_down_set_model (self->job_dropdown, G_LIST_MODEL (self->job_names));
  g_object_unref (self->job_names);

  /* The axis lines up with the strips: spacers as wide as the rows'
   * label columns. */
  self->host_group = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  self->port_group = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  self->value_group = gtk_size_group_new (GTK_SIZE_GROUP_HORIZONTAL);
  gtk_box_set_spacing (GTK_BOX (self->axis), 8);
  spacer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_size_group_add_widget (self->host_group, spacer);
  gtk_box_prepend (GTK_BOX (self->axis), spacer);
  spacer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_size_group_add_widget (self->port_group, spacer);
  gtk_box_insert_child_after (GTK_BOX (self->axis), spacer, gtk_widget_get_first_child (self->axis));
  spacer = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_size_group_add_widget (self->value_group, spacer);
  gtk_box_append (GTK_BOX (self->axis), spacer);

  g_signal_connect_swapped (self->metric_dropdown, "notify::selected", G_CALLBACK (metric_selected_cb), self);
  g_signal_connect_swapped (self->job_dropdown, "notify::selected", G_CALLBACK (job_selected_cb), self);
  g_signal_connect_swapped (self->list, "row-activated", G_CALLBACK (row_activated_cb), self);
  g_signal_connect_swapped (self->job_page_button, "clicked", G_CALLBACK (job_page_clicked_cb), self);
  update_legend (self);
  update_axis (self);
  update_count (self);
  update_empty (self);
  rtop_a11y_fix_mnemonics (GTK_WIDGET (self));
}
