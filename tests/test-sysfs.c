/* test-sysfs.c: port facts and counter directories, on fixture trees copied
 * from real layouts (tests/fixtures/sys) and on the machine's own /proc and
 * /sys where they show kernel behaviour a fixture cannot (a file whose owner
 * went away). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "rtop-error.h"
#include "rtop-sysfs-private.h"
#include "rtop-snapshot-private.h"

static const char *
fixture_root (void)
{
  return g_test_get_filename (G_TEST_DIST, "fixtures", "sys", NULL);
}

/* Reads a directory through RtopCounterDir into a new array. */
static GPtrArray *
read_dir (RtopCounterDir *dir, guint *n_failed)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);

  rtop_counter_dir_read (dir, out, n_failed);
  return out;
}

static guint64
value_of (GPtrArray *counters, const char *name)
{
  RtopCounter *counter = rtop_counters_find (counters, name);

  g_assert_nonnull (counter);
  return counter->value;
}

static void
write_in_place (const char *path, const char *text)
{
  /* Rewrite the same inode, as sysfs does: an open fd must see it. */
  int fd = open (path, O_WRONLY | O_TRUNC | O_CREAT, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, strlen (text)), ==, (gssize) strlen (text));
  close (fd);
}

static void
write_file (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  write_in_place (path, text);
}

/* Temporary trees are removed after each test. */
static void
remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

static void
test_parse_u64 (void)
{
  static const struct {
    const char *text;
    gboolean ok;
    guint64 value;
  } cases[] = {
    { "0", TRUE, 0 },
    { "42\n", TRUE, 42 },
    { "  42 \n", TRUE, 42 },
    { "18446744073709551615\n", TRUE, G_MAXUINT64 },
    { "18446744073709551616\n", FALSE, 0 },     /* overflow */
    { "99999999999999999999999\n", FALSE, 0 },
    { "-1\n", FALSE, 0 },                        /* strtoull would wrap it */
    { "+5", FALSE, 0 },
    { "", FALSE, 0 },
    { "\n", FALSE, 0 },
    { "abc", FALSE, 0 },
    { "12abc", FALSE, 0 },
    { "0x10", FALSE, 0 },
    { "1 2", FALSE, 0 },
    { "4: ACTIVE", FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint64 value = 12345;
      gboolean ok = rtop_sysfs_parse_u64 (cases[i].text, strlen (cases[i].text), &value);

      g_test_message ("case %u", i);
      g_assert_cmpint (ok, ==, cases[i].ok);
      if (ok)
        g_assert_cmpuint (value, ==, cases[i].value);
      else
        g_assert_cmpuint (value, ==, 12345);   /* untouched on failure */
    }

  /* An embedded NUL is not a number, and length is respected. */
  {
    guint64 value;

    g_assert_false (rtop_sysfs_parse_u64 ("1\0002", 3, &value));
    g_assert_true (rtop_sysfs_parse_u64 ("123456", 3, &value));
    g_assert_cmpuint (value, ==, 123);
    g_assert_false (rtop_sysfs_parse_u64 (NULL, 0, &value));
  }
}

/* The widths of core/sysfs.c's PortCounters layout, and the values that
 * mean a counter stopped. */
static void
test_pma_widths (void)
{
  static const struct { const char *name; guint width; } widths[] = {
    { "symbol_error", 16 }, { "link_error_recovery", 8 }, { "link_downed", 8 },
    { "port_rcv_errors", 16 }, { "port_xmit_discards", 16 }, { "VL15_dropped", 16 },
    { "local_link_integrity_errors", 4 }, { "excessive_buffer_overrun_errors", 4 },
    { "port_xmit_constraint_errors", 8 }, { "port_xmit_data", 32 }, { "port_rcv_packets", 32 },
    { "port_xmit_wait", 32 }, { "unicast_xmit_packets", 64 }, { "multicast_rcv_packets", 64 },
    { "sent_pkts", 0 }, { "", 0 }, { "port_xmit_dat", 0 }, { "zzz", 0 }, { "AAA", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_test_message ("%s", widths[i].name);
      g_assert_cmpuint (rtop_sysfs_pma_counter_width (widths[i].name), ==, widths[i].width);
    }
  g_assert_cmpuint (rtop_sysfs_pma_counter_width (NULL), ==, 0);

  g_assert_true (rtop_sysfs_pma_counter_at_max ("symbol_error", 65535));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("symbol_error", 65534));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("symbol_error", 255));
  g_assert_true (rtop_sysfs_pma_counter_at_max ("link_downed", 255));
  g_assert_true (rtop_sysfs_pma_counter_at_max ("local_link_integrity_errors", 15));
  g_assert_true (rtop_sysfs_pma_counter_at_max ("port_xmit_data", G_MAXUINT32));
  g_assert_true (rtop_sysfs_pma_counter_at_max ("port_xmit_data", G_MAXUINT64));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("port_xmit_data", 65535));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("unicast_xmit_packets", G_MAXUINT32));
  g_assert_true (rtop_sysfs_pma_counter_at_max ("unicast_xmit_packets", G_MAXUINT64));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("sent_pkts", 65535));
  g_assert_false (rtop_sysfs_pma_counter_at_max ("symbol_error", 0));
}

