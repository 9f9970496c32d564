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

/* A device new in this pass that shares its kernel index with a device
 * still listed is added, not the other's rename: GPUs all have index 0. */
static void
test_rename_needs_old_gone (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  static const char * const passes[][2] = {
    { "gpu0", NULL },
    { "gpu0", "gpu1" },
    { "gpu1", NULL },
  };
  GString *got = g_string_new ("");

  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();

      snap->monotonic_us = i * G_USEC_PER_SEC;
      for (guint d = 0; d < 2 && passes[i][d] != NULL; d++)
        g_ptr_array_add (snap->devices, rtop_device_new (0, passes[i][d]));
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      g_string_append (got, i ? "|" : "");
      for (guint j = 0; j < snap->events->len; j++)
        {
          RtopEvent *ev = g_ptr_array_index (snap->events, j);

          g_string_append_printf (got, "%s%s:%s", j ? "," : "", rtop_event_kind_to_string (ev->kind),
                                  ev->device);
        }
    }
  g_assert_cmpstr (got->str, ==, "|device-added:gpu1|device-removed:gpu0");
  g_string_free (got, TRUE);
}

/* A port that is down has no link rate to speak of: its rate text
 * changing is no event (the down episode, or the state, says it all). */
static void
test_rate_change_while_down (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  const Step steps[] = {
    { 1, "rxe0", DOWN, "10 Gb/sec", 0, FALSE, FALSE, 0, 0 },
    { 1, "rxe0", DOWN, "2.5 Gb/sec", 0, FALSE, FALSE, 0, 1000000 },
    { 1, "rxe0", ACTIVE, "2.5 Gb/sec", 0, FALSE, FALSE, 0, 2000000 },
    { 1, "rxe0", ACTIVE, "10 Gb/sec", 0, FALSE, FALSE, 0, 3000000 },
  };
  g_autofree char *got = run (h, steps, G_N_ELEMENTS (steps));

  g_assert_cmpstr (got, ==, "||port-state,port-phys-state|link-rate");
}

/* How long a down episode lasted, in the words of its closing event, at
 * the edges between seconds, minutes and hours. */
