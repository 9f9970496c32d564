/* fuzz-gpu.c: libFuzzer target for what GPU libraries answer.  The input
 * is the stand-in libraries' script (tests/gpu/fake-gpu-script.h) for two
 * passes, split at a line "--": whatever counts, strings, error codes,
 * link layouts and counter values it makes NVML and AMD SMI report go
 * through the real readers, rates, the provider table, health and JSON. */
#define _GNU_SOURCE             /* memmem */
#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtop-gpu.h"
#include "rtop-gpu-rates.h"
#include "rtop-health.h"
#include "rtop-json.h"
#include "rtop-rates.h"

static char *script_path;
static RtopGpuSource *shared_source;

/* Plain stdio: g_file_set_contents() syncs to disk, thousands of times. */
static void
write_script (const uint8_t *data, size_t size)
{
  FILE *f = fopen (script_path, "w");

  if (f == NULL || fwrite (data, 1, size, f) != size || fclose (f) != 0)
    abort ();
}

static void
remove_script (void)
{
  g_unlink (script_path);
}

static void
one_pass (RtopGpuSource *source, RtopRates *rates, RtopHealth *health)
{
  g_autoptr(RtopSnapshot) snap = rtop_snapshot_new ();
  g_autofree char *json = NULL;

  rtop_rates_begin_pass (rates);
  snap->gpu_status = rtop_gpu_source_read (source, snap->devices);
  rtop_gpu_rates_apply (rates, snap->devices);
  rtop_rates_end_pass (rates);
  rtop_snapshot_seal (snap);
  rtop_health_process (health, snap);
  json = rtop_json_snapshot_to_string (snap, FALSE);
  if (json == NULL)
    abort ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  RtopGpuOptions options = {
    .nvml_library = g_getenv ("RDMATOP_TEST_FAKE_NVML"),
    .amdsmi_library = g_getenv ("RDMATOP_TEST_FAKE_AMDSMI"),
  };
  const uint8_t *split = size >= 4 ? memmem (data, size, "\n--\n", 4) : NULL;
  size_t first = split != NULL ? (size_t) (split - data) : size;
  g_autoptr(RtopGpuSource) fresh = NULL;
  g_autoptr(RtopRates) rates = rtop_rates_new ();
  g_autoptr(RtopHealth) health = rtop_health_new ();
  RtopGpuSource *source;

  if (script_path == NULL)
    {
      /* Per process: two fuzzers side by side must not read each
       * other's script. */
      g_autofree char *name = g_strdup_printf ("rdmatop-fuzz-gpu-script-%d", (int) getpid ());

      script_path = g_build_filename (g_get_tmp_dir (), name, NULL);
      g_setenv ("RDMATOP_FAKE_GPU_SCRIPT", script_path, TRUE);
      atexit (remove_script);
    }
  write_script (data, first);
  /* Loading the libraries costs more than a pass: one source serves every
   * input, except those that script what the libraries read when they
   * start (init errors, the AMD SMI release). */
  if (memmem (data, size, "init_error", 10) != NULL || memmem (data, size, "version", 7) != NULL)
    source = fresh = rtop_gpu_source_new (&options);
  else
    {
      if (shared_source == NULL)
        shared_source = rtop_gpu_source_new (&options);
      source = shared_source;
    }
  one_pass (source, rates, health);
  if (split != NULL)
    write_script (split + 4, size - first - 4);
  one_pass (source, rates, health);
  return 0;
}
