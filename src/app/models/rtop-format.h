/* rtop-format.h: how numbers are shown to people (one place for units). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RTOP_UNIT_BITS_PER_S,     /* b/s, kb/s, Mb/s, Gb/s, Tb/s (SI prefixes as SI writes them) */
  RTOP_UNIT_BYTES_PER_S,    /* B/s, kB/s, MB/s, GB/s */
  RTOP_UNIT_PACKETS_PER_S,  /* pkt/s, kpkt/s, Mpkt/s */
  RTOP_UNIT_EVENTS_PER_S,   /* /s, k/s, M/s */
  RTOP_UNIT_N
} RtopUnit;

/* "12.3 Gb/s"; "—" for NAN (no value yet).  The one scaling every view
 * uses (overview, cards, graphs).  A throughput (bits or bytes per
 * second) is shown in the unit of rtop_format_set_throughput_bytes(). */
char *rtop_format_rate (double value, RtopUnit unit);
/* Throughput shown in bytes per second (TRUE) or bits (FALSE, the
 * default), for the whole process: the "throughput-unit" setting. */
void rtop_format_set_throughput_bytes (gboolean bytes);
/* The unit a value in unit is shown in, and what to multiply it by. */
RtopUnit rtop_unit_shown (RtopUnit unit);
double rtop_unit_shown_factor (RtopUnit unit);
/* Same scaled to a fixed multiplier, for axis labels that share one. */
double rtop_unit_scale_for (double max_value, const char **prefix);
const char *rtop_unit_suffix (RtopUnit unit);
/* 1, 2, 5 x 10^k step so that max/step gives about n_ticks ticks. */
double rtop_nice_step (double max_value, guint n_ticks);
/* Counter values with thin-space digit groups: "1 234 567". */
char *rtop_format_count (guint64 value);
char *rtop_format_bytes (guint64 bytes);
/* Bits per second scaled like rtop_format_rate(): "12.3 Gb/s", "850 kb/s". */
char *rtop_format_gbps (double bits_per_s);
char *rtop_format_percent (double fraction);
/* Local wall-clock time "14:03:22" (with date when not today). */
char *rtop_format_time (gint64 realtime_us, gboolean with_ms);
/* A GPU's gauges in one line: "NVIDIA H100 · 87 % busy · 1.0 of 80.0 GB ·
 * 61 °C · 350 W"; unknown (NAN) ones are left out. */
char *rtop_format_gpu_gauges (const char *vendor, const char *model, double utilisation_pct,
                              double memory_used_bytes, double memory_total_bytes,
                              double temperature_c, double power_w);

G_END_DECLS
