/* test-rates.c: deltas and rates on counter sequences. */
#include "config.h"

#include <math.h>

#include "rtop-rates-private.h"

static GPtrArray *
counters_of (const char *name, guint64 value)
{
  GPtrArray *a = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);

  g_ptr_array_add (a, rtop_counter_new (name, value, RTOP_COUNTER_SOURCE_NETLINK));
  return a;
}

/* Feeds one counter value read at t seconds and returns the counter. */
static RtopCounter *
feed (RtopRates *rates, GPtrArray **keep, guint32 dev_index, double t, guint64 value)
{
  g_clear_pointer (keep, g_ptr_array_unref);
  *keep = counters_of ("sent_pkts", value);
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "rxe0", dev_index, 1, (gint64) (t * G_USEC_PER_SEC), *keep, NULL);
  rtop_rates_end_pass (rates);
  return g_ptr_array_index (*keep, 0);
}

static void
test_baseline_then_rate (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;

  c = feed (rates, &keep, 1, 10.0, 1000);
  g_assert_false (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 0);

  c = feed (rates, &keep, 1, 12.0, 3000);
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 2000);
  g_assert_cmpfloat_with_epsilon (c->rate, 1000.0, 1e-9);
  g_assert_false (c->reset);
}

static void
test_elapsed_is_per_port (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = counters_of ("x", 0);
  g_autoptr(GPtrArray) b = counters_of ("x", 0);
  double ea, eb;

  /* A port's first read has nothing before it: 0 s, not the time since 0. */
  rtop_rates_begin_pass (rates);
  ea = rtop_rates_update (rates, "mlx5_0", 1, 1, 1000000, a, NULL);
  eb = rtop_rates_update (rates, "mlx5_0", 1, 2, 1500000, b, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpfloat (ea, ==, 0.0);
  g_assert_cmpfloat (eb, ==, 0.0);
  rtop_rates_begin_pass (rates);
  ea = rtop_rates_update (rates, "mlx5_0", 1, 1, 2000000, a, NULL);
  eb = rtop_rates_update (rates, "mlx5_0", 1, 2, 2000000, b, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpfloat_with_epsilon (ea, 1.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (eb, 0.5, 1e-9);
}

static void
test_wrap_32bit (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;

  feed (rates, &keep, 1, 0.0, G_MAXUINT32 - 99);
  c = feed (rates, &keep, 1, 1.0, 50);
  g_assert_true (c->has_rate);
  g_assert_false (c->reset);
  g_assert_cmpuint (c->delta, ==, 150);
  g_assert_cmpfloat_with_epsilon (c->rate, 150.0, 1e-9);
}

static void
test_backwards_is_reset (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;
  guint n_resets = 0;

  /* A 64-bit counter going back is never a wrap. */
  feed (rates, &keep, 1, 0.0, G_GUINT64_CONSTANT (10000000000));
  c = feed (rates, &keep, 1, 1.0, 5);
  g_assert_true (c->reset);
  g_assert_false (c->has_rate);
  g_assert_cmpfloat (c->rate, ==, 0.0);

  /* A small 32-bit value going back is a reset, not a 4-billion spike. */
  feed (rates, &keep, 1, 2.0, 1000);
  c = feed (rates, &keep, 1, 3.0, 10);
  g_assert_true (c->reset);
  g_assert_cmpuint (c->delta, ==, 0);

  /* After the reset the counter is its own baseline again. */
  c = feed (rates, &keep, 1, 4.0, 30);
  g_assert_true (c->has_rate);
  g_assert_cmpfloat_with_epsilon (c->rate, 20.0, 1e-9);

  g_clear_pointer (&keep, g_ptr_array_unref);
  keep = counters_of ("sent_pkts", 1);
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "rxe0", 1, 1, 5 * G_USEC_PER_SEC, keep, &n_resets);
  rtop_rates_end_pass (rates);
  g_assert_cmpuint (n_resets, ==, 1);
}

static void
test_device_readded (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;
  guint n_resets = 0;
  double elapsed;

  feed (rates, &keep, 1, 0.0, 100);
  feed (rates, &keep, 1, 1.0, 200);
  /* Same name, new kernel index, and a value that happens to be higher:
   * still a new baseline, not a rate over the old device's value. */
  g_clear_pointer (&keep, g_ptr_array_unref);
  keep = counters_of ("sent_pkts", 5000);
  rtop_rates_begin_pass (rates);
  elapsed = rtop_rates_update (rates, "rxe0", 7, 1, 2 * G_USEC_PER_SEC, keep, &n_resets);
  rtop_rates_end_pass (rates);
  c = g_ptr_array_index (keep, 0);
  g_assert_false (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 0);
  g_assert_cmpuint (n_resets, >=, 1);
  /* The new device's first read is a first read: nothing elapsed since
   * the old device's last one. */
  g_assert_cmpfloat (elapsed, ==, 0.0);
  /* Its next read measures from it. */
  ((RtopCounter *) g_ptr_array_index (keep, 0))->value = 5300;
  rtop_rates_begin_pass (rates);
  elapsed = rtop_rates_update (rates, "rxe0", 7, 1, 5 * G_USEC_PER_SEC, keep, &n_resets);
  rtop_rates_end_pass (rates);
  g_assert_cmpfloat_with_epsilon (elapsed, 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (c->rate, 100.0, 1e-9);
  g_assert_cmpuint (n_resets, ==, 0);
}

static void
test_late_counter (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = counters_of ("old", 10);
  RtopCounter *late;

  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "efa_0", 1, 1, 1000000, a, NULL);
  rtop_rates_end_pass (rates);
  g_ptr_array_add (a, rtop_counter_new ("late", 999, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "efa_0", 1, 1, 2000000, a, NULL);
  rtop_rates_end_pass (rates);
  late = g_ptr_array_index (a, 1);
  g_assert_true (((RtopCounter *) g_ptr_array_index (a, 0))->has_rate);
  g_assert_false (late->has_rate);
  g_assert_false (late->reset);
}

static void
test_same_name_other_source (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  g_autoptr(GPtrArray) b = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);

  g_ptr_array_add (a, rtop_counter_new ("tx_bytes", 100, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (a, rtop_counter_new ("tx_bytes", 5, RTOP_COUNTER_SOURCE_NETDEV));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 1000000, a, NULL);
  rtop_rates_end_pass (rates);
  ((RtopCounter *) g_ptr_array_index (a, 0))->value = 300;
  ((RtopCounter *) g_ptr_array_index (a, 1))->value = 6;
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 2000000, a, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpfloat_with_epsilon (((RtopCounter *) g_ptr_array_index (a, 0))->rate, 200, 1e-9);
  g_assert_cmpfloat_with_epsilon (((RtopCounter *) g_ptr_array_index (a, 1))->rate, 1, 1e-9);

  /* Listed the other way round: the name at a position is not enough,
   * each meets the previous value of its own source. */
  g_ptr_array_add (b, rtop_counter_new ("tx_bytes", 8, RTOP_COUNTER_SOURCE_NETDEV));
  g_ptr_array_add (b, rtop_counter_new ("tx_bytes", 700, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 3000000, b, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 0))->delta, ==, 2);
  g_assert_false (((RtopCounter *) g_ptr_array_index (b, 0))->reset);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 1))->delta, ==, 400);
  g_assert_false (((RtopCounter *) g_ptr_array_index (b, 1))->reset);
}

