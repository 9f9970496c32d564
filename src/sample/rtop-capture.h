/* rtop-capture.h: a burst capture of chosen ports' raw counters, down to a
 * 1 ms period, on a thread of its own.
 *
 * A capture reads only its ports' counters (rtop_collector_read_port_counters():
 * no dumps, no /proc, no netdev), at deadlines start + k * interval on
 * CLOCK_MONOTONIC (clock_nanosleep with TIMER_ABSTIME).  A deadline that has
 * passed when the previous pass ends is skipped and counted as missed: the
 * period is kept, passes never bunch up.
 *
 * Samples wait in a buffer of a fixed number of samples until they are read
 * (rtop_capture_read() takes the oldest).  A pass that does not fit is not
 * stored and is counted as dropped (with its samples), so what is stored
 * is always whole passes in order; reading while the capture runs keeps
 * the buffer from filling. */
#pragma once

#include <glib.h>
#include "rtop-collector.h"
#include "rtop-rates.h"
#include "rtop-tracks.h"

G_BEGIN_DECLS

#define RTOP_CAPTURE_MIN_INTERVAL_NS G_GINT64_CONSTANT (1000000)        /* 1 ms */
#define RTOP_CAPTURE_MAX_INTERVAL_NS G_GINT64_CONSTANT (60000000000)    /* 60 s */
/* Samples kept until read, unless the options say otherwise (32 MiB). */
#define RTOP_CAPTURE_DEFAULT_CAPACITY (1u << 20)
#define RTOP_CAPTURE_MAX_CAPACITY (1u << 26)

typedef struct {
  const char * const *devices;  /* only these devices (each must exist); NULL: every RDMA device */
  const guint32 *ports;         /* only these port numbers; NULL: every port */
  guint n_ports;
  const char * const *counters; /* only these counter names (each must exist on a port
                                   captured); NULL: all */
  gint64 interval_ns;           /* RTOP_CAPTURE_MIN_INTERVAL_NS .. _MAX_INTERVAL_NS */
  guint capacity;               /* samples kept until read; 0: the default */
} RtopCaptureOptions;

/* One counter of one port at one read. */
typedef struct {
  gint64 realtime_ns;        /* CLOCK_REALTIME when the port was read */
  gint64 monotonic_ns;       /* CLOCK_MONOTONIC, the same moment */
  const char *device;        /* owned by the capture, valid until it is freed */
  guint32 port;
  const char *counter;       /* the kernel's counter name, owned by the capture */
  guint64 value;             /* raw and cumulative, as the kernel reports it */
} RtopCaptureSample;

typedef struct {
  guint64 taken;             /* passes run (each reads every port of the capture) */
  guint64 missed;            /* deadlines skipped because the pass before ran past them */
  guint64 dropped;           /* passes not stored: the buffer was full */
  guint64 dropped_samples;
  guint64 samples;           /* samples stored (read or waiting) */
  guint64 read_errors;       /* port reads that failed (the pass goes on) */
  guint64 intervals;         /* intervals measured between the starts of passes */
  gint64 interval_min_ns, interval_max_ns;
  gint64 interval_median_ns, interval_p99_ns;   /* within 1/32 of the value */
  double interval_mean_ns;
  gint64 cpu_ns;             /* CPU time of the capture's thread (every 64 passes, and at its end) */
} RtopCaptureStats;

typedef struct _RtopCapture RtopCapture;

/* Synthetic captures: n_ports ports (1 to RTOP_CAPTURE_MAX_SYNTHETIC) of
 * one device "synth0", n_counters counters each (1 to the same bound),
 * made up on the capture's thread where a real capture reads the kernel:
 * every third counter idle, the others counting at a rate that changes
 * every pass.  For tests and benchmarks on machines without RDMA. */
#define RTOP_CAPTURE_MAX_SYNTHETIC 64

/* RTOP_ERROR_INVALID_ARGUMENT when the interval is outside 1 ms .. 60 s. */
gboolean rtop_capture_check_interval (gint64 interval_ns, GError **error);

/* Takes collector (also on failure).  Runs one full pass to find the
 * ports; RTOP_ERROR_NO_NETLINK / _PERMISSION when it cannot read RDMA,
 * RTOP_ERROR_NO_DEVICE for a device, port or counter named that does not
 * exist, RTOP_ERROR_INVALID_ARGUMENT for the interval or capacity. */
RtopCapture *rtop_capture_new (RtopCollector *collector, const RtopCaptureOptions *options,
                               GError **error);
/* A synthetic capture (above); RTOP_ERROR_INVALID_ARGUMENT for counts,
 * interval or capacity out of range. */
RtopCapture *rtop_capture_new_synthetic (guint n_ports, guint n_counters, gint64 interval_ns,
                                         guint capacity, GError **error);
/* Before start: each pass is fed to tracks on the capture's thread
 * instead of being kept for rtop_capture_read().  tracks must outlive the
 * capture's thread (until rtop_capture_stop() or _free()).  FALSE once
 * started. */
gboolean rtop_capture_set_tracks (RtopCapture *self, RtopTracks *tracks, GError **error);
/* Starts the capture's thread; the first pass runs at once.  Once only. */
gboolean rtop_capture_start (RtopCapture *self, GError **error);
/* Stops and joins the thread (no pass runs after it returns).  Samples stay
 * readable.  Idempotent. */
void rtop_capture_stop (RtopCapture *self);
/* Moves up to n of the oldest samples not read yet to out; returns how many. */
gsize rtop_capture_read (RtopCapture *self, RtopCaptureSample *out, gsize n);
/* Takes up to max of the oldest whole passes not read yet as snapshots
 * (for the recorder): each holds the devices and ports read in that pass,
 * with the state, netdev and link rate the capture's first pass saw, the
 * counters read, and their rates and metrics computed in rates (the
 * caller's, kept from call to call).  Use this or rtop_capture_read(),
 * not both. */
GPtrArray *rtop_capture_read_snapshots (RtopCapture *self, RtopRates *rates, guint max);
void rtop_capture_get_stats (RtopCapture *self, RtopCaptureStats *out);
/* The newest port read error's sentence, or NULL. */
char *rtop_capture_dup_last_error (RtopCapture *self);
/* Stops it first. */
void rtop_capture_free (RtopCapture *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopCapture, rtop_capture_free)

G_END_DECLS
