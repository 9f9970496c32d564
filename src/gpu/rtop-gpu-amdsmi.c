/* rtop-gpu-amdsmi.c: AMD GPUs and their XGMI links through AMD SMI
 * (libamd_smi.so, loaded by rtop-gpu.c).
 *
 * Per GPU: name, UUID, PCI address, utilisation, memory, temperature, and
 * the XGMI block's ECC error counts (GPU-wide: on the "all links" port).
 * Per XGMI link (amdsmi_get_link_metrics): its peer's PCI address, speed
 * and read/write totals in KB, which rdmatop takes as KiB.
 *
 * AMD SMI changed the layout of its link metrics between releases (a field
 * dropped, another added), and says which release it is only through
 * amdsmi_get_lib_version(), whose own layout changed too; its first field
 * is the release number either way (24, 26, ...).  Links are read only for
 * the releases whose layout is known here, and every structure the library
 * fills is a buffer larger than any of its layouts, so a newer one never
 * writes past it. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-gpu.h"
#include "rtop-gpu-read.h"

/* Declarations mirroring AMD's public amd_smi/amdsmi.h (the ABI of
 * libamd_smi.so); only what rdmatop calls. */
typedef guint32 AmdsmiStatus;               /* amdsmi_status_t */
typedef void *AmdsmiSocket;                 /* amdsmi_socket_handle */
typedef void *AmdsmiProcessor;              /* amdsmi_processor_handle */

enum {
  AMDSMI_STATUS_SUCCESS = 0,
  AMDSMI_STATUS_NO_PERM = 10,
  AMDSMI_STATUS_NOT_FOUND = 31,
  AMDSMI_STATUS_DRIVER_NOT_LOADED = 34,
};

#define AMDSMI_INIT_AMD_GPUS (G_GUINT64_CONSTANT (1) << 1)
#define AMDSMI_PROCESSOR_TYPE_AMD_GPU 1     /* processor_type_t */
#define AMDSMI_MEM_TYPE_VRAM 0              /* amdsmi_memory_type_t */
#define AMDSMI_TEMPERATURE_TYPE_HOTSPOT 1   /* amdsmi_temperature_type_t */
#define AMDSMI_TEMP_CURRENT 0               /* amdsmi_temperature_metric_t */
#define AMDSMI_LINK_TYPE_XGMI 1             /* amdsmi_link_type_t (the same in every release) */
#define AMDSMI_GPU_BLOCK_XGMI_WAFL G_GUINT64_CONSTANT (0x80) /* amdsmi_gpu_block_t */
#define AMDSMI_MAX_NUM_XGMI_PHYSICAL_LINK 64
#define AMDSMI_MARKET_NAME_SIZE 256         /* amdsmi_asic_info_t.market_name, its first field */
#define AMDSMI_GPU_UUID_SIZE 38

/* Larger than every release's structures. */
#define FILL_BUFFER_SIZE 8192

/* amdsmi_link_metrics_t: a uint32_t num_links, then (8-byte aligned) an
 * array of AMDSMI_MAX_NUM_XGMI_PHYSICAL_LINK entries, each beginning
 *   amdsmi_bdf_t bdf (uint64_t); uint32_t bit_rate (Gb/s);
 *   uint32_t max_bandwidth; amdsmi_link_type_t link_type; (pad)
 *   uint64_t read (KB); uint64_t write (KB); ...
 * The entry's size is what changed: 56 bytes in release 24 (then
 * reserved[2]), 48 in release 26 (reserved[1]). */
#define LINK_ENTRIES_OFFSET 8
#define LINK_BDF 0
#define LINK_BIT_RATE 8
#define LINK_TYPE 16
#define LINK_READ 24
#define LINK_WRITE 32

typedef struct {
  guint32 release;
  gsize entry_size;
} LinkLayout;

static const LinkLayout link_layouts[] = {
  { 24, 56 },
  { 26, 48 },
};

