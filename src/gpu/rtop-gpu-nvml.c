/* rtop-gpu-nvml.c: NVIDIA GPUs and their NVLinks through NVML
 * (libnvidia-ml.so.1, loaded by rtop-gpu.c).
 *
 * Per GPU: name, UUID, PCI address, utilisation, memory, temperature and
 * power.  Per NVLink: state, version, speed, the remote end's PCI address
 * and the error counters (replay, recovery, CRC, ECC).  NVLink's data
 * throughput comes from the field values NVML_FI_DEV_NVLINK_THROUGHPUT_DATA
 * _TX/_RX: cumulative KiB, counted for the GPU as a whole even when a link
 * is named, so they go on the GPU's "all links" port, never on a link. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-gpu.h"
#include "rtop-gpu-read.h"

/* Declarations mirroring NVIDIA's public nvml.h (the ABI of
 * libnvidia-ml.so.1); only what rdmatop calls. */
typedef int NvmlReturn;                     /* nvmlReturn_t */
typedef struct NvmlDeviceSt *NvmlDevice;    /* nvmlDevice_t: opaque */

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_GPU_IS_LOST = 15,
};

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_NVLINK_MAX_LINKS 18            /* links probed when the count is unknown */
#define NVML_TEMPERATURE_GPU 0              /* nvmlTemperatureSensors_t */
#define NVML_FEATURE_ENABLED 1              /* nvmlEnableState_t */

/* nvmlFieldValue_t field ids. */
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138
#define NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139
#define NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY 161
#define NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY 162
#define NVML_FI_DEV_NVLINK_ERROR_DL_CRC 163
#define NVML_FI_DEV_NVLINK_GET_SPEED 164    /* MB/s */
#define NVML_FI_DEV_NVLINK_GET_STATE 165
#define NVML_FI_DEV_NVLINK_GET_VERSION 166

/* nvmlNvLinkErrorCounter_t. */
enum {
  NVML_NVLINK_ERROR_DL_REPLAY = 0,
  NVML_NVLINK_ERROR_DL_RECOVERY = 1,
  NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
  NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
  NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
};

