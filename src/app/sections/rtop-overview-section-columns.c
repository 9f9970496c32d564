/* rtop-overview-section-columns.c: the overview's ports table: what each
 * column shows and sorts by, and the sparklines that follow the overview's
 * time window and scale (the link's rate, or their own peak). */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-format.h"
#include "rtop-graph.h"
#include "rtop-overview-section-private.h"
#include "rtop-port-text.h"

/* On a remote display the sparklines move in steps of a sixth of their
 * window: between steps a new sample repaints a few pixel columns, not the
 * whole line. */
#define REMOTE_SCROLL_STEP (1.0 / 6)

/* ---- the ports table ---------------------------------------------------- */

static char *
port_text (gpointer item)
{
  return rtop_port_item_row_label (item);
}

static const char *
port_key (gpointer item)
{
  return rtop_port_item_get_key (item);
}

static char *
protocol_text (gpointer item)
{
  return g_strdup (rtop_protocol_label (rtop_port_item_get_protocol (item)));
}

static const char *
protocol_key (gpointer item)
{
  return rtop_protocol_label (rtop_port_item_get_protocol (item));
}

static char *
state_text (gpointer item)
{
  /* The dot carries the colour; the word carries the meaning. */
  return g_strdup_printf ("● %s", rtop_port_item_state_label (item));
}

static double
state_key (gpointer item)
{
  return rtop_port_item_get_vanished (item) ? -1 : rtop_port_item_get_state (item);
}

static const char *
state_css (gpointer item)
{
  return rtop_port_item_state_class (item);
}

static char *
link_text (gpointer item)
{
  return rtop_port_item_link_text (item);
}

static double
link_key (gpointer item)
{
  return rtop_port_item_get_link_gbps (item);
}

static GtkWidget *
sparkline_setup (void)
{
  GtkWidget *graph = rtop_graph_new ();

  rtop_graph_set_compact (RTOP_GRAPH (graph), TRUE);
  rtop_graph_add_channel (RTOP_GRAPH (graph), RTOP_PORT_CH_TX_BPS, _("TX"), "rtop_tx_color");
  rtop_graph_add_channel (RTOP_GRAPH (graph), RTOP_PORT_CH_RX_BPS, _("RX"), "rtop_rx_color");
  gtk_widget_set_size_request (graph, 140, 28);
  rtop_graph_set_held (RTOP_GRAPH (graph), TRUE);
  return graph;
}

/* A sparkline's top: its port's link rate (busy ports look busy, idle
 * ones flat, whatever their speed), or with the "peak" scale, or no known
 * rate, its own peak. */
static void
apply_scale (GtkWidget *cell)
{
  RtopOverviewSection *overview = RTOP_OVERVIEW_SECTION (gtk_widget_get_ancestor (cell, RTOP_TYPE_OVERVIEW_SECTION));
  RtopPortItem *item = g_object_get_data (G_OBJECT (cell), "rtop-sparkline-item");
  double gbps = item ? rtop_port_item_get_link_gbps (item) : 0;
  double top = overview && !overview->scale_peak && gbps > 0 && rtop_port_item_get_link_up (item)
               ? gbps * 1e9 : 0;

  g_object_set (cell, "fixed-max", top, NULL);
}

static void
scale_changed_cb (GObject *overview, GParamSpec *pspec, GtkWidget *cell)
{
  apply_scale (cell);
}

static void
sparkline_bind (GtkWidget *cell, gpointer item)
{
  RtopGraph *graph = RTOP_GRAPH (cell);
  GtkWidget *overview;

  rtop_graph_set_series (graph, item ? rtop_port_item_get_series (item) : NULL);
  g_object_set_data (G_OBJECT (cell), "rtop-sparkline-item", item);
  if (item)
    {
      g_autofree char *label = g_strdup_printf (_("Throughput of %s"), rtop_port_item_get_key (item));

      gtk_accessible_update_property (GTK_ACCESSIBLE (cell), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      label, -1);
    }
  /* New samples show when the table shows its row's changes, a few rows
   * a frame, with its numbers. */
  rtop_graph_show_held (graph);
  if (item == NULL || g_object_get_data (G_OBJECT (cell), "rtop-window-bound"))
    {
      apply_scale (cell);
      return;
    }
  /* Follow the overview's time window for as long as the cell lives. */
  overview = gtk_widget_get_ancestor (cell, RTOP_TYPE_OVERVIEW_SECTION);
  if (overview)
    {
      g_object_bind_property (overview, "time-window", graph, "window-seconds",
                              G_BINDING_SYNC_CREATE);
      g_signal_connect_object (overview, "notify::sparkline-scale", G_CALLBACK (scale_changed_cb),
                               cell, 0);
      g_object_set_data (G_OBJECT (cell), "rtop-window-bound", GINT_TO_POINTER (1));
      if (RTOP_OVERVIEW_SECTION (overview)->refresh_period > 0)
        rtop_graph_set_scroll_step (graph, REMOTE_SCROLL_STEP);
    }
  apply_scale (cell);
}

