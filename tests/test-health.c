/* test-health.c: health events from snapshot sequences. */
#include "config.h"

#include <string.h>

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

  /* Going down is one episode (state and physical state folded in),
   * completed when the port is Active again. */
  g_assert_cmpstr (got, ==, "|port-down||port-down");
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
    { 1, "rxe0", ACTIVE, NULL, 1, FALSE, FALSE, 0, 14000000 },   /* a lone rise: pending */
    { 1, "rxe0", ACTIVE, NULL, 2, FALSE, FALSE, 0, 15000000 },   /* confirmed */
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  /* Raised on the second pass with a rise, not on the first. */
  g_assert_cmpstr (got, ==, "||counter-rising||counter-settled||counter-rising");
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
  /* Both are loss, so one episode: confirmed by the second pass with a
   * rise, across the layout change, and settled once. */
  g_assert_cmpstr (got->str, ==,
                   "|||counter-rising:rcvd_seq_err||counter-settled:rcvd_seq_err");
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

  g_autoptr(RtopSnapshot) c = NULL;

  rtop_health_process (h, a);
  rtop_health_process (h, b);
  g_assert_cmpuint (b->events->len, ==, 0);
  s2.t_us = 2000000;
  c = make (&s2);
  rtop_health_process (h, c);
  g_assert_cmpuint (c->events->len, ==, 1);
  ev = g_ptr_array_index (c->events, 0);
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

/* A port with one counter of a class, for the episode tests. */
static RtopSnapshot *
make_port (const char *provider, const char *counter, RtopCounterClass klass, guint8 state,
           guint8 phys, const char *rate, guint64 delta, gint64 t_us)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopDevice *dev = rtop_device_new (1, "rxe0");
  RtopPort *port = rtop_port_new (1);
  RtopCounter *c = rtop_counter_new (counter, 100, RTOP_COUNTER_SOURCE_NETLINK);

  dev->provider = g_strdup (provider);
  snap->monotonic_us = t_us;
  c->klass = klass;
  c->delta = delta;
  c->rate = delta;
  c->has_rate = t_us > 0;
  port->state = state;
  port->phys_state = phys;
  port->rate_text = g_strdup (rate);
  g_ptr_array_add (port->counters, c);
  g_ptr_array_add (dev->ports, port);
  g_ptr_array_add (snap->devices, dev);
  rtop_snapshot_seal (snap);
  return snap;
}

static RtopPort *
only_port (RtopSnapshot *snap)
{
  return g_ptr_array_index (((RtopDevice *) g_ptr_array_index (snap->devices, 0))->ports, 0);
}

static void
assert_user_text (const RtopEvent *ev)
{
  /* Class names for people, never the stable identifiers of the JSON. */
  g_assert_nonnull (ev->message);
  g_assert_null (strstr (ev->message, "error."));
  g_assert_null (strstr (ev->message, "retransmit,"));
}

/* Light loss: a retransmit every 3 s for 30 s is one episode, raised on
 * the second rise and completed once, with how long, how much and the
 * peak; never a pair per retransmit. */
static void
test_light_loss_is_one_episode (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  guint n_rising = 0, n_settled = 0;
  guint64 id = 0;

  for (gint64 t = 0; t <= 50; t++)
    {
      guint64 delta = t > 0 && t <= 30 && t % 3 == 0 ? (t == 9 ? 4 : 1) : 0;
      g_autoptr(RtopSnapshot) snap = make_port ("rxe", "completer_retry_err",
                                                RTOP_COUNTER_CLASS_RETRANSMIT, 4, 5, NULL,
                                                delta, t * G_USEC_PER_SEC);

      rtop_health_process (h, snap);
      for (guint i = 0; i < snap->events->len; i++)
        {
          const RtopEvent *ev = g_ptr_array_index (snap->events, i);

          assert_user_text (ev);
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_WARNING);
          g_assert_cmpuint (ev->episode, !=, 0);
          if (ev->kind == RTOP_EVENT_COUNTER_RISING)
            {
              n_rising++;
              id = ev->episode;
              g_assert_true (ev->ongoing);
              g_assert_cmpint (t, ==, 6);
              g_assert_cmpint (ev->started_us, ==, 3 * G_USEC_PER_SEC);
            }
          else
            {
              g_assert_cmpint (ev->kind, ==, RTOP_EVENT_COUNTER_SETTLED);
              n_settled++;
              g_assert_cmpuint (ev->episode, ==, id);
              g_assert_false (ev->ongoing);
              g_assert_cmpint (ev->duration_us, ==, 27 * G_USEC_PER_SEC);
              g_assert_cmpuint (ev->total, ==, 13);
              g_assert_cmpfloat (ev->peak_rate, ==, 4);
              g_assert_cmpstr (ev->counter, ==, "completer_retry_err");
            }
        }
      /* Unhealthy while the episode runs, and only then. */
      g_assert_cmpint (only_port (snap)->health, ==,
                       t >= 6 && n_settled == 0 ? RTOP_PORT_HEALTH_WARNING : RTOP_PORT_HEALTH_OK);
    }
  g_assert_cmpuint (n_rising, ==, 1);
  g_assert_cmpuint (n_settled, ==, 1);
}

