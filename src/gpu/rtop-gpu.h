/* rtop-gpu.h: GPU interconnects (NVLink, XGMI) read from the vendors' GPU
 * libraries, opened at run time with dlopen: rdmatop neither builds against
 * nor needs any GPU stack.
 *
 * Each library is one row of a table (RtopGpuLibrary): where to find it,
 * how to open it (every function looked up on its own, into one table of
 * function pointers; a missing one disables only what needs it) and how to
 * read it into snapshot devices of kind RTOP_DEVICE_KIND_GPU (see
 * rtop-snapshot.h for what their ports mean).  The rest of rdmatop reads
 * the table, so adding a library is a file and a row.
 *
 * No library, no driver, no GPU, or a library that fails: one translated
 * sentence in the snapshot (gpu_status), never a crash.  Everything a
 * library answers is bounded (GPUs, links) and validated (strings must end
 * within their buffer and be UTF-8).
 *
 * Like the collector, not thread-safe: the sampler's worker reads it. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* Bounds on what a library may report. */
#define RTOP_GPU_MAX_GPUS 64
#define RTOP_GPU_MAX_LINKS 64

typedef struct {
  gboolean disabled;         /* read no GPU library at all */
  /* The file to dlopen per library id ("nvml", "amdsmi"), instead of the
   * system's; NULL entries and a NULL array: the system's.  Tests point
   * these at the stand-in libraries the test suite builds. */
  const char *nvml_library;
  const char *amdsmi_library;
} RtopGpuOptions;

/* One library's row.  state is what open() returned. */
typedef struct {
  const char *id;            /* provider id of its devices: "nvml", "amdsmi" */
  const char *device_prefix; /* device names: "nvidia0", "amdgpu0" */
  const char *env;           /* environment variable naming a file to load instead
                                (read once, when the source is made; for testing) */
  const char * const *sonames;
  /* Looks up the functions in the dlopen()ed handle and initialises the
   * library.  NULL with a translated error when unusable. */
  gpointer (*open) (void *handle, GError **error);
  void (*close) (gpointer state);
  /* Appends one RtopDevice per GPU to devices: gauges, ports with state and
   * raw counters (no rates; the caller does those).  FALSE with an error
   * when the library cannot be read at all this pass. */
  gboolean (*read) (gpointer state, GPtrArray *devices, GError **error);
  /* The sentence for "the library or its driver is not here". */
  const char *(*absent_message) (void);
} RtopGpuLibrary;

typedef struct _RtopGpuSource RtopGpuSource;

RtopGpuSource *rtop_gpu_source_new (const RtopGpuOptions *options);
void rtop_gpu_source_free (RtopGpuSource *self);

/* One pass: appends the GPU devices of every library that answers to
 * devices, as readings: gauges, and ports with their state, raw counters in
 * name order and read_time_us (rates and metrics are the sampling layer's:
 * rtop_gpu_rates_apply()).  A library whose read fails this pass appends the
 * devices of its last good read, each port with error set and no counters.
 * Returns the translated reason why no GPU is read (free it), or NULL when
 * some library listed a GPU or the source is disabled. */
char *rtop_gpu_source_read (RtopGpuSource *self, GPtrArray *devices);

/* Whether any library listed a GPU in the last read. */
gboolean rtop_gpu_source_has_gpus (RtopGpuSource *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopGpuSource, rtop_gpu_source_free)

G_END_DECLS
