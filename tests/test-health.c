/* test-health.c: health events from snapshot sequences. */
#include "config.h"

#include "rtop-health-private.h"

typedef struct {
  guint32 dev_index;
  const char *dev;
  guint8 state;
  guint8 phys;
  const char *rate;
  guint64 err_delta;         /* delta of a transport error counter this pass */
  gboolean reset;
  gboolean error;
  RtopStatus status;
  gint64 t_us;
} Step;

static RtopSnapshot *
make (const Step *s)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  snap->monotonic_us = s->t_us;
  snap->status = s->status;
  if (s->status != RTOP_STATUS_OK)
    snap->status_message = g_strdup ("no netlink here");
  if (s->dev != NULL)
    {
      RtopDevice *dev = rtop_device_new (s->dev_index, s->dev);
      RtopPort *port = rtop_port_new (1);
      RtopCounter *c = rtop_counter_new ("rcvd_seq_err", 100 + s->err_delta, RTOP_COUNTER_SOURCE_NETLINK);

      c->klass = RTOP_COUNTER_CLASS_TRANSPORT_ERROR;
      c->delta = s->err_delta;
      c->has_rate = !s->reset;
      c->reset = s->reset;
      port->state = s->state;
      port->phys_state = s->phys;
      port->rate_text = g_strdup (s->rate);
      port->error = s->error ? g_strdup ("No such device") : NULL;
      g_ptr_array_add (port->counters, c);
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
    }
  rtop_snapshot_seal (snap);
  return snap;
}

/* Runs the steps and returns the event kinds raised at each, joined. */
static char *
run (RtopHealth *health, const Step *steps, guint n)
{
  GString *out = g_string_new ("");

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = make (&steps[i]);

      rtop_health_process (health, snap);
      if (i > 0)
        g_string_append (out, "|");
      for (guint j = 0; j < snap->events->len; j++)
        {
          RtopEvent *ev = g_ptr_array_index (snap->events, j);

          g_assert_nonnull (ev->message);
          g_string_append_printf (out, "%s%s", j ? "," : "", rtop_event_kind_to_string (ev->kind));
        }
    }
  return g_string_free (out, FALSE);
}

#define ACTIVE 4, 5
#define DOWN 1, 3

static void
test_port_state_events_in_order (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 1, "rxe0", ACTIVE, "10 Gb/sec", 0, FALSE, FALSE, 0, 0 },
    { 1, "rxe0", DOWN, "10 Gb/sec", 0, FALSE, FALSE, 0, 1000000 },
    { 1, "rxe0", DOWN, "10 Gb/sec", 0, FALSE, FALSE, 0, 2000000 },
    { 1, "rxe0", ACTIVE, "10 Gb/sec", 0, FALSE, FALSE, 0, 3000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  g_assert_cmpstr (got, ==, "|port-state,port-phys-state||port-state,port-phys-state");
}

static void
test_device_add_remove_readd (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 0 },
    { 0, NULL, 0, 0, NULL, 0, FALSE, FALSE, 0, 1000000 },
    { 2, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 2000000 },
    { 3, "rxe0", ACTIVE, NULL, 0, TRUE, FALSE, 0, 3000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  /* Removed, added; then re-added between two passes (index changed),
   * whose counters restarted: one reset event for the port. */
  g_assert_cmpstr (got, ==, "|device-removed|device-added|device-removed,device-added,counter-reset");
}

static void
test_rename (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 4, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 0 },
    { 4, "roce0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 1000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  g_assert_cmpstr (got, ==, "|device-renamed");
}

static void
test_rising_once_then_settled (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 0 },
    { 1, "rxe0", ACTIVE, NULL, 3, FALSE, FALSE, 0, 1000000 },
    { 1, "rxe0", ACTIVE, NULL, 7, FALSE, FALSE, 0, 2000000 },    /* still rising: no new event */
    { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 3000000 },    /* quiet, not yet settled */
    { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 13000000 },   /* quiet for 11 s */
    { 1, "rxe0", ACTIVE, NULL, 1, FALSE, FALSE, 0, 14000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  g_assert_cmpstr (got, ==, "|counter-rising|||counter-settled|counter-rising");
}

typedef struct {
  guint64 layout;
  const char *names[2];
  RtopCounterClass klass[2];
  guint64 delta[2];
  gint64 t_us;
} LayoutStep;

/* Ports the collector built carry a layout id: while it stays the same,
 * health looks only at the watched positions it found; a new id means a
 * new look at every counter. */
