/* rtop-compare-section.c: several ports in one chart: the port list, the
 * metric menu and the chart. */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>
#include <adwaita.h>

#include "rtop-compare-section-private.h"
#include "rtop-format.h"

/* What the chart can show: one channel of every checked port. */
static const struct {
  RtopPortChannel channel;
  const char *nick;
  const char *label;
  RtopUnit unit;
} metrics[] = {
  { RTOP_PORT_CH_TX_BPS, "tx-bps", N_("TX throughput"), RTOP_UNIT_BITS_PER_S },
  { RTOP_PORT_CH_RX_BPS, "rx-bps", N_("RX throughput"), RTOP_UNIT_BITS_PER_S },
  { RTOP_PORT_CH_TX_PPS, "tx-pps", N_("TX packets"), RTOP_UNIT_PACKETS_PER_S },
  { RTOP_PORT_CH_RX_PPS, "rx-pps", N_("RX packets"), RTOP_UNIT_PACKETS_PER_S },
  { RTOP_PORT_CH_READ_BPS, "rdma-read", N_("RDMA read"), RTOP_UNIT_BYTES_PER_S },
  { RTOP_PORT_CH_WRITE_BPS, "rdma-write", N_("RDMA write"), RTOP_UNIT_BYTES_PER_S },
  { RTOP_PORT_CH_RETRANS, "retransmits", N_("Retransmits"), RTOP_UNIT_EVENTS_PER_S },
  { RTOP_PORT_CH_DROPS, "drops", N_("Drops"), RTOP_UNIT_EVENTS_PER_S },
  { RTOP_PORT_CH_ERRORS, "errors", N_("Errors"), RTOP_UNIT_EVENTS_PER_S },
};

/* The colours (src/app/style.css, style-dark.css) by slot: a port keeps its
 * colour while it stays checked, whatever is checked after it. */
static const char * const slot_colors[RTOP_COMPARE_MAX_PORTS] = {
  "rtop_compare_0", "rtop_compare_1", "rtop_compare_2",
  "rtop_compare_3", "rtop_compare_4", "rtop_compare_5",
};
static const char * const slot_classes[RTOP_COMPARE_MAX_PORTS] = {
  "compare-0", "compare-1", "compare-2", "compare-3", "compare-4", "compare-5",
};

struct _RtopCompareSection {
  RtopSection parent_instance;

  char *keys[RTOP_COMPARE_MAX_PORTS];            /* by colour slot; NULL: free */
  RtopPortItem *items[RTOP_COMPARE_MAX_PORTS];   /* what each slot shows */
  guint metric;                                  /* index in metrics[] */
  double window_s;
  GPtrArray *checks;                             /* check buttons of the bound rows */
  gboolean syncing;

  GtkListView *port_list;
  GtkDropDown *metric_dropdown;
  GtkStack *stack;
  AdwStatusPage *empty_page;
  GtkFlowBox *legend;
  GtkLabel *legend_labels[RTOP_COMPARE_MAX_PORTS];
  RtopGraph *graph;
  GtkLabel *count_label;
};

G_DEFINE_FINAL_TYPE (RtopCompareSection, rtop_compare_section, RTOP_TYPE_SECTION)

enum { PROP_0, PROP_TIME_WINDOW, N_PROPS };
static GParamSpec *props[N_PROPS];

static int
find_slot (RtopCompareSection *self, const char *key)
{
  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    if (g_strcmp0 (self->keys[i], key) == 0)
      return (int) i;
  return -1;
}

static guint
count_checked (RtopCompareSection *self)
{
  guint n = 0;

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    n += self->keys[i] != NULL;
  return n;
}

static void
clear_slot (RtopCompareSection *self, guint slot)
{
  g_clear_pointer (&self->keys[slot], g_free);
  g_clear_object (&self->items[slot]);
}

/* Takes the first free slot, so colours already given stay put. */
static gboolean
add_slot (RtopCompareSection *self, const char *key)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  RtopPortItem *item = history ? rtop_history_find_port_by_key (history, key) : NULL;
  int free_slot = find_slot (self, NULL);

  if (find_slot (self, key) >= 0)
    return TRUE;
  if (item == NULL || free_slot < 0)
    return FALSE;
  self->keys[free_slot] = g_strdup (key);
  self->items[free_slot] = g_object_ref (item);
  return TRUE;
}

