/* test-gui-gpu.c: the overview and the port detail show GPU links read
 * through the stand-in NVML (tests/gpu/): rows with their own names and
 * graphs, the GPU-wide note, a link going down; and the quiet line that
 * says why GPU links are missing. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <string.h>

#include "rtop-collector-private.h"
#include "rtop-history-private.h"
#include "rtop-overview-section-private.h"
#include "rtop-port-section-private.h"
#include "rtop-session.h"
#include "support/gui-test-util.h"

typedef struct {
  char *dir;
  char *script;
  GString *lines;
} Script;

G_GNUC_PRINTF (2, 3) static void
script (Script *s, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  g_string_append_vprintf (s->lines, format, ap);
  va_end (ap);
  g_string_append_c (s->lines, '\n');
  g_assert_true (g_file_set_contents (s->script, s->lines->str, -1, NULL));
}

static void
ingest (RtopHistory *history, RtopCollector *collector)
{
  g_autoptr(RtopSnapshot) snap = rtop_collector_sample (collector, 1.0);

  rtop_history_ingest (history, snap);
  gui_test_spin ();
}

static void
test_overview_shows_gpu_links (void)
{
  Script s = { g_dir_make_tmp ("rdmatop-gui-gpu-XXXXXX", NULL), NULL, g_string_new (NULL) };
  RtopCollectorOptions options = { .no_processes = TRUE,
                                   .nvml_library = g_getenv ("RDMATOP_TEST_FAKE_NVML"),
                                   .amdsmi_library = "/nonexistent/libamd_smi.so" };
  g_autoptr(RtopCollector) collector = NULL;
  RtopSession *session = rtop_session_new (NULL);
  RtopHistory *history = g_object_ref (rtop_session_get_history (session));
  GtkWidget *window = gtk_window_new ();
  GtkWidget *overview = rtop_overview_section_new ();
  GtkWidget *detail = rtop_port_section_new ();
  g_autofree char *dump = NULL, *later = NULL, *page = NULL;

  s.script = g_build_filename (s.dir, "script", NULL);
  g_setenv ("RDMATOP_FAKE_GPU_SCRIPT", s.script, TRUE);
  script (&s, "gpus 1");
  script (&s, "gpu.0.name NVIDIA H100 80GB HBM3");
  script (&s, "gpu.0.util 87");
  script (&s, "gpu.0.temp 61");
  script (&s, "gpu.0.links 2");
  script (&s, "gpu.0.tx_kib 0");
  script (&s, "gpu.0.rx_kib 0");
  script (&s, "gpu.0.link.0.remote 00000000:2A:00.0");
  script (&s, "gpu.0.link.0.crc 0");
  collector = rtop_collector_new_for_nl (&options, NULL);

  gtk_window_set_child (GTK_WINDOW (window), overview);
  rtop_section_set_session (RTOP_SECTION (overview), session);
  gtk_window_present (GTK_WINDOW (window));
  ingest (history, collector);
  script (&s, "gpu.0.tx_kib 10000000");
  script (&s, "gpu.0.rx_kib 5000000");
  g_usleep (50000);
  ingest (history, collector);

  dump = rtop_section_dump (RTOP_SECTION (overview));
  g_test_message ("%s", dump);
  g_assert_nonnull (strstr (dump, "state=ports"));
  g_assert_nonnull (strstr (dump, "row\tport=nvidia0 all links\tprotocol=NVLink\tstate=● Active"));
  g_assert_nonnull (strstr (dump, "row\tport=nvidia0 link 0\tprotocol=NVLink\tstate=● Active"));
  g_assert_nonnull (strstr (dump, "row\tport=nvidia0 link 1\tprotocol=NVLink"));
  /* Without RDMA netlink the GPU rows are shown, with one line saying why
   * RDMA is not. */
  g_assert_nonnull (strstr (dump, "sources\tRDMA: "));
  /* The GPU-wide throughput has a rate; links have none of their own. */
  g_assert_true (g_regex_match_simple ("port=nvidia0 all links\t[^\n]*\ttx=[0-9]", dump, 0, 0));
  g_assert_true (g_regex_match_simple ("port=nvidia0 link 0\t[^\n]*\ttx=—", dump, 0, 0));
  /* The throughput totals are the network's, not NVLink's. */
  g_assert_nonnull (strstr (dump, "totals\tports=3\ttx=0 b/s\trx=0 b/s"));

  script (&s, "gpu.0.link.1.up 0");
  ingest (history, collector);
  later = rtop_section_dump (RTOP_SECTION (overview));
  g_assert_nonnull (strstr (later, "row\tport=nvidia0 link 1\tprotocol=NVLink\tstate=● Down"));

  rtop_section_set_session (RTOP_SECTION (detail), session);
  rtop_port_section_set_port (RTOP_PORT_SECTION (detail),
                              rtop_history_find_port (history, "nvidia0", RTOP_GPU_ALL_LINKS_PORT));
  page = rtop_section_dump (RTOP_SECTION (detail));
  g_assert_nonnull (strstr (page, "detail\tnvidia0 all links"));
  g_assert_nonnull (strstr (page, "nvlink_data_tx_kib"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_ref_sink (detail);
  g_object_unref (detail);
  gui_test_spin ();
  g_object_unref (session);
  g_assert_finalize_object (history);
  g_unlink (s.script);
  g_rmdir (s.dir);
  g_free (s.script);
  g_free (s.dir);
  g_string_free (s.lines, TRUE);
}

/* No GPU library: the ports table stays as it is, and one dim line says
 * why there are no GPU links. */
static void
test_overview_says_no_driver (void)
{
  RtopCollectorOptions options = { .no_processes = TRUE,
                                   .nvml_library = "/nonexistent/libnvidia-ml.so.1",
                                   .amdsmi_library = "/nonexistent/libamd_smi.so" };
  g_autoptr(RtopCollector) collector = rtop_collector_new_for_nl (&options, NULL);
  RtopSession *session = rtop_session_new (NULL);
  RtopHistory *history = g_object_ref (rtop_session_get_history (session));
  GtkWidget *window = gtk_window_new ();
  GtkWidget *overview = rtop_overview_section_new ();
  g_autofree char *dump = NULL;

  gtk_window_set_child (GTK_WINDOW (window), overview);
  rtop_section_set_session (RTOP_SECTION (overview), session);
  gtk_window_present (GTK_WINDOW (window));
  ingest (history, collector);
  dump = rtop_section_dump (RTOP_SECTION (overview));
  g_test_message ("%s", dump);
  /* No RDMA here: the page of no devices, with the GPUs' line. */
  g_assert_nonnull (strstr (dump, "state=empty"));
  g_assert_nonnull (strstr (dump, "sources\tGPU interconnects: Cannot load the GPU library"));
  gtk_window_destroy (GTK_WINDOW (window));
  gui_test_spin ();
  g_object_unref (session);
  g_assert_finalize_object (history);
}

int
main (int argc, char *argv[])
{
  gui_test_init (&argc, &argv);
  g_test_add_func ("/gui/gpu/overview-rows", test_overview_shows_gpu_links);
  g_test_add_func ("/gui/gpu/no-driver", test_overview_says_no_driver);
  return g_test_run ();
}