static void
test_rising_with_layouts (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const LayoutStep steps[] = {
    { 7, { "sent_pkts", "rcvd_seq_err" }, { RTOP_COUNTER_CLASS_DATA, RTOP_COUNTER_CLASS_TRANSPORT_ERROR }, { 0, 0 }, 0 },
    { 7, { "sent_pkts", "rcvd_seq_err" }, { RTOP_COUNTER_CLASS_DATA, RTOP_COUNTER_CLASS_TRANSPORT_ERROR }, { 9, 3 }, 1000000 },
    { 7, { "sent_pkts", "rcvd_seq_err" }, { RTOP_COUNTER_CLASS_DATA, RTOP_COUNTER_CLASS_TRANSPORT_ERROR }, { 9, 0 }, 2000000 },
    /* Another layout: the error counter moved, a dropped-packets one came. */
    { 9, { "rcvd_seq_err", "zz_dropped" }, { RTOP_COUNTER_CLASS_TRANSPORT_ERROR, RTOP_COUNTER_CLASS_DROP }, { 0, 2 }, 3000000 },
    { 9, { "rcvd_seq_err", "zz_dropped" }, { RTOP_COUNTER_CLASS_TRANSPORT_ERROR, RTOP_COUNTER_CLASS_DROP }, { 5, 0 }, 4000000 },
    /* Quiet long enough: both settle, found at their positions. */
    { 9, { "rcvd_seq_err", "zz_dropped" }, { RTOP_COUNTER_CLASS_TRANSPORT_ERROR, RTOP_COUNTER_CLASS_DROP }, { 0, 0 }, 20000000 },
  };
  GString *got = g_string_new ("");

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopDevice *dev = rtop_device_new (1, "rxe0");
      RtopPort *port = rtop_port_new (1);

      snap->monotonic_us = steps[i].t_us;
      port->state = 4;
      port->phys_state = 5;
      port->counter_layout = steps[i].layout;
      for (guint k = 0; k < 2; k++)
        {
          RtopCounter *c = rtop_counter_new (steps[i].names[k], 100, RTOP_COUNTER_SOURCE_NETLINK);

          c->klass = steps[i].klass[k];
          c->delta = steps[i].delta[k];
          c->has_rate = i > 0;
          g_ptr_array_add (port->counters, c);
        }
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      g_string_append (got, i ? "|" : "");
      for (guint j = 0; j < snap->events->len; j++)
        {
          RtopEvent *ev = g_ptr_array_index (snap->events, j);

          g_string_append_printf (got, "%s%s:%s", j ? "," : "", rtop_event_kind_to_string (ev->kind),
                                  ev->counter ? ev->counter : "");
        }
    }
  g_assert_cmpstr (got->str, ==,
                   "|counter-rising:rcvd_seq_err||counter-rising:zz_dropped||"
                   "counter-settled:rcvd_seq_err,counter-settled:zz_dropped");
  g_string_free (got, TRUE);
}

static void
test_rising_severity_from_table (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  Step s1 = { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 0 };
  Step s2 = { 1, "rxe0", ACTIVE, NULL, 5, FALSE, FALSE, 0, 1000000 };
  g_autoptr(RtopSnapshot) a = make (&s1);
  g_autoptr(RtopSnapshot) b = make (&s2);
  RtopEvent *ev;

  rtop_health_process (h, a);
  rtop_health_process (h, b);
  g_assert_cmpuint (b->events->len, ==, 1);
  ev = g_ptr_array_index (b->events, 0);
  g_assert_cmpstr (ev->counter, ==, "rcvd_seq_err");
  g_assert_cmpstr (ev->device, ==, "rxe0");
  g_assert_cmpuint (ev->port, ==, 1);
  g_assert_cmpint (ev->severity, ==, rtop_health_class_severity (RTOP_COUNTER_CLASS_TRANSPORT_ERROR));
  g_assert_false (rtop_health_class_is_watched (RTOP_COUNTER_CLASS_DATA));
  g_assert_true (rtop_health_class_is_watched (RTOP_COUNTER_CLASS_DROP));
  g_assert_cmpint (rtop_health_class_severity (RTOP_COUNTER_CLASS_LINK_ERROR), ==, RTOP_SEVERITY_ERROR);
}

static void
test_collection_error_once (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 0, NULL, 0, 0, NULL, 0, FALSE, FALSE, RTOP_STATUS_NO_NETLINK, 0 },
    { 0, NULL, 0, 0, NULL, 0, FALSE, FALSE, RTOP_STATUS_NO_NETLINK, 1000000 },
    { 0, NULL, 0, 0, NULL, 0, FALSE, FALSE, RTOP_STATUS_NO_NETLINK, 2000000 },
    { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, RTOP_STATUS_OK, 3000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  g_assert_cmpstr (got, ==, "collection-error|||collection-recovered,device-added");
}

static void
test_port_read_failure_once (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 1, "mlx5_0", ACTIVE, "100 Gb/sec (4X EDR)", 0, FALSE, FALSE, 0, 0 },
    { 1, "mlx5_0", 0, 0, NULL, 0, FALSE, TRUE, 0, 1000000 },
    { 1, "mlx5_0", 0, 0, NULL, 0, FALSE, TRUE, 0, 2000000 },
    { 1, "mlx5_0", ACTIVE, "100 Gb/sec (4X EDR)", 0, FALSE, FALSE, 0, 3000000 },
    { 1, "mlx5_0", ACTIVE, "50 Gb/sec (2X EDR)", 0, FALSE, FALSE, 0, 4000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  /* A failed read is one error, not a flood, and not a fake state change. */
  g_assert_cmpstr (got, ==, "|collection-error||collection-recovered|link-rate");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/health/port-state-in-order", test_port_state_events_in_order);
  g_test_add_func ("/collector/health/device-add-remove-readd", test_device_add_remove_readd);
  g_test_add_func ("/collector/health/rename", test_rename);
  g_test_add_func ("/collector/health/rising-once-then-settled", test_rising_once_then_settled);
  g_test_add_func ("/collector/health/rising-with-layouts", test_rising_with_layouts);
  g_test_add_func ("/collector/health/severity-table", test_rising_severity_from_table);
  g_test_add_func ("/collector/health/collection-error-once", test_collection_error_once);
  g_test_add_func ("/collector/health/port-read-failure-once", test_port_read_failure_once);
  return g_test_run ();
}
