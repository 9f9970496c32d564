/* rtop-collector-private.h: what only rtop-collector.c and the tests use
 * (test hooks, and internals the tests check). */
#pragma once

#include "rtop-collector.h"

G_BEGIN_DECLS

/* A collector over an existing RtopNl, which it takes (tests serve one end of
 * a socketpair with a fake kernel), or over none (nl NULL: only GPUs, status
 * NO_NETLINK).  No hotplug monitor. */
RtopCollector *rtop_collector_new_for_nl (const RtopCollectorOptions *options, RtopNl *nl);

/* Where netdev counters come from: a routing netlink socket (taken; the
 * tests pass a fake one), or NULL for sysfs.  rtop_collector_new() opens
 * one when it reads the live /sys. */
void rtop_collector_set_route (RtopCollector *self, RtopNl *route);

G_END_DECLS
