/* nl-probe: what rdmatop's netlink layer reads from this kernel.
 *
 * Runs the requests of one sampling pass through RtopNl and the parsers
 * (src/collector/rtop-nl*.c) and prints every parsed reply as one JSON
 * object per line, so a test can compare it with `rdma -j dev/link/
 * statistic/res`.  --passes N instead times N passes (CPU per pass, the
 * same output format as nl-floor), to compare the layer with the floor.
 * --monitor SECONDS prints device events for that long.
 * --res-without-index shows what the kernel answers to a RES_QP_GET dump
 * without DEV_INDEX (rdmatop must ask per device).
 *
 * Usage: nl-probe [--passes N | --monitor SECONDS | --res-without-index] */
#include "rtop-nl-private.h"
#include "rtop-error.h"
#include "uapi/rdma/rdma_netlink.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <poll.h>
#include <sys/socket.h>
#include <stdio.h>
#include <sys/resource.h>

typedef struct {
  gboolean print;
  GArray *devices;     /* RtopNlDevice */
  GArray *res;         /* RtopNlRes */
  guint n_failed;
} Probe;

static gboolean
device_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Probe *p = user_data;
  RtopNlDevice d;

  if (!rtop_nl_parse_device (nlh, &d, error))
    return FALSE;
  if (p->print)
    g_print ("{\"device\":{\"index\":%u,\"name\":\"%s\",\"ports\":%u,\"node_type\":%u,"
             "\"fw\":\"%s\",\"node_guid\":\"%016" G_GINT64_MODIFIER "x\",\"protocol\":\"%s\"}}\n",
             d.index, d.name, d.port_count, d.node_type, d.fw_version ? d.fw_version : "",
             d.node_guid, d.protocol ? d.protocol : "");
  g_array_append_val (p->devices, d);
  return TRUE;
}

static gboolean
port_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Probe *p = user_data;
  RtopNlPort port;

  if (!rtop_nl_parse_port (nlh, &port, error))
    return FALSE;
  if (p->print)
    g_print ("{\"port\":{\"dev\":\"%s\",\"port\":%u,\"state\":%u,\"phys_state\":%u,"
             "\"ndev_index\":%u,\"ndev\":\"%s\"}}\n",
             port.dev_name ? port.dev_name : "", port.port, port.state, port.phys_state,
             port.ndev_index, port.ndev_name ? port.ndev_name : "");
  rtop_nl_port_clear (&port);
  return TRUE;
}

static gboolean
stat_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Probe *p = user_data;
  RtopNlStat s;

  if (!rtop_nl_parse_stat (nlh, &s, error))
    return FALSE;
  if (p->print)
    {
      g_print ("{\"stat\":{\"dev\":\"%s\",\"port\":%u,\"counters\":{",
               s.dev_name ? s.dev_name : "", s.port);
      for (guint i = 0; i < s.counters->len; i++)
        {
          RtopNlCounter *c = &g_array_index (s.counters, RtopNlCounter, i);
          g_print ("%s\"%s\":%" G_GUINT64_FORMAT, i ? "," : "", c->name, c->value);
        }
      g_print ("}}}\n");
    }
  rtop_nl_stat_clear (&s);
  return TRUE;
}

typedef struct {
  Probe *probe;
  RtopNlResKind kind;
} ResCall;

static gboolean
res_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  ResCall *call = user_data;

  return rtop_nl_parse_res (nlh, call->kind, call->probe->res, error);
}

static gboolean
sys_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  Probe *p = user_data;
  RtopNlSys sys;

  if (!rtop_nl_parse_sys (nlh, &sys, error))
    return FALSE;
  if (p->print)
    g_print ("{\"sys\":{\"has_monitor_mode\":%s,\"monitor_mode\":%u,\"netns_mode\":%u}}\n",
             sys.has_monitor_mode ? "true" : "false", sys.monitor_mode, sys.netns_mode);
  return TRUE;
}

static void
print_res (Probe *p)
{
  static const char *const kinds[] = { "qp", "ctx", "mr" };

  for (guint i = 0; i < p->res->len; i++)
    {
      RtopNlRes *r = &g_array_index (p->res, RtopNlRes, i);

      g_print ("{\"res\":{\"kind\":\"%s\",\"dev\":\"%s\",\"dev_index\":%u,\"id\":%u,"
               "\"port\":%u,\"type\":%u,\"state\":%u,\"mr_len\":%" G_GUINT64_FORMAT ","
               "\"pid\":%d,\"kern_name\":\"%s\"}}\n",
               kinds[r->kind], r->dev_name ? r->dev_name : "", r->dev_index, r->id, r->port,
               r->qp_type, r->qp_state, r->mr_len, r->has_pid ? (int) r->pid : -1,
               r->kern_name ? r->kern_name : "");
    }
}

