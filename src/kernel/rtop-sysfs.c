/* rtop-sysfs.c: port facts and counter files from /sys.
 *
 * Counter directories are opened once and each file keeps its descriptor:
 * sysfs regenerates a file's text whenever it is read at offset 0, so one
 * pread() per counter and pass is all a refresh costs.  Everything read here
 * is external input: values are parsed strictly and a file that misbehaves
 * is skipped, never trusted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <gio/gio.h>

#include "rtop-error.h"
#include "rtop-sysfs-private.h"

/* A u64 is at most 20 digits; sysfs adds a newline.  Anything longer than
 * this is not a counter. */
#define COUNTER_BUF_SIZE 64
/* Port attribute files ("100 Gb/sec (4X EDR)") are short. */
#define ATTR_BUF_SIZE 256
/* Kernel device and netdev names are shorter (IB_DEVICE_NAME_MAX 64, IFNAMSIZ 16). */
#define NAME_MAX_LEN 64

struct _RtopCounterDir {
  char *path;
  RtopCounterSource source;
  guint n_files;
  char **names;              /* sorted by strcmp, so output is sorted too */
  int *fds;                  /* -1 once a file has vanished */
  guint n_vanished;
};

/* Names of files in counter directories that are settings, not counters. */
static const char * const not_counters[] = {
  "lifespan",                /* hw_counters/lifespan: cache lifetime in ms, writable */
};

/* Device and netdev names come from the kernel, but they end up in paths:
 * refuse anything that could leave the directory. */
static gboolean
name_is_safe (const char *name)
{
  return name != NULL && name[0] != '\0' && strlen (name) < NAME_MAX_LEN &&
         strchr (name, '/') == NULL && strcmp (name, ".") != 0 && strcmp (name, "..") != 0;
}

/* The PMA counters as the kernel's core/sysfs.c lays them out (IBA
 * PortCounters, attribute 0x12, and PortCountersExtended, 0x1D): the width
 * of each field.  The data and packet counters are listed with their
 * narrowest width: a 64-bit one that reads exactly 2^32 - 1 pass after pass
 * would have to stand idle on that one value, while a 32-bit one stops
 * there for good. */
static const struct {
  const char *name;
  guint8 width;
} pma_widths[] = {
  { "VL15_dropped", 16 },
  { "excessive_buffer_overrun_errors", 4 },
  { "link_downed", 8 },
  { "link_error_recovery", 8 },
  { "local_link_integrity_errors", 4 },
  { "multicast_rcv_packets", 64 },
  { "multicast_xmit_packets", 64 },
  { "port_rcv_constraint_errors", 8 },
  { "port_rcv_data", 32 },
  { "port_rcv_errors", 16 },
  { "port_rcv_packets", 32 },
  { "port_rcv_remote_physical_errors", 16 },
  { "port_rcv_switch_relay_errors", 16 },
  { "port_xmit_constraint_errors", 8 },
  { "port_xmit_data", 32 },
  { "port_xmit_discards", 16 },
  { "port_xmit_packets", 32 },
  { "port_xmit_wait", 32 },
  { "symbol_error", 16 },
  { "unicast_rcv_packets", 64 },
  { "unicast_xmit_packets", 64 },
};

static int
pma_width_cmp (const void *key, const void *elem)
{
  return strcmp (key, *(const char * const *) elem);
}

guint
rtop_sysfs_pma_counter_width (const char *name)
{
  const void *row;

  if (name == NULL)
    return 0;
  row = bsearch (name, pma_widths, G_N_ELEMENTS (pma_widths), sizeof pma_widths[0],
                 pma_width_cmp);
  return row != NULL ? ((const typeof (pma_widths[0]) *) row)->width : 0;
}

gboolean
rtop_sysfs_pma_counter_at_max (const char *name, guint64 value)
{
  guint width;

  /* Most values are not all-ones of anything: no name lookup for them. */
  if (value < 0xF || (value & (value + 1)) != 0)
    return FALSE;
  width = rtop_sysfs_pma_counter_width (name);
  if (width == 0)
    return FALSE;
  if (value == G_MAXUINT64)
    return TRUE;
  /* A 32-bit-or-wider data counter also stops at 2^32 - 1. */
  return width < 64 && value == (G_GUINT64_CONSTANT (1) << width) - 1;
}

