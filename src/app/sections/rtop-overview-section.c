/* rtop-overview-section.c: every port at a glance: the ports table, totals,
 * newest health events and the empty or error states. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n.h>

#include "rtop-a11y.h"
#include "rtop-columns.h"
#include "rtop-event-item.h"
#include "rtop-format.h"
#include "rtop-host-strip.h"
#include "rtop-overview-section-private.h"
#include "rtop-remote.h"

#define N_RECENT_EVENTS 5
/* Ports the trouble card names; the rest are counted. */
#define TROUBLE_NAMED 4
/* On a remote display every repainted pixel crosses the network: values
 * are shown at most this often there (the data is kept at every pass),
 * and a few table cells per frame (sparklines, numbers and totals of one
 * frame then stay within the 30 rectangles GSK's diff keeps exact). */
#define REMOTE_REFRESH_S 5
#define REMOTE_CELLS_PER_FRAME 6

G_DEFINE_FINAL_TYPE (RtopOverviewSection, rtop_overview_section, RTOP_TYPE_SECTION)

enum { PROP_0, PROP_TIME_WINDOW, PROP_SPARKLINE_SCALE, PROP_HELD,
       PROP_REFRESH_PERIOD, N_PROPS };
static GParamSpec *props[N_PROPS];

/* ---- narrow windows ---------------------------------------------------------- */

/* Which columns go as the overview gets narrower: the port, its state, its
 * rates and its health always stay (Health names what rises). */
static const struct {
  int min_width;
  const char *hide[8];
} narrow_levels[] = {
  { 1240, { NULL } },
  { 1080, { "protocol", "link", NULL } },
  { 940, { "protocol", "link", "pps", "util", NULL } },
  { 0, { "protocol", "link", "pps", "util", "drops", "retrans", "errors", NULL } },
};

static guint
narrow_level_for (int width)
{
  guint level = 0;

  while (level + 1 < G_N_ELEMENTS (narrow_levels) && width < narrow_levels[level].min_width)
    level++;
  return level;
}

static gboolean
apply_narrow_cb (gpointer user_data)
{
  RtopOverviewSection *self = user_data;
  const char *ids[] = { "protocol", "link", "pps", "util", "drops", "retrans", "errors" };

  self->narrow_idle = 0;
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      gboolean hidden = FALSE;

      for (guint j = 0; narrow_levels[self->narrow_level].hide[j]; j++)
        hidden |= g_str_equal (ids[i], narrow_levels[self->narrow_level].hide[j]);
      rtop_column_view_set_column_visible (self->ports_view, ids[i], !hidden);
    }
  return G_SOURCE_REMOVE;
}

/* The table's visible width changed (its horizontal adjustment's page):
 * columns are shown or hidden after this allocation, never during it. */
static void
table_width_cb (GtkAdjustment *adjustment, GParamSpec *pspec, RtopOverviewSection *self)
{
  guint level = narrow_level_for ((int) gtk_adjustment_get_page_size (adjustment));

  if (level != self->narrow_level)
    {
      self->narrow_level = level;
      if (self->narrow_idle == 0)
        self->narrow_idle = g_idle_add (apply_narrow_cb, self);
    }
}

/* ---- recent events -------------------------------------------------------- */

/* An episode is completed in place: its row's text follows. */
static void
event_updated_cb (RtopEventItem *item, GtkLabel *message)
{
  const RtopEvent *ev = rtop_event_item_get_event (item);

  gtk_label_set_label (message, ev->message);
  rtop_widget_set_tooltip (GTK_WIDGET (message), ev->message);
}

static GtkWidget *
create_event_row (gpointer item, gpointer user_data)
{
  const RtopEvent *ev = rtop_event_item_get_event (item);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  g_autofree char *when = rtop_format_time (ev->realtime_us, FALSE);
  g_autofree char *sev = g_strdup_printf ("%s %s", rtop_severity_sign (ev->severity),
                                          rtop_severity_to_label (ev->severity));
  GtkWidget *time_label = gtk_label_new (when);
  GtkWidget *where = gtk_label_new (rtop_event_item_get_location (item));
  GtkWidget *severity = gtk_label_new (sev);
  GtkWidget *message = gtk_label_new (ev->message);

  gtk_widget_add_css_class (time_label, "numeric");
  gtk_widget_add_css_class (time_label, "dim-label");
  gtk_widget_add_css_class (severity, rtop_severity_to_string (ev->severity));
  gtk_widget_set_size_request (where, 80, -1);
  gtk_widget_set_size_request (severity, 90, -1);
  gtk_label_set_xalign (GTK_LABEL (where), 0);
  gtk_label_set_xalign (GTK_LABEL (severity), 0);
  gtk_label_set_xalign (GTK_LABEL (message), 0);
  gtk_label_set_ellipsize (GTK_LABEL (message), PANGO_ELLIPSIZE_END);
  gtk_widget_set_hexpand (message, TRUE);
  gtk_widget_set_tooltip_text (message, ev->message);
  gtk_box_append (GTK_BOX (box), time_label);
  gtk_box_append (GTK_BOX (box), where);
  gtk_box_append (GTK_BOX (box), severity);
  gtk_box_append (GTK_BOX (box), message);
  gtk_widget_add_css_class (box, "event-row");
  g_signal_connect_object (item, "updated", G_CALLBACK (event_updated_cb), message, 0);
  return box;
}

