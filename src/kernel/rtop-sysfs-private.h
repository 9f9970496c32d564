/* rtop-sysfs-private.h: what only rtop-sysfs.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-sysfs.h"

G_BEGIN_DECLS

/* Parses "100 Gb/sec (4X EDR)", "25 Gb/sec", "2.5 Gb/sec (1X SDR)". */
gboolean rtop_sysfs_parse_rate (const char *text, double *gbps);

guint rtop_counter_dir_get_n_files (RtopCounterDir *self);

/* rtop_counter_dir_open() with another cap on the number of files. */
RtopCounterDir *rtop_counter_dir_open_max (const char *path, RtopCounterSource source,
                                           guint max_files, GError **error);

/* Parses one sysfs counter value: decimal u64, surrounding whitespace
 * allowed.  FALSE for empty, non-numeric, negative or overflowing text. */
gboolean rtop_sysfs_parse_u64 (const char *text, gsize len, guint64 *out);

/* Parses "4: ACTIVE" / "5: LinkUp" into the leading number, or -1. */
int rtop_sysfs_parse_state (const char *text);

/* The netdev a software device (rxe, siw) is stacked on, from <dev>/parent;
 * NULL when the file is absent. */
char *rtop_sysfs_read_parent (const char *root, const char *dev);

/* The width in bits of an IB PMA counter in ports/<p>/counters/ (the
 * PortCounters layout; the data and packet counters are 64 bits where the
 * HCA has the extended set, 32 otherwise), or 0 for a name that is not
 * one.  PMA counters stop at all-ones of their width instead of wrapping. */
guint rtop_sysfs_pma_counter_width (const char *name);

/* The directory's path, as given to rtop_counter_dir_open(). */
const char *rtop_counter_dir_get_path (RtopCounterDir *self);

G_END_DECLS