gboolean
rtop_sysfs_parse_u64 (const char *text, gsize len, guint64 *out)
{
  char buf[COUNTER_BUF_SIZE];
  const char *p;
  char *end = NULL;
  guint64 value;

  if (text == NULL || len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, text, len);
  buf[len] = '\0';
  if (strlen (buf) != len)   /* an embedded NUL is not a number */
    return FALSE;

  for (p = buf; g_ascii_isspace (*p); p++)
    ;
  /* strtoull would accept a sign and wrap "-1" to G_MAXUINT64. */
  if (!g_ascii_isdigit (*p))
    return FALSE;
  errno = 0;
  value = g_ascii_strtoull (p, &end, 10);
  if (errno != 0 || end == p)
    return FALSE;
  for (; g_ascii_isspace (*end); end++)
    ;
  if (*end != '\0')
    return FALSE;
  *out = value;
  return TRUE;
}

int
rtop_sysfs_parse_state (const char *text)
{
  guint64 value;
  const char *colon;

  if (text == NULL)
    return -1;
  colon = strchr (text, ':');
  if (colon == NULL)
    colon = text + strlen (text);
  if (!rtop_sysfs_parse_u64 (text, colon - text, &value) || value > G_MAXINT)
    return -1;
  return (int) value;
}

gboolean
rtop_sysfs_parse_rate (const char *text, double *gbps)
{
  const char *p = text;
  char *end = NULL;
  double value;

  if (text == NULL)
    return FALSE;
  while (g_ascii_isspace (*p))
    p++;
  /* Only plain decimals: g_ascii_strtod would also take "inf", "nan", hex. */
  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (const char *q = p; *q != '\0' && !g_ascii_isspace (*q); q++)
    if (!g_ascii_isdigit (*q) && *q != '.')
      return FALSE;
  value = g_ascii_strtod (p, &end);
  if (end == p || value < 0 || value > 1e6)
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;
  if (!g_str_has_prefix (end, "Gb/sec"))
    return FALSE;
  *gbps = value;
  return TRUE;
}

/* Reads a short attribute file, trimmed; NULL when absent or unreadable. */
static char *
read_attr (const char *path)
{
  char buf[ATTR_BUF_SIZE];
  ssize_t n;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return NULL;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return NULL;
  buf[n] = '\0';
  if (strlen (buf) != (gsize) n || !g_utf8_validate (buf, n, NULL))
    return NULL;
  g_strstrip (buf);
  return buf[0] != '\0' ? g_strdup (buf) : NULL;
}

static char *
port_attr_path (const char *root, const char *dev, guint32 port, const char *attr)
{
  char port_name[16];

  g_snprintf (port_name, sizeof port_name, "%u", port);
  return g_build_filename (root, "class", "infiniband", dev, "ports", port_name, attr, NULL);
}

gboolean
rtop_sysfs_read_port_info (const char *root, const char *dev, guint32 port,
                           RtopSysfsPortInfo *out)
{
  g_autofree char *state = NULL;
  g_autofree char *phys = NULL;
  g_autofree char *state_path = NULL;
  g_autofree char *phys_path = NULL;
  g_autofree char *rate_path = NULL;
  g_autofree char *ll_path = NULL;

  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  out->state = -1;
  out->phys_state = -1;
  if (root == NULL || !name_is_safe (dev))
    return FALSE;

  state_path = port_attr_path (root, dev, port, "state");
  phys_path = port_attr_path (root, dev, port, "phys_state");
  rate_path = port_attr_path (root, dev, port, "rate");
  ll_path = port_attr_path (root, dev, port, "link_layer");

  state = read_attr (state_path);
  phys = read_attr (phys_path);
  out->state = rtop_sysfs_parse_state (state);
  out->phys_state = rtop_sysfs_parse_state (phys);
  out->rate_text = read_attr (rate_path);
  if (out->rate_text == NULL || !rtop_sysfs_parse_rate (out->rate_text, &out->rate_gbps))
    out->rate_gbps = 0;
  out->link_layer = read_attr (ll_path);

  return state != NULL || phys != NULL || out->rate_text != NULL || out->link_layer != NULL;
}

