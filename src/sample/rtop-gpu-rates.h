/* rtop-gpu-rates.h: GPU link readings (rtop-gpu.h) made into rates and
 * metrics, as the collector does for RDMA ports: the sampling layer's half
 * of a GPU pass. */
#pragma once

#include <glib.h>
#include "rtop-rates.h"

G_BEGIN_DECLS

/* For every port of the GPU devices in devices: rates over the port's own
 * read time and the provider table's metrics; a port with error set (its
 * library's read failed) keeps its rates' baseline for the next good read.
 * Call between rtop_rates_begin_pass() and rtop_rates_end_pass(). */
void rtop_gpu_rates_apply (RtopRates *rates, GPtrArray *devices);

G_END_DECLS