/* The one table of AMD SMI functions; NULL where the library lacks one. */
typedef struct {
  AmdsmiStatus (*init) (guint64 flags);
  AmdsmiStatus (*shut_down) (void);
  AmdsmiStatus (*status_code_to_string) (AmdsmiStatus status, const char **text);
  AmdsmiStatus (*get_lib_version) (void *version);
  AmdsmiStatus (*get_socket_handles) (guint32 *count, AmdsmiSocket *sockets);
  AmdsmiStatus (*get_processor_handles) (AmdsmiSocket socket, guint32 *count,
                                         AmdsmiProcessor *processors);
  AmdsmiStatus (*get_processor_type) (AmdsmiProcessor p, guint32 *type);
  AmdsmiStatus (*get_gpu_device_bdf) (AmdsmiProcessor p, guint64 *bdf);
  AmdsmiStatus (*get_gpu_device_uuid) (AmdsmiProcessor p, unsigned int *length, char *uuid);
  AmdsmiStatus (*get_gpu_asic_info) (AmdsmiProcessor p, void *info);
  AmdsmiStatus (*get_gpu_activity) (AmdsmiProcessor p, void *usage);
  AmdsmiStatus (*get_gpu_memory_total) (AmdsmiProcessor p, guint32 type, guint64 *total);
  AmdsmiStatus (*get_gpu_memory_usage) (AmdsmiProcessor p, guint32 type, guint64 *used);
  AmdsmiStatus (*get_temp_metric) (AmdsmiProcessor p, guint32 sensor, guint32 metric,
                                   gint64 *value);
  AmdsmiStatus (*get_link_metrics) (AmdsmiProcessor p, void *metrics);
  AmdsmiStatus (*get_gpu_ecc_count) (AmdsmiProcessor p, guint64 block, void *counts);
} AmdsmiFunctions;

typedef struct {
  const char *name;
  gsize offset;
  gboolean required;
} AmdsmiSymbol;

#define SYM(field, required) { "amdsmi_" #field, offsetof (AmdsmiFunctions, field), required }

static const AmdsmiSymbol symbols[] = {
  SYM (init, TRUE),
  SYM (shut_down, TRUE),
  SYM (status_code_to_string, FALSE),
  SYM (get_lib_version, FALSE),
  SYM (get_socket_handles, TRUE),
  SYM (get_processor_handles, TRUE),
  SYM (get_processor_type, FALSE),
  SYM (get_gpu_device_bdf, FALSE),
  SYM (get_gpu_device_uuid, FALSE),
  SYM (get_gpu_asic_info, FALSE),
  SYM (get_gpu_activity, FALSE),
  SYM (get_gpu_memory_total, FALSE),
  SYM (get_gpu_memory_usage, FALSE),
  SYM (get_temp_metric, FALSE),
  SYM (get_link_metrics, FALSE),
  SYM (get_gpu_ecc_count, FALSE),
};

typedef struct {
  AmdsmiFunctions fn;
  guint32 release;           /* 0 when unknown */
  const LinkLayout *links;   /* NULL: link metrics are not read */
  guint8 *buffer;            /* FILL_BUFFER_SIZE, for whatever the library fills */
} Amdsmi;

gpointer rtop_gpu_amdsmi_open (void *handle, GError **error);
void rtop_gpu_amdsmi_close (gpointer state);
gboolean rtop_gpu_amdsmi_read (gpointer state, GPtrArray *devices, GError **error);

static char *
error_text (const Amdsmi *smi, AmdsmiStatus status)
{
  const char *text = NULL;
  char *copy = NULL;

  if (smi->fn.status_code_to_string != NULL &&
      smi->fn.status_code_to_string (status, &text) == AMDSMI_STATUS_SUCCESS && text != NULL)
    copy = rtop_gpu_string (text, strnlen (text, 200) + 1);
  return copy != NULL ? copy : g_strdup_printf ("AMD SMI error %u", status);
}

static void *
fresh_buffer (const Amdsmi *smi)
{
  memset (smi->buffer, 0, FILL_BUFFER_SIZE);
  return smi->buffer;
}

static void
find_layout (Amdsmi *smi)
{
  guint32 first;

  if (smi->fn.get_lib_version == NULL ||
      smi->fn.get_lib_version (fresh_buffer (smi)) != AMDSMI_STATUS_SUCCESS)
    return;
  memcpy (&first, smi->buffer, sizeof first);
  smi->release = first;
  for (guint i = 0; i < G_N_ELEMENTS (link_layouts); i++)
    if (link_layouts[i].release == first)
      smi->links = &link_layouts[i];
}