/* ---- state ------------------------------------------------------------- */

static const struct {
  RtopStatus status;
  const char *title;
  const char *hint;
} unavailable_texts[] = {
  { RTOP_STATUS_PERMISSION, N_("Permission Denied"),
    N_("The kernel refused to answer RDMA queries. Run rdmatop outside the sandbox or container that restricts netlink, or ask your administrator.") },
  { RTOP_STATUS_ERROR, N_("Cannot Read RDMA Devices"),
    N_("rdmatop tries again at every interval.") },
};

/* No devices here, or no RDMA in this kernel at all: the same page, with
 * the Soft-RoCE recipe, says which. */
static void
show_empty (RtopOverviewSection *self, RtopSnapshot *snapshot)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  g_autofree char *reason = g_markup_escape_text (snapshot->status == RTOP_STATUS_NO_NETLINK
                                                  ? _("This kernel has no RDMA support loaded.")
                                                  : _("The kernel has RDMA support but reports no devices."), -1);

  adw_status_page_set_description (self->empty_page, reason);
  gtk_stack_set_visible_child_name (self->state_stack, "empty");
  /* The page's first control, not the commands (whose text the focus
   * would select). */
  if (gtk_widget_get_mapped (GTK_WIDGET (self)) && (focus == NULL || GTK_IS_LABEL (focus)))
    gtk_widget_grab_focus (self->empty_connect);
}

static void
show_unavailable (RtopOverviewSection *self, RtopSnapshot *snapshot)
{
  for (guint i = 0; i < G_N_ELEMENTS (unavailable_texts); i++)
    if (unavailable_texts[i].status == snapshot->status)
      {
        /* The collector's sentence says what failed and what to do; ours
         * stands in only when it has none. */
        const char *message = snapshot->status_message && *snapshot->status_message
                              ? snapshot->status_message : _(unavailable_texts[i].hint);
        g_autofree char *markup = g_markup_escape_text (message, -1);

        adw_status_page_set_title (self->unavailable_page, _(unavailable_texts[i].title));
        adw_status_page_set_description (self->unavailable_page, markup);
      }
  gtk_stack_set_visible_child_name (self->state_stack, "unavailable");
}

/* A card's value keeps the width of the widest text it has shown, so that
 * a new value leaves the cards' widths as they were: otherwise every pass
 * shares the row out anew, and each wrapped caption beside it is laid out
 * again, at several widths (most of the window's time per update). */
static void
set_card_value (GtkLabel *label, const char *text)
{
  int chars = g_utf8_strlen (text, -1);

  if (chars > gtk_label_get_width_chars (label))
    gtk_label_set_width_chars (label, chars);
  gtk_label_set_label (label, text);
}

/* The problems caption names the ports in trouble and changes with them.
 * A wrapped label is laid out again at every width its row is measured at,
 * a dozen times per change; a GtkInscription (GTK 4.8) is given two lines
 * and lays out its text once, to draw it (the whole text in its tooltip
 * when it does not fit). */
#if GTK_CHECK_VERSION (4, 8, 0)
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
static void
make_problems_inscription (RtopOverviewSection *self)
{
  GtkWidget *label = GTK_WIDGET (self->total_problems_caption);
  GtkWidget *ins = gtk_inscription_new (NULL);

  gtk_inscription_set_xalign (GTK_INSCRIPTION (ins), 0);
  gtk_inscription_set_min_chars (GTK_INSCRIPTION (ins), 8);
  gtk_inscription_set_nat_chars (GTK_INSCRIPTION (ins), 24);
  gtk_inscription_set_min_lines (GTK_INSCRIPTION (ins), 1);
  gtk_inscription_set_nat_lines (GTK_INSCRIPTION (ins), 2);
  gtk_inscription_set_wrap_mode (GTK_INSCRIPTION (ins), PANGO_WRAP_WORD_CHAR);
  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (ins), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  gtk_widget_add_css_class (ins, "card-caption");
  gtk_widget_insert_after (ins, gtk_widget_get_parent (label), label);
  gtk_widget_set_visible (label, FALSE);
  self->problems_caption = ins;
}
G_GNUC_END_IGNORE_DEPRECATIONS
#endif