static void
test_duration_words (void)
{
  static const struct { gint64 s; const char *words; } cases[] = {
    { 0, "0 s" },
    { 119, "119 s" },
    { 120, "2 min 0 s" },
    { 121, "2 min 1 s" },
    { 7199, "119 min 59 s" },
    { 7200, "2 h 0 min" },
    { 7500, "2 h 5 min" },
    { 90061, "25 h 1 min" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(RtopHealth) h = rtop_health_new ();
      const Step steps[] = {
        { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, 0 },
        { 1, "rxe0", DOWN, NULL, 0, FALSE, FALSE, 0, G_USEC_PER_SEC },
        { 1, "rxe0", ACTIVE, NULL, 0, FALSE, FALSE, 0, (1 + cases[i].s) * G_USEC_PER_SEC },
      };
      g_autofree char *want = g_strdup_printf ("was down for %s and", cases[i].words);
      const RtopEvent *ev = NULL;

      for (guint k = 0; k < G_N_ELEMENTS (steps); k++)
        {
          g_autoptr(RtopSnapshot) snap = make (&steps[k]);

          rtop_health_process (h, snap);
          if (k == 2)
            {
              g_assert_cmpuint (snap->events->len, ==, 1);
              ev = g_ptr_array_index (snap->events, 0);
              g_assert_false (ev->ongoing);
              g_assert_cmpint (ev->duration_us, ==, cases[i].s * G_USEC_PER_SEC);
              g_test_message ("%s", ev->message);
              g_assert_nonnull (strstr (ev->message, want));
            }
        }
    }
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

/* The episode names the first counter that rose, not a counter of its
 * group that stood still before it in the list (sorted: retry_a first). */
static void
test_episode_names_counter_that_rose (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  guint n = 0;

  for (gint64 t = 0; t <= 2; t++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopDevice *dev = rtop_device_new (1, "rxe0");
      RtopPort *port = rtop_port_new (1);
      const char *names[] = { "retry_a", "retry_b" };

      dev->provider = g_strdup ("rxe");
      snap->monotonic_us = t * G_USEC_PER_SEC;
      port->state = 4;
      port->phys_state = 5;
      for (guint k = 0; k < 2; k++)
        {
          RtopCounter *c = rtop_counter_new (names[k], 100, RTOP_COUNTER_SOURCE_NETLINK);

          c->klass = RTOP_COUNTER_CLASS_RETRANSMIT;
          c->delta = k == 1 && t > 0 ? 3 : 0;
          c->rate = c->delta;
          c->has_rate = t > 0;
          g_ptr_array_add (port->counters, c);
        }
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      for (guint e = 0; e < snap->events->len; e++)
        {
          const RtopEvent *ev = g_ptr_array_index (snap->events, e);

          n++;
          g_assert_cmpint (ev->kind, ==, RTOP_EVENT_COUNTER_RISING);
          g_assert_cmpstr (ev->counter, ==, "retry_b");
          g_assert_cmpuint (ev->total, ==, 6);
        }
    }
  g_assert_cmpuint (n, ==, 1);
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

/* One retransmit alone, then nothing: no event at all.  Another lone one
 * after the settle time is alone again, not the second of an episode. */
static void
test_lone_rise_is_quiet (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();

  for (gint64 t = 0; t <= 30; t++)
    {
      g_autoptr(RtopSnapshot) snap = make_port ("rxe", "completer_retry_err",
                                                RTOP_COUNTER_CLASS_RETRANSMIT, 4, 5, NULL,
                                                t == 5 || t == 16 || t == 27,
                                                t * G_USEC_PER_SEC);

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

/* ---- rails ---- */

#define N_RAILS 4

/* With rails_two_steps, rails 2 and 3 are used by a second process, of
 * the same job's step 1. */
static gboolean rails_two_steps;

/* A pass of four mlx5 ports, each moving gbps[i] (transmit and receive
 * together; -1: the port is down), all used by one process: of Slurm job
 * 77 when job, of no known job otherwise. */
static RtopSnapshot *
rails_pass (guint pass, const double *gbps, gboolean job)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopProcess *proc = rtop_process_new (5151);
  RtopProcess *step1 = NULL;

  snap->monotonic_us = (gint64) pass * G_USEC_PER_SEC;
  snap->realtime_us = snap->monotonic_us;
  proc->comm = g_strdup ("all_reduce_perf");
  proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
  if (job)
    rtop_job_set (&proc->job, RTOP_JOB_SLURM, "77", "0");
  if (rails_two_steps)
    {
      step1 = rtop_process_new (5152);
      step1->comm = g_strdup ("all_reduce_perf");
      step1->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      rtop_job_set (&step1->job, RTOP_JOB_SLURM, "77", "1");
    }
  for (guint i = 0; i < N_RAILS; i++)
    {
      g_autofree char *name = g_strdup_printf ("mlx5_%u", i);
      RtopDevice *dev = rtop_device_new (i, name);
      RtopPort *port = rtop_port_new (1);
      RtopQp qp = { NULL, 1, 100 + i, 200 + i, TRUE, 2, 3 };

      port->state = gbps[i] < 0 ? 1 : 4;
      port->phys_state = gbps[i] < 0 ? 3 : 5;
      for (guint m = 0; m < 2; m++)
        {
          RtopMetric *metric = &port->metrics[m == 0 ? RTOP_METRIC_TX_BYTES : RTOP_METRIC_RX_BYTES];

          metric->present = TRUE;
          metric->has_rate = pass > 0;
          metric->rate = MAX (gbps[i], 0) * 1e9 / 8 / 2;
        }
      g_ptr_array_add (dev->ports, port);
      g_ptr_array_add (snap->devices, dev);
      qp.device = dev->name;
      g_array_append_val (step1 != NULL && i >= 2 ? step1->qp_list : proc->qp_list, qp);
    }
  g_ptr_array_add (snap->processes, proc);
  if (step1 != NULL)
    g_ptr_array_add (snap->processes, step1);
  rtop_snapshot_seal (snap);
  return snap;
}

/* Runs passes 0..n-1 with rates(pass); returns the rail-imbalance events
 * raised, one line each: "PASS DEVICE/PORT ongoing|ended SHARE". */
static char *
run_rails (RtopHealth *h, guint n, const double (*rates)[N_RAILS], gboolean job, char **last_message)
{
  GString *out = g_string_new ("");

  for (guint pass = 0; pass < n; pass++)
    {
      g_autoptr(RtopSnapshot) snap = rails_pass (pass, rates[pass], job);

      rtop_health_process (h, snap);
      for (guint e = 0; e < snap->events->len; e++)
        {
          const RtopEvent *ev = g_ptr_array_index (snap->events, e);

          if (ev->kind != RTOP_EVENT_RAIL_IMBALANCE)
            continue;
          g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_WARNING);
          g_assert_cmpuint (ev->episode, !=, 0);
          g_string_append_printf (out, "%u %s/%u %s %s\n", pass, ev->device, ev->port,
                                  ev->ongoing ? "ongoing" : "ended", ev->new_value);
          g_test_message ("pass %u: %s", pass, ev->message);
          if (last_message != NULL)
            {
              g_free (*last_message);
              *last_message = g_strdup (ev->message);
            }
        }
    }
  return g_string_free (out, FALSE);
}

/* run_rails with the same rates every pass (n at most 20). */
static char *
run_rails_steady (RtopHealth *h, guint n, const double *steady, gboolean job, char **last_message)
{
  double rates[20][N_RAILS];

  g_assert_cmpuint (n, <=, G_N_ELEMENTS (rates));
  for (guint pass = 0; pass < n; pass++)
    memcpy (rates[pass], steady, sizeof rates[pass]);
  return run_rails (h, n, (const double (*)[N_RAILS]) rates, job, last_message);
}

/* Balanced rails, idle rails and a rail that is down raise no imbalance
 * (the down rail has its own episode; its peers are still balanced). */
static void
test_rails_quiet (void)
{
  static const double balanced[N_RAILS] = { 95, 100, 105, 98 };
  static const double idle[N_RAILS] = { 0.01, 0.05, 0, 0.02 };
  static const double one_down[N_RAILS] = { 100, -1, 100, 100 };
  const double *cases[] = { balanced, idle, one_down };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (guint job = 0; job < 2; job++)
      {
        g_autoptr(RtopHealth) h = rtop_health_new ();
        g_autofree char *got = run_rails_steady (h, 20, cases[c], job, NULL);

        g_assert_cmpstr (got, ==, "");
      }
}

/* One slow rail of a job: a Warning once it has been low for 5 s, naming
 * the rail, its share of its peers' median and the job; the episode ends
 * when the rail has carried its share for 5 s.  A dip shorter than 5 s,
 * or into the band between 50 % and 75 %, raises nothing. */
static void
test_rails_one_slow (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  g_autofree char *message = NULL;
  g_autofree char *got = NULL;
  double rates[40][N_RAILS];

  for (guint pass = 0; pass < 40; pass++)
    {
      rates[pass][0] = rates[pass][1] = rates[pass][3] = 100;
      /* 2..5: a short dip; 8..11: 60 %, in the band; 14..25: 30 %; 26..29:
       * in the band again, which does not end the episode; then back. */
      rates[pass][2] = pass >= 2 && pass <= 5 ? 10 : pass >= 8 && pass <= 11 ? 60
                       : pass >= 14 && pass <= 25 ? 30 : pass >= 26 && pass <= 29 ? 60 : 100;
    }
  got = run_rails (h, 40, (const double (*)[N_RAILS]) rates, TRUE, &message);
  /* Low from pass 14: confirmed at 19; back from 30: ended at 35. */
  g_assert_cmpstr (got, ==, "19 mlx5_2/1 ongoing 30 %\n35 mlx5_2/1 ended 100 %\n");
  g_assert_nonnull (strstr (message, "mlx5_2/1"));
  g_assert_nonnull (strstr (message, "slurm 77.0"));
  g_assert_nonnull (strstr (message, "carries its share again after 21 s"));
}

/* Each rail against the median of the others, not of all four: two slow
 * rails of four (20 and 30 against 100 and 140) are both low (their peers'
 * medians are 100), and a fast one is not judged against itself. */
static void
test_rails_peer_median (void)
{
  static const double two_slow[N_RAILS] = { 20, 30, 100, 140 };
  g_autoptr(RtopHealth) h = rtop_health_new ();
  g_autofree char *message = NULL;
  g_autofree char *got = run_rails_steady (h, 8, two_slow, TRUE, &message);

  g_assert_cmpstr (got, ==, "6 mlx5_0/1 ongoing 20 %\n6 mlx5_1/1 ongoing 30 %\n");
  g_assert_nonnull (strstr (message, "of the median of its 3 peers (100.0 Gb/s)"));
}

/* A job's two steps, each on two of its four rails: one group, named as
 * the job, not after whichever step came first. */
static void
test_rails_two_steps (void)
{
  static const double one_slow[N_RAILS] = { 100, 100, 100, 20 };
  g_autoptr(RtopHealth) h = rtop_health_new ();
  g_autofree char *message = NULL;
  g_autofree char *got = NULL;

  rails_two_steps = TRUE;
  got = run_rails_steady (h, 8, one_slow, TRUE, &message);
  rails_two_steps = FALSE;
  g_assert_cmpstr (got, ==, "6 mlx5_3/1 ongoing 20 %\n");
  g_assert_true (g_str_has_suffix (message, ", in job slurm 77."));
}

/* Without a job, the ports the host's processes use are one group; the
 * slow one is named against them.  A rail that goes away mid-episode ends
 * it; the kernel's own queue pairs on an unused, idle port do not make it a
 * rail. */
static void
test_rails_host_group (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();
  g_autofree char *message = NULL;
  g_autofree char *got = NULL;
  double rates[16][N_RAILS];

  for (guint pass = 0; pass < 16; pass++)
    {
      rates[pass][0] = rates[pass][1] = rates[pass][2] = 200;
      rates[pass][3] = pass < 12 ? 20 : -1;
    }
  got = run_rails (h, 16, (const double (*)[N_RAILS]) rates, FALSE, &message);
  g_assert_cmpstr (got, ==, "6 mlx5_3/1 ongoing 10 %\n12 mlx5_3/1 ended 0 %\n");
  g_assert_nonnull (strstr (message, "no longer compared with its peers"));

  /* Three busy rails of a process and an idle port only the kernel uses. */
  {
    g_autoptr(RtopHealth) h2 = rtop_health_new ();

    for (guint pass = 0; pass < 12; pass++)
      {
        static const double r[N_RAILS] = { 100, 100, 100, 0 };
        g_autoptr(RtopSnapshot) snap = rails_pass (pass, r, FALSE);
        RtopProcess *proc = g_ptr_array_index (snap->processes, 0);

        /* The process's QP on port 3 becomes the kernel's. */
        g_array_set_size (proc->qp_list, 3);
        {
          RtopProcess *kernel = rtop_process_new (0);
          RtopQp qp = { NULL, 1, 1, 0, FALSE, 4, 3 };
          RtopDevice *dev = g_ptr_array_index (snap->devices, 3);

          kernel->kernel = TRUE;
          kernel->comm = g_strdup ("ib_core");
          kernel->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
          qp.device = dev->name;
          g_array_append_val (kernel->qp_list, qp);
          g_ptr_array_add (snap->processes, kernel);
        }
        rtop_health_process (h2, snap);
        for (guint e = 0; e < snap->events->len; e++)
          g_assert_cmpint (((RtopEvent *) g_ptr_array_index (snap->events, e))->kind, !=,
                           RTOP_EVENT_RAIL_IMBALANCE);
      }
  }
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

/* A queue pair already in the error state when health starts watching was
 * there before it: no event, then or while it stays there. */
static void
test_qp_error_before_start (void)
{
  g_autoptr(RtopHealth) h = rtop_health_new ();

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      RtopProcess *proc = rtop_process_new (4242);
      RtopProcessDevice pd = { g_strdup ("rxe0"), 1, 1, 1, 4096 };
      RtopQp qp = { NULL, 1, 17, 18, TRUE, 2, RTOP_QP_STATE_ERR };

      snap->monotonic_us = i * G_USEC_PER_SEC;
      proc->comm = g_strdup ("qp-holder");
      proc->qps = 1;
      g_array_append_val (proc->devices, pd);
      proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      qp.device = g_array_index (proc->devices, RtopProcessDevice, 0).device;
      proc->qps_in_error = 1;
      g_array_append_val (proc->qp_list, qp);
      g_ptr_array_add (snap->processes, proc);
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      g_assert_cmpuint (snap->events->len, ==, 0);
    }
}

/* ---- Verdicts generated from the kernel's tables and the rule tables ---- */

/* The IB port states the kernel reports, and which are Active: a port is
 * up when it is ACTIVE or ACTIVE_DEFER (still passing traffic) and its
 * physical link is up or not reported. */
static const struct {
  guint8 value;
  const char *name;
  gboolean active;
} port_states[] = {
  { 0, "NOP", FALSE },
  { 1, "DOWN", FALSE },
  { 2, "INIT", FALSE },
  { 3, "ARMED", FALSE },
  { 4, "ACTIVE", TRUE },
  { 5, "ACTIVE_DEFER", TRUE },
  /* Past the table: not a state that is Active. */
  { 6, "UNKNOWN", FALSE },
  { 255, "UNKNOWN", FALSE },
};

/* The physical states, and which say the link is up. */
static const struct {
  guint8 value;
  const char *name;
  gboolean link_up;
} phys_states[] = {
  { 0, "not reported", TRUE },
  { 1, "SLEEP", FALSE },
  { 2, "POLLING", FALSE },
  { 3, "DISABLED", FALSE },
  { 4, "PORT_CONFIGURATION_TRAINING", FALSE },
  { 5, "LINKUP", TRUE },
  { 6, "LINK_ERROR_RECOVERY", FALSE },
  { 7, "PHY_TEST", FALSE },
  /* Past the table (OPA's offline and test states among them). */
  { 8, "8", FALSE },
  { 9, "OPA_OFFLINE", FALSE },
  { 11, "OPA_TEST", FALSE },
  { 255, "255", FALSE },
};

/* Counts the events of kind in snap; *last is the last of them. */
static guint
count_events (const RtopSnapshot *snap, RtopEventKind kind, const RtopEvent **last)
{
  guint n = 0;

  for (guint i = 0; i < snap->events->len; i++)
    {
      const RtopEvent *ev = g_ptr_array_index (snap->events, i);

      if (ev->kind != kind)
        continue;
      n++;
      if (last != NULL)
        *last = ev;
    }
  return n;
}

/* Every state with every physical state: the port's verdict alone, with
 * its counters, and with its read failed. */
static void
test_verdict_every_state (void)
{
  for (guint s = 0; s < G_N_ELEMENTS (port_states); s++)
    for (guint p = 0; p < G_N_ELEMENTS (phys_states); p++)
      {
        g_autoptr(RtopPort) port = rtop_port_new (1);
        gboolean up = port_states[s].active && phys_states[p].link_up;
        RtopPortHealth want = up ? RTOP_PORT_HEALTH_OK : RTOP_PORT_HEALTH_ERROR;
        /* What is not Active says so, whatever the physical link. */
        const char *want_reason = up ? NULL
                                     : !port_states[s].active ? "Port not active" : "Link down";
        const char *reason = "unset";

        g_test_message ("state %s, physical state %s", port_states[s].name, phys_states[p].name);
        port->state = port_states[s].value;
        port->phys_state = phys_states[p].value;
        g_assert_cmpint (rtop_health_port_is_up (port), ==, up);
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, FALSE, &reason), ==, want);
        g_assert_cmpstr (reason, ==, want_reason);
        reason = "unset";
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, TRUE, &reason), ==, want);
        g_assert_cmpstr (reason, ==, want_reason);
        /* A failed read is an Error whatever the state it left behind. */
        port->error = g_strdup ("No such device");
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, FALSE, &reason), ==,
                         RTOP_PORT_HEALTH_ERROR);
        g_assert_cmpstr (reason, ==, "Read failed");
      }
}