/* nvmlValueType_t. */
enum {
  NVML_VALUE_TYPE_DOUBLE = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
  NVML_VALUE_TYPE_SIGNED_INT = 5,
  NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

typedef struct {                            /* nvmlUtilization_t */
  unsigned int gpu;
  unsigned int memory;
} NvmlUtilization;

typedef struct {                            /* nvmlMemory_t */
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} NvmlMemory;

typedef struct {                            /* nvmlPciInfo_t */
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} NvmlPciInfo;

typedef union {                             /* nvmlValue_t */
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
} NvmlValue;

typedef struct {                            /* nvmlFieldValue_t */
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  NvmlReturn nvmlReturn;
  NvmlValue value;
} NvmlFieldValue;

/* The one table of NVML functions; NULL where the library lacks one. */
typedef struct {
  NvmlReturn (*Init_v2) (void);
  NvmlReturn (*Shutdown) (void);
  const char *(*ErrorString) (NvmlReturn result);
  NvmlReturn (*DeviceGetCount_v2) (unsigned int *count);
  NvmlReturn (*DeviceGetHandleByIndex_v2) (unsigned int index, NvmlDevice *device);
  NvmlReturn (*DeviceGetName) (NvmlDevice device, char *name, unsigned int length);
  NvmlReturn (*DeviceGetUUID) (NvmlDevice device, char *uuid, unsigned int length);
  NvmlReturn (*DeviceGetPciInfo_v3) (NvmlDevice device, NvmlPciInfo *pci);
  NvmlReturn (*DeviceGetUtilizationRates) (NvmlDevice device, NvmlUtilization *utilization);
  NvmlReturn (*DeviceGetMemoryInfo) (NvmlDevice device, NvmlMemory *memory);
  NvmlReturn (*DeviceGetTemperature) (NvmlDevice device, int sensor, unsigned int *temp);
  NvmlReturn (*DeviceGetPowerUsage) (NvmlDevice device, unsigned int *milliwatts);
  NvmlReturn (*DeviceGetFieldValues) (NvmlDevice device, int count, NvmlFieldValue *values);
  NvmlReturn (*DeviceGetNvLinkState) (NvmlDevice device, unsigned int link, int *is_active);
  NvmlReturn (*DeviceGetNvLinkVersion) (NvmlDevice device, unsigned int link, unsigned int *version);
  NvmlReturn (*DeviceGetNvLinkRemotePciInfo_v2) (NvmlDevice device, unsigned int link,
                                                 NvmlPciInfo *pci);
  NvmlReturn (*DeviceGetNvLinkErrorCounter) (NvmlDevice device, unsigned int link, int counter,
                                             unsigned long long *value);
} NvmlFunctions;

typedef struct {
  const char *name;
  gsize offset;
  gboolean required;
} NvmlSymbol;

#define SYM(field, required) { "nvml" #field, offsetof (NvmlFunctions, field), required }

static const NvmlSymbol symbols[] = {
  SYM (Init_v2, TRUE),
  SYM (Shutdown, TRUE),
  SYM (ErrorString, FALSE),
  SYM (DeviceGetCount_v2, TRUE),
  SYM (DeviceGetHandleByIndex_v2, TRUE),
  SYM (DeviceGetName, FALSE),
  SYM (DeviceGetUUID, FALSE),
  SYM (DeviceGetPciInfo_v3, FALSE),
  SYM (DeviceGetUtilizationRates, FALSE),
  SYM (DeviceGetMemoryInfo, FALSE),
  SYM (DeviceGetTemperature, FALSE),
  SYM (DeviceGetPowerUsage, FALSE),
  SYM (DeviceGetFieldValues, FALSE),
  SYM (DeviceGetNvLinkState, FALSE),
  SYM (DeviceGetNvLinkVersion, FALSE),
  SYM (DeviceGetNvLinkRemotePciInfo_v2, FALSE),
  SYM (DeviceGetNvLinkErrorCounter, FALSE),
};

typedef struct {
  NvmlFunctions fn;
} Nvml;

/* The library's text for an error, if it is a sane string. */
static char *
error_text (const Nvml *nvml, NvmlReturn result)
{
  const char *text = nvml->fn.ErrorString != NULL ? nvml->fn.ErrorString (result) : NULL;
  char *copy = text != NULL ? rtop_gpu_string (text, strnlen (text, 200) + 1) : NULL;

  return copy != NULL ? copy : g_strdup_printf ("NVML error %d", result);
}

gpointer rtop_gpu_nvml_open (void *handle, GError **error);
void rtop_gpu_nvml_close (gpointer state);
gboolean rtop_gpu_nvml_read (gpointer state, GPtrArray *devices, GError **error);

gpointer
rtop_gpu_nvml_open (void *handle, GError **error)
{
  g_autofree Nvml *nvml = g_new0 (Nvml, 1);
  NvmlReturn result;

  for (guint i = 0; i < G_N_ELEMENTS (symbols); i++)
    {
      void *fn = dlsym (handle, symbols[i].name);

      if (fn == NULL && symbols[i].required)
        {
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                       _("The NVIDIA library is too old: it has no %s. Update the NVIDIA driver."),
                       symbols[i].name);
          return NULL;
        }
      memcpy ((char *) &nvml->fn + symbols[i].offset, &fn, sizeof fn);
    }
  result = nvml->fn.Init_v2 ();
  if (result == NVML_SUCCESS)
    return g_steal_pointer (&nvml);
  if (result == NVML_ERROR_DRIVER_NOT_LOADED || result == NVML_ERROR_LIBRARY_NOT_FOUND)
    g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                         _("No NVIDIA driver on this machine."));
  else if (result == NVML_ERROR_NO_PERMISSION)
    g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_PERMISSION,
                         _("The NVIDIA driver refused access to its GPUs."));
  else
    {
      g_autofree char *why = error_text (nvml, result);
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("The NVIDIA driver did not start: %s"), why);
    }
  return NULL;
}

void
rtop_gpu_nvml_close (gpointer state)
{
  Nvml *nvml = state;

  nvml->fn.Shutdown ();
  g_free (nvml);
}

/* ---- One GPU ---- */