/* text is shown, tooltip says all of it. */
static void
set_problems_caption (RtopOverviewSection *self, const char *text, const char *tooltip)
{
  rtop_widget_set_tooltip (self->problems_caption, tooltip);
  if (g_strcmp0 (gtk_label_get_label (self->total_problems_caption), text) == 0)
    return;
  /* The label keeps the text too (hidden when an inscription shows it). */
  gtk_label_set_label (self->total_problems_caption, text);
#if GTK_CHECK_VERSION (4, 8, 0)
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  if (GTK_IS_INSCRIPTION (self->problems_caption))
    gtk_inscription_set_text (GTK_INSCRIPTION (self->problems_caption), text);
  G_GNUC_END_IGNORE_DEPRECATIONS
#endif
}

/* The names of the ports in trouble, Errors first, the first few of them. */
static char *
trouble_names (RtopHistory *history)
{
  GPtrArray *ports = rtop_history_get_problem_ports (history);
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < MIN (ports->len, TROUBLE_NAMED); i++)
    g_string_append_printf (names, "%s%s", i > 0 ? ", " : "",
                            rtop_port_item_get_key (g_ptr_array_index (ports, i)));
  if (ports->len > TROUBLE_NAMED)
    /* Translators: after the names of the first ports in trouble: how many more */
    g_string_append_printf (names, g_dngettext (GETTEXT_PACKAGE, ", %u more", ", %u more",
                                                ports->len - TROUBLE_NAMED),
                            ports->len - TROUBLE_NAMED);
  return g_string_free (names, FALSE);
}

/* The trouble card: what the trouble is called first (never cut), the
 * names after it (cut when narrow: the tooltip and the accessible label
 * have all of it, with each port's trouble), and the worst severity's
 * sign. */
static void
update_trouble_card (RtopOverviewSection *self, RtopHistory *history, const RtopTotals *t)
{
  g_autofree char *full = NULL, *names = NULL, *caption = NULL, *label = NULL;

  if (t->n_problem_ports == 0)
    {
      set_problems_caption (self, _("Ports in trouble"), _("No port is in trouble."));
      gtk_widget_remove_css_class (self->problems_card, "problem");
      gtk_widget_remove_css_class (self->problems_card, "warn-only");
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->problems_card),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, _("No ports in trouble"), -1);
      return;
    }
  full = rtop_history_dup_problems_text (history);
  names = trouble_names (history);
  caption = g_strdup_printf ("%s %s\n%s", t->n_error_ports > 0 ? RTOP_SIGN_ERROR : RTOP_SIGN_WARNING,
                             _("Ports in trouble"), names);
  set_problems_caption (self, caption, full);
  gtk_widget_add_css_class (self->problems_card, "problem");
  if (t->n_error_ports == 0)
    gtk_widget_add_css_class (self->problems_card, "warn-only");
  else
    gtk_widget_remove_css_class (self->problems_card, "warn-only");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->problems_card),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, full, -1);
}

static void
update_totals (RtopOverviewSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  RtopTotals t;
  g_autofree char *ports = NULL, *ports_caption = NULL, *tx = NULL, *rx = NULL;
  g_autofree char *pps = NULL, *problems = NULL;

  rtop_history_get_totals (history, &t);
  ports = g_strdup_printf ("%u", t.n_ports);
  ports_caption = g_strdup_printf (ngettext ("port on %u device, %u active",
                                             "ports on %u devices, %u active", t.n_devices),
                                   t.n_devices, t.n_active);
  tx = rtop_format_rate (t.tx_bps, RTOP_UNIT_BITS_PER_S);
  rx = rtop_format_rate (t.rx_bps, RTOP_UNIT_BITS_PER_S);
  pps = rtop_format_rate (t.tx_pps + t.rx_pps, RTOP_UNIT_PACKETS_PER_S);
  /* Ports in trouble, counted and named: rates of different ports and
   * kinds do not add up to anything a user can act on. */
  problems = g_strdup_printf ("%u", t.n_problem_ports);
  set_card_value (self->total_ports, ports);
  gtk_label_set_label (self->total_ports_caption, ports_caption);
  set_card_value (self->total_tx, tx);
  set_card_value (self->total_rx, rx);
  set_card_value (self->total_pps, pps);
  set_card_value (self->total_problems, problems);
  update_trouble_card (self, history, &t);
  gtk_widget_set_visible (self->vanished_banner, t.n_vanished > 0);
  if (t.n_vanished > 0)
    {
      g_autofree char *text = g_strdup_printf (ngettext ("%u port belongs to a device that was removed. Its history stays visible; it comes back if the device is added again.",
                                                         "%u ports belong to devices that were removed. Their history stays visible; they come back if the devices are added again.",
                                                         t.n_vanished), t.n_vanished);
      gtk_label_set_label (self->vanished_label, text);
    }
}

