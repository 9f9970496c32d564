/* rtop-gpu-read.c: what the GPU libraries' readers share (the API in
 * rtop-gpu-read.h). */
#include "config.h"

#include <string.h>

#include "rtop-gpu-read.h"

char *
rtop_gpu_string (const char *buffer, gsize size)
{
  const char *end;

  if (buffer == NULL || size == 0)
    return NULL;
  end = memchr (buffer, '\0', size);
  if (end == NULL || end == buffer || !g_utf8_validate (buffer, end - buffer, NULL))
    return NULL;
  return g_strndup (buffer, end - buffer);
}

guint32
rtop_gpu_identity (const char *vendor, const char *id, guint position)
{
  /* Never 0, so it cannot look like "no index". */
  if (id == NULL)
    return (g_str_hash (vendor) ^ (position + 1)) | 1;
  return (g_str_hash (vendor) ^ g_str_hash (id)) | 1;
}

RtopPort *
rtop_gpu_link_port_new (guint32 link, gboolean up, const char *link_layer)
{
  RtopPort *port = rtop_port_new (link + 1);

  /* The IB state numbers, so that state changes raise the events every
   * port raises (ACTIVE / DOWN, LINK_UP / DISABLED). */
  port->state = up ? 4 : 1;
  port->phys_state = up ? 5 : 3;
  port->link_layer = g_strdup (link_layer);
  return port;
}