static void
update_legend (RtopCompareSection *self)
{
  RtopUnit unit = metrics[self->metric].unit;

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    {
      GtkWidget *child = gtk_widget_get_parent (GTK_WIDGET (self->legend_labels[i]));
      g_autofree char *value = NULL;
      g_autofree char *text = NULL;

      gtk_widget_set_visible (child, self->keys[i] != NULL);
      if (self->keys[i] == NULL)
        continue;
      value = rtop_format_rate (rtop_port_item_get_rate (self->items[i], metrics[self->metric].channel),
                                unit);
      /* Translators: a legend entry of the comparison chart: a colour
       * swatch, the port and its newest value, "■ rxe0/1  3.2 Gb/s" */
      text = g_strdup_printf (_("■ %s  %s"), self->keys[i], value);
      gtk_label_set_label (self->legend_labels[i], text);
    }
}

/* The chart's accessible name says what it shows and for whom. */
static void
update_graph_label (RtopCompareSection *self)
{
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *label = NULL;

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    if (self->keys[i])
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", self->keys[i]);
  if (names->len == 0)
    label = g_strdup (_("Comparison chart, no ports checked"));
  else
    /* Translators: the comparison chart's accessible name, "TX throughput of rxe0/1, rxe1/1" */
    label = g_strdup_printf (_("%s of %s"), _(metrics[self->metric].label), names->str);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->graph),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

static void
sync_checks (RtopCompareSection *self)
{
  gboolean full = count_checked (self) >= RTOP_COMPARE_MAX_PORTS;

  self->syncing = TRUE;
  for (guint i = 0; i < self->checks->len; i++)
    {
      GtkWidget *check = g_ptr_array_index (self->checks, i);
      int slot = find_slot (self, g_object_get_data (G_OBJECT (check), "rtop-key"));

      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), slot >= 0);
      gtk_widget_set_sensitive (check, slot >= 0 || !full);
      for (guint c = 0; c < RTOP_COMPARE_MAX_PORTS; c++)
        if ((int) c == slot)
          gtk_widget_add_css_class (check, slot_classes[c]);
        else
          gtk_widget_remove_css_class (check, slot_classes[c]);
    }
  self->syncing = FALSE;
}

static void
update_count (RtopCompareSection *self)
{
  guint n = count_checked (self);
  g_autofree char *text = NULL;

  /* Translators: under the list of ports to compare */
  text = g_strdup_printf (ngettext ("%u of at most %u port checked",
                                    "%u of at most %u ports checked", n),
                          n, RTOP_COMPARE_MAX_PORTS);
  gtk_label_set_label (self->count_label, text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "compare.clear", n > 0);
}

/* A replay ends at its last sample, not now: the graph's right edge is
 * that time of the series (its axis then reads clock times). */
static void
update_view_end (RtopCompareSection *self)
{
  RtopSession *session = rtop_section_get_session (RTOP_SECTION (self));
  gint64 first = 0, last = 0;

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS && last == 0; i++)
    if (self->items[i] != NULL)
      rtop_series_get_time_range (rtop_port_item_get_series (self->items[i]), &first, &last);
  rtop_graph_set_view_end (self->graph, session != NULL && rtop_session_get_replay_title (session) != NULL
                                        ? last : 0);
}

static void
rebuild (RtopCompareSection *self)
{
  guint n = 0;

  rtop_graph_clear_channels (self->graph);
  rtop_graph_set_unit (self->graph, metrics[self->metric].unit);
  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    if (self->keys[i])
      {
        rtop_graph_add_series_channel (self->graph, rtop_port_item_get_series (self->items[i]),
                                       metrics[self->metric].channel, self->keys[i],
                                       slot_colors[i]);
        n++;
      }
  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "chart" : "empty");
  update_view_end (self);
  update_legend (self);
  update_graph_label (self);
  update_count (self);
  sync_checks (self);
}

guint
rtop_compare_section_set_ports (RtopCompareSection *self, const char * const *keys)
{
  g_return_val_if_fail (RTOP_IS_COMPARE_SECTION (self), 0);

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    clear_slot (self, i);
  for (guint i = 0; keys && keys[i]; i++)
    add_slot (self, keys[i]);
  rebuild (self);
  return count_checked (self);
}