/* A spinning spinner keeps the frame clock ticking even on a hidden page,
 * which costs a whole repaint every frame: spin only while it is seen (the
 * waiting page shown, in an overview that is; one never shown waits). */
static void
state_page_changed_cb (RtopOverviewSection *self)
{
  gtk_spinner_set_spinning (self->waiting_spinner,
                            gtk_widget_get_mapped (GTK_WIDGET (self))
                            && g_strcmp0 (gtk_stack_get_visible_child_name (self->state_stack),
                                          "waiting") == 0);
}

/* One quiet line for what this computer lacks while something else is
 * shown: RDMA while GPU links are, GPU links ("No NVIDIA driver on this
 * machine").  It reads this computer's own newest snapshot, never another
 * host's, so it does not come and go with whichever host spoke last; with
 * several hosts each host's state is its card's, and the line is hidden. */
static void
update_sources_status (RtopOverviewSection *self, RtopHistory *history)
{
  RtopSnapshot *snapshot = rtop_history_get_host_latest (history, NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  RtopTotals t = { 0 };

  /* A recording replayed from another host has that host's name. */
  if (snapshot == NULL && rtop_history_get_n_hosts (history) == 1)
    snapshot = rtop_history_get_latest (history);
  if (rtop_host_strip_get_n_sources (self->host_strip) > 1)
    snapshot = NULL;
  if (snapshot != NULL)
    rtop_history_get_host_totals (history, snapshot->host, &t);
  if (snapshot != NULL && snapshot->status != RTOP_STATUS_OK && t.n_ports > 0 &&
      snapshot->status_message != NULL)
    /* Translators: %s says why RDMA devices cannot be read */
    g_string_append_printf (text, _("RDMA: %s"), snapshot->status_message);
  if (snapshot != NULL && snapshot->gpu_status != NULL)
    {
      if (text->len > 0)
        g_string_append_c (text, '\n');
      /* Translators: %s says why no NVLink or XGMI link is shown */
      g_string_append_printf (text, _("GPU interconnects: %s"), snapshot->gpu_status);
    }
  gtk_label_set_label (self->sources_status, text->str);
  gtk_widget_set_visible (GTK_WIDGET (self->sources_status), text->len > 0);
}

/* ---- trouble first, and the filter ------------------------------------------ */

/* With trouble first: Errors, then Warnings, then the ports that are fine;
 * otherwise all alike (the next sorter decides). */
static int
compare_trouble (gconstpointer a, gconstpointer b, gpointer user_data)
{
  RtopOverviewSection *self = user_data;
  RtopPortHealth ha, hb;

  if (!self->trouble_first)
    return GTK_ORDERING_EQUAL;
  ha = rtop_port_item_get_vanished ((RtopPortItem *) a) ? RTOP_PORT_HEALTH_OK
       : rtop_port_item_get_health ((RtopPortItem *) a, NULL);
  hb = rtop_port_item_get_vanished ((RtopPortItem *) b) ? RTOP_PORT_HEALTH_OK
       : rtop_port_item_get_health ((RtopPortItem *) b, NULL);
  return (ha < hb) - (ha > hb);
}

static void
trouble_toggled_cb (RtopOverviewSection *self)
{
  gboolean active = gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->problems_card));

  if (active == self->trouble_first)
    return;
  self->trouble_first = active;
  gtk_widget_set_tooltip_text (self->problems_card, active ? _("Show the ports in their usual order")
                                                          : _("Show the ports in trouble first"));
  gtk_sorter_changed (GTK_SORTER (self->trouble_sorter), GTK_SORTER_CHANGE_DIFFERENT);
}