/* From Active with the link up to every state and back: a port that is
 * no longer up is one Error episode, opened once and completed once when
 * it is up again; a port that stays up (ACTIVE_DEFER, a physical state
 * not reported) opens none.  And from every state to Active: no episode. */
static void
test_transitions_every_state (void)
{
  for (guint s = 0; s < G_N_ELEMENTS (port_states); s++)
    for (guint p = 0; p < G_N_ELEMENTS (phys_states); p++)
      {
        g_autoptr(RtopHealth) h = rtop_health_new ();
        g_autoptr(RtopHealth) h2 = rtop_health_new ();
        const guint8 state = port_states[s].value, phys = phys_states[p].value;
        gboolean up = port_states[s].active && phys_states[p].link_up;
        RtopPortHealth want = up ? RTOP_PORT_HEALTH_OK : RTOP_PORT_HEALTH_ERROR;
        const RtopEvent *ev = NULL;
        guint64 episode = 0;

        g_test_message ("state %s, physical state %s", port_states[s].name, phys_states[p].name);
        {
          g_autoptr(RtopSnapshot) snap = make_port ("mlx5", "x", RTOP_COUNTER_CLASS_DATA,
                                                    4, 5, NULL, 0, 0);

          rtop_health_process (h, snap);
          g_assert_cmpuint (snap->events->len, ==, 0);
          g_assert_cmpint (only_port (snap)->health, ==, RTOP_PORT_HEALTH_OK);
        }
        for (gint64 t = 1; t <= 2; t++)
          {
            g_autoptr(RtopSnapshot) snap = make_port ("mlx5", "x", RTOP_COUNTER_CLASS_DATA,
                                                      state, phys, NULL, 0, t * G_USEC_PER_SEC);

            rtop_health_process (h, snap);
            g_assert_cmpint (only_port (snap)->health, ==, want);
            g_assert_cmpuint (count_events (snap, RTOP_EVENT_PORT_DOWN, &ev), ==, !up && t == 1);
            if (!up && t == 1)
              {
                g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
                g_assert_cmpint (ev->ongoing, ==, TRUE);
                g_assert_cmpstr (ev->old_value, ==, "ACTIVE");
                if (state <= 5)
                  g_assert_cmpstr (ev->new_value, ==, port_states[s].name);
                episode = ev->episode;
                g_assert_cmpuint (episode, !=, 0);
              }
          }
        {
          g_autoptr(RtopSnapshot) snap = make_port ("mlx5", "x", RTOP_COUNTER_CLASS_DATA,
                                                    4, 5, NULL, 0, 3 * G_USEC_PER_SEC);

          rtop_health_process (h, snap);
          g_assert_cmpint (only_port (snap)->health, ==, RTOP_PORT_HEALTH_OK);
          g_assert_cmpuint (count_events (snap, RTOP_EVENT_PORT_DOWN, &ev), ==, !up);
          if (!up)
            {
              g_assert_cmpint (ev->severity, ==, RTOP_SEVERITY_ERROR);
              g_assert_cmpint (ev->ongoing, ==, FALSE);
              g_assert_cmpuint (ev->episode, ==, episode);
              g_assert_cmpint (ev->duration_us, ==, 2 * G_USEC_PER_SEC);
            }
        }

        /* Seen first in this state, then Active: nothing went down. */
        for (gint64 t = 0; t <= 1; t++)
          {
            g_autoptr(RtopSnapshot) snap = make_port ("mlx5", "x", RTOP_COUNTER_CLASS_DATA,
                                                      t == 0 ? state : 4, t == 0 ? phys : 5,
                                                      NULL, 0, t * G_USEC_PER_SEC);

            rtop_health_process (h2, snap);
            g_assert_cmpint (only_port (snap)->health, ==, t == 0 ? want : RTOP_PORT_HEALTH_OK);
            g_assert_cmpuint (count_events (snap, RTOP_EVENT_PORT_DOWN, NULL), ==, 0);
          }
      }
}

