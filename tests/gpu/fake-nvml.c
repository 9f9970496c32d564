/* fake-nvml.c: a stand-in for libnvidia-ml.so.1 that answers from the
 * test's script (fake-gpu-script.h), so the whole GPU path runs without a
 * GPU.  Built twice: as it is, and with FAKE_OLD for a library that lacks
 * the newer functions (field values, power, NVLink error counters).
 *
 * Script keys (gpu I, link L):
 *   init_error N          nvmlInit_v2 returns N (9: driver not loaded)
 *   count_error N         nvmlDeviceGetCount_v2 returns N
 *   gpus N
 *   gpu.I.lost 1          the handle of GPU I: NVML_ERROR_GPU_IS_LOST
 *   gpu.I.name TEXT       gpu.I.name_unterminated 1: a name without its NUL
 *   gpu.I.uuid TEXT  gpu.I.bus TEXT  gpu.I.util N  gpu.I.mem_used N
 *   gpu.I.mem_total N  gpu.I.temp N  gpu.I.power_mw N
 *   gpu.I.links N  gpu.I.tx_kib N  gpu.I.rx_kib N
 *   gpu.I.link.L.up 0|1  .version N  .speed_mbps N  .remote BUSID
 *   gpu.I.link.L.replay N  .recovery N  .crc N  .crc_flit N  .crc_data N */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fake-gpu-script.h"

#define EXPORT __attribute__ ((visibility ("default")))

typedef int nvmlReturn_t;
typedef struct FakeDevice *nvmlDevice_t;

typedef struct {
  unsigned int gpu, memory;
} nvmlUtilization_t;

typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct {
  unsigned int fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
} nvmlFieldValue_t;

#define SUCCESS 0
#define ERROR_INVALID_ARGUMENT 2
#define ERROR_NOT_SUPPORTED 3
#define ERROR_GPU_IS_LOST 15

static int initialised;
static char slots[64];

static int
gpu_of (nvmlDevice_t device)
{
  return (int) ((char *) device - slots);
}