static gboolean
filter_port (gpointer item, gpointer user_data)
{
  RtopOverviewSection *self = user_data;
  g_autofree char *key = NULL;

  if (self->filter_text == NULL)
    return TRUE;
  key = g_utf8_casefold (rtop_port_item_get_key (item), -1);
  return strstr (key, self->filter_text) != NULL;
}

void
rtop_overview_section_set_filter (RtopOverviewSection *self, const char *text)
{
  g_autofree char *folded = text && *text ? g_utf8_casefold (text, -1) : NULL;

  if (g_strcmp0 (folded, self->filter_text) == 0)
    return;
  g_free (self->filter_text);
  self->filter_text = g_steal_pointer (&folded);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
filter_changed_cb (RtopOverviewSection *self)
{
  rtop_overview_section_set_filter (self, gtk_editable_get_text (GTK_EDITABLE (self->filter_entry)));
}

/* Closed (Escape, its close button): every port again, the focus back in
 * the table. */
static void
filter_mode_cb (RtopOverviewSection *self)
{
  if (gtk_search_bar_get_search_mode (self->filter_bar))
    return;
  gtk_editable_set_text (GTK_EDITABLE (self->filter_entry), "");
  rtop_overview_section_set_filter (self, NULL);
  gtk_widget_grab_focus (GTK_WIDGET (self->ports_view));
}

/* The filter bar's own close button has an icon and no name: give it one. */
static void
name_close_button (GtkWidget *widget)
{
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c; c = gtk_widget_get_next_sibling (c))
    {
      if (GTK_IS_BUTTON (c))
        {
          gtk_accessible_update_property (GTK_ACCESSIBLE (c), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                          _("Close the filter"), -1);
          gtk_widget_set_tooltip_text (c, _("Close the filter (Escape)"));
        }
      name_close_button (c);
    }
}

static void
rtop_overview_section_find (RtopSection *section)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (section);

  gtk_search_bar_set_search_mode (self->filter_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->filter_entry));
}

/* ---- what is refreshed when ------------------------------------------------ */

static void history_updated_cb (RtopOverviewSection *self);

/* Held, the table, its sparklines and the totals keep what they show and
 * note what changed; released, they show the newest values at once. */
static void
set_held (RtopOverviewSection *self, gboolean held)
{
  if (self->held == held)
    return;
  self->held = held;
  rtop_column_view_set_held (self->ports_view, held);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_HELD]);
  if (!held && self->held_update)
    {
      self->held_update = FALSE;
      history_updated_cb (self);
    }
}

static gboolean
refresh_timeout_cb (gpointer user_data)
{
  RtopOverviewSection *self = user_data;

  self->refresh_timeout = 0;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    set_held (self, FALSE);
  return G_SOURCE_REMOVE;
}

/* After a refresh, with a refresh period: the next updates wait for it,
 * so the first change after a quiet spell shows at once and a stream of
 * changes shows once per period. */
static void
hold_for_period (RtopOverviewSection *self)
{
  if (self->refresh_period <= 0 || self->refresh_timeout != 0)
    return;
  set_held (self, TRUE);
  self->refresh_timeout = g_timeout_add ((guint) (self->refresh_period * 1000),
                                         refresh_timeout_cb, self);
}

/* What is not seen is not refreshed: a hidden overview (another view
 * shown) only notes that something changed. */
static void
rtop_overview_section_map (GtkWidget *widget)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (widget);

  GTK_WIDGET_CLASS (rtop_overview_section_parent_class)->map (widget);
  if (self->refresh_timeout == 0)
    set_held (self, FALSE);
  state_page_changed_cb (self);
}

static void
rtop_overview_section_unmap (GtkWidget *widget)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (widget);

  g_clear_handle_id (&self->refresh_timeout, g_source_remove);
  set_held (self, TRUE);
  GTK_WIDGET_CLASS (rtop_overview_section_parent_class)->unmap (widget);
  state_page_changed_cb (self);
}

gboolean
rtop_overview_section_get_held (RtopOverviewSection *self)
{
  return self->held;
}