/* Every row of the counter class table, written out from what each class
 * means: loss (drops, retransmits, transport errors) is a Warning, link
 * and operation errors are Errors, congestion is news (an Info episode,
 * the port stays OK), traffic and other counts are not watched. */
static const struct {
  RtopCounterClass klass;
  gboolean watched;
  RtopSeverity severity;
  RtopPortHealth verdict;
} class_table[] = {
  { RTOP_COUNTER_CLASS_INFO, FALSE, RTOP_SEVERITY_INFO, RTOP_PORT_HEALTH_OK },
  { RTOP_COUNTER_CLASS_DATA, FALSE, RTOP_SEVERITY_INFO, RTOP_PORT_HEALTH_OK },
  { RTOP_COUNTER_CLASS_DROP, TRUE, RTOP_SEVERITY_WARNING, RTOP_PORT_HEALTH_WARNING },
  { RTOP_COUNTER_CLASS_RETRANSMIT, TRUE, RTOP_SEVERITY_WARNING, RTOP_PORT_HEALTH_WARNING },
  { RTOP_COUNTER_CLASS_LINK_ERROR, TRUE, RTOP_SEVERITY_ERROR, RTOP_PORT_HEALTH_ERROR },
  { RTOP_COUNTER_CLASS_TRANSPORT_ERROR, TRUE, RTOP_SEVERITY_WARNING, RTOP_PORT_HEALTH_WARNING },
  { RTOP_COUNTER_CLASS_OPERATION_ERROR, TRUE, RTOP_SEVERITY_ERROR, RTOP_PORT_HEALTH_ERROR },
  { RTOP_COUNTER_CLASS_CONGESTION, TRUE, RTOP_SEVERITY_INFO, RTOP_PORT_HEALTH_OK },
};