static void
query (RtopNl *nl, Probe *p, guint16 cmd, gboolean dump, guint32 dev, guint32 port,
       RtopNlMsgFunc func, gpointer data)
{
  g_autoptr(GError) error = NULL;

  if (!rtop_nl_query (nl, cmd, dump, dev, port, func, data, &error))
    {
      p->n_failed++;
      if (p->print)
        g_printerr ("nl-probe: %s\n", error->message);
    }
}

static void
one_pass (RtopNl *nl, Probe *p)
{
  static const guint16 res_cmds[] = {
    [RTOP_NL_RES_QP] = RDMA_NLDEV_CMD_RES_QP_GET,
    [RTOP_NL_RES_CTX] = RDMA_NLDEV_CMD_RES_CTX_GET,
    [RTOP_NL_RES_MR] = RDMA_NLDEV_CMD_RES_MR_GET,
  };

  g_array_set_size (p->devices, 0);
  g_array_set_size (p->res, 0);
  query (nl, p, RDMA_NLDEV_CMD_SYS_GET, FALSE, RTOP_NL_NO_INDEX, 0, sys_cb, p);
  query (nl, p, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0, device_cb, p);
  for (guint i = 0; i < p->devices->len; i++)
    {
      RtopNlDevice *d = &g_array_index (p->devices, RtopNlDevice, i);

      query (nl, p, RDMA_NLDEV_CMD_PORT_GET, TRUE, d->index, 0, port_cb, p);
      for (guint32 port = 1; port <= d->port_count; port++)
        query (nl, p, RDMA_NLDEV_CMD_STAT_GET, FALSE, d->index, port, stat_cb, p);
      for (guint k = 0; k < G_N_ELEMENTS (res_cmds); k++)
        {
          ResCall call = { p, k };
          query (nl, p, res_cmds[k], TRUE, d->index, 0, res_cb, &call);
        }
    }
}

static gboolean
event_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  RtopNlEvent ev;

  if (!rtop_nl_parse_event (nlh, &ev, error))
    return FALSE;
  g_print ("{\"event\":{\"type\":%u,\"dev_index\":%d,\"dev\":\"%s\",\"port\":%u,"
           "\"ndev_index\":%u,\"ndev\":\"%s\"}}\n",
           ev.event_type, ev.dev_index == RTOP_NL_NO_INDEX ? -1 : (int) ev.dev_index,
           ev.dev_name ? ev.dev_name : "", ev.port, ev.ndev_index,
           ev.ndev_name ? ev.ndev_name : "");
  rtop_nl_event_clear (&ev);
  return TRUE;
}

static int
monitor (guint seconds)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopNl) mon = rtop_nl_open_monitor (&error);
  gint64 end = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  if (mon == NULL)
    {
      g_printerr ("nl-probe: %s\n", error->message);
      return 1;
    }
  g_print ("{\"monitor\":\"ready\"}\n");
  while (g_get_monotonic_time () < end)
    {
      struct pollfd pfd = { rtop_nl_get_fd (mon), POLLIN, 0 };
      gboolean overrun = FALSE;

      if (poll (&pfd, 1, 100) <= 0)
        continue;
      if (!rtop_nl_read_monitor (mon, event_cb, NULL, &overrun, &error))
        {
          g_printerr ("nl-probe: %s\n", error->message);
          return 1;
        }
      if (overrun)
        g_print ("{\"overrun\":true}\n");
    }
  return 0;
}

/* The kernel's own answer to a RES_QP_GET dump without DEV_INDEX, sent raw
 * on the RtopNl socket. */
static void
raw_res_without_index (RtopNl *nl)
{
  union { guint8 bytes[64]; struct nlmsghdr align; } req = { { 0 } };
  struct nlmsghdr *nlh = mnl_nlmsg_put_header (req.bytes);
  g_autofree guint8 *buf = g_malloc (64 * 1024);
  g_autoptr(GError) error = NULL;
  const guint32 seq = 0xfffffff0u;   /* above RtopNl's own sequence numbers */
  gboolean done = FALSE;

  nlh->nlmsg_type = RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, RDMA_NLDEV_CMD_RES_QP_GET);
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  nlh->nlmsg_seq = seq;
  if (send (rtop_nl_get_fd (nl), nlh, nlh->nlmsg_len, 0) < 0)
    g_error ("send: %s", g_strerror (errno));
  while (!done && error == NULL)
    {
      gssize n = recv (rtop_nl_get_fd (nl), buf, 64 * 1024, 0);

      if (n <= 0)
        g_error ("recv: %s", n < 0 ? g_strerror (errno) : "EOF");
      rtop_nl_process_buffer (buf, n, seq, rtop_nl_get_portid (nl), NULL, NULL, &done, &error);
    }
  if (error == NULL)
    g_print ("{\"res_without_index\":{\"ok\":true}}\n");
  else
    {
      g_autofree char *msg = g_strescape (error->message, NULL);
      g_print ("{\"res_without_index\":{\"ok\":false,\"code\":%d,\"message\":\"%s\"}}\n",
               error->code, msg);
    }
}

