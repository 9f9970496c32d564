/* rtop-host-strip.c: one card per source above the overview's table: its name,
 * state and totals.
 *
 * Cards are made when the session's sources change and only their labels
 * change afterwards (GtkLabel ignores a text it already shows), so a
 * history update costs no new widgets. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-format.h"
#include "rtop-host-strip.h"

struct _RtopHostStrip {
  GtkBox parent_instance;

  GListModel *sources;       /* RtopSource */
  RtopHistory *history;
  GtkFlowBox *flow;
  GPtrArray *cards;          /* Card*, one per source, in its order */
};

typedef struct {
  RtopHostStrip *strip;
  RtopSource *source;
  GtkWidget *box;
  GtkLabel *name;
  GtkLabel *state;
  GtkLabel *detail;
} Card;

G_DEFINE_FINAL_TYPE (RtopHostStrip, rtop_host_strip, GTK_TYPE_BOX)

static const char *
state_class (RtopSourceState state)
{
  switch (state)
    {
    case RTOP_SOURCE_STATE_RUNNING: return "state-ok";
    case RTOP_SOURCE_STATE_CONNECTING:
    case RTOP_SOURCE_STATE_LOST: return "state-warn";
    case RTOP_SOURCE_STATE_FAILED: return "state-bad";
    case RTOP_SOURCE_STATE_STOPPED:
    case RTOP_SOURCE_STATE_FINISHED:
    default: return "state-gone";
    }
}

/* What the host has, or why it has nothing to show. */
static char *
host_detail (RtopHostStrip *self, RtopSource *source)
{
  const char *host = rtop_session_source_host (source);
  RtopSnapshot *latest = rtop_history_get_host_latest (self->history, host);
  RtopSourceState state = rtop_source_get_state (source);
  g_autofree char *tx = NULL, *rx = NULL;
  RtopTotals t;

  if (state != RTOP_SOURCE_STATE_RUNNING && rtop_source_get_error (source) != NULL)
    return g_strdup (rtop_source_get_error (source));
  if (latest == NULL || state != RTOP_SOURCE_STATE_RUNNING)
    return g_strdup (state == RTOP_SOURCE_STATE_CONNECTING ? _("Waiting for the first sample…") : "");
  rtop_history_get_host_totals (self->history, host, &t);
  if (t.n_ports == 0 && latest->status != RTOP_STATUS_OK)
    /* Translators: %s is why a host's RDMA devices cannot be read */
    return g_strdup_printf (_("No RDMA here: %s"), latest->status_message ? latest->status_message : "");
  if (t.n_ports == 0)
    return g_strdup (_("No RDMA devices"));
  tx = rtop_format_rate (t.tx_bps, RTOP_UNIT_BITS_PER_S);
  rx = rtop_format_rate (t.rx_bps, RTOP_UNIT_BITS_PER_S);
  /* Translators: a host's totals: ports, devices, transmit and receive, ports in trouble */
  return g_strdup_printf (ngettext ("%u port on %u device · TX %s · RX %s · %u in trouble",
                                    "%u ports on %u devices · TX %s · RX %s · %u in trouble",
                                    t.n_ports),
                          t.n_ports, t.n_devices, tx, rx, t.n_problem_ports);
}

/* A live host whose kernel gives no RDMA is not in trouble, and not live
 * in the sense a green "Live" gives: it has nothing to show. */
static gboolean
host_has_no_rdma (RtopHostStrip *self, RtopSource *source)
{
  const char *host = rtop_session_source_host (source);
  RtopSnapshot *latest = rtop_history_get_host_latest (self->history, host);
  RtopTotals t;

  if (latest == NULL || rtop_source_get_state (source) != RTOP_SOURCE_STATE_RUNNING)
    return FALSE;
  rtop_history_get_host_totals (self->history, host, &t);
  return t.n_ports == 0 && latest->status != RTOP_STATUS_OK;
}