/* An Active port with counters of the given classes that rose by the
 * given deltas (with a rate when has_rate). */
static RtopSnapshot *
make_rises (guint n, const RtopCounterClass *klass, const guint64 *delta, gboolean has_rate,
            gint64 t_us)
{
  RtopSnapshot *snap = rtop_snapshot_new ();
  RtopDevice *dev = rtop_device_new (1, "mlx5_0");
  RtopPort *port = rtop_port_new (1);

  dev->provider = g_strdup ("mlx5");
  snap->monotonic_us = t_us;
  port->state = 4;
  port->phys_state = 5;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("counter_%u", i);
      RtopCounter *c = rtop_counter_new (name, 1000 + delta[i], RTOP_COUNTER_SOURCE_NETLINK);

      c->klass = klass[i];
      c->delta = delta[i];
      c->rate = delta[i];
      c->has_rate = has_rate;
      g_ptr_array_add (port->counters, c);
    }
  g_ptr_array_add (dev->ports, port);
  g_ptr_array_add (snap->devices, dev);
  rtop_snapshot_seal (snap);
  return snap;
}

/* Each row's threshold in a port's verdict: no rise (or no rate yet) does
 * not fire, a rise of one fires with the row's verdict, and so does a
 * large one. */
static void
test_class_table_verdicts (void)
{
  static const guint64 deltas[] = { 0, 1, G_MAXUINT32 };

  g_assert_cmpuint (G_N_ELEMENTS (class_table), ==, RTOP_COUNTER_CLASS_N);
  for (guint r = 0; r < G_N_ELEMENTS (class_table); r++)
    for (guint d = 0; d < G_N_ELEMENTS (deltas); d++)
      for (guint has_rate = 0; has_rate <= 1; has_rate++)
        {
          g_autoptr(RtopSnapshot) snap = make_rises (1, &class_table[r].klass, &deltas[d],
                                                     has_rate, G_USEC_PER_SEC);
          gboolean fires = deltas[d] > 0 && has_rate;
          RtopPortHealth want = fires ? class_table[r].verdict : RTOP_PORT_HEALTH_OK;
          const char *reason = "unset";

          g_test_message ("class %u, delta %" G_GUINT64_FORMAT ", rate %u", r, deltas[d], has_rate);
          g_assert_cmpint (class_table[r].klass, ==, r);
          g_assert_cmpint (rtop_health_port_verdict ("mlx5", only_port (snap), TRUE, &reason), ==,
                           want);
          g_assert_cmpint (reason != NULL, ==, want != RTOP_PORT_HEALTH_OK);
          /* Without the counters, the state alone: OK. */
          g_assert_cmpint (rtop_health_port_verdict ("mlx5", only_port (snap), FALSE, &reason), ==,
                           RTOP_PORT_HEALTH_OK);
          g_assert_null (reason);
        }
  /* Two classes rising at once: the worse verdict, in either order. */
  for (guint a = 0; a < G_N_ELEMENTS (class_table); a++)
    for (guint b = 0; b < G_N_ELEMENTS (class_table); b++)
      {
        const RtopCounterClass klass[] = { class_table[a].klass, class_table[b].klass };
        const guint64 delta[] = { 1, 1 };
        g_autoptr(RtopSnapshot) snap = make_rises (2, klass, delta, TRUE, G_USEC_PER_SEC);

        g_test_message ("classes %u and %u", a, b);
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", only_port (snap), TRUE, NULL), ==,
                         MAX (class_table[a].verdict, class_table[b].verdict));
      }
}