/* One retransmit alone, then nothing: no event at all. */
static void
test_lone_rise_is_quiet (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();

  for (gint64 t = 0; t <= 30; t++)
    {
      g_autoptr(RtopSnapshot) snap = make_port ("rxe", "completer_retry_err",
                                                RTOP_COUNTER_CLASS_RETRANSMIT, 4, 5, NULL,
                                                t == 5, t * G_USEC_PER_SEC);

      rtop_health_process (h, snap);
      g_assert_cmpuint (snap->events->len, ==, 0);
    }
}

/* Errors are raised at once: an operation error needs no confirmation. */
static void
test_error_class_raised_at_once (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  g_autoptr(RtopSnapshot) a = make_port ("rxe", "send_err", RTOP_COUNTER_CLASS_OPERATION_ERROR,
                                         4, 5, NULL, 0, 0);
  g_autoptr(RtopSnapshot) b = make_port ("rxe", "send_err", RTOP_COUNTER_CLASS_OPERATION_ERROR,
                                         4, 5, NULL, 1, G_USEC_PER_SEC);
  const RtopEvent *ev;

  rtop_health_process (h, a);
  rtop_health_process (h, b);
  g_assert_cmpuint (b->events->len, ==, 1);
  ev = g_ptr_array_index (b->events, 0);
  g_assert_cmpint (ev->kind, ==, RTOP_EVENT_COUNTER_RISING);
  g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
  assert_user_text (ev);
  g_assert_cmpint (only_port (b)->health, ==, RTOP_PORT_HEALTH_ERROR);
}

/* The responder's out-of-sequence requests are the sender's loss: an
 * Info episode here, and the port stays healthy. */
static void
test_peer_loss_does_not_flag_receiver (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();

  for (gint64 t = 0; t <= 5; t++)
    {
      g_autoptr(RtopSnapshot) snap = make_port ("rxe", "out_of_seq_request",
                                                RTOP_COUNTER_CLASS_TRANSPORT_ERROR, 4, 5, NULL,
                                                t > 0 ? 2 : 0, t * G_USEC_PER_SEC);
      const char *reason = NULL;

      rtop_health_process (h, snap);
      g_assert_cmpint (only_port (snap)->health, ==, RTOP_PORT_HEALTH_OK);
      g_assert_cmpint (rtop_health_port_verdict ("rxe", only_port (snap), TRUE, &reason), ==,
                       RTOP_PORT_HEALTH_OK);
      for (guint i = 0; i < snap->events->len; i++)
        g_assert_cmpint (((RtopEvent *) g_ptr_array_index (snap->events, i))->severity, ==,
                         RTOP_SEVERITY_INFO);
    }
  /* The same counter on a sender's table would be its own: rcvd_seq_err. */
  {
    g_autoptr(RtopSnapshot) snap = make_port ("rxe", "rcvd_seq_err",
                                              RTOP_COUNTER_CLASS_TRANSPORT_ERROR, 4, 5, NULL, 2,
                                              G_USEC_PER_SEC);
    const char *reason = NULL;

    g_assert_cmpint (rtop_health_port_verdict ("rxe", only_port (snap), TRUE, &reason), ==,
                     RTOP_PORT_HEALTH_WARNING);
    g_assert_nonnull (reason);
  }
}

/* A link going down: one Error event, with the physical state, the rate
 * and the counters that rose because of it folded in; the port is
 * unhealthy until it is Active again, and then the same episode is
 * completed. */