static void
update_card (RtopHostStrip *self, Card *card)
{
  RtopSourceState state = rtop_source_get_state (card->source);
  gboolean no_rdma = host_has_no_rdma (self, card->source);
  /* Translators: a host card's state when the host has no RDMA to show */
  const char *state_label = no_rdma ? _("No RDMA") : rtop_source_state_to_label (state);
  g_autofree char *state_text = g_strdup_printf (no_rdma ? "○ %s" : "● %s", state_label);
  g_autofree char *detail = host_detail (self, card->source);
  g_autofree char *description = NULL;
  const char *classes[] = { no_rdma ? "state-none" : state_class (state), NULL };

  gtk_label_set_label (card->name, rtop_source_get_name (card->source));
  gtk_label_set_label (card->state, state_text);
  gtk_widget_set_css_classes (GTK_WIDGET (card->state), classes);
  gtk_label_set_label (card->detail, detail);
  /* Its tooltip is the label's text, given when asked (detail_tooltip_cb):
   * setting a tooltip asks the display where the pointer is, a round trip
   * to the X server, and with eight hosts' cards updated at every pass of
   * each that was most of the window's CPU. */
  /* Translators: a host card for screen readers: name, state, details */
  description = g_strdup_printf (_("%s: %s. %s"), rtop_source_get_name (card->source),
                                 state_label, detail);
  gtk_accessible_update_property (GTK_ACCESSIBLE (card->box), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  description, -1);
}

