/* gtk-first-frame: the start-up baseline for rdmatop's first frame.
 *
 * The least a GTK 4 application does before its first frame: a
 * GtkApplication (registered on the session bus, like rdmatop), one window
 * with a header bar and a label.  With --adwaita, the same window in an
 * AdwApplication (libadwaita's style sheet and style manager, as rdmatop
 * has them): the least a libadwaita application does.  When that window's
 * first frame has been painted it prints, on stderr, the line rdmatop
 * prints under RDMATOP_REPORT_STARTUP=1:
 *
 *   gtk-first-frame: startup-ms=<N>
 *
 * N counts from the process's start (/proc/self/stat field 22, on the
 * CLOCK_BOOTTIME clock) and then it quits.  tests/bench/run-benchmarks.sh
 * also times it from the outside, launch to that line, as it does rdmatop.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <adwaita.h>
#include <gtk/gtk.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Milliseconds since boot at which this process started, or -1. */
static double
process_start_ms (void)
{
  g_autofree char *stat = NULL;
  const char *p;
  unsigned long long start = 0;

  if (!g_file_get_contents ("/proc/self/stat", &stat, NULL, NULL))
    return -1;
  /* Field 22; the fields after comm's last ')' start at field 3. */
  p = strrchr (stat, ')');
  if (p == NULL)
    return -1;
  p++;
  for (int field = 3; field <= 22 && p != NULL; field++)
    {
      while (*p == ' ')
        p++;
      if (field == 22)
        start = g_ascii_strtoull (p, NULL, 10);
      p = strchr (p, ' ');
    }
  return start * 1000.0 / sysconf (_SC_CLK_TCK);
}

static double
boottime_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_BOOTTIME, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
after_paint_cb (GdkFrameClock *clock, gpointer user_data)
{
  GApplication *app = user_data;

  g_printerr ("gtk-first-frame: startup-ms=%.0f\n", boottime_ms () - process_start_ms ());
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, user_data);
  g_application_quit (app);
}

static void
realize_cb (GtkWidget *window, gpointer app)
{
  GdkFrameClock *clock = gdk_surface_get_frame_clock (gtk_native_get_surface (GTK_NATIVE (window)));

  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), app);
}

static void
activate_cb (GtkApplication *app, gpointer user_data)
{
  GtkWidget *window = gtk_application_window_new (app);

  gtk_window_set_title (GTK_WINDOW (window), "gtk-first-frame");
  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_set_titlebar (GTK_WINDOW (window), gtk_header_bar_new ());
  gtk_window_set_child (GTK_WINDOW (window), gtk_label_new ("first frame"));
  g_signal_connect (window, "realize", G_CALLBACK (realize_cb), app);
  gtk_window_present (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  g_autoptr(GtkApplication) app = NULL;

  if (argc > 1 && g_str_equal (argv[1], "--adwaita"))
    app = GTK_APPLICATION (adw_application_new ("io.github.rdmatop.BenchFirstFrameAdw", G_APPLICATION_FLAGS_NONE));
  else
    app = gtk_application_new ("io.github.rdmatop.BenchFirstFrame", G_APPLICATION_FLAGS_NONE);
  g_signal_connect (app, "activate", G_CALLBACK (activate_cb), NULL);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