static void
test_parse_rate_state (void)
{
  static const struct {
    const char *text;
    gboolean ok;
    double gbps;
  } rates[] = {
    { "100 Gb/sec (4X EDR)", TRUE, 100.0 },
    { "2.5 Gb/sec (1X SDR)", TRUE, 2.5 },
    { "25 Gb/sec", TRUE, 25.0 },
    { "400 Gb/sec (4X NDR)\n", TRUE, 400.0 },
    { "  53.125 Gb/sec (1X HDR)", TRUE, 53.125 },
    { "", FALSE, 0 },
    { "Gb/sec", FALSE, 0 },
    { "fast", FALSE, 0 },
    { "-10 Gb/sec", FALSE, 0 },
    { "inf Gb/sec", FALSE, 0 },
    { "nan Gb/sec", FALSE, 0 },
    { "0x10 Gb/sec", FALSE, 0 },
    { "1e3 Gb/sec", FALSE, 0 },
    { "100 Mb/sec", FALSE, 0 },
    { "1.2.3 Gb/sec", FALSE, 0 },
  };
  double gbps;

  for (guint i = 0; i < G_N_ELEMENTS (rates); i++)
    {
      gbps = -1;
      g_test_message ("rate case %u", i);
      g_assert_cmpint (rtop_sysfs_parse_rate (rates[i].text, &gbps), ==, rates[i].ok);
      if (rates[i].ok)
        g_assert_cmpfloat_with_epsilon (gbps, rates[i].gbps, 1e-9);
    }
  g_assert_false (rtop_sysfs_parse_rate (NULL, &gbps));

  g_assert_cmpint (rtop_sysfs_parse_state ("4: ACTIVE"), ==, 4);
  g_assert_cmpint (rtop_sysfs_parse_state ("5: LinkUp"), ==, 5);
  g_assert_cmpint (rtop_sysfs_parse_state ("1: DOWN\n"), ==, 1);
  g_assert_cmpint (rtop_sysfs_parse_state ("3"), ==, 3);
  g_assert_cmpint (rtop_sysfs_parse_state ("ACTIVE"), ==, -1);
  g_assert_cmpint (rtop_sysfs_parse_state (": ACTIVE"), ==, -1);
  g_assert_cmpint (rtop_sysfs_parse_state ("-4: ACTIVE"), ==, -1);
  g_assert_cmpint (rtop_sysfs_parse_state ("99999999999: X"), ==, -1);
  g_assert_cmpint (rtop_sysfs_parse_state (NULL), ==, -1);
}