static gboolean
start (Amdsmi *smi, GError **error)
{
  AmdsmiStatus status = smi->fn.init (AMDSMI_INIT_AMD_GPUS);

  if (status == AMDSMI_STATUS_SUCCESS)
    return TRUE;
  if (status == AMDSMI_STATUS_DRIVER_NOT_LOADED || status == AMDSMI_STATUS_NOT_FOUND)
    g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                         _("No AMD GPU driver (AMD SMI) on this machine."));
  else if (status == AMDSMI_STATUS_NO_PERM)
    g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_PERMISSION,
                         _("The AMD GPU driver refused access to its GPUs."));
  else
    {
      g_autofree char *why = error_text (smi, status);
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("AMD SMI did not start: %s"), why);
    }
  return FALSE;
}

gpointer
rtop_gpu_amdsmi_open (void *handle, GError **error)
{
  Amdsmi *smi = g_new0 (Amdsmi, 1);

  for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
    {
      void *fn = dlsym (handle, symbols[i].name);

      if (fn == NULL && symbols[i].required)
        {
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                       _("The AMD SMI library is too old: it has no %s. Update ROCm."),
                       symbols[i].name);
          g_free (smi);
          return NULL;
        }
      memcpy ((char *) &smi->fn + symbols[i].offset, &fn, sizeof fn);
    }
  smi->buffer = g_malloc0 (FILL_BUFFER_SIZE);
  if (!start (smi, error))
    {
      g_free (smi->buffer);
      g_free (smi);
      return NULL;
    }
  find_layout (smi);
  return smi;
}

void
rtop_gpu_amdsmi_close (gpointer state)
{
  Amdsmi *smi = state;

  smi->fn.shut_down ();
  g_free (smi->buffer);
  g_free (smi);
}

/* ---- One GPU ---- */

static char *
bdf_text (guint64 bdf)
{
  /* amdsmi_bdf_t: function 3 bits, device 5, bus 8, domain 48. */
  return g_strdup_printf ("%04" G_GINT64_MODIFIER "x:%02x:%02x.%x",
                          (bdf >> 16) & G_GUINT64_CONSTANT (0xffffffffffff),
                          (guint) ((bdf >> 8) & 0xff), (guint) ((bdf >> 3) & 0x1f),
                          (guint) (bdf & 0x7));
}

static void
read_identity (const Amdsmi *smi, AmdsmiProcessor p, RtopGpu *gpu)
{
  char uuid[AMDSMI_GPU_UUID_SIZE + 2];
  unsigned int length = AMDSMI_GPU_UUID_SIZE;
  guint64 bdf;

  if (smi->fn.get_gpu_asic_info != NULL &&
      smi->fn.get_gpu_asic_info (p, fresh_buffer (smi)) == AMDSMI_STATUS_SUCCESS)
    gpu->model = rtop_gpu_string ((const char *) smi->buffer, AMDSMI_MARKET_NAME_SIZE);
  memset (uuid, 0, sizeof uuid);
  if (smi->fn.get_gpu_device_uuid != NULL &&
      smi->fn.get_gpu_device_uuid (p, &length, uuid) == AMDSMI_STATUS_SUCCESS)
    gpu->uuid = rtop_gpu_string (uuid, MIN (length + 1, sizeof uuid));
  if (smi->fn.get_gpu_device_bdf != NULL &&
      smi->fn.get_gpu_device_bdf (p, &bdf) == AMDSMI_STATUS_SUCCESS)
    gpu->pci_bus_id = bdf_text (bdf);
}