/* Each row's episodes over time: a lone rise of an error class is raised
 * at once, of another watched class on the second pass that rises; with
 * the row's severity; the port carries the row's verdict until the
 * counters have been quiet for the settle time (10 s), one microsecond
 * less is not enough. */
static void
test_class_table_episodes (void)
{
  static const struct {
    gint64 t_us;
    guint64 delta;
  } passes[] = {
    { 0, 0 },
    { 1 * G_USEC_PER_SEC, 1 },
    { 2 * G_USEC_PER_SEC, 1 },
    { 3 * G_USEC_PER_SEC, 0 },
    { 12 * G_USEC_PER_SEC - 1, 0 },
    { 12 * G_USEC_PER_SEC, 0 },
    { 13 * G_USEC_PER_SEC, 0 },
  };

  for (guint r = 0; r < G_N_ELEMENTS (class_table); r++)
    {
      g_autoptr(RtopHealth) h = rtop_health_new ();
      gboolean at_once = class_table[r].severity == RTOP_SEVERITY_ERROR;
      guint64 episode = 0;

      for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
        {
          g_autoptr(RtopSnapshot) snap = make_rises (1, &class_table[r].klass, &passes[i].delta,
                                                     i > 0, passes[i].t_us);
          const RtopEvent *ev = NULL;
          /* Raised on the first rise (errors) or the second; settled
           * 10 s after the last. */
          guint raised_at = at_once ? 1 : 2;
          gboolean raised = class_table[r].watched && i == raised_at;
          gboolean settled = class_table[r].watched && i == 5;
          gboolean ongoing = class_table[r].watched && i >= raised_at && i < 5;

          g_test_message ("class %u, pass %u", r, i);
          rtop_health_process (h, snap);
          g_assert_cmpuint (snap->events->len, ==, raised + settled);
          g_assert_cmpuint (count_events (snap, RTOP_EVENT_COUNTER_RISING, &ev), ==, raised);
          if (raised)
            {
              g_assert_cmpint (ev->severity, ==, class_table[r].severity);
              g_assert_cmpint (ev->ongoing, ==, TRUE);
              episode = ev->episode;
            }
          g_assert_cmpuint (count_events (snap, RTOP_EVENT_COUNTER_SETTLED, &ev), ==, settled);
          if (settled)
            {
              g_assert_cmpint (ev->severity, ==, class_table[r].severity);
              g_assert_cmpuint (ev->episode, ==, episode);
              g_assert_cmpuint (ev->total, ==, 2);
              g_assert_cmpint (ev->duration_us, ==, G_USEC_PER_SEC);
            }
          g_assert_cmpint (only_port (snap)->health, ==,
                           ongoing ? class_table[r].verdict : RTOP_PORT_HEALTH_OK);
        }
    }
}

