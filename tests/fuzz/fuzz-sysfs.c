/* fuzz-sysfs.c: libFuzzer target for what rdmatop reads from sysfs.
 *
 * A counter file, a port's state and phys_state ("4: ACTIVE"), its rate
 * ("100 Gb/sec (4X EDR)"): the input goes to each parser from a heap
 * buffer of exactly its size, and through a real counter directory (files
 * in a scratch directory, read as rtop_counter_dir reads /sys). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "rtop-sysfs-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static char *scratch;
static const char * const names[] = { "port_xmit_data", "symbol_error", "link_downed", "x" };
static RtopCounterDir *counter_dir;

static void
remove_scratch (void)
{
  g_autoptr(GDir) dir = NULL;

  g_clear_pointer (&counter_dir, rtop_counter_dir_free);
  dir = g_dir_open (scratch, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (scratch, name, NULL);
      g_unlink (path);
    }
  g_rmdir (scratch);
}


/* Rewrites a file in place: the directory keeps its descriptor and reads
 * the new text, as a sysfs attribute gives fresh text each read. */
static void
rewrite (const char *name, const guint8 *p, gsize len)
{
  g_autofree char *path = g_build_filename (scratch, name, NULL);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, p, len), ==, (gssize) len);
  close (fd);
}

/* The input as the files of a counter directory: up to 4 files, cut at
 * '|', named after PMA counters so the width table sees them. */
static void
check_counter_dir (const guint8 *data, size_t size)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_counter_free);
  const guint8 *p = data, *end = data + size;
  guint failed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const guint8 *cut = p < end ? memchr (p, '|', end - p) : NULL;
      gsize len = cut != NULL ? (gsize) (cut - p) : (gsize) (end - p);

      rewrite (names[i], p, len);
      p = cut != NULL ? cut + 1 : end;
    }
  rtop_counter_dir_read (counter_dir, out, &failed);
  g_assert_cmpuint (out->len + failed, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < out->len; i++)
    {
      const RtopCounter *c = g_ptr_array_index (out, i);

      g_assert_nonnull (c->name);
      if (rtop_sysfs_pma_counter_at_max (c->name, c->value))
        g_assert_cmpuint (rtop_sysfs_pma_counter_width (c->name), >, 0);
    }
}

static void
set_up (void)
{
  /* tmpfs: four file writes per input are fifty times faster there than on
   * a disk-backed /tmp. */
  scratch = g_strdup ("/dev/shm/fuzz-sysfs-XXXXXX");
  if (g_mkdtemp (scratch) == NULL)
    {
      g_free (scratch);
      scratch = g_dir_make_tmp ("fuzz-sysfs-XXXXXX", NULL);
    }
  g_assert_nonnull (scratch);
  atexit (remove_scratch);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    rewrite (names[i], (const guint8 *) "0\n", 2);
  counter_dir = rtop_counter_dir_open (scratch, RTOP_COUNTER_SOURCE_SYSFS_PORT, NULL);
  g_assert_nonnull (counter_dir);
  g_assert_cmpuint (rtop_counter_dir_get_n_files (counter_dir), ==, G_N_ELEMENTS (names));
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autofree char *exact = g_memdup2 (data, size);
  g_autofree char *terminated = g_strndup ((const char *) data, size);
  guint64 value = 7;
  double gbps = -1;
  int state;

  if (scratch == NULL)
    set_up ();
  if (!rtop_sysfs_parse_u64 (exact, size, &value))
    g_assert_cmpuint (value, ==, 7);
  state = rtop_sysfs_parse_state (terminated);
  g_assert_cmpint (state, >=, -1);
  if (rtop_sysfs_parse_rate (terminated, &gbps))
    g_assert_true (isfinite (gbps) && gbps >= 0);
  rtop_sysfs_pma_counter_width (terminated);
  check_counter_dir (data, size);
  return 0;
}