static void
history_updated_cb (RtopOverviewSection *self)
{
  RtopHistory *history = rtop_section_get_history (RTOP_SECTION (self));
  RtopSnapshot *snapshot;
  guint n_ports;

  if (self->held)
    {
      self->held_update = TRUE;
      return;
    }
  if (history == NULL)
    return;                  /* shown before it has a session */
  snapshot = rtop_history_get_latest (history);
  n_ports = g_list_model_get_n_items (rtop_history_get_ports (history));
  rtop_host_strip_update (self->host_strip);

  /* With several hosts, one without RDMA (or not there yet) is its own
   * card's state, beside the others' ports, never the whole window. */
  if (rtop_host_strip_get_n_sources (self->host_strip) > 1)
    gtk_stack_set_visible_child_name (self->state_stack, "ports");
  else if (snapshot == NULL)
    gtk_stack_set_visible_child_name (self->state_stack, "waiting");
  else if (n_ports == 0 && (snapshot->status == RTOP_STATUS_OK || snapshot->status == RTOP_STATUS_NO_NETLINK))
    show_empty (self, snapshot);
  else if (n_ports == 0)
    show_unavailable (self, snapshot);
  else
    gtk_stack_set_visible_child_name (self->state_stack, "ports");

  update_sources_status (self, history);
  update_totals (self);
  gtk_stack_set_visible_child_name (self->events_stack,
                                    g_list_model_get_n_items (G_LIST_MODEL (self->recent)) ? "list" : "none");
  rtop_column_view_resort (self->ports_view);
  if (self->trouble_first)
    gtk_sorter_changed (GTK_SORTER (self->trouble_sorter), GTK_SORTER_CHANGE_DIFFERENT);
  if (snapshot != NULL && n_ports > 0)
    hold_for_period (self);
}

static void
rtop_overview_section_bind (RtopSection *section, RtopSession *session)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (section);
  RtopHistory *history = rtop_section_get_history (section);

  rtop_host_strip_bind (self->host_strip, session);
  if (session == NULL)
    {
      gtk_filter_list_model_set_model (self->filtered, NULL);
      gtk_slice_list_model_set_model (self->recent, NULL);
      return;
    }
  gtk_filter_list_model_set_model (self->filtered, rtop_history_get_ports (history));
  /* Ranked: an Error stays in the short list while Info and Warning pass. */
  gtk_slice_list_model_set_model (self->recent, rtop_history_get_recent_events (history));
  rtop_section_connect_history (section, "updated", G_CALLBACK (history_updated_cb));
  history_updated_cb (self);
}

GListModel *
rtop_overview_section_get_model (RtopOverviewSection *self)
{
  return G_LIST_MODEL (self->sorted);
}

const char *
rtop_overview_section_get_state (RtopOverviewSection *self)
{
  return gtk_stack_get_visible_child_name (self->state_stack);
}

static void
rtop_overview_section_focus (RtopSection *section)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (section);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->state_stack), "empty") == 0)
    gtk_widget_grab_focus (self->empty_connect);
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->ports_view));
}

static char *
rtop_overview_section_dump (RtopSection *section)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (section);
  GString *out = g_string_new (NULL);
  GListModel *model = G_LIST_MODEL (self->sorted);
  guint n = g_list_model_get_n_items (model);
  guint n_port_columns;
  const RtopColumnDef *port_columns = rtop_overview_section_get_port_columns (&n_port_columns);

  g_string_append_printf (out, "state=%s\n", rtop_overview_section_get_state (self));
  if (gtk_widget_get_visible (GTK_WIDGET (self->sources_status)))
    g_string_append_printf (out, "sources\t%s\n", gtk_label_get_label (self->sources_status));
  rtop_host_strip_dump (self->host_strip, out);
  g_string_append_printf (out, "scale\t%s\n", self->scale_peak ? "peak" : "link-rate");
  g_string_append_printf (out, "trouble-first\t%s\n", self->trouble_first ? "yes" : "no");
  if (gtk_search_bar_get_search_mode (self->filter_bar))
    g_string_append_printf (out, "filter\t%s\n", gtk_editable_get_text (GTK_EDITABLE (self->filter_entry)));
  {
    g_autofree char *columns = rtop_column_view_get_visible_ids (self->ports_view);
    g_string_append_printf (out, "columns\t%s\n", columns);
  }
  g_string_append_printf (out, "totals\tports=%s\ttx=%s\trx=%s\tpackets=%s\tproblems=%s\tproblems_caption=%s\n",
                          gtk_label_get_label (self->total_ports),
                          gtk_label_get_label (self->total_tx),
                          gtk_label_get_label (self->total_rx),
                          gtk_label_get_label (self->total_pps),
                          gtk_label_get_label (self->total_problems),
                          gtk_label_get_label (self->total_problems_caption));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopPortItem) item = g_list_model_get_item (model, i);
      g_autofree char *row = rtop_column_defs_row_text (port_columns, n_port_columns, item);

      g_string_append_printf (out, "row\t%s\n", row);
    }
  return g_string_free (out, FALSE);
}