EXPORT nvmlReturn_t
nvmlInit_v2 (void)
{
  fake_script_load ();
  if (fake_script_int (0, "init_error") != 0)
    return (nvmlReturn_t) fake_script_int (0, "init_error");
  initialised = 1;
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlShutdown (void)
{
  initialised = 0;
  return SUCCESS;
}

EXPORT const char *
nvmlErrorString (nvmlReturn_t result)
{
  return result == 999 ? "Unknown Error" : "Fake NVML error";
}

EXPORT nvmlReturn_t
nvmlDeviceGetCount_v2 (unsigned int *count)
{
  fake_script_load ();
  if (fake_script_int (0, "count_error") != 0)
    return (nvmlReturn_t) fake_script_int (0, "count_error");
  *count = (unsigned int) fake_script_int (0, "gpus");
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *device)
{
  if (!initialised || index >= sizeof slots)
    return ERROR_INVALID_ARGUMENT;
  if (fake_script_int (0, "gpu.%u.lost", index))
    return ERROR_GPU_IS_LOST;
  *device = (nvmlDevice_t) &slots[index];
  return SUCCESS;
}

static nvmlReturn_t
copy_text (const char *value, char *buffer, unsigned int length, int terminate)
{
  if (value == NULL)
    return ERROR_NOT_SUPPORTED;
  if (!terminate)
    {
      memset (buffer, 'X', length);   /* fills the buffer, no NUL anywhere */
      return SUCCESS;
    }
  snprintf (buffer, length, "%s", value);
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetName (nvmlDevice_t device, char *name, unsigned int length)
{
  int g = gpu_of (device);

  return copy_text (fake_script_str ("gpu.%d.name", g), name, length,
                    !fake_script_int (0, "gpu.%d.name_unterminated", g));
}

EXPORT nvmlReturn_t
nvmlDeviceGetUUID (nvmlDevice_t device, char *uuid, unsigned int length)
{
  return copy_text (fake_script_str ("gpu.%d.uuid", gpu_of (device)), uuid, length, 1);
}

EXPORT nvmlReturn_t
nvmlDeviceGetPciInfo_v3 (nvmlDevice_t device, nvmlPciInfo_t *pci)
{
  memset (pci, 0, sizeof *pci);
  return copy_text (fake_script_str ("gpu.%d.bus", gpu_of (device)), pci->busId, sizeof pci->busId, 1);
}

EXPORT nvmlReturn_t
nvmlDeviceGetUtilizationRates (nvmlDevice_t device, nvmlUtilization_t *u)
{
  long long v = fake_script_int (-1, "gpu.%d.util", gpu_of (device));

  if (v < 0)
    return ERROR_NOT_SUPPORTED;
  u->gpu = (unsigned int) v;
  u->memory = 0;
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetMemoryInfo (nvmlDevice_t device, nvmlMemory_t *m)
{
  int g = gpu_of (device);

  m->total = (unsigned long long) fake_script_int (0, "gpu.%d.mem_total", g);
  m->used = (unsigned long long) fake_script_int (0, "gpu.%d.mem_used", g);
  m->free = m->total - m->used;
  return m->total > 0 ? SUCCESS : ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t
nvmlDeviceGetTemperature (nvmlDevice_t device, int sensor, unsigned int *temp)
{
  long long v = fake_script_int (-1, "gpu.%d.temp", gpu_of (device));

  if (sensor != 0 || v < 0)
    return ERROR_NOT_SUPPORTED;
  *temp = (unsigned int) v;
  return SUCCESS;
}

static int
link_exists (int g, unsigned int link)
{
  return link < (unsigned int) fake_script_int (0, "gpu.%d.links", g);
}

EXPORT nvmlReturn_t
nvmlDeviceGetNvLinkState (nvmlDevice_t device, unsigned int link, int *active)
{
  int g = gpu_of (device);

  if (!link_exists (g, link))
    return ERROR_INVALID_ARGUMENT;
  *active = (int) fake_script_int (1, "gpu.%d.link.%u.up", g, link);
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetNvLinkVersion (nvmlDevice_t device, unsigned int link, unsigned int *version)
{
  int g = gpu_of (device);

  if (!link_exists (g, link))
    return ERROR_INVALID_ARGUMENT;
  *version = (unsigned int) fake_script_int (4, "gpu.%d.link.%u.version", g, link);
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetNvLinkRemotePciInfo_v2 (nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
  int g = gpu_of (device);

  if (!link_exists (g, link))
    return ERROR_INVALID_ARGUMENT;
  memset (pci, 0, sizeof *pci);
  return copy_text (fake_script_str ("gpu.%d.link.%u.remote", g, link), pci->busId,
                    sizeof pci->busId, 1);
}

#ifndef FAKE_OLD

EXPORT nvmlReturn_t
nvmlDeviceGetPowerUsage (nvmlDevice_t device, unsigned int *mw)
{
  long long v = fake_script_int (-1, "gpu.%d.power_mw", gpu_of (device));

  if (v < 0)
    return ERROR_NOT_SUPPORTED;
  *mw = (unsigned int) v;
  return SUCCESS;
}

EXPORT nvmlReturn_t
nvmlDeviceGetNvLinkErrorCounter (nvmlDevice_t device, unsigned int link, int counter,
                                 unsigned long long *value)
{
  static const char * const names[] = { "replay", "recovery", "crc_flit", "crc_data", "ecc_data" };
  int g = gpu_of (device);
  long long v;

  if (!link_exists (g, link) || counter < 0 || counter > 4)
    return ERROR_INVALID_ARGUMENT;
  v = fake_script_int (-1, "gpu.%d.link.%u.%s", g, link, names[counter]);
  if (v < 0)
    return ERROR_NOT_SUPPORTED;
  *value = (unsigned long long) v;
  return SUCCESS;
}

/* One field: SUCCESS with a value, or the field's own error. */
static void
answer_field (int g, nvmlFieldValue_t *fv)
{
  unsigned int l = fv->scopeId;
  long long v = -1;

  fv->valueType = 3;   /* unsigned long long */
  switch (fv->fieldId)
    {
    case 91: v = fake_script_int (-1, "gpu.%d.links", g); fv->valueType = 1; break;
    case 138: v = fake_script_int (-1, "gpu.%d.tx_kib", g); break;
    case 139: v = fake_script_int (-1, "gpu.%d.rx_kib", g); break;
    case 161: if (link_exists (g, l)) v = fake_script_int (-1, "gpu.%d.link.%u.replay", g, l); break;
    case 162: if (link_exists (g, l)) v = fake_script_int (-1, "gpu.%d.link.%u.recovery", g, l); break;
    case 163: if (link_exists (g, l)) v = fake_script_int (-1, "gpu.%d.link.%u.crc", g, l); break;
    case 164:
      if (link_exists (g, l))
        v = fake_script_int (25781, "gpu.%d.link.%u.speed_mbps", g, l);
      fv->valueType = 1;
      break;
    case 165: if (link_exists (g, l)) v = fake_script_int (1, "gpu.%d.link.%u.up", g, l); fv->valueType = 1; break;
    case 166: if (link_exists (g, l)) v = fake_script_int (4, "gpu.%d.link.%u.version", g, l); fv->valueType = 1; break;
    default: break;
    }
  fv->nvmlReturn = v < 0 ? ERROR_NOT_SUPPORTED : SUCCESS;
  if (fv->valueType == 1)
    fv->value.uiVal = (unsigned int) v;
  else
    fv->value.ullVal = (unsigned long long) v;
}

EXPORT nvmlReturn_t
nvmlDeviceGetFieldValues (nvmlDevice_t device, int count, nvmlFieldValue_t *values)
{
  if (count < 0 || count > 4096)
    return ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < count; i++)
    answer_field (gpu_of (device), &values[i]);
  return SUCCESS;
}

#endif
