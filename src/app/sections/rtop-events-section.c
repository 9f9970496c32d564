/* rtop-events-section.c: the health event log, filtered by severity and
 * device, following the newest events. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-columns.h"
#include "rtop-event-item.h"
#include "rtop-events-section-private.h"
#include "rtop-format.h"

struct _RtopEventsSection {
  RtopSection parent_instance;

  GtkFilterListModel *filtered;
  GtkSortListModel *sorted;
  GtkCustomFilter *filter;
  GtkStringList *devices;      /* "All devices", then names */
  RtopSeverity min_severity;
  char *device;                /* NULL: all */

  GtkDropDown *severity_dropdown;
  GtkDropDown *device_dropdown;
  GtkLabel *count_label;
  GtkStack *stack;
  GtkScrolledWindow *scroller;
  GtkColumnView *view;
  GtkSelectionModel *selection; /* the view's model while it is shown */
  gboolean following;          /* at the newest events: stay there as new ones come */
  guint follow_idle;
};

G_DEFINE_FINAL_TYPE (RtopEventsSection, rtop_events_section, RTOP_TYPE_SECTION)

static const RtopEvent *
ev (gpointer item)
{
  return rtop_event_item_get_event (item);
}

static char *
time_text (gpointer item)
{
  return rtop_format_time (ev (item)->realtime_us, TRUE);
}

static double
time_key (gpointer item)
{
  return (double) ev (item)->realtime_us;
}

static char *
where_text (gpointer item)
{
  const char *loc = rtop_event_item_get_location (item);

  return g_strdup (*loc ? loc : _("all devices"));
}

static const char *
where_key (gpointer item)
{
  return rtop_event_item_get_location (item);
}

static char *
severity_text (gpointer item)
{
  /* The sign tells the severity by its shape, the word by name. */
  return g_strdup_printf ("%s %s", rtop_severity_sign (ev (item)->severity),
                          rtop_severity_to_label (ev (item)->severity));
}

static double
severity_key (gpointer item)
{
  return ev (item)->severity;
}

static const char *
severity_css (gpointer item)
{
  return rtop_severity_to_string (ev (item)->severity);
}

static char *
message_text (gpointer item)
{
  return g_strdup (ev (item)->message ? ev (item)->message : "");
}

static const char *
message_key (gpointer item)
{
  return ev (item)->message;
}

static const RtopColumnDef event_columns[] = {
  { "time", N_("Time"), NULL, time_text, time_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "where", N_("Device/Port"), NULL, where_text, NULL, where_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "severity", N_("Severity"), NULL, severity_text, severity_key, NULL, severity_css, NULL, NULL, FALSE, FALSE, 0 },
  { "message", N_("What happened"), NULL, message_text, NULL, message_key, NULL, NULL, NULL, FALSE, TRUE, 0 },
};

static gboolean
filter_func (gpointer item, gpointer user_data)
{
  RtopEventsSection *self = user_data;
  const RtopEvent *e = ev (item);

  if (e->severity < self->min_severity)
    return FALSE;
  return self->device == NULL || g_strcmp0 (e->device, self->device) == 0;
}

static void
update_count (RtopEventsSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  guint shown = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
  guint total = history ? g_list_model_get_n_items (rtop_history_get_events (history)) : 0;
  g_autofree char *text = NULL;

  /* Translators: "3 of 12 events (the log keeps the newest 10000)" */
  text = g_strdup_printf (ngettext ("%u of %u event (the log keeps the newest %u)",
                                    "%u of %u events (the log keeps the newest %u)", total),
                          shown, total, RTOP_HISTORY_MAX_EVENTS);
  gtk_label_set_label (self->count_label, text);
  gtk_stack_set_visible_child_name (self->stack, shown > 0 ? "list" : "none");
}

void
rtop_events_section_set_min_severity (RtopEventsSection *self, RtopSeverity severity)
{
  self->min_severity = severity;
  if (gtk_drop_down_get_selected (self->severity_dropdown) != (guint) severity)
    gtk_drop_down_set_selected (self->severity_dropdown, severity);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

void
rtop_events_section_set_device (RtopEventsSection *self, const char *device)
{
  g_free (self->device);
  self->device = g_strdup (device);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_count (self);
}

static void
severity_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, RtopEventsSection *self)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (i <= RTOP_SEVERITY_ERROR && i != (guint) self->min_severity)
    rtop_events_section_set_min_severity (self, i);
}