/* Random text into the value parsers: an answer, never a crash. */
static void
test_parse_random (void)
{
  static const char alphabet[] = "0123456789 \n\t-+.xGb/sec()4XEDR:";

  for (guint i = 0; i < 20000; i++)
    {
      char buf[40];
      gsize n = g_test_rand_int_range (0, sizeof buf);
      guint64 value;
      double gbps;

      for (gsize j = 0; j < n; j++)
        buf[j] = i % 2 ? alphabet[g_test_rand_int_range (0, sizeof alphabet - 1)]
                       : (char) g_test_rand_int_range (0, 256);
      if (rtop_sysfs_parse_u64 (buf, n, &value))
        g_assert_nonnull (memchr (buf, '0' + (int) (value % 10), n));
      buf[n] = '\0';
      if (rtop_sysfs_parse_rate (buf, &gbps))
        g_assert_true (gbps >= 0 && gbps <= 1e6);
      g_assert_cmpint (rtop_sysfs_parse_state (buf), >=, -1);
    }
}

static void
test_port_info (void)
{
  RtopSysfsPortInfo info;

  g_assert_true (rtop_sysfs_read_port_info (fixture_root (), "mlx5_0", 1, &info));
  g_assert_cmpint (info.state, ==, 4);
  g_assert_cmpint (info.phys_state, ==, 5);
  g_assert_cmpstr (info.rate_text, ==, "100 Gb/sec (4X EDR)");
  g_assert_cmpfloat_with_epsilon (info.rate_gbps, 100.0, 1e-9);
  g_assert_cmpstr (info.link_layer, ==, "InfiniBand");
  rtop_sysfs_port_info_clear (&info);
  g_assert_null (info.rate_text);

  g_assert_true (rtop_sysfs_read_port_info (fixture_root (), "rxe0", 1, &info));
  g_assert_cmpstr (info.rate_text, ==, "2.5 Gb/sec (1X SDR)");
  g_assert_cmpfloat_with_epsilon (info.rate_gbps, 2.5, 1e-9);
  g_assert_cmpstr (info.link_layer, ==, "Ethernet");
  rtop_sysfs_port_info_clear (&info);

  /* A port or device that is not there: FALSE, fields at "unknown". */
  g_assert_false (rtop_sysfs_read_port_info (fixture_root (), "mlx5_0", 2, &info));
  g_assert_cmpint (info.state, ==, -1);
  g_assert_cmpint (info.phys_state, ==, -1);
  g_assert_null (info.rate_text);
  g_assert_cmpfloat (info.rate_gbps, ==, 0);
  g_assert_false (rtop_sysfs_read_port_info (fixture_root (), "nosuch0", 1, &info));
  g_assert_false (rtop_sysfs_read_port_info (fixture_root (), "../../..", 1, &info));
  rtop_sysfs_port_info_clear (&info);
}

static void
test_port_info_garbage (void)
{
  g_autofree char *root = g_dir_make_tmp ("rtop-sysfs-XXXXXX", NULL);
  g_autofree char *port = g_build_filename (root, "class", "infiniband", "bad0", "ports", "1", NULL);
  RtopSysfsPortInfo info;

  g_assert_cmpint (g_mkdir_with_parents (port, 0755), ==, 0);
  write_file (port, "state", "ACTIVE\n");
  write_file (port, "phys_state", "\xff\xfe\n");
  write_file (port, "rate", "very fast\n");
  write_file (port, "link_layer", "\n");
  g_assert_true (rtop_sysfs_read_port_info (root, "bad0", 1, &info));
  g_assert_cmpint (info.state, ==, -1);
  g_assert_cmpint (info.phys_state, ==, -1);
  g_assert_cmpstr (info.rate_text, ==, "very fast");
  g_assert_cmpfloat (info.rate_gbps, ==, 0);
  g_assert_null (info.link_layer);
  rtop_sysfs_port_info_clear (&info);
  remove_tree (root);
}