/* Every metric, with what each says of a port when it rises: link and
 * operation errors are Errors, retransmits, drops and transport errors
 * Warnings; traffic, congestion and the sum of the error classes (judged
 * by its parts) say nothing. */
static const struct {
  RtopMetricId metric;
  RtopPortHealth verdict;
} metric_table[] = {
  { RTOP_METRIC_TX_BYTES, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_RX_BYTES, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_TX_PACKETS, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_RX_PACKETS, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_DROPS, RTOP_PORT_HEALTH_WARNING },
  { RTOP_METRIC_RDMA_READ_BYTES, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_RDMA_WRITE_BYTES, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_RETRANSMITS, RTOP_PORT_HEALTH_WARNING },
  { RTOP_METRIC_ERRORS, RTOP_PORT_HEALTH_OK },
  { RTOP_METRIC_LINK_ERRORS, RTOP_PORT_HEALTH_ERROR },
  { RTOP_METRIC_TRANSPORT_ERRORS, RTOP_PORT_HEALTH_WARNING },
  { RTOP_METRIC_OPERATION_ERRORS, RTOP_PORT_HEALTH_ERROR },
  { RTOP_METRIC_CONGESTION, RTOP_PORT_HEALTH_OK },
};

/* An Active port whose metric m has the given rate. */
static RtopPort *
port_with_metric (guint m, gboolean present, gboolean has_rate, double rate)
{
  RtopPort *port = rtop_port_new (1);

  port->state = 4;
  port->phys_state = 5;
  port->metrics[m].present = present;
  port->metrics[m].has_rate = has_rate;
  port->metrics[m].rate = rate;
  return port;
}

/* Each metric rule's threshold: a rate of 0 (or none, or no metric) does
 * not fire; the least rate over 0 fires with the row's verdict, and so
 * does a large one. */
static void
test_metric_table_verdicts (void)
{
  static const struct {
    gboolean present, has_rate;
    double rate;
    gboolean fires;
  } cases[] = {
    { TRUE, TRUE, 0.0, FALSE },
    { TRUE, TRUE, -1.0, FALSE },
    { TRUE, TRUE, 4.9e-324, TRUE },  /* the least double over 0 */
    { TRUE, TRUE, 1e-9, TRUE },
    { TRUE, TRUE, 1.0, TRUE },
    { TRUE, TRUE, 1e12, TRUE },
    { TRUE, FALSE, 5.0, FALSE },
    { FALSE, TRUE, 5.0, FALSE },
  };

  g_assert_cmpuint (G_N_ELEMENTS (metric_table), ==, RTOP_METRIC_N);
  for (guint m = 0; m < G_N_ELEMENTS (metric_table); m++)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr(RtopPort) port = port_with_metric (m, cases[i].present, cases[i].has_rate,
                                                     cases[i].rate);
        RtopPortHealth want = cases[i].fires ? metric_table[m].verdict : RTOP_PORT_HEALTH_OK;
        const char *reason = "unset";

        g_test_message ("metric %s, case %u", rtop_metric_id_to_string (m), i);
        g_assert_cmpint (metric_table[m].metric, ==, m);
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, TRUE, &reason), ==, want);
        g_assert_cmpint (reason != NULL, ==, want != RTOP_PORT_HEALTH_OK);
        /* The metrics count only with the counters. */
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, FALSE, &reason), ==,
                         RTOP_PORT_HEALTH_OK);
        /* A port that is down is an Error for that, whatever its metrics. */
        port->state = 1;
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, TRUE, &reason), ==,
                         RTOP_PORT_HEALTH_ERROR);
        g_assert_cmpstr (reason, ==, "Port not active");
      }
  /* Two metrics rising at once: the worse verdict, in either order. */
  for (guint a = 0; a < G_N_ELEMENTS (metric_table); a++)
    for (guint b = 0; b < G_N_ELEMENTS (metric_table); b++)
      {
        g_autoptr(RtopPort) port = port_with_metric (a, TRUE, TRUE, 1.0);

        port->metrics[b].present = TRUE;
        port->metrics[b].has_rate = TRUE;
        port->metrics[b].rate = 1.0;
        g_test_message ("metrics %u and %u", a, b);
        g_assert_cmpint (rtop_health_port_verdict ("mlx5", port, TRUE, NULL), ==,
                         MAX (metric_table[a].verdict, metric_table[b].verdict));
      }
}

/* Queue pairs of one process entering the error state: one event for
 * those that entered together, counted; remembered through a pass whose
 * process list is incomplete, forgotten once a complete list shows them
 * out of it, so entering again is news again. */
