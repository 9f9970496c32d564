/* rtop-gpu-read.h: what the GPU libraries' readers (rtop-gpu-nvml.c,
 * rtop-gpu-amdsmi.c) share: strings a library wrote checked, device
 * numbers that follow a GPU's identity, link ports. */
#pragma once

#include <glib.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* A copy of a string a library wrote into a buffer of size bytes: NULL
 * unless it ends within the buffer and is UTF-8 (and is not empty). */
char *rtop_gpu_string (const char *buffer, gsize size);
/* A device number that follows the GPU's identity (UUID or PCI address):
 * a different GPU at the same position reads as a new device. */
guint32 rtop_gpu_identity (const char *vendor, const char *id, guint position);
/* A link port (index = link + 1) in the state the library reported. */
RtopPort *rtop_gpu_link_port_new (guint32 link, gboolean up, const char *link_layer);

G_END_DECLS