static void
test_driver_and_paths (void)
{
  g_autofree char *mlx5 = rtop_sysfs_read_driver (fixture_root (), "mlx5_0");
  g_autofree char *efa = rtop_sysfs_read_driver (fixture_root (), "efa_0");
  g_autofree char *rxe = rtop_sysfs_read_driver (fixture_root (), "rxe0");
  g_autofree char *parent = rtop_sysfs_read_parent (fixture_root (), "rxe0");
  g_autofree char *no_parent = rtop_sysfs_read_parent (fixture_root (), "mlx5_0");
  g_autofree char *counters = rtop_sysfs_port_counters_path ("/sys", "mlx5_0", 1);
  g_autofree char *hw = rtop_sysfs_port_hw_counters_path ("/sys", "mlx5_0", 2);
  g_autofree char *dev_hw = rtop_sysfs_device_hw_counters_path ("/sys", "efa_0");
  g_autofree char *netdev = rtop_sysfs_netdev_stats_path ("/sys", "d0");

  g_assert_cmpstr (mlx5, ==, "mlx5_core");
  g_assert_cmpstr (efa, ==, "efa");
  g_assert_null (rxe);                       /* Soft-RoCE has no device link */
  g_assert_cmpstr (parent, ==, "d0");
  g_assert_null (no_parent);

  g_assert_cmpstr (counters, ==, "/sys/class/infiniband/mlx5_0/ports/1/counters");
  g_assert_cmpstr (hw, ==, "/sys/class/infiniband/mlx5_0/ports/2/hw_counters");
  g_assert_cmpstr (dev_hw, ==, "/sys/class/infiniband/efa_0/hw_counters");
  g_assert_cmpstr (netdev, ==, "/sys/class/net/d0/statistics");

  /* Names that would leave the directory are refused. */
  g_assert_null (rtop_sysfs_port_counters_path ("/sys", "../etc", 1));
  g_assert_null (rtop_sysfs_port_hw_counters_path ("/sys", "a/b", 1));
  g_assert_null (rtop_sysfs_device_hw_counters_path ("/sys", ".."));
  g_assert_null (rtop_sysfs_netdev_stats_path ("/sys", ""));
  g_assert_null (rtop_sysfs_netdev_stats_path ("/sys", NULL));
  g_assert_null (rtop_sysfs_read_driver (fixture_root (), "../.."));
}

static void
test_counter_dir_fixture (void)
{
  g_autofree char *pma_path = rtop_sysfs_port_counters_path (fixture_root (), "mlx5_0", 1);
  g_autofree char *hw_path = rtop_sysfs_port_hw_counters_path (fixture_root (), "mlx5_0", 1);
  g_autoptr(RtopCounterDir) pma = NULL;
  g_autoptr(RtopCounterDir) hw = NULL;
  g_autoptr(GPtrArray) pma_counters = NULL;
  g_autoptr(GPtrArray) hw_counters = NULL;
  g_autoptr(GError) error = NULL;
  guint n_failed = 99;

  pma = rtop_counter_dir_open (pma_path, RTOP_COUNTER_SOURCE_SYSFS_PORT, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pma);
  g_assert_cmpstr (rtop_counter_dir_get_path (pma), ==, pma_path);
  g_assert_cmpuint (rtop_counter_dir_get_n_files (pma), ==, 21);
  pma_counters = read_dir (pma, &n_failed);
  g_assert_cmpuint (n_failed, ==, 0);
  g_assert_cmpuint (pma_counters->len, ==, 21);
  /* Raw values: the x4 of the data counters is the provider table's job. */
  g_assert_cmpuint (value_of (pma_counters, "port_xmit_data"), ==, 1234567890);
  g_assert_cmpuint (value_of (pma_counters, "port_rcv_data"), ==, 987654321);
  g_assert_cmpuint (value_of (pma_counters, "VL15_dropped"), ==, 0);
  for (guint i = 0; i < pma_counters->len; i++)
    {
      RtopCounter *counter = g_ptr_array_index (pma_counters, i);

      g_assert_cmpint (counter->source, ==, RTOP_COUNTER_SOURCE_SYSFS_PORT);
      g_assert_false (counter->has_rate);
      if (i > 0)   /* sorted by name, as snapshots want them */
        g_assert_cmpint (strcmp (((RtopCounter *) g_ptr_array_index (pma_counters, i - 1))->name,
                                 counter->name), <, 0);
    }

  hw = rtop_counter_dir_open (hw_path, RTOP_COUNTER_SOURCE_SYSFS_HW, &error);
  g_assert_no_error (error);
  /* 25 files, minus hw_counters/lifespan, which is a setting. */
  g_assert_cmpuint (rtop_counter_dir_get_n_files (hw), ==, 24);
  hw_counters = read_dir (hw, NULL);
  g_assert_null (rtop_counters_find (hw_counters, "lifespan"));
  g_assert_cmpuint (value_of (hw_counters, "np_cnp_sent"), ==, 20);
  g_assert_cmpuint (value_of (hw_counters, "out_of_buffer"), ==, 11);
}

