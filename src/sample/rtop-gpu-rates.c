/* rtop-gpu-rates.c: rates and provider metrics for GPU link readings (the
 * API in rtop-gpu-rates.h). */
#include "config.h"

#include "rtop-gpu-rates.h"
#include "rtop-providers.h"

void
rtop_gpu_rates_apply (RtopRates *rates, GPtrArray *devices)
{
  g_return_if_fail (rates != NULL && devices != NULL);

  for (guint i = 0; i < devices->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (devices, i);

      for (guint p = 0; p < dev->ports->len; p++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, p);

          if (port->error != NULL)
            {
              rtop_rates_keep (rates, dev->name, port->index);
              continue;
            }
          port->elapsed_s = rtop_rates_update (rates, dev->name, dev->index, port->index,
                                               port->read_time_us, port->counters, NULL);
          rtop_provider_apply (dev->provider, port);
        }
    }
}