static void
test_state_is_bounded (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = counters_of ("x", 1);

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *name = g_strdup_printf ("rxe%u", i);

      rtop_rates_begin_pass (rates);
      rtop_rates_update (rates, name, i, 1, i * 1000, a, NULL);
      rtop_rates_end_pass (rates);
    }
  /* Only the device seen in the last pass is remembered. */
  g_assert_cmpuint (rtop_rates_get_n_ports (rates), ==, 1);
}

static void
test_kept_port_measures_whole_gap (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = counters_of ("x", 0);
  double elapsed;

  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "mlx5_1", 3, 1, 1000000, a, NULL);
  rtop_rates_end_pass (rates);
  /* This pass the port's read failed. */
  rtop_rates_begin_pass (rates);
  rtop_rates_keep (rates, "mlx5_1", 1);
  rtop_rates_end_pass (rates);
  ((RtopCounter *) g_ptr_array_index (a, 0))->value = 300;
  rtop_rates_begin_pass (rates);
  elapsed = rtop_rates_update (rates, "mlx5_1", 3, 1, 4000000, a, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpfloat_with_epsilon (elapsed, 3.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (((RtopCounter *) g_ptr_array_index (a, 0))->rate, 100.0, 1e-9);
}

static void
test_layout_change (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  g_autoptr(GPtrArray) b = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);

  g_ptr_array_add (a, rtop_counter_new ("x", 10, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (a, rtop_counter_new ("y", 100, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 1000000, a, NULL);
  rtop_rates_end_pass (rates);
  /* Next read lists them the other way round, with a new one first: each
   * counter still meets its own previous value. */
  g_ptr_array_add (b, rtop_counter_new ("new", 1, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (b, rtop_counter_new ("y", 130, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (b, rtop_counter_new ("x", 15, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 2000000, b, NULL);
  rtop_rates_end_pass (rates);
  g_assert_false (((RtopCounter *) g_ptr_array_index (b, 0))->has_rate);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 1))->delta, ==, 30);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 2))->delta, ==, 5);
  /* And back to the first layout. */
  ((RtopCounter *) g_ptr_array_index (a, 0))->value = 20;
  ((RtopCounter *) g_ptr_array_index (a, 1))->value = 131;
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "d", 1, 1, 3000000, a, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (a, 0))->delta, ==, 5);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (a, 1))->delta, ==, 1);
}