/* A card's details in full (the label may be cut at two lines). */
static gboolean
detail_tooltip_cb (GtkWidget *label, int x, int y, gboolean keyboard, GtkTooltip *tooltip)
{
  const char *text = gtk_label_get_text (GTK_LABEL (label));

  if (text == NULL || text[0] == '\0')
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

/* Every card from the newest passes: the overview calls it when it shows
 * them (not while it is hidden, or held between a remote display's
 * refreshes); a source's own state changes show at once. */
void
rtop_host_strip_update (RtopHostStrip *self)
{
  g_return_if_fail (RTOP_IS_HOST_STRIP (self));

  for (guint i = 0; i < self->cards->len; i++)
    update_card (self, g_ptr_array_index (self->cards, i));
  gtk_widget_set_visible (GTK_WIDGET (self), self->cards->len > 1);
  gtk_flow_box_set_min_children_per_line (self->flow, CLAMP (self->cards->len, 1, 4));
}

static void
source_notify_cb (RtopSource *source, GParamSpec *pspec, RtopHostStrip *self)
{
  rtop_host_strip_update (self);
}

static Card *
card_new (RtopHostStrip *self, RtopSource *source)
{
  Card *card = g_new0 (Card, 1);
  GtkWidget *head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);

  card->strip = self;
  card->source = g_object_ref (source);
  card->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  card->name = GTK_LABEL (gtk_label_new (NULL));
  card->state = GTK_LABEL (gtk_label_new (NULL));
  card->detail = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_add_css_class (card->box, "card");
  gtk_widget_add_css_class (card->box, "host-card");
  gtk_accessible_update_property (GTK_ACCESSIBLE (card->box), GTK_ACCESSIBLE_PROPERTY_ROLE_DESCRIPTION,
                                  _("Host"), -1);
  gtk_widget_set_hexpand (card->box, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (card->name), "heading");
  gtk_label_set_xalign (card->name, 0);
  gtk_label_set_ellipsize (card->name, PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (card->detail, 0);
  gtk_widget_set_has_tooltip (GTK_WIDGET (card->detail), TRUE);
  g_signal_connect (card->detail, "query-tooltip", G_CALLBACK (detail_tooltip_cb), NULL);
  gtk_label_set_wrap (card->detail, TRUE);
  gtk_label_set_wrap_mode (card->detail, PANGO_WRAP_WORD_CHAR);
  /* Two lines: the cards leave the table its room in a small window. */
  gtk_label_set_lines (card->detail, 2);
  /* Narrow enough that three or four cards share a row. */
  gtk_label_set_width_chars (card->detail, 24);
  gtk_label_set_max_width_chars (card->detail, 40);
  gtk_label_set_ellipsize (card->detail, PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (GTK_WIDGET (card->detail), "card-caption");
  gtk_box_append (GTK_BOX (head), GTK_WIDGET (card->name));
  gtk_box_append (GTK_BOX (head), GTK_WIDGET (card->state));
  gtk_box_append (GTK_BOX (card->box), head);
  gtk_box_append (GTK_BOX (card->box), GTK_WIDGET (card->detail));
  g_signal_connect_object (source, "notify::state", G_CALLBACK (source_notify_cb), self, 0);
  g_signal_connect_object (source, "notify::error", G_CALLBACK (source_notify_cb), self, 0);
  gtk_flow_box_insert (self->flow, card->box, -1);
  return card;
}

static void
card_free (gpointer data)
{
  Card *card = data;

  g_signal_handlers_disconnect_by_data (card->source, card->strip);
  gtk_flow_box_remove (card->strip->flow, gtk_widget_get_parent (card->box));
  g_object_unref (card->source);
  g_free (card);
}

static void
rebuild (RtopHostStrip *self)
{
  guint n = self->sources ? g_list_model_get_n_items (self->sources) : 0;

  g_ptr_array_set_size (self->cards, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSource) source = g_list_model_get_item (self->sources, i);

      g_ptr_array_add (self->cards, card_new (self, source));
    }
  rtop_host_strip_update (self);
}

void
rtop_host_strip_bind (RtopHostStrip *self, RtopSession *session)
{
  g_return_if_fail (RTOP_IS_HOST_STRIP (self));

  g_ptr_array_set_size (self->cards, 0);
  if (self->sources)
    g_signal_handlers_disconnect_by_data (self->sources, self);
  g_clear_object (&self->sources);
  g_clear_object (&self->history);
  if (session != NULL)
    {
      self->sources = g_object_ref (rtop_session_get_sources (session));
      self->history = g_object_ref (rtop_session_get_history (session));
      g_signal_connect_object (self->sources, "items-changed", G_CALLBACK (rebuild), self,
                               G_CONNECT_SWAPPED);
    }
  rebuild (self);
}

guint
rtop_host_strip_get_n_sources (RtopHostStrip *self)
{
  g_return_val_if_fail (RTOP_IS_HOST_STRIP (self), 0);
  return self->cards->len;
}

void
rtop_host_strip_dump (RtopHostStrip *self, GString *out)
{
  for (guint i = 0; i < self->cards->len; i++)
    {
      Card *card = g_ptr_array_index (self->cards, i);

      g_string_append_printf (out, "host\t%s\tstate=%s\tdetail=%s\n",
                              gtk_label_get_label (card->name),
                              host_has_no_rdma (self, card->source)
                              ? "No RDMA" : rtop_source_state_to_label (rtop_source_get_state (card->source)),
                              gtk_label_get_label (card->detail));
    }
}

static void
rtop_host_strip_dispose (GObject *object)
{
  RtopHostStrip *self = RTOP_HOST_STRIP (object);

  if (self->cards)
    g_ptr_array_set_size (self->cards, 0);
  g_clear_pointer (&self->cards, g_ptr_array_unref);
  g_clear_object (&self->sources);
  g_clear_object (&self->history);
  G_OBJECT_CLASS (rtop_host_strip_parent_class)->dispose (object);
}

static void
rtop_host_strip_class_init (RtopHostStripClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_host_strip_dispose;
  gtk_widget_class_set_css_name (GTK_WIDGET_CLASS (klass), "rtophoststrip");
  gtk_widget_class_set_accessible_role (GTK_WIDGET_CLASS (klass), GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
rtop_host_strip_init (RtopHostStrip *self)
{
  /* A job's eight nodes wrap into rows instead of squeezing into one. */
  self->flow = GTK_FLOW_BOX (gtk_flow_box_new ());
  gtk_flow_box_set_selection_mode (self->flow, GTK_SELECTION_NONE);
  gtk_flow_box_set_homogeneous (self->flow, TRUE);
  gtk_flow_box_set_min_children_per_line (self->flow, 1);
  gtk_flow_box_set_max_children_per_line (self->flow, 4);
  gtk_flow_box_set_column_spacing (self->flow, 12);
  gtk_flow_box_set_row_spacing (self->flow, 12);
  gtk_widget_set_hexpand (GTK_WIDGET (self->flow), TRUE);
  gtk_box_append (GTK_BOX (self), GTK_WIDGET (self->flow));
  gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Hosts"), -1);
  self->cards = g_ptr_array_new_with_free_func (card_free);
}