static gboolean
field_u64 (const NvmlFieldValue *fv, guint64 *out)
{
  if (fv->nvmlReturn != NVML_SUCCESS)
    return FALSE;
  switch (fv->valueType)
    {
    case NVML_VALUE_TYPE_UNSIGNED_INT: *out = fv->value.uiVal; return TRUE;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: *out = fv->value.ulVal; return TRUE;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = fv->value.ullVal; return TRUE;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: *out = fv->value.usVal; return TRUE;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
      if (fv->value.sllVal < 0)
        return FALSE;
      *out = (guint64) fv->value.sllVal;
      return TRUE;
    case NVML_VALUE_TYPE_SIGNED_INT:
      if (fv->value.siVal < 0)
        return FALSE;
      *out = (guint64) fv->value.siVal;
      return TRUE;
    case NVML_VALUE_TYPE_DOUBLE:
      if (!(fv->value.dVal >= 0 && fv->value.dVal < 1.8e19))
        return FALSE;
      *out = (guint64) fv->value.dVal;
      return TRUE;
    default:
      return FALSE;
    }
}

static void
read_gauges (const Nvml *nvml, NvmlDevice h, RtopGpu *gpu)
{
  char text[NVML_DEVICE_NAME_V2_BUFFER_SIZE + NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  NvmlUtilization util;
  NvmlMemory mem;
  NvmlPciInfo pci;
  unsigned int value;

  memset (text, 0, sizeof text);
  if (nvml->fn.DeviceGetName != NULL &&
      nvml->fn.DeviceGetName (h, text, NVML_DEVICE_NAME_V2_BUFFER_SIZE) == NVML_SUCCESS)
    gpu->model = rtop_gpu_string (text, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
  memset (text, 0, sizeof text);
  if (nvml->fn.DeviceGetUUID != NULL &&
      nvml->fn.DeviceGetUUID (h, text, NVML_DEVICE_UUID_V2_BUFFER_SIZE) == NVML_SUCCESS)
    gpu->uuid = rtop_gpu_string (text, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
  memset (&pci, 0, sizeof pci);
  if (nvml->fn.DeviceGetPciInfo_v3 != NULL && nvml->fn.DeviceGetPciInfo_v3 (h, &pci) == NVML_SUCCESS)
    gpu->pci_bus_id = rtop_gpu_string (pci.busId, sizeof pci.busId);
  if (nvml->fn.DeviceGetUtilizationRates != NULL &&
      nvml->fn.DeviceGetUtilizationRates (h, &util) == NVML_SUCCESS && util.gpu <= 100)
    gpu->utilisation_pct = util.gpu;
  if (nvml->fn.DeviceGetMemoryInfo != NULL && nvml->fn.DeviceGetMemoryInfo (h, &mem) == NVML_SUCCESS &&
      mem.used <= mem.total)
    {
      gpu->memory_used_bytes = (double) mem.used;
      gpu->memory_total_bytes = (double) mem.total;
    }
  if (nvml->fn.DeviceGetTemperature != NULL &&
      nvml->fn.DeviceGetTemperature (h, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS && value < 1000)
    gpu->temperature_c = value;
  if (nvml->fn.DeviceGetPowerUsage != NULL &&
      nvml->fn.DeviceGetPowerUsage (h, &value) == NVML_SUCCESS)
    gpu->power_w = value / 1000.0;
}

static guint
link_count (const Nvml *nvml, NvmlDevice h)
{
  NvmlFieldValue fv = { .fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT };
  guint64 n;

  if (nvml->fn.DeviceGetFieldValues != NULL &&
      nvml->fn.DeviceGetFieldValues (h, 1, &fv) == NVML_SUCCESS && field_u64 (&fv, &n))
    return (guint) MIN (n, RTOP_GPU_MAX_LINKS);
  /* Older drivers: as many as answer for their state. */
  if (nvml->fn.DeviceGetNvLinkState != NULL)
    return NVML_NVLINK_MAX_LINKS;
  return 0;
}

/* Per link: what is asked of the field values, in this order. */
static const unsigned int link_fields[] = {
  NVML_FI_DEV_NVLINK_GET_STATE,
  NVML_FI_DEV_NVLINK_GET_VERSION,
  NVML_FI_DEV_NVLINK_GET_SPEED,
  NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY,
  NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY,
  NVML_FI_DEV_NVLINK_ERROR_DL_CRC,
};
#define N_LINK_FIELDS G_N_ELEMENTS (link_fields)
#define N_GPU_FIELDS 2

/* All field values of one GPU in one call: the throughput, then each link's. */
static NvmlFieldValue *
read_fields (const Nvml *nvml, NvmlDevice h, guint n_links)
{
  guint n = N_GPU_FIELDS + n_links * N_LINK_FIELDS;
  NvmlFieldValue *fv = g_new0 (NvmlFieldValue, n);

  fv[0].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
  fv[1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
  for (guint l = 0; l < n_links; l++)
    for (guint f = 0; f < N_LINK_FIELDS; f++)
      {
        fv[N_GPU_FIELDS + l * N_LINK_FIELDS + f].fieldId = link_fields[f];
        fv[N_GPU_FIELDS + l * N_LINK_FIELDS + f].scopeId = l;
      }
  for (guint i = 0; i < n; i++)
    fv[i].nvmlReturn = -1;   /* a library that fills nothing has said nothing */
  if (nvml->fn.DeviceGetFieldValues == NULL ||
      nvml->fn.DeviceGetFieldValues (h, (int) n, fv) != NVML_SUCCESS)
    for (guint i = 0; i < n; i++)
      fv[i].nvmlReturn = -1;
  return fv;
}

static void
add_counter (RtopPort *port, const char *name, guint64 value)
{
  g_ptr_array_add (port->counters, rtop_counter_new (name, value, RTOP_COUNTER_SOURCE_GPU));
}

/* An error counter from its field value, else from the older call. */
static void
add_error (const Nvml *nvml, NvmlDevice h, RtopPort *port, guint32 link,
           const NvmlFieldValue *fv, int legacy, const char *name)
{
  unsigned long long value;
  guint64 v;

  if (field_u64 (fv, &v))
    add_counter (port, name, v);
  else if (nvml->fn.DeviceGetNvLinkErrorCounter != NULL && legacy >= 0 &&
           nvml->fn.DeviceGetNvLinkErrorCounter (h, link, legacy, &value) == NVML_SUCCESS)
    add_counter (port, name, value);
}

/* The link's state; FALSE when the GPU has no such link. */
static gboolean
link_state (const Nvml *nvml, NvmlDevice h, guint32 link, const NvmlFieldValue *fv,
            gboolean *up)
{
  guint64 v;
  int active;

  if (field_u64 (fv, &v))
    {
      *up = v == NVML_FEATURE_ENABLED;
      return TRUE;
    }
  if (nvml->fn.DeviceGetNvLinkState != NULL &&
      nvml->fn.DeviceGetNvLinkState (h, link, &active) == NVML_SUCCESS)
    {
      *up = active == NVML_FEATURE_ENABLED;
      return TRUE;
    }
  return FALSE;
}

static void
describe_link (const Nvml *nvml, NvmlDevice h, RtopPort *port, guint32 link,
               const NvmlFieldValue *fv)
{
  unsigned int version = 0;
  guint64 v, mbps = 0;
  NvmlPciInfo pci;
  g_autofree char *remote = NULL;

  if (field_u64 (&fv[1], &v) && v < 100)
    version = (unsigned int) v;
  else if (nvml->fn.DeviceGetNvLinkVersion == NULL ||
           nvml->fn.DeviceGetNvLinkVersion (h, link, &version) != NVML_SUCCESS || version >= 100)
    version = 0;
  if (field_u64 (&fv[2], &v) && v < 10000000)
    mbps = v;
  port->rate_gbps = mbps * 8 / 1000.0;
  if (version > 0 && mbps > 0)
    port->rate_text = g_strdup_printf ("NVLink %u, %.2f GB/s", version, mbps / 1000.0);
  else if (version > 0)
    port->rate_text = g_strdup_printf ("NVLink %u", version);
  memset (&pci, 0, sizeof pci);
  if (port->state == 4 && nvml->fn.DeviceGetNvLinkRemotePciInfo_v2 != NULL &&
      nvml->fn.DeviceGetNvLinkRemotePciInfo_v2 (h, link, &pci) == NVML_SUCCESS &&
      (remote = rtop_gpu_string (pci.busId, sizeof pci.busId)) != NULL)
    port->remote = g_strdup_printf ("PCI %s", remote);
}

/* What a field NVML was not asked for reads as. */
static const NvmlFieldValue no_field = { .nvmlReturn = -1 };

static RtopPort *
read_link (const Nvml *nvml, NvmlDevice h, guint32 link, const NvmlFieldValue *fv)
{
  RtopPort *port;
  gboolean up;

  if (!link_state (nvml, h, link, &fv[0], &up))
    return NULL;
  port = rtop_gpu_link_port_new (link, up, "NVLink");
  describe_link (nvml, h, port, link, fv);
  add_error (nvml, h, port, link, &fv[3], NVML_NVLINK_ERROR_DL_REPLAY, "nvlink_replay_errors");
  add_error (nvml, h, port, link, &fv[4], NVML_NVLINK_ERROR_DL_RECOVERY, "nvlink_recovery_errors");
  /* The field value counts CRC errors of both kinds; the older call
   * tells them apart. */
  if (fv[5].nvmlReturn == NVML_SUCCESS)
    add_error (nvml, h, port, link, &fv[5], -1, "nvlink_crc_errors");
  else
    {
      add_error (nvml, h, port, link, &no_field, NVML_NVLINK_ERROR_DL_CRC_FLIT, "nvlink_crc_flit_errors");
      add_error (nvml, h, port, link, &no_field, NVML_NVLINK_ERROR_DL_CRC_DATA, "nvlink_crc_data_errors");
    }
  add_error (nvml, h, port, link, &no_field, NVML_NVLINK_ERROR_DL_ECC_DATA, "nvlink_ecc_data_errors");
  return port;
}

/* The GPU-wide port: NVLink data throughput over all links. */
static RtopPort *
all_links_port (const NvmlFieldValue *fv, guint n_links, guint n_up)
{
  RtopPort *port = rtop_port_new (RTOP_GPU_ALL_LINKS_PORT);
  guint64 v;

  port->state = n_up > 0 ? 4 : 1;
  port->phys_state = n_up > 0 ? 5 : 3;
  port->link_layer = g_strdup ("NVLink");
  port->rate_text = g_strdup_printf (ngettext ("all %u link, GPU-wide totals",
                                               "all %u links, GPU-wide totals", n_links), n_links);
  if (field_u64 (&fv[0], &v))
    add_counter (port, "nvlink_data_tx_kib", v);
  if (field_u64 (&fv[1], &v))
    add_counter (port, "nvlink_data_rx_kib", v);
  return port;
}

static void
read_links (const Nvml *nvml, NvmlDevice h, RtopDevice *dev)
{
  guint n_links = link_count (nvml, h), n_up = 0, n_found = 0;
  g_autofree NvmlFieldValue *fv = read_fields (nvml, h, n_links);
  g_autoptr(GPtrArray) links = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_port_free);

  for (guint l = 0; l < n_links; l++)
    {
      RtopPort *port = read_link (nvml, h, l, &fv[N_GPU_FIELDS + l * N_LINK_FIELDS]);

      if (port == NULL)
        continue;
      n_found++;
      n_up += port->state == 4;
      g_ptr_array_add (links, port);
    }
  if (n_found == 0)
    return;                  /* no NVLink on this GPU: only its gauges */
  g_ptr_array_add (dev->ports, all_links_port (fv, n_found, n_up));
  g_ptr_array_extend_and_steal (dev->ports, g_steal_pointer (&links));
}

static RtopDevice *
read_gpu (const Nvml *nvml, guint i, NvmlDevice h)
{
  g_autofree char *name = g_strdup_printf ("nvidia%u", i);
  RtopDevice *dev = rtop_device_new (0, name);

  dev->kind = RTOP_DEVICE_KIND_GPU;
  dev->provider = g_strdup ("nvml");
  dev->protocol = g_strdup ("nvlink");
  dev->gpu = rtop_gpu_new ("NVIDIA");
  read_gauges (nvml, h, dev->gpu);
  dev->index = rtop_gpu_identity ("NVIDIA", dev->gpu->uuid, i);
  read_links (nvml, h, dev);
  dev->port_count = dev->ports->len;
  return dev;
}

gboolean
rtop_gpu_nvml_read (gpointer state, GPtrArray *devices, GError **error)
{
  const Nvml *nvml = state;
  unsigned int count = 0;
  NvmlReturn result = nvml->fn.DeviceGetCount_v2 (&count);

  if (result != NVML_SUCCESS)
    {
      g_autofree char *why = error_text (nvml, result);
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_FAILED,
                   _("The NVIDIA driver cannot list its GPUs: %s"), why);
      return FALSE;
    }
  for (guint i = 0; i < MIN (count, RTOP_GPU_MAX_GPUS); i++)
    {
      NvmlDevice h = NULL;

      /* A GPU that fell off the bus is left out: its device goes away. */
      if (nvml->fn.DeviceGetHandleByIndex_v2 (i, &h) != NVML_SUCCESS || h == NULL)
        continue;
      g_ptr_array_add (devices, read_gpu (nvml, i, h));
    }
  return TRUE;
}