static void
test_link_down_is_one_error (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  static const struct {
    guint8 state, phys;
    const char *rate;
    guint64 link_downed, retrans;
  } steps[] = {
    { 4, 5, "10 Gb/sec", 0, 0 },
    { 4, 5, "10 Gb/sec", 0, 0 },
    { 1, 3, "10 Gb/sec", 1, 2 },     /* down: link_downed and retransmits rise */
    { 1, 3, "2.5 Gb/sec", 0, 3 },    /* rate and counters change while down */
    { 2, 4, "2.5 Gb/sec", 0, 1 },
    { 4, 5, "10 Gb/sec", 0, 0 },     /* up again */
    { 4, 5, "10 Gb/sec", 0, 0 },
  };
  guint n_events = 0;
  guint64 id = 0;

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopDevice *dev = rtop_device_new (1, "rxe0");
      RtopPort *port = rtop_port_new (1);
      const char *names[] = { "completer_retry_err", "link_downed" };
      RtopCounterClass classes[] = { RTOP_COUNTER_CLASS_RETRANSMIT, RTOP_COUNTER_CLASS_LINK_ERROR };
      guint64 deltas[] = { steps[i].retrans, steps[i].link_downed };
      const char *reason = NULL;

      dev->provider = g_strdup ("rxe");
      snap->monotonic_us = i * G_USEC_PER_SEC;
      port->state = steps[i].state;
      port->phys_state = steps[i].phys;
      port->rate_text = g_strdup (steps[i].rate);
      for (guint k = 0; k < 2; k++)
        {
          RtopCounter *c = rtop_counter_new (names[k], 10, RTOP_COUNTER_SOURCE_NETLINK);

          c->klass = classes[k];
          c->delta = deltas[k];
          c->rate = deltas[k];
          c->has_rate = i > 0;
          g_ptr_array_add (port->counters, c);
        }
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);

      for (guint e = 0; e < snap->events->len; e++)
        {
          const RtopEvent *ev = g_ptr_array_index (snap->events, e);

          n_events++;
          assert_user_text (ev);
          g_assert_cmpint (ev->kind, ==, RTOP_EVENT_PORT_DOWN);
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
          if (i == 2)
            {
              id = ev->episode;
              g_assert_true (ev->ongoing);
              g_assert_cmpstr (ev->old_value, ==, "ACTIVE");
              g_assert_cmpstr (ev->new_value, ==, "DOWN");
            }
          else
            {
              g_assert_cmpuint (i, ==, 5);
              g_assert_cmpuint (ev->episode, ==, id);
              g_assert_false (ev->ongoing);
              g_assert_cmpint (ev->duration_us, ==, 3 * G_USEC_PER_SEC);
              g_assert_cmpuint (ev->total, ==, 7);
            }
        }
      g_assert_cmpint (port->health, ==,
                       i >= 2 && i <= 4 ? RTOP_PORT_HEALTH_ERROR : RTOP_PORT_HEALTH_OK);
      g_assert_cmpint (rtop_health_port_verdict ("rxe", port, FALSE, &reason), ==,
                       i >= 2 && i <= 4 ? RTOP_PORT_HEALTH_ERROR : RTOP_PORT_HEALTH_OK);
      g_assert_true ((reason != NULL) == (i >= 2 && i <= 4));
    }
  g_assert_cmpuint (n_events, ==, 2);
}

/* A queue pair that enters the error state is an Error naming its
 * process; one already there at the start, or still there, is not. */
static void
test_qp_error_names_process (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  static const guint8 states[] = { 3, 3, 6, 6 };
  guint n = 0;

  for (guint i = 0; i < G_N_ELEMENTS (states); i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopProcess *proc = rtop_process_new (4242);
      RtopProcessDevice pd = { g_strdup ("rxe0"), 2, 1, 1, 4096 };
      RtopQp qps[2] = { { NULL, 1, 17, 18, TRUE, 2, 3 }, { NULL, 1, 19, 20, TRUE, 2, 0 } };

      snap->monotonic_us = i * G_USEC_PER_SEC;
      proc->comm = g_strdup ("qp-holder");
      proc->qps = 2;
      g_array_append_val (proc->devices, pd);
      proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      qps[0].device = qps[1].device = g_array_index (proc->devices, RtopProcessDevice, 0).device;
      qps[1].state = states[i];
      proc->qps_in_error = states[i] == RTOP_QP_STATE_ERR;
      g_array_append_vals (proc->qp_list, qps, 2);
      g_ptr_array_add (snap->processes, proc);
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      for (guint e = 0; e < snap->events->len; e++)
        {
          const RtopEvent *ev = g_ptr_array_index (snap->events, e);

          n++;
          g_assert_cmpuint (i, ==, 2);
          g_assert_cmpint (ev->kind, ==, RTOP_EVENT_QP_ERROR);
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
          g_assert_cmpint (ev->pid, ==, 4242);
          g_assert_cmpstr (ev->process, ==, "qp-holder");
          g_assert_cmpstr (ev->device, ==, "rxe0");
          g_assert_cmpuint (ev->port, ==, 1);
          g_assert_nonnull (strstr (ev->message, "qp-holder"));
          g_assert_nonnull (strstr (ev->message, "4242"));
          g_assert_nonnull (strstr (ev->message, "19"));
        }
    }
  g_assert_cmpuint (n, ==, 1);
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
  g_test_add_func ("/collector/health/episode/light-loss", test_light_loss_is_one_episode);
  g_test_add_func ("/collector/health/episode/lone-rise", test_lone_rise_is_quiet);
  g_test_add_func ("/collector/health/episode/error-at-once", test_error_class_raised_at_once);
  g_test_add_func ("/collector/health/verdict/peer-loss", test_peer_loss_does_not_flag_receiver);
  g_test_add_func ("/collector/health/link-down-folded", test_link_down_is_one_error);
  g_test_add_func ("/collector/health/qp-error", test_qp_error_names_process);
  return g_test_run ();
}