/* Without a layout id (0: unknown) two reads of as many counters are not
 * taken for the same layout: a list in another order is matched by name. */
static void
test_unknown_layout_by_name (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) a = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  g_autoptr(GPtrArray) b = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);

  g_ptr_array_add (a, rtop_counter_new ("x", 10, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (a, rtop_counter_new ("y", 100, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update_layout (rates, "d", 1, 1, 1000000, 0, a, NULL);
  rtop_rates_end_pass (rates);
  g_ptr_array_add (b, rtop_counter_new ("y", 130, RTOP_COUNTER_SOURCE_NETLINK));
  g_ptr_array_add (b, rtop_counter_new ("x", 15, RTOP_COUNTER_SOURCE_NETLINK));
  rtop_rates_begin_pass (rates);
  rtop_rates_update_layout (rates, "d", 1, 1, 2000000, 0, b, NULL);
  rtop_rates_end_pass (rates);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 0))->delta, ==, 30);
  g_assert_false (((RtopCounter *) g_ptr_array_index (b, 0))->reset);
  g_assert_cmpuint (((RtopCounter *) g_ptr_array_index (b, 1))->delta, ==, 5);
  g_assert_false (((RtopCounter *) g_ptr_array_index (b, 1))->reset);
}

static void
test_delta_table (void)
{
  static const struct { guint64 prev, cur, delta; gboolean ok; } cases[] = {
    { 0, 0, 0, TRUE },
    { 5, 9, 4, TRUE },
    { 0xfffffff0u, 0x10, 0x20, TRUE },       /* wrap near the top */
    { 0x80000000u, 0, 0x80000000u, TRUE },   /* lowest value we take as a wrap */
    { 0xffffffffu, 5, 6, TRUE },             /* highest value we take as a wrap */
    { 0x7fffffffu, 0, 0, FALSE },            /* lower half: reset */
    { G_GUINT64_CONSTANT (0x100000000), 1, 0, FALSE },
    { G_MAXUINT64, 0, 0, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint64 d = 42;
      gboolean ok = rtop_rates_delta (cases[i].prev, cases[i].cur, &d);

      g_assert_cmpint (ok, ==, cases[i].ok);
      g_assert_cmpuint (d, ==, cases[i].delta);
    }
}

/* Feeds one counter of the given source and returns it. */
static RtopCounter *
feed_source (RtopRates *rates, GPtrArray **keep, const char *name, RtopCounterSource source,
             double t, guint64 value)
{
  g_clear_pointer (keep, g_ptr_array_unref);
  *keep = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  g_ptr_array_add (*keep, rtop_counter_new (name, value, source));
  rtop_rates_begin_pass (rates);
  rtop_rates_update (rates, "mlx5_0", 1, 1, (gint64) (t * G_USEC_PER_SEC), *keep, NULL);
  rtop_rates_end_pass (rates);
  return g_ptr_array_index (*keep, 0);
}

/* A PMA counter that reaches its maximum and stays there has no rate: a
 * rate of 0 would say there is nothing to count. */
static void
test_saturated_pma (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  const RtopCounterSource pma = RTOP_COUNTER_SOURCE_SYSFS_PORT;
  RtopCounter *c;

  c = feed_source (rates, &keep, "port_xmit_data", pma, 1.0, G_MAXUINT32 - 100);
  g_assert_false (c->saturated);
  /* Reaching the maximum still measured what was counted on the way. */
  c = feed_source (rates, &keep, "port_xmit_data", pma, 2.0, G_MAXUINT32);
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 100);
  g_assert_false (c->saturated);
  c = feed_source (rates, &keep, "port_xmit_data", pma, 3.0, G_MAXUINT32);
  g_assert_true (c->saturated);
  g_assert_false (c->has_rate);
  g_assert_cmpfloat (c->rate, ==, 0);
  g_assert_false (c->reset);
  c = feed_source (rates, &keep, "port_xmit_data", pma, 4.0, G_MAXUINT32);
  g_assert_true (c->saturated);
  /* Cleared (perfquery -R): a reset, counting again from there. */
  c = feed_source (rates, &keep, "port_xmit_data", pma, 5.0, 3);
  g_assert_false (c->saturated);
  g_assert_true (c->reset);
  c = feed_source (rates, &keep, "port_xmit_data", pma, 6.0, 10);
  g_assert_true (c->has_rate);
  g_assert_cmpuint (c->delta, ==, 7);
}