static void
device_selected_cb (GtkDropDown *dropdown, GParamSpec *pspec, RtopEventsSection *self)
{
  guint i = gtk_drop_down_get_selected (dropdown);
  const char *name = i > 0 && i != GTK_INVALID_LIST_POSITION
                     ? gtk_string_list_get_string (self->devices, i) : NULL;

  if (g_strcmp0 (name, self->device) != 0)
    rtop_events_section_set_device (self, name);
}

static void
devices_changed_cb (RtopEventsSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  const char * const *names = rtop_history_get_device_names (history);
  guint old = g_list_model_get_n_items (G_LIST_MODEL (self->devices));
  g_autofree char *keep = g_strdup (self->device);

  /* Replacing the list resets the selection: put the chosen device back. */
  gtk_string_list_splice (self->devices, 1, old - 1, names);
  for (guint i = 1; keep && names[i - 1]; i++)
    if (g_str_equal (names[i - 1], keep))
      gtk_drop_down_set_selected (self->device_dropdown, i);
}

static void
rtop_events_section_bind (RtopSection *section, RtopSession *session)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (section);

  if (session == NULL)
    {
      gtk_filter_list_model_set_model (self->filtered, NULL);
      return;
    }
  gtk_filter_list_model_set_model (self->filtered,
                                   rtop_history_get_events (rtop_section_get_history (section)));
  rtop_section_connect_history (section, "devices-changed", G_CALLBACK (devices_changed_cb));
  rtop_section_connect_history (section, "updated", G_CALLBACK (update_count));
  devices_changed_cb (self);
  update_count (self);
}

GListModel *
rtop_events_section_get_model (RtopEventsSection *self)
{
  return G_LIST_MODEL (self->sorted);
}

static char *
rtop_events_section_dump (RtopSection *section)
{
  RtopHistory *history = rtop_section_get_history (section);
  GListModel *events = history != NULL ? rtop_history_get_events (history) : NULL;
  guint n = events != NULL ? g_list_model_get_n_items (events) : 0;
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "events=%u\n", n);
  /* The newest few, as the list words them. */
  for (guint i = 0; i < MIN (n, 20); i++)
    {
      g_autoptr(RtopEventItem) item = g_list_model_get_item (events, i);
      const RtopEvent *ev = rtop_event_item_get_event (item);

      g_string_append_printf (out, "event\tseverity=%s\tkind=%s\twhere=%s\tmessage=%s\n",
                              rtop_severity_to_string (ev->severity),
                              rtop_event_kind_to_string (ev->kind),
                              rtop_event_item_get_location (item),
                              ev->message != NULL ? ev->message : "");
    }
  return g_string_free (out, FALSE);
}

/* ---- following the newest events ------------------------------------------ */

static GtkAdjustment *
vadjustment (RtopEventsSection *self)
{
  return gtk_scrolled_window_get_vadjustment (self->scroller);
}

static gboolean
follow_cb (gpointer user_data)
{
  RtopEventsSection *self = user_data;
  GtkAdjustment *adj = vadjustment (self);

  self->follow_idle = 0;
  gtk_adjustment_set_value (adj, gtk_adjustment_get_lower (adj));
  self->following = TRUE;
  return G_SOURCE_REMOVE;
}

/* The list keeps showing the rows it showed when rows come in above them:
 * move back to the top (the newest), once the view has laid them out. */
static void
events_changed_cb (RtopEventsSection *self)
{
  if (self->following && self->follow_idle == 0)
    self->follow_idle = g_idle_add_full (G_PRIORITY_LOW, follow_cb, self, NULL);
}

static void
scrolled_cb (RtopEventsSection *self)
{
  GtkAdjustment *adj = vadjustment (self);

  /* While a move to the top is pending the value is ours, not the user's. */
  if (self->follow_idle == 0)
    self->following = gtk_adjustment_get_value (adj) <= gtk_adjustment_get_lower (adj) + 1;
}