static void
activate_cb (GtkColumnView *view, guint position, RtopOverviewSection *self)
{
  g_autoptr(RtopPortItem) item = g_list_model_get_item (G_LIST_MODEL (self->sorted), position);

  if (item)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.show-port", "s",
                                rtop_port_item_get_key (item));
}

static void
rtop_overview_section_dispose (GObject *object)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (object);

  g_clear_handle_id (&self->narrow_idle, g_source_remove);
  g_clear_handle_id (&self->refresh_timeout, g_source_remove);
  G_OBJECT_CLASS (rtop_overview_section_parent_class)->dispose (object);
}

static void
rtop_overview_section_finalize (GObject *object)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (object);

  g_clear_object (&self->sorted);
  g_clear_object (&self->filtered);
  g_clear_object (&self->recent);
  g_free (self->filter_text);
  G_OBJECT_CLASS (rtop_overview_section_parent_class)->finalize (object);
}

/* The sparklines' header says how much history they show. */
static void
update_graph_title (RtopOverviewSection *self)
{
  GListModel *columns = gtk_column_view_get_columns (self->ports_view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const RtopColumnDef *def = g_object_get_data (G_OBJECT (column), "rtop-def");

      if (def && g_str_equal (def->id, "graph"))
        {
          int minutes = (int) round (self->window_s / 60);
          /* Translators: header of the overview's graph column */
          g_autofree char *title = g_strdup_printf (ngettext ("Throughput, last %d minute",
                                                              "Throughput, last %d minutes", minutes),
                                                    minutes);
          gtk_column_view_column_set_title (column, title);
        }
    }
}

static void
rtop_overview_section_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      g_value_set_double (value, self->window_s);
      break;
    case PROP_SPARKLINE_SCALE:
      g_value_set_string (value, self->scale_peak ? "peak" : "link-rate");
      break;
    case PROP_HELD:
      g_value_set_boolean (value, self->held);
      break;
    case PROP_REFRESH_PERIOD:
      g_value_set_double (value, self->refresh_period);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_overview_section_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  RtopOverviewSection *self = RTOP_OVERVIEW_SECTION (object);

  switch (prop_id)
    {
    case PROP_TIME_WINDOW:
      if (self->window_s != g_value_get_double (value))
        {
          self->window_s = g_value_get_double (value);
          update_graph_title (self);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_SPARKLINE_SCALE:
      if (self->scale_peak != (g_strcmp0 (g_value_get_string (value), "peak") == 0))
        {
          self->scale_peak = !self->scale_peak;
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_REFRESH_PERIOD:
      if (self->refresh_period != g_value_get_double (value))
        {
          self->refresh_period = g_value_get_double (value);
          g_clear_handle_id (&self->refresh_timeout, g_source_remove);
          if (gtk_widget_get_mapped (GTK_WIDGET (self)))
            set_held (self, FALSE);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_overview_section_class_init (RtopOverviewSectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = rtop_overview_section_dispose;
  object_class->finalize = rtop_overview_section_finalize;
  object_class->get_property = rtop_overview_section_get_property;
  object_class->set_property = rtop_overview_section_set_property;
  widget_class->map = rtop_overview_section_map;
  widget_class->unmap = rtop_overview_section_unmap;
  RTOP_SECTION_CLASS (klass)->bind = rtop_overview_section_bind;
  RTOP_SECTION_CLASS (klass)->focus = rtop_overview_section_focus;
  RTOP_SECTION_CLASS (klass)->find = rtop_overview_section_find;
  RTOP_SECTION_CLASS (klass)->dump = rtop_overview_section_dump;
  rtop_section_class_set_page (RTOP_SECTION_CLASS (klass), "overview", N_("_Overview"),
                               "network-wired-symbolic");

  props[PROP_TIME_WINDOW] =
    g_param_spec_double ("time-window", NULL, NULL, 1, 3600, 300,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* What tops each sparkline: "link-rate" (its port's link rate, so ports
   * compare at a glance) or "peak" (its own peak over the window). */
  props[PROP_SPARKLINE_SCALE] =
    g_param_spec_string ("sparkline-scale", NULL, NULL, "link-rate",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* TRUE while new values wait (the sparklines bind it). */
  props[PROP_HELD] =
    g_param_spec_boolean ("held", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* Seconds between refreshes of what is shown (0: every update). */
  props[PROP_REFRESH_PERIOD] =
    g_param_spec_double ("refresh-period", NULL, NULL, 0, 60, 0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/rdmatop/Rdmatop/ui/rtop-overview-section.ui");
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, state_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, waiting_spinner);
  gtk_widget_class_bind_template_callback (widget_class, state_page_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, trouble_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, filter_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, filter_mode_cb);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, filter_bar);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, filter_entry);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, ports_view);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_ports);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_ports_caption);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_tx);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_rx);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_pps);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_problems);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, total_problems_caption);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, problems_card);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, vanished_banner);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, vanished_label);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, events_stack);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, recent_events);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, unavailable_page);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, sources_status);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, empty_page);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, empty_connect);
  gtk_widget_class_bind_template_child (widget_class, RtopOverviewSection, host_strip);
  gtk_widget_class_set_css_name (widget_class, "rtopoverview");

}

