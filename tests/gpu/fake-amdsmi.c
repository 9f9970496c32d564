/* fake-amdsmi.c: a stand-in for libamd_smi.so that answers from the
 * test's script (fake-gpu-script.h), in the structure layout of the
 * release the script names, so the whole XGMI path runs without a GPU.
 *
 * Script keys (gpu I, link L):
 *   amd.init_error N  amd.version 24|26  amd.gpus N  amd.gpu.I.name TEXT
 *   amd.gpu.I.uuid TEXT  amd.gpu.I.bdf N  amd.gpu.I.util N  amd.gpu.I.temp N
 *   amd.gpu.I.mem_used N  amd.gpu.I.mem_total N
 *   amd.gpu.I.ecc_ce N  amd.gpu.I.ecc_ue N
 *   amd.gpu.I.links N  amd.gpu.I.link.L.type N (1: XGMI)  .bit_rate N
 *   .read N  .write N  .bdf N */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fake-gpu-script.h"

#define EXPORT __attribute__ ((visibility ("default")))

typedef uint32_t amdsmi_status_t;

#define SUCCESS 0
#define INVAL 1
#define NOT_SUPPORTED 2

static char sockets[1];
static char gpus[64];

static int
gpu_of (void *p)
{
  return (int) ((char *) p - gpus);
}

EXPORT amdsmi_status_t
amdsmi_init (uint64_t flags)
{
  fake_script_load ();
  if (!(flags & 2))
    return INVAL;
  return (amdsmi_status_t) fake_script_int (0, "amd.init_error");
}

EXPORT amdsmi_status_t
amdsmi_shut_down (void)
{
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_status_code_to_string (amdsmi_status_t status, const char **text)
{
  *text = "Fake AMD SMI error";
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_lib_version (void *version)
{
  uint32_t v[4] = { (uint32_t) fake_script_int (24, "amd.version"), 7, 0, 0 };

  memcpy (version, v, sizeof v);
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_socket_handles (uint32_t *count, void **handles)
{
  fake_script_load ();
  if (handles == NULL || *count < 1)
    {
      *count = 1;
      return SUCCESS;
    }
  handles[0] = sockets;
  *count = 1;
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_processor_handles (void *socket, uint32_t *count, void **handles)
{
  uint32_t n = (uint32_t) fake_script_int (0, "amd.gpus");

  if (socket != sockets)
    return INVAL;
  if (n > *count)
    n = *count;
  for (uint32_t i = 0; i < n; i++)
    handles[i] = &gpus[i];
  *count = n;
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_processor_type (void *p, uint32_t *type)
{
  *type = 1;
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_device_bdf (void *p, uint64_t *bdf)
{
  *bdf = (uint64_t) fake_script_int (0x2100 + gpu_of (p) * 0x100, "amd.gpu.%d.bdf", gpu_of (p));
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_device_uuid (void *p, unsigned int *length, char *uuid)
{
  const char *value = fake_script_str ("amd.gpu.%d.uuid", gpu_of (p));

  if (value == NULL)
    return NOT_SUPPORTED;
  snprintf (uuid, *length, "%s", value);
  *length = (unsigned int) strlen (uuid);
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_asic_info (void *p, void *info)
{
  const char *name = fake_script_str ("amd.gpu.%d.name", gpu_of (p));

  if (name == NULL)
    return NOT_SUPPORTED;
  snprintf (info, 256, "%s", name);
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_activity (void *p, void *usage)
{
  uint32_t gfx = (uint32_t) fake_script_int (0, "amd.gpu.%d.util", gpu_of (p));

  memcpy (usage, &gfx, sizeof gfx);
  return SUCCESS;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_memory_total (void *p, uint32_t type, uint64_t *total)
{
  *total = (uint64_t) fake_script_int (0, "amd.gpu.%d.mem_total", gpu_of (p));
  return type == 0 ? SUCCESS : INVAL;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_memory_usage (void *p, uint32_t type, uint64_t *used)
{
  *used = (uint64_t) fake_script_int (0, "amd.gpu.%d.mem_used", gpu_of (p));
  return type == 0 ? SUCCESS : INVAL;
}

EXPORT amdsmi_status_t
amdsmi_get_temp_metric (void *p, uint32_t sensor, uint32_t metric, int64_t *value)
{
  *value = fake_script_int (40, "amd.gpu.%d.temp", gpu_of (p));
  return sensor == 1 && metric == 0 ? SUCCESS : INVAL;
}

EXPORT amdsmi_status_t
amdsmi_get_gpu_ecc_count (void *p, uint64_t block, void *counts)
{
  uint64_t c[8] = {
    (uint64_t) fake_script_int (0, "amd.gpu.%d.ecc_ce", gpu_of (p)),
    (uint64_t) fake_script_int (0, "amd.gpu.%d.ecc_ue", gpu_of (p)),
  };

  if (block != 0x80)
    return INVAL;
  memcpy (counts, c, sizeof c);
  return SUCCESS;
}

static void
put64 (unsigned char *at, uint64_t v)
{
  memcpy (at, &v, sizeof v);
}

static void
put32 (unsigned char *at, uint32_t v)
{
  memcpy (at, &v, sizeof v);
}

EXPORT amdsmi_status_t
amdsmi_get_link_metrics (void *p, void *metrics)
{
  int g = gpu_of (p);
  uint32_t n = (uint32_t) fake_script_int (0, "amd.gpu.%d.links", g);
  size_t stride = fake_script_int (24, "amd.version") == 26 ? 48 : 56;
  unsigned char *out = metrics;

  memset (out, 0, 8 + 64 * stride + 56);
  put32 (out, n);
  for (uint32_t l = 0; l < n && l < 64; l++)
    {
      unsigned char *e = out + 8 + l * stride;

      put64 (e, (uint64_t) fake_script_int (0x2100 + (l + 1) * 0x100, "amd.gpu.%d.link.%u.bdf", g, l));
      put32 (e + 8, (uint32_t) fake_script_int (32, "amd.gpu.%d.link.%u.bit_rate", g, l));
      put32 (e + 12, 64);
      put32 (e + 16, (uint32_t) fake_script_int (1, "amd.gpu.%d.link.%u.type", g, l));
      put64 (e + 24, (uint64_t) fake_script_int (0, "amd.gpu.%d.link.%u.read", g, l));
      put64 (e + 32, (uint64_t) fake_script_int (0, "amd.gpu.%d.link.%u.write", g, l));
    }
  return SUCCESS;
}
