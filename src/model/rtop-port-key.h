/* rtop-port-key.h: the "device/port" text that keys per-port state.
 *
 * Built on every pass for every port, so without printf.
 *
 * SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <glib.h>
#include <string.h>

/* Enough for any device name the kernel allows (IB_DEVICE_NAME_MAX is 64),
 * a slash and a 32-bit number; longer names are cut (keys only). */
#define RTOP_PORT_KEY_SIZE 80

static inline const char *
rtop_port_key (char buf[RTOP_PORT_KEY_SIZE], const char *device, guint32 port)
{
  char digits[10];
  gsize len = strnlen (device, RTOP_PORT_KEY_SIZE - sizeof digits - 2);
  guint n = 0;

  memcpy (buf, device, len);
  buf[len++] = '/';
  do
    digits[n++] = (char) ('0' + port % 10);
  while ((port /= 10) != 0);
  while (n > 0)
    buf[len++] = digits[--n];
  buf[len] = '\0';
  return buf;
}