void
rtop_sysfs_port_info_clear (RtopSysfsPortInfo *info)
{
  if (info == NULL)
    return;
  g_clear_pointer (&info->rate_text, g_free);
  g_clear_pointer (&info->link_layer, g_free);
}

char *
rtop_sysfs_port_counters_path (const char *root, const char *dev, guint32 port)
{
  if (root == NULL || !name_is_safe (dev))
    return NULL;
  return port_attr_path (root, dev, port, "counters");
}

char *
rtop_sysfs_port_hw_counters_path (const char *root, const char *dev, guint32 port)
{
  if (root == NULL || !name_is_safe (dev))
    return NULL;
  return port_attr_path (root, dev, port, "hw_counters");
}

char *
rtop_sysfs_device_hw_counters_path (const char *root, const char *dev)
{
  if (root == NULL || !name_is_safe (dev))
    return NULL;
  return g_build_filename (root, "class", "infiniband", dev, "hw_counters", NULL);
}

char *
rtop_sysfs_netdev_stats_path (const char *root, const char *netdev)
{
  if (root == NULL || !name_is_safe (netdev))
    return NULL;
  return g_build_filename (root, "class", "net", netdev, "statistics", NULL);
}

char *
rtop_sysfs_read_driver (const char *root, const char *dev)
{
  g_autofree char *link = NULL;
  g_autofree char *target = NULL;
  char *base;

  if (root == NULL || !name_is_safe (dev))
    return NULL;
  link = g_build_filename (root, "class", "infiniband", dev, "device", "driver", NULL);
  target = g_file_read_link (link, NULL);
  if (target == NULL)
    return NULL;
  base = g_path_get_basename (target);
  if (!name_is_safe (base))
    g_clear_pointer (&base, g_free);
  return base;
}

char *
rtop_sysfs_read_parent (const char *root, const char *dev)
{
  g_autofree char *path = NULL;
  char *parent;

  if (root == NULL || !name_is_safe (dev))
    return NULL;
  path = g_build_filename (root, "class", "infiniband", dev, "parent", NULL);
  parent = read_attr (path);
  if (parent != NULL && !name_is_safe (parent))
    g_clear_pointer (&parent, g_free);
  return parent;
}

static gboolean
is_counter_name (const char *name)
{
  if (name[0] == '.')
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (not_counters); i++)
    if (strcmp (name, not_counters[i]) == 0)
      return FALSE;
  return TRUE;
}

/* Opens one entry if it is a regular file.  Looks before opening so a FIFO
 * or device node in a strange tree cannot block us, and checks again after
 * (O_NOFOLLOW, fstat) so a swap in between does not either. */
static int
open_counter_file (int dir_fd, const char *name)
{
  struct stat st;
  int fd;

  if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode))
    return -1;
  fd = openat (dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return -1;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return -1;
    }
  return fd;
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Sorted names of the directory's candidate entries, at most the cap. */
static GPtrArray *
list_names (DIR *dir, guint max_files)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  struct dirent *entry;

  while ((entry = readdir (dir)) != NULL && names->len < max_files)
    {
      if (entry->d_type != DT_REG && entry->d_type != DT_UNKNOWN)
        continue;
      if (is_counter_name (entry->d_name))
        g_ptr_array_add (names, g_strdup (entry->d_name));
    }
  g_ptr_array_sort (names, compare_names);
  return names;
}

static void
set_open_error (GError **error, int errsv, const char *path)
{
  int code = (errsv == EACCES || errsv == EPERM) ? RTOP_ERROR_PERMISSION : RTOP_ERROR_IO;

  g_set_error (error, RTOP_ERROR, code,
               _("Could not open the counter directory %s: %s"), path, g_strerror (errsv));
}

RtopCounterDir *
rtop_counter_dir_open (const char *path, RtopCounterSource source, GError **error)
{
  return rtop_counter_dir_open_max (path, source, RTOP_COUNTER_DIR_MAX_FILES, error);
}

RtopCounterDir *
rtop_counter_dir_open_max (const char *path, RtopCounterSource source, guint max_files,
                           GError **error)
{
  return rtop_counter_dir_open_names (path, source, max_files, NULL, error);
}