static void
test_counter_dir_missing (void)
{
  g_autofree char *efa_pma = rtop_sysfs_port_counters_path (fixture_root (), "efa_0", 1);
  g_autofree char *rxe_pma = rtop_sysfs_port_counters_path (fixture_root (), "rxe0", 1);
  g_autofree char *a_file = g_build_filename (fixture_root (), "class", "infiniband", "rxe0", "parent", NULL);
  GError *error = NULL;

  /* EFA and rxe have no counters/ directory: NULL, and no error. */
  g_assert_null (rtop_counter_dir_open (efa_pma, RTOP_COUNTER_SOURCE_SYSFS_PORT, &error));
  g_assert_no_error (error);
  g_assert_null (rtop_counter_dir_open (rxe_pma, RTOP_COUNTER_SOURCE_SYSFS_PORT, &error));
  g_assert_no_error (error);
  g_assert_null (rtop_counter_dir_open (a_file, RTOP_COUNTER_SOURCE_SYSFS_PORT, &error));
  g_assert_no_error (error);
}

static void
test_counter_dir_device_level (void)
{
  g_autofree char *path = rtop_sysfs_device_hw_counters_path (fixture_root (), "efa_0");
  g_autoptr(RtopCounterDir) dir = rtop_counter_dir_open (path, RTOP_COUNTER_SOURCE_SYSFS_DEVICE, NULL);
  g_autoptr(GPtrArray) counters = NULL;

  g_assert_nonnull (dir);
  counters = read_dir (dir, NULL);
  g_assert_cmpuint (counters->len, ==, 12);
  g_assert_cmpuint (value_of (counters, "keep_alive_rcvd"), ==, 9000);
  g_assert_cmpint (((RtopCounter *) g_ptr_array_index (counters, 0))->source, ==,
                   RTOP_COUNTER_SOURCE_SYSFS_DEVICE);
}

/* A tree with everything a counters directory should not have. */
static void
test_counter_dir_weird_entries (void)
{
  g_autofree char *dir_path = g_dir_make_tmp ("rtop-counters-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir_path, "subdir", NULL);
  g_autofree char *fifo = g_build_filename (dir_path, "a_fifo", NULL);
  g_autofree char *link = g_build_filename (dir_path, "a_symlink", NULL);
  g_autofree char *big = g_build_filename (dir_path, "big", NULL);
  g_autoptr(RtopCounterDir) dir = NULL;
  g_autoptr(GPtrArray) counters = NULL;
  g_autofree char *huge = g_strnfill (100000, '7');
  guint n_failed = 0;

  write_file (dir_path, "good", "17\n");
  write_file (dir_path, "spaced", "  23  \n");
  write_file (dir_path, "negative", "-5\n");
  write_file (dir_path, "overflow", "18446744073709551616\n");
  write_file (dir_path, "words", "N/A\n");
  write_file (dir_path, "empty", "");
  write_file (dir_path, ".hidden", "1\n");
  write_in_place (big, huge);              /* far more than one number */
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);   /* opening it would block */
  g_assert_cmpint (symlink ("good", link), ==, 0);

  dir = rtop_counter_dir_open (dir_path, RTOP_COUNTER_SOURCE_NETLINK, NULL);
  g_assert_nonnull (dir);
  /* Regular files only: good, spaced, negative, overflow, words, empty, big. */
  g_assert_cmpuint (rtop_counter_dir_get_n_files (dir), ==, 7);
  counters = read_dir (dir, &n_failed);
  g_assert_cmpuint (counters->len, ==, 2);
  g_assert_cmpuint (n_failed, ==, 5);
  g_assert_cmpuint (value_of (counters, "good"), ==, 17);
  g_assert_cmpuint (value_of (counters, "spaced"), ==, 23);
  g_assert_cmpuint (rtop_counter_dir_get_n_vanished (dir), ==, 0);
  remove_tree (dir_path);
}