gboolean
rtop_compare_section_set_port_checked (RtopCompareSection *self, const char *key, gboolean checked)
{
  int slot;

  g_return_val_if_fail (RTOP_IS_COMPARE_SECTION (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  slot = find_slot (self, key);
  if (checked && slot < 0 && !add_slot (self, key))
    {
      sync_checks (self);
      return FALSE;
    }
  if (!checked && slot >= 0)
    clear_slot (self, slot);
  rebuild (self);
  return TRUE;
}

void
rtop_compare_section_set_metric (RtopCompareSection *self, RtopPortChannel channel)
{
  g_return_if_fail (RTOP_IS_COMPARE_SECTION (self));

  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    if (metrics[i].channel == channel)
      {
        if (gtk_drop_down_get_selected (self->metric_dropdown) != i)
          gtk_drop_down_set_selected (self->metric_dropdown, i);
        if (self->metric == i)
          return;
        self->metric = i;
        rebuild (self);
        return;
      }
  g_return_if_reached ();
}

RtopGraph *
rtop_compare_section_get_graph (RtopCompareSection *self)
{
  return self->graph;
}

GtkListView *
rtop_compare_section_get_port_list (RtopCompareSection *self)
{
  return self->port_list;
}

/* ---- the port list -------------------------------------------------------- */

static void
check_toggled_cb (GtkCheckButton *check, RtopCompareSection *self)
{
  const char *key = g_object_get_data (G_OBJECT (check), "rtop-key");

  if (self->syncing || key == NULL)
    return;
  rtop_compare_section_set_port_checked (self, key, gtk_check_button_get_active (check));
}

static void
row_setup_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, RtopCompareSection *self)
{
  GtkWidget *check = gtk_check_button_new ();

  /* The row takes the focus; Space or Enter on it toggles (activate_cb). */
  gtk_widget_set_focusable (check, FALSE);
  g_signal_connect (check, "toggled", G_CALLBACK (check_toggled_cb), self);
  gtk_list_item_set_child (list_item, check);
}

static void
row_bind_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, RtopCompareSection *self)
{
  GtkWidget *check = gtk_list_item_get_child (list_item);
  RtopPortItem *item = gtk_list_item_get_item (list_item);
  const char *key = rtop_port_item_get_key (item);

  g_object_set_data_full (G_OBJECT (check), "rtop-key", g_strdup (key), g_free);
  gtk_check_button_set_label (GTK_CHECK_BUTTON (check), key);
  g_ptr_array_add (self->checks, check);
  sync_checks (self);
}

static void
row_unbind_cb (GtkSignalListItemFactory *factory, GtkListItem *list_item, RtopCompareSection *self)
{
  GtkWidget *check = gtk_list_item_get_child (list_item);

  g_ptr_array_remove_fast (self->checks, check);
  g_object_set_data (G_OBJECT (check), "rtop-key", NULL);
}

static void
activate_cb (GtkListView *list, guint position, RtopCompareSection *self)
{
  g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (gtk_list_view_get_model (list)),
                                                        position);
  const char *key;

  if (item == NULL)
    return;
  key = rtop_port_item_get_key (item);
  rtop_compare_section_set_port_checked (self, key, find_slot (self, key) < 0);
}

static void
metric_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, RtopCompareSection *self)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (i < G_N_ELEMENTS (metrics))
    rtop_compare_section_set_metric (self, metrics[i].channel);
}

/* ---- the section ---------------------------------------------------------- */

/* A history that was reset (a recording opened) has new port items: the
 * chart follows a checked port to its new item once it is there. */
/* With no port at all, there is nothing to check: the page says why. */
static void
update_empty_texts (RtopCompareSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  gboolean none = history == NULL || g_list_model_get_n_items (rtop_history_get_ports (history)) == 0;

  g_autofree char *hint = g_markup_escape_text (none
                                                ? _("No source has an RDMA port yet: ports appear in the list as soon as a device is added or a host is connected.")
                                                : _("Check up to six ports in the list to graph them together on one scale."), -1);

  adw_status_page_set_icon_name (self->empty_page, none ? "network-wired-symbolic" : "selection-mode-symbolic");
  adw_status_page_set_title (self->empty_page, none ? _("No Ports to Compare") : _("No Ports Checked"));
  adw_status_page_set_description (self->empty_page, hint);
}

static void
history_updated_cb (RtopCompareSection *self)
{
  gboolean changed = FALSE;

  update_empty_texts (self);
  update_view_end (self);

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    {
      RtopPortItem *item;

      if (self->keys[i] == NULL)
        continue;
      item = rtop_history_find_port_by_key (rtop_section_get_history (RTOP_SECTION (self)),
                                            self->keys[i]);
      if (item && item != self->items[i])
        {
          g_set_object (&self->items[i], item);
          changed = TRUE;
        }
    }
  if (changed)
    rebuild (self);
  else
    update_legend (self);
}

static void
rtop_compare_section_bind (RtopSection *section, RtopSession *session)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (section);
  g_autoptr(GtkNoSelection) model = NULL;

  if (session == NULL)
    {
      gtk_list_view_set_model (self->port_list, NULL);
      /* Ports of another session's history are not these. */
      rtop_compare_section_set_ports (self, NULL);
      return;
    }
  model = gtk_no_selection_new (g_object_ref (rtop_history_get_ports (rtop_section_get_history (section))));
  gtk_list_view_set_model (self->port_list, GTK_SELECTION_MODEL (model));
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
  update_empty_texts (self);
}