static char *
rate_text (gpointer item, RtopPortChannel channel, RtopUnit unit)
{
  return rtop_format_rate (rtop_port_item_get_rate (item, channel), unit);
}

static char *
tx_text (gpointer item)
{
  return rtop_format_gbps (rtop_port_item_get_rate (item, RTOP_PORT_CH_TX_BPS));
}

static double
tx_key (gpointer item)
{
  return rtop_port_item_get_rate (item, RTOP_PORT_CH_TX_BPS);
}

static char *
rx_text (gpointer item)
{
  return rtop_format_gbps (rtop_port_item_get_rate (item, RTOP_PORT_CH_RX_BPS));
}

static double
rx_key (gpointer item)
{
  return rtop_port_item_get_rate (item, RTOP_PORT_CH_RX_BPS);
}

static double
pps_key (gpointer item)
{
  double tx = rtop_port_item_get_rate (item, RTOP_PORT_CH_TX_PPS);
  double rx = rtop_port_item_get_rate (item, RTOP_PORT_CH_RX_PPS);

  if (isnan (tx) && isnan (rx))
    return NAN;
  return (isnan (tx) ? 0 : tx) + (isnan (rx) ? 0 : rx);
}

static char *
pps_text (gpointer item)
{
  return rtop_format_rate (pps_key (item), RTOP_UNIT_PACKETS_PER_S);
}

static char *
util_text (gpointer item)
{
  return rtop_format_percent (rtop_port_item_get_utilisation (item));
}

static double
util_key (gpointer item)
{
  return rtop_port_item_get_utilisation (item);
}

/* A rising count takes its row's verdict colour: the red of an Error,
 * the amber of a Warning, none while the verdict is OK (light loss that
 * raised nothing). */
static const char *
value_css (gpointer item)
{
  if (rtop_port_item_get_vanished (item))
    return NULL;
  switch (rtop_port_item_get_health (item, NULL))
    {
    case RTOP_PORT_HEALTH_ERROR: return "state-bad";
    case RTOP_PORT_HEALTH_WARNING: return "state-warn";
    case RTOP_PORT_HEALTH_OK:
    default: return NULL;
    }
}

#define PROBLEM_COLUMN(name, channel)                                        \
  static char *name##_text (gpointer item)                                   \
  { return rate_text (item, channel, RTOP_UNIT_EVENTS_PER_S); }              \
  static double name##_key (gpointer item)                                   \
  { return rtop_port_item_get_rate (item, channel); }                        \
  static const char *name##_css (gpointer item)                              \
  { return rtop_port_item_get_rate (item, channel) > 0 ? value_css (item) : NULL; }

PROBLEM_COLUMN (drops, RTOP_PORT_CH_DROPS)
PROBLEM_COLUMN (retrans, RTOP_PORT_CH_RETRANS)
PROBLEM_COLUMN (errors, RTOP_PORT_CH_ERRORS)

static char *
health_text (gpointer item)
{
  return rtop_port_item_health_text (item);
}

/* The verdict sorts: Errors, then Warnings, then OK. */
static double
health_key (gpointer item)
{
  return rtop_port_item_get_health (item, NULL);
}

static const char *
health_css (gpointer item)
{
  return rtop_port_item_health_class (item);
}

static const RtopColumnDef port_columns[] = {
  { "port", N_("Port"), NULL, port_text, NULL, port_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "protocol", N_("Protocol"), NULL, protocol_text, NULL, protocol_key, NULL, NULL, NULL, FALSE, FALSE, 0 },
  { "state", N_("State"), NULL, state_text, state_key, NULL, state_css, NULL, NULL, FALSE, FALSE, 0 },
  { "link", N_("Link"), N_("Link rate"), link_text, link_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "graph", N_("Throughput"), NULL, NULL, NULL, NULL, NULL, sparkline_setup, sparkline_bind, FALSE, TRUE, 0 },
  { "tx", N_("TX"), N_("Transmit throughput"), tx_text, tx_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "rx", N_("RX"), N_("Receive throughput"), rx_text, rx_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "pps", N_("Packets"), N_("Packets per second, transmit + receive"), pps_text, pps_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "util", N_("Use"), N_("Utilisation of the link rate"), util_text, util_key, NULL, NULL, NULL, NULL, TRUE, FALSE, 0 },
  { "drops", N_("Drops"), N_("Dropped packets per second"), drops_text, drops_key, NULL, drops_css, NULL, NULL, TRUE, FALSE, 0 },
  { "retrans", N_("Retrans."), N_("Retransmits per second"), retrans_text, retrans_key, NULL, retrans_css, NULL, NULL, TRUE, FALSE, 0 },
  { "errors", N_("Errors"), N_("Errors per second"), errors_text, errors_key, NULL, errors_css, NULL, NULL, TRUE, FALSE, 0 },
  { "health", N_("Health"), NULL, health_text, health_key, NULL, health_css, NULL, NULL, FALSE, FALSE, 0 },
};

const RtopColumnDef *
rtop_overview_section_get_port_columns (guint *n_columns)
{
  *n_columns = G_N_ELEMENTS (port_columns);
  return port_columns;
}