RtopCounterDir *
rtop_counter_dir_open_names (const char *path, RtopCounterSource source, guint max_files,
                             const char * const *only, GError **error)
{
  g_autoptr(GPtrArray) names = NULL;
  RtopCounterDir *self;
  DIR *dir;
  int dir_fd;

  g_return_val_if_fail (path != NULL, NULL);

  dir_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    {
      int errsv = errno;

      if (errsv != ENOENT && errsv != ENOTDIR && errsv != ENODEV)
        set_open_error (error, errsv, path);
      return NULL;
    }
  dir = fdopendir (dir_fd);
  if (dir == NULL)
    {
      int errsv = errno;

      close (dir_fd);
      set_open_error (error, errsv, path);
      return NULL;
    }

  names = list_names (dir, max_files);
  self = g_new0 (RtopCounterDir, 1);
  self->path = g_strdup (path);
  self->source = source;
  self->names = g_new0 (char *, names->len + 1);
  self->fds = g_new (int, names->len + 1);
  for (guint i = 0; i < names->len; i++)
    {
      int fd;

      /* A caller that needs a few files of a big directory opens only those. */
      if (only != NULL && !g_strv_contains (only, g_ptr_array_index (names, i)))
        continue;
      fd = open_counter_file (dirfd (dir), g_ptr_array_index (names, i));
      if (fd < 0 && (errno == EMFILE || errno == ENFILE))
        {
          /* Out of descriptors is not "not a counter": say so, loudly once. */
          static gsize warned = 0;

          if (g_once_init_enter (&warned))
            {
              g_warning ("Too many open files to read %s: some counters are missing. "
                         "Raise the open-files limit (ulimit -n).", path);
              g_once_init_leave (&warned, 1);
            }
          continue;
        }
      /* Unreadable (root-only) or not a regular file: not ours to show. */
      if (fd < 0)
        continue;
      self->names[self->n_files] = g_strdup (g_ptr_array_index (names, i));
      self->fds[self->n_files] = fd;
      self->n_files++;
    }
  closedir (dir);
  return self;
}

/* One pread per counter.  FALSE when the file gave no number. */
static gboolean
read_counter (RtopCounterDir *self, guint i, guint64 *value)
{
  char buf[COUNTER_BUF_SIZE];
  ssize_t n;

  do
    n = pread (self->fds[i], buf, sizeof buf, 0);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      /* ENODEV (sysfs after device removal), ESRCH (/proc), ENOENT: the
       * file is gone for good; stop asking it. */
      if (errno == ENODEV || errno == ENOENT || errno == ESRCH || errno == ENXIO)
        {
          close (self->fds[i]);
          self->fds[i] = -1;
          self->n_vanished++;
        }
      return FALSE;
    }
  /* A full buffer means the file holds more than one number. */
  if ((gsize) n >= sizeof buf)
    return FALSE;
  return rtop_sysfs_parse_u64 (buf, n, value);
}

void
rtop_counter_dir_read_foreach (RtopCounterDir *self, RtopCounterDirFunc func,
                               gpointer user_data, guint *n_failed)
{
  guint failed = 0;

  g_return_if_fail (self != NULL);
  g_return_if_fail (func != NULL);

  for (guint i = 0; i < self->n_files; i++)
    {
      guint64 value;

      if (self->fds[i] < 0 || !read_counter (self, i, &value))
        {
          failed++;
          continue;
        }
      func (self->names[i], value, self->source, user_data);
    }
  if (n_failed != NULL)
    *n_failed = failed;
}

static void
append_counter (const char *name, guint64 value, RtopCounterSource source, gpointer user_data)
{
  g_ptr_array_add (user_data, rtop_counter_new (name, value, source));
}

void
rtop_counter_dir_read (RtopCounterDir *self, GPtrArray *out, guint *n_failed)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (out != NULL);

  rtop_counter_dir_read_foreach (self, append_counter, out, n_failed);
}

guint
rtop_counter_dir_get_n_files (RtopCounterDir *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_files;
}

const char *
rtop_counter_dir_get_path (RtopCounterDir *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->path;
}

guint
rtop_counter_dir_get_n_vanished (RtopCounterDir *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_vanished;
}

void
rtop_counter_dir_free (RtopCounterDir *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_files; i++)
    if (self->fds[i] >= 0)
      close (self->fds[i]);
  g_strfreev (self->names);
  g_free (self->fds);
  g_free (self->path);
  g_free (self);
}