static void
rtop_compare_section_focus (RtopSection *section)
{
  gtk_widget_grab_focus (GTK_WIDGET (RTOP_COMPARE_SECTION (section)->port_list));
}

static char *
rtop_compare_section_dump (RtopSection *section)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (section);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "compare\tmetric=%s\tports=%u\n", metrics[self->metric].nick,
                          count_checked (self));
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "empty") == 0)
    g_string_append_printf (out, "compare-empty\t%s\n", adw_status_page_get_title (self->empty_page));
  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    if (self->keys[i])
      {
        double rate = rtop_port_item_get_rate (self->items[i], metrics[self->metric].channel);

        g_string_append_printf (out, "compared\tport=%s\tcolour=%u\trate=%.17g\n",
                                self->keys[i], i, rate);
      }
  return g_string_free (out, FALSE);
}

static void
clear_action (GtkWidget *widget, const char *name, GVariant *param)
{
  rtop_compare_section_set_ports (RTOP_COMPARE_SECTION (widget), NULL);
}

static void
rtop_compare_section_dispose (GObject *object)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (object);

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    clear_slot (self, i);
  G_OBJECT_CLASS (rtop_compare_section_parent_class)->dispose (object);
}

static void
rtop_compare_section_finalize (GObject *object)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (object);

  g_ptr_array_unref (self->checks);
  G_OBJECT_CLASS (rtop_compare_section_parent_class)->finalize (object);
}

static void
rtop_compare_section_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (object);

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
rtop_compare_section_set_property (GObject *object, guint prop_id, const GValue *value,
                                   GParamSpec *pspec)
{
  RtopCompareSection *self = RTOP_COMPARE_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      if (self->window_s != g_value_get_double (value))
        {
          self->window_s = g_value_get_double (value);
          rtop_graph_set_window (self->graph, self->window_s);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_compare_section_class_init (RtopCompareSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_compare_section_dispose;
  object_class->finalize = rtop_compare_section_finalize;
  object_class->get_property = rtop_compare_section_get_property;
  object_class->set_property = rtop_compare_section_set_property;
  RTOP_SECTION_CLASS (klass)->bind = rtop_compare_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_compare_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_compare_section_dump;
  /* A page of its own, no tab: a fourth tab would widen the header bar
   * past what an 800 px window has. */
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "compare", NULL, NULL);

  props[PROP_TIME_WINDOW] =
    g_param_spec_double ("time-window", NULL, NULL, 60, 3600, 300,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  gtk_widget_class_install_action (widget_class, "compare.clear", NULL, clear_action);

  g_type_ensure (RTOP_TYPE_GRAPH);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/rdmatop/Rdmatop/ui/rtop-compare-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, port_list);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, metric_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, stack);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, empty_page);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, legend);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, graph);
  gtk_widget_class_bind_template_child (widget_class, RtopCompareSection, count_label);
}

static void
rtop_compare_section_init (RtopCompareSection *self)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  self->checks = g_ptr_array_new ();
  self->window_s = 300;

  for (guint i = 0; i < G_N_ELEMENTS (metrics); i++)
    gtk_string_list_append (names, _(metrics[i].label));
  gtk_drop_down_set_model (self->metric_dropdown, G_LIST_MODEL (names));
  g_signal_connect (self->metric_dropdown, "notify::selected", G_CALLBACK (metric_selected_cb), self);

  g_signal_connect (factory, "setup", G_CALLBACK (row_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (row_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (row_unbind_cb), self);
  gtk_list_view_set_factory (self->port_list, factory);
  g_object_unref (factory);
  g_signal_connect (self->port_list, "activate", G_CALLBACK (activate_cb), self);

  for (guint i = 0; i < RTOP_COMPARE_MAX_PORTS; i++)
    {
      GtkWidget *label = gtk_label_new (NULL);

      gtk_widget_add_css_class (label, slot_classes[i]);
      gtk_widget_add_css_class (label, "compare-legend");
      gtk_widget_add_css_class (label, "numeric");
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_flow_box_insert (self->legend, label, -1);
      gtk_widget_set_focusable (gtk_widget_get_parent (label), FALSE);
      self->legend_labels[i] = GTK_LABEL (label);
    }
  rtop_graph_set_show_legend (self->graph, FALSE);
  rtop_graph_set_window (self->graph, self->window_s);
  rebuild (self);
}