static void
read_gauges (const Amdsmi *smi, AmdsmiProcessor p, RtopGpu *gpu)
{
  guint64 total, used;
  guint32 activity;
  gint64 temp;

  /* amdsmi_engine_usage_t begins with gfx_activity (percent). */
  if (smi->fn.get_gpu_activity != NULL &&
      smi->fn.get_gpu_activity (p, fresh_buffer (smi)) == AMDSMI_STATUS_SUCCESS)
    {
      memcpy (&activity, smi->buffer, sizeof activity);
      if (activity <= 100)
        gpu->utilisation_pct = activity;
    }
  if (smi->fn.get_gpu_memory_total != NULL && smi->fn.get_gpu_memory_usage != NULL &&
      smi->fn.get_gpu_memory_total (p, AMDSMI_MEM_TYPE_VRAM, &total) == AMDSMI_STATUS_SUCCESS &&
      smi->fn.get_gpu_memory_usage (p, AMDSMI_MEM_TYPE_VRAM, &used) == AMDSMI_STATUS_SUCCESS &&
      used <= total)
    {
      gpu->memory_total_bytes = (double) total;
      gpu->memory_used_bytes = (double) used;
    }
  if (smi->fn.get_temp_metric != NULL &&
      smi->fn.get_temp_metric (p, AMDSMI_TEMPERATURE_TYPE_HOTSPOT, AMDSMI_TEMP_CURRENT,
                               &temp) == AMDSMI_STATUS_SUCCESS && temp > -100 && temp < 1000)
    gpu->temperature_c = (double) temp;
}

static guint64
entry_u64 (const guint8 *entry, gsize offset)
{
  guint64 v;

  memcpy (&v, entry + offset, sizeof v);
  return v;
}

static guint32
entry_u32 (const guint8 *entry, gsize offset)
{
  guint32 v;

  memcpy (&v, entry + offset, sizeof v);
  return v;
}

static RtopPort *
link_port (const guint8 *entry, guint32 link)
{
  guint32 gbps = entry_u32 (entry, LINK_BIT_RATE);
  g_autofree char *peer = bdf_text (entry_u64 (entry, LINK_BDF));
  /* AMD SMI reports no link state in these releases: a link at a
   * nonzero speed is up. */
  RtopPort *port = rtop_gpu_link_port_new (link, gbps > 0, "XGMI");

  port->rate_gbps = gbps;
  if (gbps > 0)
    port->rate_text = g_strdup_printf ("XGMI, %u Gb/s", gbps);
  port->remote = g_strdup_printf ("GPU %s", peer);
  g_ptr_array_add (port->counters, rtop_counter_new ("xgmi_write_kb", entry_u64 (entry, LINK_WRITE),
                                                     RTOP_COUNTER_SOURCE_GPU));
  g_ptr_array_add (port->counters, rtop_counter_new ("xgmi_read_kb", entry_u64 (entry, LINK_READ),
                                                     RTOP_COUNTER_SOURCE_GPU));
  return port;
}

static void
read_links (const Amdsmi *smi, AmdsmiProcessor p, RtopDevice *dev)
{
  guint32 n, link = 0;

  if (smi->links == NULL || smi->fn.get_link_metrics == NULL ||
      smi->fn.get_link_metrics (p, fresh_buffer (smi)) != AMDSMI_STATUS_SUCCESS)
    return;
  memcpy (&n, smi->buffer, sizeof n);
  n = MIN (n, MIN (AMDSMI_MAX_NUM_XGMI_PHYSICAL_LINK, RTOP_GPU_MAX_LINKS));
  for (guint32 i = 0; i < n; i++)
    {
      const guint8 *entry = smi->buffer + LINK_ENTRIES_OFFSET + i * smi->links->entry_size;

      if (entry + smi->links->entry_size > smi->buffer + FILL_BUFFER_SIZE)
        break;
      /* Other entries are PCIe paths to GPUs with no XGMI between. */
      if (entry_u32 (entry, LINK_TYPE) == AMDSMI_LINK_TYPE_XGMI)
        g_ptr_array_add (dev->ports, link_port (entry, link++));
    }
}