static void
test_counter_dir_reread (void)
{
  g_autofree char *dir_path = g_dir_make_tmp ("rtop-counters-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir_path, "port_xmit_data", NULL);
  g_autoptr(RtopCounterDir) dir = NULL;

  write_in_place (file, "100\n");
  dir = rtop_counter_dir_open (dir_path, RTOP_COUNTER_SOURCE_SYSFS_PORT, NULL);
  g_assert_nonnull (dir);

  for (guint pass = 0; pass < 3; pass++)
    {
      g_autoptr(GPtrArray) counters = read_dir (dir, NULL);
      g_autofree char *next = g_strdup_printf ("%u\n", 200 + pass);

      g_assert_cmpuint (value_of (counters, "port_xmit_data"), ==, pass == 0 ? 100 : 199 + pass);
      /* Same fd, offset 0: the new text is seen without reopening. */
      write_in_place (file, next);
    }

  /* A value that turns to garbage is skipped, and comes back when it heals. */
  write_in_place (file, "garbage\n");
  {
    guint n_failed = 0;
    g_autoptr(GPtrArray) counters = read_dir (dir, &n_failed);

    g_assert_cmpuint (counters->len, ==, 0);
    g_assert_cmpuint (n_failed, ==, 1);
  }
  write_in_place (file, "300\n");
  {
    g_autoptr(GPtrArray) counters = read_dir (dir, NULL);

    g_assert_cmpuint (value_of (counters, "port_xmit_data"), ==, 300);
  }
  remove_tree (dir_path);
}

static void
test_counter_dir_cap (void)
{
  g_autofree char *dir_path = g_dir_make_tmp ("rtop-counters-XXXXXX", NULL);
  g_autoptr(RtopCounterDir) dir = NULL;
  g_autoptr(RtopCounterDir) uncapped = NULL;

  /* The production cap is 4096; creating that many files is slow on some
   * disks, so the same code is checked with a cap of 16. */
  g_assert_cmpuint (RTOP_COUNTER_DIR_MAX_FILES, ==, 4096);
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *name = g_strdup_printf ("c%05u", i);

      write_file (dir_path, name, "1\n");
    }
  dir = rtop_counter_dir_open_max (dir_path, RTOP_COUNTER_SOURCE_NETLINK, 16, NULL);
  g_assert_nonnull (dir);
  g_assert_cmpuint (rtop_counter_dir_get_n_files (dir), ==, 16);
  {
    g_autoptr(GPtrArray) counters = read_dir (dir, NULL);

    g_assert_cmpuint (counters->len, ==, 16);
  }
  uncapped = rtop_counter_dir_open (dir_path, RTOP_COUNTER_SOURCE_NETLINK, NULL);
  g_assert_cmpuint (rtop_counter_dir_get_n_files (uncapped), ==, 40);
  remove_tree (dir_path);
}

/* The kernel side of "a file vanished": /proc/<pid> files of a process that
 * has been reaped fail with ESRCH, as sysfs files of a removed device fail
 * with ENODEV.  Same code path, real kernel behaviour. */