static void
test_saturated_needs_pma_width (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;

  /* A 16-bit error counter stops at 65535 ... */
  feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_SYSFS_PORT, 1.0, 65535);
  c = feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_SYSFS_PORT, 2.0, 65535);
  g_assert_true (c->saturated);
  g_assert_false (c->has_rate);

  /* ... but the same value from netlink is a 64-bit counter standing still. */
  g_clear_pointer (&rates, rtop_rates_free);
  rates = rtop_rates_new ();
  feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_NETLINK, 1.0, 65535);
  c = feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_NETLINK, 2.0, 65535);
  g_assert_false (c->saturated);
  g_assert_true (c->has_rate);

  /* A value below the maximum that stands still is an idle counter. */
  g_clear_pointer (&rates, rtop_rates_free);
  rates = rtop_rates_new ();
  feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_SYSFS_PORT, 1.0, 65534);
  c = feed_source (rates, &keep, "symbol_error", RTOP_COUNTER_SOURCE_SYSFS_PORT, 2.0, 65534);
  g_assert_false (c->saturated);
  g_assert_true (c->has_rate);
  g_assert_cmpfloat (c->rate, ==, 0);
}

/* Feeds one counter value read at t_us, by name or by layout, and returns
 * the counter; *elapsed is what the update returned. */
static RtopCounter *
feed_at (RtopRates *rates, GPtrArray **keep, guint64 layout, gint64 t_us, guint64 value,
         double *elapsed)
{
  g_clear_pointer (keep, g_ptr_array_unref);
  *keep = counters_of ("sent_pkts", value);
  rtop_rates_begin_pass (rates);
  *elapsed = rtop_rates_update_layout (rates, "rxe0", 1, 1, t_us, layout, *keep, NULL);
  rtop_rates_end_pass (rates);
  return g_ptr_array_index (*keep, 0);
}

/* What a read that is not later than the one before gives: no rate (a
 * rate of 0, never a division by zero, an infinite or a negative one),
 * no reset, the increase as its delta, and 0 s elapsed. */
static void
assert_no_rate (const RtopCounter *c, double elapsed, guint64 delta)
{
  g_assert_cmpint (c->has_rate, ==, FALSE);
  g_assert_cmpfloat (c->rate, ==, 0.0);
  g_assert_cmpint (isfinite (c->rate), ==, TRUE);
  g_assert_cmpint (c->reset, ==, FALSE);
  g_assert_cmpuint (c->delta, ==, delta);
  g_assert_cmpfloat (elapsed, ==, 0.0);
}

/* Two reads with the same time have no rate; the second is the baseline
 * of the next, which measures from it. */
static void
test_same_time (void)
{
  for (guint64 layout = 0; layout <= 5; layout += 5)
    {
      g_autoptr(RtopRates) rates = rtop_rates_new ();
      g_autoptr(GPtrArray) keep = NULL;
      RtopCounter *c;
      double elapsed;

      g_test_message ("layout %" G_GUINT64_FORMAT, layout);
      feed_at (rates, &keep, layout, 10 * G_USEC_PER_SEC, 1000, &elapsed);
      c = feed_at (rates, &keep, layout, 10 * G_USEC_PER_SEC, 1000, &elapsed);
      assert_no_rate (c, elapsed, 0);
      c = feed_at (rates, &keep, layout, 10 * G_USEC_PER_SEC, 1500, &elapsed);
      assert_no_rate (c, elapsed, 500);
      c = feed_at (rates, &keep, layout, 12 * G_USEC_PER_SEC, 3500, &elapsed);
      g_assert_cmpint (c->has_rate, ==, TRUE);
      g_assert_cmpuint (c->delta, ==, 2000);
      g_assert_cmpfloat_with_epsilon (c->rate, 1000.0, 1e-9);
      g_assert_cmpfloat_with_epsilon (elapsed, 2.0, 1e-9);
    }
}

/* A clock that went back (a recording's, a remote host's): the read has
 * no rate, and the next one measures from it, on the new clock. */