static int
res_without_index (RtopNl *nl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) devices = g_array_new (FALSE, TRUE, sizeof (RtopNlDevice));
  g_autoptr(GArray) res = g_array_new (FALSE, TRUE, sizeof (RtopNlRes));
  Probe p = { FALSE, devices, res, 0 };
  ResCall call = { &p, RTOP_NL_RES_QP };

  raw_res_without_index (nl);
  g_array_set_clear_func (devices, (GDestroyNotify) rtop_nl_device_clear);
  g_array_set_clear_func (res, (GDestroyNotify) rtop_nl_res_clear);
  /* What rdmatop asks instead: the device list, then each device's dump. */
  if (rtop_nl_query (nl, RDMA_NLDEV_CMD_GET, TRUE, RTOP_NL_NO_INDEX, 0, device_cb, &p, &error))
    for (guint i = 0; i < devices->len && error == NULL; i++)
      rtop_nl_query (nl, RDMA_NLDEV_CMD_RES_QP_GET, TRUE,
                     g_array_index (devices, RtopNlDevice, i).index, 0, res_cb, &call, &error);
  if (error != NULL)
    {
      g_printerr ("nl-probe: %s\n", error->message);
      return 1;
    }
  g_print ("{\"res_fan_out\":{\"qps\":%u}}\n", res->len);
  return 0;
}

static void
cpu_usec (double *user, double *sys)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  *user = ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec;
  *sys = ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
}

int
main (int argc, char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopNl) nl = NULL;
  Probe p = { TRUE, NULL, NULL, 0 };
  guint64 passes = 0, monitor_s = 0;
  double user0, sys0, user1, sys1;

  if (argc == 3 && g_str_equal (argv[1], "--passes"))
    {
      if (!g_ascii_string_to_unsigned (argv[2], 10, 1, 10000000, &passes, &error))
        return 2;
    }
  else if (argc == 3 && g_str_equal (argv[1], "--monitor"))
    {
      if (!g_ascii_string_to_unsigned (argv[2], 10, 1, 3600, &monitor_s, &error))
        return 2;
      return monitor (monitor_s);
    }
  else if (argc != 1 && !(argc == 2 && g_str_equal (argv[1], "--res-without-index")))
    {
      g_printerr ("Usage: %s [--passes N | --monitor SECONDS | --res-without-index]\n", argv[0]);
      return 2;
    }

  nl = rtop_nl_open (&error);
  if (nl == NULL)
    {
      g_printerr ("nl-probe: %s\n", error->message);
      return 1;
    }
  if (argc == 2)
    return res_without_index (nl);
  p.devices = g_array_new (FALSE, TRUE, sizeof (RtopNlDevice));
  g_array_set_clear_func (p.devices, (GDestroyNotify) rtop_nl_device_clear);
  p.res = g_array_new (FALSE, TRUE, sizeof (RtopNlRes));
  g_array_set_clear_func (p.res, (GDestroyNotify) rtop_nl_res_clear);

  if (passes == 0)
    {
      one_pass (nl, &p);
      print_res (&p);
    }
  else
    {
      p.print = FALSE;
      one_pass (nl, &p);   /* warm-up, as nl-floor does */
      p.n_failed = 0;
      cpu_usec (&user0, &sys0);
      for (guint64 i = 0; i < passes; i++)
        one_pass (nl, &p);
      cpu_usec (&user1, &sys1);
      g_print ("nl-probe: %" G_GUINT64_FORMAT " passes, %u devices, %u failed requests\n",
               passes, p.devices->len, p.n_failed);
      g_print ("cpu_us_per_pass=%.1f user_us_per_pass=%.1f sys_us_per_pass=%.1f\n",
               (user1 - user0 + sys1 - sys0) / passes, (user1 - user0) / passes,
               (sys1 - sys0) / passes);
    }
  g_array_unref (p.devices);
  g_array_unref (p.res);
  return p.n_failed > 0 ? 1 : 0;
}
