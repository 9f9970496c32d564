/* gui-make-recording: writes a recording (Perfetto JSON, via RtopRecorder,
 * the app's own recorder) of synthetic traffic on four ports, for the
 * app's end-to-end test on machines without RDMA.
 * Usage: gui-make-recording FILE.json[.gz] [PASSES] */
#include "config.h"

#include <math.h>

#include "gui-fixtures.h"
#include "rtop-recorder.h"

int
main (int argc, char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  RtopRecordFormat format;
  guint passes = argc > 2 ? (guint) g_ascii_strtoull (argv[2], NULL, 10) : 120;
  GuiPortSpec ports[] = {
    { "mlx5_0", 1, "mlx5", "roce", 4, 100, 0, 0, 0, 0, 0, 0, 0, TRUE },
    { "mlx5_1", 1, "mlx5", "roce", 4, 100, 0, 0, 0, 0, 0, 0, 0, TRUE },
    { "rxe0", 1, "rxe", "roce", 4, 10, 0, 0, 0, 0, 0, 0, 0, FALSE },
    { "rxe1", 1, "rxe", "roce", 1, 10, 0, 0, 0, 0, 0, 0, 0, FALSE },
  };

  if (argc < 2 || !rtop_record_format_from_path (argv[1], &format))
    {
      g_printerr ("usage: %s FILE.json|FILE.json.gz [PASSES]\n", argv[0]);
      return 2;
    }
  recorder = rtop_recorder_new (argv[1], format, &error);
  if (recorder == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  for (guint seq = 1; seq <= passes; seq++)
    {
      RtopSnapshot *s;

      ports[0].tx_bps = 60e9 + 30e9 * sin (seq / 9.0);
      ports[0].rx_bps = 40e9 + 20e9 * cos (seq / 11.0);
      ports[1].tx_bps = seq % 40 < 20 ? 75e9 : 2e9;
      ports[1].rx_bps = 10e9;
      ports[2].tx_bps = 2e9 + 1e9 * sin (seq / 4.0);
      ports[2].rx_bps = 2e9;
      for (guint i = 0; i < G_N_ELEMENTS (ports); i++)
        {
          ports[i].tx_pps = ports[i].tx_bps / 8 / 4096;
          ports[i].rx_pps = ports[i].rx_bps / 8 / 4096;
        }
      ports[2].retrans = seq > passes / 2 ? 5 : 0;
      s = gui_fixture_snapshot (seq, 1.0, ports, G_N_ELEMENTS (ports));
      gui_fixture_add_process (s, 4242, "ib_write_bw", "root", "mlx5_0", 2, 1, 1 << 20);
      if (seq == passes / 2)
        gui_fixture_add_event (s, RTOP_SEVERITY_WARNING, "rxe0", 1, "Retransmits are rising on rxe0/1.");
      rtop_snapshot_seal (s);
      rtop_recorder_add (recorder, s);
      rtop_snapshot_unref (s);
    }
  if (!rtop_recorder_close (recorder, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  return 0;
}