static void
test_clock_went_back (void)
{
  for (guint64 layout = 0; layout <= 5; layout += 5)
    {
      g_autoptr(RtopRates) rates = rtop_rates_new ();
      g_autoptr(GPtrArray) keep = NULL;
      RtopCounter *c;
      double elapsed;

      g_test_message ("layout %" G_GUINT64_FORMAT, layout);
      feed_at (rates, &keep, layout, 10 * G_USEC_PER_SEC, 1000, &elapsed);
      c = feed_at (rates, &keep, layout, 12 * G_USEC_PER_SEC, 3000, &elapsed);
      g_assert_cmpfloat_with_epsilon (c->rate, 1000.0, 1e-9);
      /* Five seconds back. */
      c = feed_at (rates, &keep, layout, 7 * G_USEC_PER_SEC, 3200, &elapsed);
      assert_no_rate (c, elapsed, 200);
      /* One second after that read. */
      c = feed_at (rates, &keep, layout, 8 * G_USEC_PER_SEC, 3300, &elapsed);
      g_assert_cmpint (c->has_rate, ==, TRUE);
      g_assert_cmpint (c->reset, ==, FALSE);
      g_assert_cmpuint (c->delta, ==, 100);
      g_assert_cmpfloat_with_epsilon (c->rate, 100.0, 1e-9);
      g_assert_cmpfloat_with_epsilon (elapsed, 1.0, 1e-9);
      /* Back by one microsecond only. */
      c = feed_at (rates, &keep, layout, 8 * G_USEC_PER_SEC - 1, 3300, &elapsed);
      assert_no_rate (c, elapsed, 0);
      c = feed_at (rates, &keep, layout, 10 * G_USEC_PER_SEC - 1, 3500, &elapsed);
      g_assert_cmpfloat_with_epsilon (c->rate, 100.0, 1e-9);
    }
}

/* Read times from a recording can be anything: from the latest time there
 * is to the earliest, and forward again, nothing overflows and no rate is
 * negative or infinite. */
static void
test_clock_extremes (void)
{
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(GPtrArray) keep = NULL;
  RtopCounter *c;
  double elapsed;

  feed_at (rates, &keep, 0, G_MAXINT64, 10, &elapsed);
  c = feed_at (rates, &keep, 0, G_MININT64, 20, &elapsed);
  assert_no_rate (c, elapsed, 10);
  c = feed_at (rates, &keep, 0, G_MININT64 + 2 * G_USEC_PER_SEC, 30, &elapsed);
  g_assert_cmpfloat_with_epsilon (c->rate, 5.0, 1e-9);
  c = feed_at (rates, &keep, 0, G_MAXINT64, 40, &elapsed);
  g_assert_cmpint (c->has_rate, ==, TRUE);
  g_assert_cmpint (isfinite (c->rate), ==, TRUE);
  g_assert_cmpfloat (c->rate, >, 0.0);
  g_assert_cmpfloat (elapsed, >, 9.2e12);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/collector/rates/baseline-then-rate", test_baseline_then_rate);
  g_test_add_func ("/collector/rates/elapsed-per-port", test_elapsed_is_per_port);
  g_test_add_func ("/collector/rates/wrap-32bit", test_wrap_32bit);
  g_test_add_func ("/collector/rates/saturated-pma", test_saturated_pma);
  g_test_add_func ("/collector/rates/saturated-needs-pma-width", test_saturated_needs_pma_width);
  g_test_add_func ("/collector/rates/backwards-is-reset", test_backwards_is_reset);
  g_test_add_func ("/collector/rates/device-readded", test_device_readded);
  g_test_add_func ("/collector/rates/late-counter", test_late_counter);
  g_test_add_func ("/collector/rates/same-name-other-source", test_same_name_other_source);
  g_test_add_func ("/collector/rates/bounded", test_state_is_bounded);
  g_test_add_func ("/collector/rates/kept-port", test_kept_port_measures_whole_gap);
  g_test_add_func ("/collector/rates/layout-change", test_layout_change);
  g_test_add_func ("/collector/rates/unknown-layout-by-name", test_unknown_layout_by_name);
  g_test_add_func ("/collector/rates/delta-table", test_delta_table);
  g_test_add_func ("/collector/rates/elapsed/same-time", test_same_time);
  g_test_add_func ("/collector/rates/elapsed/clock-went-back", test_clock_went_back);
  g_test_add_func ("/collector/rates/elapsed/clock-extremes", test_clock_extremes);
  return g_test_run ();
}