static int
compare_hosts (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const char *ha = rtop_port_item_get_host ((RtopPortItem *) a);
  const char *hb = rtop_port_item_get_host ((RtopPortItem *) b);

  if (ha == NULL || hb == NULL)
    return (ha != NULL) - (hb != NULL);
  return rtop_natural_compare (ha, hb);
}

static void
rtop_overview_section_init (RtopOverviewSection *self)
{
  g_autoptr(GtkSingleSelection) selection = NULL;
  GtkSorter *view_sorter;
  GtkMultiSorter *by_host;
  guint n_port_columns;
  const RtopColumnDef *port_columns = rtop_overview_section_get_port_columns (&n_port_columns);

  self->window_s = 300;
  g_type_ensure (RTOP_TYPE_HOST_STRIP);
  if (rtop_remote_display_is_remote (g_getenv ("SSH_CONNECTION"), g_getenv ("DISPLAY")))
    self->refresh_period = REMOTE_REFRESH_S;
  gtk_widget_init_template (GTK_WIDGET (self));
  self->problems_caption = GTK_WIDGET (self->total_problems_caption);
#if GTK_CHECK_VERSION (4, 8, 0)
  make_problems_inscription (self);
#endif
  state_page_changed_cb (self);
  rtop_column_view_add_columns (self->ports_view, port_columns, n_port_columns);
  if (self->refresh_period > 0)
    rtop_column_view_set_cells_per_frame (self->ports_view, REMOTE_CELLS_PER_FRAME);
  /* Held until first shown: a window that opens on another view (its
   * last one) does not update an overview nobody has seen; shown, it shows
   * the newest at once. */
  set_held (self, TRUE);
  self->held_update = TRUE;
  update_graph_title (self);

  view_sorter = gtk_column_view_get_sorter (self->ports_view);
  /* Rows stay grouped by host (this computer first), sorted within it;
   * with trouble first, the ports in trouble of every host come first. */
  by_host = gtk_multi_sorter_new ();
  self->trouble_sorter = gtk_custom_sorter_new (compare_trouble, self, NULL);
  gtk_multi_sorter_append (by_host, GTK_SORTER (self->trouble_sorter));
  gtk_multi_sorter_append (by_host, GTK_SORTER (gtk_custom_sorter_new (compare_hosts, NULL, NULL)));
  gtk_multi_sorter_append (by_host, g_object_ref (view_sorter));
  self->filter = gtk_custom_filter_new (filter_port, self, NULL);
  self->filtered = gtk_filter_list_model_new (NULL, GTK_FILTER (self->filter));
  self->sorted = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filtered)),
                                          GTK_SORTER (by_host));
  selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sorted)));
  gtk_single_selection_set_autoselect (selection, FALSE);
  gtk_column_view_set_model (self->ports_view, GTK_SELECTION_MODEL (selection));
  g_signal_connect (self->ports_view, "activate", G_CALLBACK (activate_cb), self);
  g_signal_connect_object (gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (self->ports_view)),
                           "notify::page-size", G_CALLBACK (table_width_cb), self, 0);

  gtk_search_bar_connect_entry (self->filter_bar, GTK_EDITABLE (self->filter_entry));
  name_close_button (GTK_WIDGET (self->filter_bar));
  self->recent = gtk_slice_list_model_new (NULL, 0, N_RECENT_EVENTS);
  gtk_list_box_bind_model (self->recent_events, G_LIST_MODEL (self->recent),
                           create_event_row, NULL, NULL);
}

GtkWidget *
rtop_overview_section_new (void)
{
  return g_object_new (RTOP_TYPE_OVERVIEW_SECTION, NULL);
}