/* Shown again: at the newest.  The table has its rows only while it is
 * shown: a list view that is not shown still makes and binds rows for new
 * items (GTK 4.8 keeps up to 200), each event costing a row of widgets that
 * nobody sees. */
static void
rtop_events_section_map (GtkWidget *widget)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (widget);

  if (gtk_column_view_get_model (self->view) == NULL)
    gtk_column_view_set_model (self->view, self->selection);
  GTK_WIDGET_CLASS (rtop_events_section_parent_class)->map (widget);
  /* Once the rows are laid out. */
  self->following = TRUE;
  if (self->follow_idle == 0)
    self->follow_idle = g_idle_add_full (G_PRIORITY_LOW, follow_cb, self, NULL);
}

static void
rtop_events_section_unmap (GtkWidget *widget)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (widget);

  GTK_WIDGET_CLASS (rtop_events_section_parent_class)->unmap (widget);
  gtk_column_view_set_model (self->view, NULL);
}

gboolean
rtop_events_section_get_following (RtopEventsSection *self)
{
  g_return_val_if_fail (RTOP_IS_EVENTS_SECTION (self), FALSE);
  return self->following;
}

static void
rtop_events_section_focus (RtopSection *section)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (section);

  gtk_widget_grab_focus (GTK_WIDGET (self->severity_dropdown));
}

static void
rtop_events_section_dispose (GObject *object)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (object);

  /* Destroying the column view re-sorts; nothing of ours may listen then. */
  if (self->sorted)
    g_signal_handlers_disconnect_by_data (self->sorted, self);
  g_clear_handle_id (&self->follow_idle, g_source_remove);
  G_OBJECT_CLASS (rtop_events_section_parent_class)->dispose (object);
}

static void
rtop_events_section_finalize (GObject *object)
{
  RtopEventsSection *self = RTOP_EVENTS_SECTION (object);

  g_clear_object (&self->selection);
  g_clear_object (&self->filtered);
  g_clear_object (&self->sorted);
  g_clear_object (&self->devices);
  g_free (self->device);
  G_OBJECT_CLASS (rtop_events_section_parent_class)->finalize (object);
}

static void
rtop_events_section_class_init (RtopEventsSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_events_section_dispose;
  RTOP_SECTION_CLASS (klass)->bind = rtop_events_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_events_section_focus;
  RTOP_SECTION_CLASS (klass)->dump = rtop_events_section_dump;
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "events", N_("_Events"),
                               "dialog-warning-symbolic");
  object_class->finalize = rtop_events_section_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-events-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, severity_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, device_dropdown);
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, count_label);
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, stack);
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, view);
  gtk_widget_class_bind_template_child (widget_class, RtopEventsSection, scroller);
  widget_class->map = rtop_events_section_map;
  widget_class->unmap = rtop_events_section_unmap;
  gtk_widget_class_set_css_name (widget_class, "rtopevents");
}

static void
rtop_events_section_init (RtopEventsSection *self)
{
  const char *all[] = { _("All devices"), NULL };

  gtk_widget_init_template (GTK_WIDGET (self));
  rtop_column_view_add_columns (self->view, event_columns, G_N_ELEMENTS (event_columns));
  self->filter = gtk_custom_filter_new (filter_func, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          g_object_ref (gtk_column_view_get_sorter (self->view)));
  self->selection = GTK_SELECTION_MODEL (gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->sorted))));

  self->devices = gtk_string_list_new (all);
  gtk_drop_down_set_model (self->device_dropdown, G_LIST_MODEL (self->devices));
  g_signal_connect (self->severity_dropdown, "notify::selected", G_CALLBACK (severity_selected_cb), self);
  g_signal_connect (self->device_dropdown, "notify::selected", G_CALLBACK (device_selected_cb), self);
  g_signal_connect_swapped (self->sorted, "items-changed", G_CALLBACK (update_count), self);
  g_signal_connect_swapped (self->sorted, "items-changed", G_CALLBACK (events_changed_cb), self);
  g_signal_connect_swapped (vadjustment (self), "value-changed", G_CALLBACK (scrolled_cb), self);
  self->following = TRUE;
}

GtkWidget *
rtop_events_section_new (void)
{
  return g_object_new (RTOP_TYPE_EVENTS_SECTION, NULL);
}
