/* rtop-port-text.c: how a port's fields read in every view: labels, CSS
 * classes and notes from one table each. */
#include "config.h"

#include <glib/gi18n.h>

#include "rtop-event-item.h"
#include "rtop-port-text.h"

static const struct {
  const char *protocol;
  const char *label;
} protocols[] = {
  { "ib", N_("InfiniBand") },
  { "roce", N_("RoCE") },
  { "iw", N_("iWARP") },
  { "opa", N_("Omni-Path") },
  { "usnic", N_("usNIC") },
  { "nvlink", N_("NVLink") },
  { "xgmi", N_("XGMI") },
};

/* IB port states (index = kernel value) with their CSS class. */
static const struct {
  const char *label;
  const char *css;
} states[] = {
  [0] = { N_("Unknown"), "state-warn" },
  [1] = { N_("Down"), "state-bad" },
  [2] = { N_("Initializing"), "state-warn" },
  [3] = { N_("Armed"), "state-warn" },
  [4] = { N_("Active"), "state-ok" },
  [5] = { N_("Active (deferred)"), "state-warn" },
};

const char *
rtop_protocol_label (const char *protocol)
{
  if (protocol == NULL)
    return "—";
  for (guint i = 0; i < G_N_ELEMENTS (protocols); i++)
    if (g_str_equal (protocols[i].protocol, protocol))
      return _(protocols[i].label);
  return protocol;
}

const char *
rtop_port_item_state_label (RtopPortItem *item)
{
  guint8 state = rtop_port_item_get_state (item);

  if (rtop_port_item_get_vanished (item))
    return _("Vanished");
  return state < G_N_ELEMENTS (states) ? _(states[state].label) : _("Unknown");
}

const char *
rtop_port_item_state_class (RtopPortItem *item)
{
  guint8 state = rtop_port_item_get_state (item);

  if (rtop_port_item_get_vanished (item))
    return "state-gone";
  return state < G_N_ELEMENTS (states) ? states[state].css : "state-warn";
}

char *
rtop_port_item_health_text (RtopPortItem *item)
{
  const char *reason = NULL;
  RtopPortHealth health;

  if (rtop_port_item_get_vanished (item))
    return g_strdup (_("Device removed"));
  /* The verdict from everything that matters: state, link, episodes. */
  health = rtop_port_item_get_health (item, &reason);
  if (health == RTOP_PORT_HEALTH_OK)
    return g_strdup (_("OK"));
  /* An Error and a Warning differ by their sign, not by colour alone. */
  return g_strdup_printf ("%s %s", health == RTOP_PORT_HEALTH_ERROR ? RTOP_SIGN_ERROR : RTOP_SIGN_WARNING,
                          reason != NULL ? reason : _("Trouble"));
}

const char *
rtop_port_item_health_class (RtopPortItem *item)
{
  if (rtop_port_item_get_vanished (item))
    return "state-gone";
  switch (rtop_port_item_get_health (item, NULL))
    {
    case RTOP_PORT_HEALTH_ERROR:
      return "state-bad";
    case RTOP_PORT_HEALTH_WARNING:
      return "state-warn";
    case RTOP_PORT_HEALTH_OK:
    default:
      return "state-ok";
    }
}

char *
rtop_port_item_link_text (RtopPortItem *item)
{
  double gbps = rtop_port_item_get_link_gbps (item);

  /* A port that is not up has no live rate, whatever sysfs still says. */
  if (!rtop_port_item_get_vanished (item) && !rtop_port_item_get_link_up (item))
    return g_strdup (_("Down"));
  if (!(gbps > 0))
    return g_strdup ("—");
  /* Translators: a link rate in gigabits per second */
  return g_strdup_printf (_("%g Gb/s"), gbps);
}

char *
rtop_port_item_row_label (RtopPortItem *item)
{
  const char *host = rtop_port_item_get_host (item);
  g_autofree char *device = NULL;

  if (!rtop_port_item_get_is_gpu (item))
    return g_strdup (rtop_port_item_get_key (item));
  /* A remote host's GPU is written as its port keys are: "node1:nvidia0". */
  device = host != NULL ? g_strdup_printf ("%s:%s", host, rtop_port_item_get_device (item))
                        : g_strdup (rtop_port_item_get_device (item));
  if (rtop_port_item_get_is_all_links (item))
    /* Translators: a GPU's row for what it counts over all its links, "nvidia0 all links" */
    return g_strdup_printf (_("%s all links"), device);
  /* Translators: one GPU interconnect link, "nvidia0 link 3" (the library's link number) */
  return g_strdup_printf (_("%s link %u"), device, rtop_port_item_get_port (item) - 1);
}

static char *
port_title_here (RtopPortItem *item)
{
  if (rtop_port_item_get_is_gpu (item))
    return rtop_port_item_row_label (item);
  /* Translators: "rxe0 port 1" */
  return g_strdup_printf (_("%s port %u"), rtop_port_item_get_device (item),
                          rtop_port_item_get_port (item));
}

char *
rtop_port_item_title (RtopPortItem *item)
{
  g_autofree char *title = port_title_here (item);
  const char *host = rtop_port_item_get_host (item);

  if (host == NULL)
    return g_steal_pointer (&title);
  /* Translators: a port and the remote host it is on, "rxe0 port 1 on node1" */
  return g_strdup_printf (_("%s on %s"), title, host);
}

const char *
rtop_port_item_scope_note (RtopPortItem *item)
{
  if (!rtop_port_item_get_is_all_links (item))
    return NULL;
  return _("Throughput here is the GPU-wide total over all its links: the GPU library counts it for the whole GPU, not per link.");
}
