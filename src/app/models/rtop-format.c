/* rtop-format.c: number formatting with units. */
#include "config.h"

#include <math.h>
#include <glib/gi18n.h>

#include "rtop-format.h"

typedef struct {
  const char *suffix;   /* translatable unit after the SI prefix */
} UnitInfo;

static const UnitInfo units[RTOP_UNIT_N] = {
  [RTOP_UNIT_BITS_PER_S] = { N_("b/s") },
  [RTOP_UNIT_BYTES_PER_S] = { N_("B/s") },
  [RTOP_UNIT_PACKETS_PER_S] = { N_("pkt/s") },
  [RTOP_UNIT_EVENTS_PER_S] = { N_("/s") },
};

static const struct {
  double factor;
  const char *prefix;
} prefixes[] = {
  /* As SI writes them: kilo is a lower-case k, whatever the unit. */
  { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" }, { 1, "" },
};

/* Throughput in bits per second (networking's unit, and the link's) or,
 * when the user prefers, bytes per second: every view the same. */
static gboolean throughput_in_bytes;

void
rtop_format_set_throughput_bytes (gboolean bytes)
{
  throughput_in_bytes = bytes;
}

RtopUnit
rtop_unit_shown (RtopUnit unit)
{
  if (unit == RTOP_UNIT_BITS_PER_S || unit == RTOP_UNIT_BYTES_PER_S)
    return throughput_in_bytes ? RTOP_UNIT_BYTES_PER_S : RTOP_UNIT_BITS_PER_S;
  return unit;
}

double
rtop_unit_shown_factor (RtopUnit unit)
{
  if (unit == RTOP_UNIT_BYTES_PER_S && !throughput_in_bytes)
    return 8;
  if (unit == RTOP_UNIT_BITS_PER_S && throughput_in_bytes)
    return 1.0 / 8;
  return 1;
}

const char *
rtop_unit_suffix (RtopUnit unit)
{
  g_return_val_if_fail (unit < RTOP_UNIT_N, "");
  return _(units[unit].suffix);
}

double
rtop_unit_scale_for (double max_value, const char **prefix)
{
  for (guint i = 0; i < G_N_ELEMENTS (prefixes); i++)
    if (fabs (max_value) >= prefixes[i].factor)
      {
        *prefix = prefixes[i].prefix;
        return prefixes[i].factor;
      }
  *prefix = "";
  return 1;
}

char *
rtop_format_rate (double value, RtopUnit unit)
{
  const char *prefix;
  double scaled;

  g_return_val_if_fail (unit < RTOP_UNIT_N, NULL);

  if (isnan (value))
    return g_strdup ("—");
  value *= rtop_unit_shown_factor (unit);
  unit = rtop_unit_shown (unit);
  scaled = value / rtop_unit_scale_for (value, &prefix);
  /* Three significant digits: enough to compare, few enough to read. */
  if (scaled == 0)
    return g_strdup_printf ("0 %s", rtop_unit_suffix (unit));
  if (fabs (scaled) >= 100)
    return g_strdup_printf ("%.0f %s%s", scaled, prefix, rtop_unit_suffix (unit));
  if (fabs (scaled) >= 10)
    return g_strdup_printf ("%.1f %s%s", scaled, prefix, rtop_unit_suffix (unit));
  return g_strdup_printf ("%.2f %s%s", scaled, prefix, rtop_unit_suffix (unit));
}

double
rtop_nice_step (double max_value, guint n_ticks)
{
  double raw, mag, norm;

  if (!(max_value > 0) || n_ticks == 0)
    return 1;
  raw = max_value / n_ticks;
  mag = pow (10, floor (log10 (raw)));
  norm = raw / mag;
  if (norm <= 1)
    return mag;
  if (norm <= 2)
    return 2 * mag;
  if (norm <= 5)
    return 5 * mag;
  return 10 * mag;
}

char *
rtop_format_count (guint64 value)
{
  char digits[32];
  GString *out = g_string_new (NULL);
  int n = g_snprintf (digits, sizeof digits, "%" G_GUINT64_FORMAT, value);

  for (int i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append (out, "\u2009");
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}

char *
rtop_format_bytes (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

char *
rtop_format_gbps (double bits_per_s)
{
  /* The same scaling as cards and graphs: a trickle reads "3.2 kb/s",
   * not "< 0.001". */
  return rtop_format_rate (bits_per_s, RTOP_UNIT_BITS_PER_S);
}

char *
rtop_format_percent (double fraction)
{
  if (isnan (fraction))
    return g_strdup ("—");
  return g_strdup_printf ("%.1f %%", fraction * 100);
}

char *
rtop_format_time (gint64 realtime_us, gboolean with_ms)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (realtime_us / G_USEC_PER_SEC);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *hms = NULL;

  if (dt == NULL)
    return g_strdup ("?");
  hms = g_date_time_format (dt, "%H:%M:%S");
  if (with_ms)
    {
      char *tmp = g_strdup_printf ("%s.%03d", hms, (int) ((realtime_us / 1000) % 1000));
      g_free (hms);
      hms = tmp;
    }
  if (g_date_time_get_year (dt) != g_date_time_get_year (now) ||
      g_date_time_get_day_of_year (dt) != g_date_time_get_day_of_year (now))
    {
      g_autofree char *day = g_date_time_format (dt, "%Y-%m-%d");
      return g_strdup_printf ("%s %s", day, hms);
    }
  return g_steal_pointer (&hms);
}

char *
rtop_format_gpu_gauges (const char *vendor, const char *model, double utilisation_pct,
                        double memory_used_bytes, double memory_total_bytes,
                        double temperature_c, double power_w)
{
  GString *text = g_string_new (model != NULL ? model : vendor != NULL ? vendor : _("GPU"));

  if (!isnan (utilisation_pct))
    /* Translators: how busy a GPU's compute engines are */
    g_string_append_printf (text, _(" · %.0f %% busy"), utilisation_pct);
  if (!isnan (memory_used_bytes) && !isnan (memory_total_bytes))
    /* Translators: GPU memory in use, of the total, in gigabytes */
    g_string_append_printf (text, _(" · %.1f of %.1f GB memory"), memory_used_bytes / 1e9,
                            memory_total_bytes / 1e9);
  if (!isnan (temperature_c))
    g_string_append_printf (text, _(" · %.0f °C"), temperature_c);
  if (!isnan (power_w))
    g_string_append_printf (text, _(" · %.0f W"), power_w);
  return g_string_free (text, FALSE);
}