static void
test_qp_errors_counted_and_remembered (void)
{
  static const struct {
    gboolean listed;           /* FALSE: the process list failed this pass */
    guint8 state[2];
    guint n_events, total;
    const char *words;
  } passes[] = {
    { TRUE, { 3, 3 }, 0, 0, NULL },
    { TRUE, { 6, 6 }, 1, 2, "2 queue pairs of qp-holder (pid 4242) entered the error state" },
    { FALSE, { 0, 0 }, 0, 0, NULL },
    { TRUE, { 6, 6 }, 0, 0, NULL },
    { TRUE, { 3, 3 }, 0, 0, NULL },
    { TRUE, { 3, 6 }, 1, 1, "Queue pair 19 of qp-holder (pid 4242)" },
  };
  g_autoptr(RtopHealth) h = rtop_health_new ();

  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
      const RtopEvent *ev = NULL;

      snap->monotonic_us = i * G_USEC_PER_SEC;
      if (passes[i].listed)
        {
          RtopProcess *proc = rtop_process_new (4242);
          RtopProcessDevice pd = { g_strdup ("rxe0"), 2, 1, 1, 4096 };
          RtopQp qps[2] = { { NULL, 1, 17, 18, TRUE, 2, 0 }, { NULL, 1, 19, 20, TRUE, 2, 0 } };

          proc->comm = g_strdup ("qp-holder");
          proc->qps = 2;
          g_array_append_val (proc->devices, pd);
          proc->qp_list = g_array_new (FALSE, FALSE, sizeof (RtopQp));
          for (guint q = 0; q < 2; q++)
            {
              qps[q].device = g_array_index (proc->devices, RtopProcessDevice, 0).device;
              qps[q].state = passes[i].state[q];
              proc->qps_in_error += qps[q].state == RTOP_QP_STATE_ERR;
            }
          g_array_append_vals (proc->qp_list, qps, 2);
          g_ptr_array_add (snap->processes, proc);
        }
      else
        snap->processes_error = g_strdup ("Listing the processes failed: Permission denied");
      rtop_snapshot_seal (snap);
      rtop_health_process (h, snap);
      g_test_message ("pass %u", i);
      g_assert_cmpuint (count_events (snap, RTOP_EVENT_QP_ERROR, &ev), ==, passes[i].n_events);
      if (ev != NULL)
        {
          g_assert_cmpuint (ev->total, ==, passes[i].total);
          g_assert_nonnull (strstr (ev->message, passes[i].words));
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/health/port-state-in-order", test_port_state_events_in_order);
  g_test_add_func ("/collector/health/device-add-remove-readd", test_device_add_remove_readd);
  g_test_add_func ("/collector/health/rename", test_rename);
  g_test_add_func ("/collector/health/rename-needs-old-gone", test_rename_needs_old_gone);
  g_test_add_func ("/collector/health/rate-change-while-down", test_rate_change_while_down);
  g_test_add_func ("/collector/health/duration-words", test_duration_words);
  g_test_add_func ("/collector/health/rising-once-then-settled", test_rising_once_then_settled);
  g_test_add_func ("/collector/health/rising-with-layouts", test_rising_with_layouts);
  g_test_add_func ("/collector/health/severity-table", test_rising_severity_from_table);
  g_test_add_func ("/collector/health/episode/names-counter-that-rose",
                   test_episode_names_counter_that_rose);
  g_test_add_func ("/collector/health/collection-error-once", test_collection_error_once);
  g_test_add_func ("/collector/health/port-read-failure-once", test_port_read_failure_once);
  g_test_add_func ("/collector/health/episode/light-loss", test_light_loss_is_one_episode);
  g_test_add_func ("/collector/health/episode/lone-rise", test_lone_rise_is_quiet);
  g_test_add_func ("/collector/health/episode/error-at-once", test_error_class_raised_at_once);
  g_test_add_func ("/collector/health/verdict/peer-loss", test_peer_loss_does_not_flag_receiver);
  g_test_add_func ("/collector/health/link-down-folded", test_link_down_is_one_error);
  g_test_add_func ("/collector/health/qp-error", test_qp_error_names_process);
  g_test_add_func ("/collector/health/qp-error-before-start", test_qp_error_before_start);
  g_test_add_func ("/collector/health/qp-errors-counted", test_qp_errors_counted_and_remembered);
  g_test_add_func ("/collector/health/rails/quiet", test_rails_quiet);
  g_test_add_func ("/collector/health/rails/one-slow", test_rails_one_slow);
  g_test_add_func ("/collector/health/rails/peer-median", test_rails_peer_median);
  g_test_add_func ("/collector/health/rails/two-steps", test_rails_two_steps);
  g_test_add_func ("/collector/health/rails/host-group", test_rails_host_group);
  g_test_add_func ("/collector/health/verdict/every-state", test_verdict_every_state);
  g_test_add_func ("/collector/health/verdict/class-table", test_class_table_verdicts);
  g_test_add_func ("/collector/health/verdict/metric-table", test_metric_table_verdicts);
  g_test_add_func ("/collector/health/episode/every-state", test_transitions_every_state);
  g_test_add_func ("/collector/health/episode/class-table", test_class_table_episodes);
  return g_test_run ();
}