/* The GPU-wide port: the XGMI block's ECC error counts. */
static RtopPort *
all_links_port (const Amdsmi *smi, AmdsmiProcessor p, guint n_links, guint n_up)
{
  RtopPort *port = rtop_port_new (RTOP_GPU_ALL_LINKS_PORT);
  guint64 counts[3];

  /* Links of a release whose layout is unknown are not read: their state
   * is unknown, not down. */
  port->state = n_links == 0 ? 0 : n_up > 0 ? 4 : 1;
  port->phys_state = n_links == 0 ? 0 : n_up > 0 ? 5 : 3;
  port->link_layer = g_strdup ("XGMI");
  port->rate_text = g_strdup_printf (ngettext ("all %u link, GPU-wide totals",
                                               "all %u links, GPU-wide totals", n_links), n_links);
  /* amdsmi_error_count_t begins with the correctable, uncorrectable and
   * deferred counts. */
  if (smi->fn.get_gpu_ecc_count != NULL &&
      smi->fn.get_gpu_ecc_count (p, AMDSMI_GPU_BLOCK_XGMI_WAFL, fresh_buffer (smi)) == AMDSMI_STATUS_SUCCESS)
    {
      memcpy (counts, smi->buffer, sizeof counts);
      g_ptr_array_add (port->counters, rtop_counter_new ("xgmi_ecc_correctable", counts[0],
                                                         RTOP_COUNTER_SOURCE_GPU));
      g_ptr_array_add (port->counters, rtop_counter_new ("xgmi_ecc_uncorrectable", counts[1],
                                                         RTOP_COUNTER_SOURCE_GPU));
      g_ptr_array_add (port->counters, rtop_counter_new ("xgmi_ecc_deferred", counts[2],
                                                         RTOP_COUNTER_SOURCE_GPU));
    }
  return port;
}

static RtopDevice *
read_gpu (const Amdsmi *smi, guint i, AmdsmiProcessor p)
{
  g_autofree char *name = g_strdup_printf ("amdgpu%u", i);
  RtopDevice *dev = rtop_device_new (0, name);
  guint n_up = 0;

  dev->kind = RTOP_DEVICE_KIND_GPU;
  dev->provider = g_strdup ("amdsmi");
  dev->protocol = g_strdup ("xgmi");
  dev->gpu = rtop_gpu_new ("AMD");
  read_identity (smi, p, dev->gpu);
  read_gauges (smi, p, dev->gpu);
  dev->index = rtop_gpu_identity ("AMD", dev->gpu->uuid != NULL ? dev->gpu->uuid
                                                                 : dev->gpu->pci_bus_id, i);
  read_links (smi, p, dev);
  for (guint l = 0; l < dev->ports->len; l++)
    n_up += ((RtopPort *) g_ptr_array_index (dev->ports, l))->state == 4;
  /* A GPU without XGMI links has nothing to show but its gauges. */
  if (dev->ports->len > 0 || smi->links == NULL)
    {
      RtopPort *all = all_links_port (smi, p, dev->ports->len, n_up);

      if (dev->ports->len > 0 || all->counters->len > 0)
        g_ptr_array_insert (dev->ports, 0, all);
      else
        rtop_port_free (all);
    }
  dev->port_count = dev->ports->len;
  return dev;
}

static gboolean
is_gpu (const Amdsmi *smi, AmdsmiProcessor p)
{
  guint32 type;

  if (smi->fn.get_processor_type == NULL)
    return TRUE;             /* initialised for GPUs only */
  return smi->fn.get_processor_type (p, &type) == AMDSMI_STATUS_SUCCESS &&
         type == AMDSMI_PROCESSOR_TYPE_AMD_GPU;
}

gboolean
rtop_gpu_amdsmi_read (gpointer state, GPtrArray *devices, GError **error)
{
  const Amdsmi *smi = state;
  AmdsmiSocket sockets[RTOP_GPU_MAX_GPUS];
  AmdsmiProcessor procs[RTOP_GPU_MAX_GPUS];
  guint32 n_sockets = G_N_ELEMENTS (sockets);
  AmdsmiStatus status = smi->fn.get_socket_handles (&n_sockets, sockets);
  guint n_gpus = 0;

  if (status != AMDSMI_STATUS_SUCCESS)
    {
      g_autofree char *why = error_text (smi, status);
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("AMD SMI cannot list its GPUs: %s"), why);
      return FALSE;
    }
  for (guint32 s = 0; s < MIN (n_sockets, G_N_ELEMENTS (sockets)); s++)
    {
      guint32 n_procs = G_N_ELEMENTS (procs);

      if (smi->fn.get_processor_handles (sockets[s], &n_procs, procs) != AMDSMI_STATUS_SUCCESS)
        continue;
      for (guint32 i = 0; i < MIN (n_procs, G_N_ELEMENTS (procs)) && n_gpus < RTOP_GPU_MAX_GPUS; i++)
        if (procs[i] != NULL && is_gpu (smi, procs[i]))
          g_ptr_array_add (devices, read_gpu (smi, n_gpus++, procs[i]));
    }
  return TRUE;
}
