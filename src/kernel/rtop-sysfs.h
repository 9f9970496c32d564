/* rtop-sysfs.h: what the collector reads from /sys, no GTK.
 *
 * Every function takes the sysfs root ("/sys" in production, a fixture tree
 * in tests).  Files that are missing give FALSE/NULL without noise; files
 * whose content does not parse give RTOP_ERROR_MALFORMED. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct {
  int state;                 /* from "4: ACTIVE", -1 when unreadable */
  int phys_state;            /* from "5: LinkUp", -1 when unreadable */
  char *rate_text;           /* "100 Gb/sec (4X EDR)" (trimmed), NULL when absent */
  double rate_gbps;          /* 0 when unknown */
  char *link_layer;          /* NULL when absent */
} RtopSysfsPortInfo;

gboolean rtop_sysfs_read_port_info (const char *root, const char *dev, guint32 port,
                                    RtopSysfsPortInfo *out);
void rtop_sysfs_port_info_clear (RtopSysfsPortInfo *info);

/* A set of counter files in one directory, opened once and re-read with
 * pread() each pass (one syscall per counter).  Reopened by the caller when
 * a device changes. */
typedef struct _RtopCounterDir RtopCounterDir;

/* NULL (no error) when the directory does not exist. */
RtopCounterDir *rtop_counter_dir_open (const char *path, RtopCounterSource source, GError **error);
/* Appends an RtopCounter* per readable file to out (value only; the rate
 * engine fills the rest). A file that vanished or does not parse is skipped
 * and counted in *n_failed.
 * (*n_failed is set, not added to; it may be NULL.)  Entries that are not
 * regular files, and hw_counters/lifespan (a setting), are never opened. */
/* Like rtop_counter_dir_open_max, but opens only the files named in only
 * (all when NULL). */
RtopCounterDir *rtop_counter_dir_open_names (const char *path, RtopCounterSource source,
                                             guint max_files, const char * const *only,
                                             GError **error);
void rtop_counter_dir_read (RtopCounterDir *self, GPtrArray *out, guint *n_failed);
/* The same read, handing each counter to func instead of allocating it
 * (name stays valid as long as the directory). */
typedef void (*RtopCounterDirFunc) (const char *name, guint64 value, RtopCounterSource source,
                                    gpointer user_data);
void rtop_counter_dir_read_foreach (RtopCounterDir *self, RtopCounterDirFunc func,
                                    gpointer user_data, guint *n_failed);
void rtop_counter_dir_free (RtopCounterDir *self);

/* Paths: <root>/class/infiniband/<dev>/ports/<port>/counters etc. */
char *rtop_sysfs_port_counters_path (const char *root, const char *dev, guint32 port);
char *rtop_sysfs_port_hw_counters_path (const char *root, const char *dev, guint32 port);
char *rtop_sysfs_device_hw_counters_path (const char *root, const char *dev);
char *rtop_sysfs_netdev_stats_path (const char *root, const char *netdev);

/* Kernel module behind the device (basename of <dev>/device/driver), or NULL. */
char *rtop_sysfs_read_driver (const char *root, const char *dev);

/* Added by the sysfs owner (new functions; the ones above keep their meaning). */

/* Most counter files one RtopCounterDir keeps open; the rest are ignored. */
#define RTOP_COUNTER_DIR_MAX_FILES 4096

/* Files that stopped answering (device removed) since open; the caller
 * reopens the directory when this is not 0. */
guint rtop_counter_dir_get_n_vanished (RtopCounterDir *self);

/* TRUE when value is all-ones of the PMA counter's width: the counter
 * saturated and counts no more, until its counters are cleared. */
gboolean rtop_sysfs_pma_counter_at_max (const char *name, guint64 value);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopCounterDir, rtop_counter_dir_free)

G_END_DECLS