static void
test_counter_dir_vanished (void)
{
  g_autofree char *path = NULL;
  g_autoptr(RtopCounterDir) dir = NULL;
  guint n_files, n_failed = 0;
  pid_t child;

  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      pause ();
      _exit (0);
    }
  path = g_strdup_printf ("/proc/%d", child);
  dir = rtop_counter_dir_open (path, RTOP_COUNTER_SOURCE_NETLINK, NULL);
  g_assert_nonnull (dir);
  n_files = rtop_counter_dir_get_n_files (dir);
  g_assert_cmpuint (n_files, >, 0);
  {
    g_autoptr(GPtrArray) alive = read_dir (dir, NULL);

    /* oom_score_adj holds one number while the process lives. */
    g_assert_nonnull (rtop_counters_find (alive, "oom_score_adj"));
  }

  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  {
    g_autoptr(GPtrArray) gone = read_dir (dir, &n_failed);

    g_assert_cmpuint (gone->len, ==, 0);
    g_assert_cmpuint (n_failed, ==, n_files);
    g_assert_cmpuint (rtop_counter_dir_get_n_vanished (dir), >, 0);
  }
  {
    /* And again: vanished files are not asked a second time, still counted. */
    g_autoptr(GPtrArray) again = read_dir (dir, &n_failed);

    g_assert_cmpuint (again->len, ==, 0);
    g_assert_cmpuint (n_failed, ==, n_files);
  }
}

/* The real sysfs: the loopback netdev's statistics, as the collector reads
 * an rxe port's parent. */
static void
test_counter_dir_real_sysfs (void)
{
  g_autofree char *path = rtop_sysfs_netdev_stats_path ("/sys", "lo");
  g_autoptr(RtopCounterDir) dir = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autoptr(GPtrArray) second = NULL;
  guint n_failed = 99;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("no /sys/class/net/lo/statistics on this machine");
      return;
    }
  dir = rtop_counter_dir_open (path, RTOP_COUNTER_SOURCE_NETDEV, NULL);
  g_assert_nonnull (dir);
  first = read_dir (dir, &n_failed);
  g_assert_cmpuint (n_failed, ==, 0);
  g_assert_nonnull (rtop_counters_find (first, "rx_bytes"));
  g_assert_nonnull (rtop_counters_find (first, "tx_packets"));
  second = read_dir (dir, NULL);
  g_assert_cmpuint (value_of (second, "rx_bytes"), >=, value_of (first, "rx_bytes"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/collector/sysfs/parse-u64", test_parse_u64);
  g_test_add_func ("/collector/sysfs/pma-widths", test_pma_widths);
  g_test_add_func ("/collector/sysfs/parse-rate-state", test_parse_rate_state);
  g_test_add_func ("/collector/sysfs/parse-random", test_parse_random);
  g_test_add_func ("/collector/sysfs/port-info", test_port_info);
  g_test_add_func ("/collector/sysfs/port-info-garbage", test_port_info_garbage);
  g_test_add_func ("/collector/sysfs/driver-and-paths", test_driver_and_paths);
  g_test_add_func ("/collector/sysfs/counter-dir/fixture", test_counter_dir_fixture);
  g_test_add_func ("/collector/sysfs/counter-dir/missing", test_counter_dir_missing);
  g_test_add_func ("/collector/sysfs/counter-dir/device-level", test_counter_dir_device_level);
  g_test_add_func ("/collector/sysfs/counter-dir/weird-entries", test_counter_dir_weird_entries);
  g_test_add_func ("/collector/sysfs/counter-dir/reread", test_counter_dir_reread);
  g_test_add_func ("/collector/sysfs/counter-dir/cap", test_counter_dir_cap);
  g_test_add_func ("/collector/sysfs/counter-dir/vanished", test_counter_dir_vanished);
  g_test_add_func ("/collector/sysfs/counter-dir/real-sysfs", test_counter_dir_real_sysfs);

  return g_test_run ();
}
