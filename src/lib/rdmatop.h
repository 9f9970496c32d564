/* rdmatop.h: librdmatop, RDMA counters from inside a program.
 *
 * A small, stable C API over rdmatop's collector: take snapshots of the
 * RDMA devices, ports and counters of this machine, and capture chosen
 * ports' raw counters at a fixed period (down to 1 ms) on a thread of the
 * library's own, to correlate with what the program does.
 *
 * Conventions:
 *  - Handles are opaque.  Functions that can fail return an rdmatop_status;
 *    on failure rdmatop_last_error() gives a sentence for people (the same
 *    one rdmatop-cli prints), valid on the calling thread until its next
 *    failing call.
 *  - Strings returned are owned by the object they came from and live as
 *    long as it does.  Nothing here needs root.
 *  - A collector and a snapshot are used from one thread at a time.  A
 *    capture samples on a thread of its own; reading its samples and stats
 *    is safe from any thread while it runs, but start, stop and free are
 *    for one thread (the one that owns the capture).
 *  - Link with `pkg-config --cflags --libs rdmatop`.  The soname changes
 *    only when this interface changes incompatibly.
 */
#ifndef RDMATOP_H
#define RDMATOP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface; rdmatop_api_version() is the library's.
 * It grows by one with each addition (older programs keep working):
 *   1  snapshots, captures, counter tracks
 *   2  the job of a process (rdmatop_job_of_process() and rdmatop_job_*),
 *      RDMATOP_ERROR_NO_PROCESS, RDMATOP_ERROR_NO_JOB */
#define RDMATOP_API_VERSION 2

typedef enum {
  RDMATOP_OK = 0,
  RDMATOP_ERROR_FAILED = 1,            /* anything else (the message says what) */
  RDMATOP_ERROR_NO_RDMA = 2,           /* the kernel has no RDMA netlink */
  RDMATOP_ERROR_PERMISSION = 3,        /* the system does not let this user read RDMA */
  RDMATOP_ERROR_NO_DEVICE = 4,         /* a device, port or counter named does not exist */
  RDMATOP_ERROR_INVALID_ARGUMENT = 5,  /* an interval out of range, a NULL handle, ... */
  RDMATOP_ERROR_NO_PROCESS = 6,        /* a process named does not exist (API 2) */
  RDMATOP_ERROR_NO_JOB = 7,            /* a process is in no job its cgroup names (API 2) */
} rdmatop_status;

/* The library's version, e.g. "0.1.0". */
const char *rdmatop_version (void);
/* The interface version the library implements (RDMATOP_API_VERSION). */
int rdmatop_api_version (void);
/* The sentence of the calling thread's last failure ("" when none). */
const char *rdmatop_last_error (void);

/* ---- Snapshots ---- */

typedef struct rdmatop_collector rdmatop_collector;
typedef struct rdmatop_snapshot rdmatop_snapshot;
typedef struct rdmatop_device rdmatop_device;
typedef struct rdmatop_port rdmatop_port;

/* Opens RDMA netlink.  devices: NULL-terminated names to read, or NULL for
 * every device.  RDMATOP_ERROR_NO_RDMA when the kernel has no RDMA
 * netlink.  The collector lists no processes and reads no GPU library. */
rdmatop_status rdmatop_collector_open (const char *const *devices, rdmatop_collector **out);
void rdmatop_collector_close (rdmatop_collector *collector);

/* One pass over the devices, ports and counters.  Rates are per second
 * since the collector's previous snapshot (none in its first).  A device
 * named at open that does not exist is RDMATOP_ERROR_NO_DEVICE. */
rdmatop_status rdmatop_collector_snapshot (rdmatop_collector *collector,
                                           rdmatop_snapshot **out);
void rdmatop_snapshot_free (rdmatop_snapshot *snapshot);

int64_t rdmatop_snapshot_realtime_ns (const rdmatop_snapshot *snapshot);
int64_t rdmatop_snapshot_monotonic_ns (const rdmatop_snapshot *snapshot);
size_t rdmatop_snapshot_n_devices (const rdmatop_snapshot *snapshot);
/* NULL when index is out of range (so for every walk below). */
const rdmatop_device *rdmatop_snapshot_device (const rdmatop_snapshot *snapshot, size_t index);

const char *rdmatop_device_name (const rdmatop_device *device);      /* "mlx5_0", "rxe0" */
const char *rdmatop_device_provider (const rdmatop_device *device);  /* "mlx5", "rxe", ... */
const char *rdmatop_device_kind (const rdmatop_device *device);      /* "rdma" or "gpu" */
size_t rdmatop_device_n_ports (const rdmatop_device *device);
const rdmatop_port *rdmatop_device_port (const rdmatop_device *device, size_t index);

uint32_t rdmatop_port_number (const rdmatop_port *port);             /* 1-based */
const char *rdmatop_port_state (const rdmatop_port *port);           /* "ACTIVE", "DOWN", ... */
const char *rdmatop_port_phys_state (const rdmatop_port *port);      /* "LINK_UP", ... */
const char *rdmatop_port_netdev (const rdmatop_port *port);          /* or NULL */
const char *rdmatop_port_link_layer (const rdmatop_port *port);      /* "InfiniBand", "Ethernet" or NULL */
double rdmatop_port_rate_gbps (const rdmatop_port *port);            /* 0 when unknown */
const char *rdmatop_port_health (const rdmatop_port *port);          /* "ok", "warning", "error" */
/* Why the port's counters could not be read this time, or NULL. */
const char *rdmatop_port_error (const rdmatop_port *port);

/* The port's raw counters, by name: the kernel's name and value; *rate
 * (may be NULL) is per second, and the return value 1 when there is a
 * rate, 0 when not (first snapshot, reset), -1 when index is out of range. */
size_t rdmatop_port_n_counters (const rdmatop_port *port);
int rdmatop_port_counter (const rdmatop_port *port, size_t index, const char **name,
                          uint64_t *value, double *rate);

/* Canonical metrics (what every provider's counters map to): index from 0
 * to rdmatop_n_metrics() - 1, named "tx_bytes", "rx_packets", "retransmits"... */
size_t rdmatop_n_metrics (void);
const char *rdmatop_metric_name (size_t metric);
/* 1 and the metric's cumulative value (in bytes, packets or events) and
 * rate when the port has it and it has a rate, 0 when it has it without a
 * rate, -1 when the port does not have it. */
int rdmatop_port_metric (const rdmatop_port *port, size_t metric, uint64_t *value,
                         double *rate);

/* ---- Captures ---- */

typedef struct rdmatop_capture rdmatop_capture;

#define RDMATOP_CAPTURE_MIN_INTERVAL_NS 1000000ULL        /* 1 ms */
#define RDMATOP_CAPTURE_MAX_INTERVAL_NS 60000000000ULL    /* 60 s */

/* One counter of one port at one read. */
typedef struct {
  int64_t realtime_ns;       /* CLOCK_REALTIME when the port was read */
  int64_t monotonic_ns;      /* CLOCK_MONOTONIC at the same moment */
  const char *device;        /* owned by the capture */
  const char *counter;       /* the kernel's counter name, owned by the capture */
  uint32_t port;
  uint32_t reserved;
  uint64_t value;            /* raw and cumulative, as the kernel reports it */
} rdmatop_sample;

typedef struct {
  uint64_t taken;            /* passes run; each reads every port of the capture once */
  uint64_t missed;           /* deadlines skipped because the pass before ran past them */
  uint64_t dropped;          /* passes not kept because the buffer was full */
  uint64_t dropped_samples;  /* their samples */
  uint64_t samples;          /* samples kept (read or waiting) */
  uint64_t read_errors;      /* port reads that failed (the capture goes on) */
  uint64_t intervals;        /* intervals measured between the starts of passes */
  int64_t interval_min_ns;
  int64_t interval_max_ns;
  int64_t interval_median_ns;  /* within 1/32 of the value */
  int64_t interval_p99_ns;     /* within 1/32 of the value */
  double interval_mean_ns;
  int64_t cpu_ns;            /* CPU time of the capture's thread (every 64 passes, and when stopped) */
  uint64_t reserved[8];
} rdmatop_capture_stats;

/* A capture of the ports of devices (NULL-terminated names; NULL: every
 * RDMA device), only port numbers ports[0..n_ports-1] (NULL: every port),
 * only the counters named (NULL-terminated; NULL: all), every interval_ns
 * (RDMATOP_CAPTURE_MIN_INTERVAL_NS to _MAX_INTERVAL_NS).  It reads only
 * those ports' counters (hw counters over RDMA netlink, sysfs PMA
 * counters): no netdev counters, no processes.
 *
 * Samples wait until read in a buffer of capacity samples (0: 1048576,
 * 32 MiB); a pass that does not fit is dropped whole and counted
 * (rdmatop_capture_stats.dropped), so what is kept is whole passes in
 * order.  Reading while the capture runs keeps the buffer from filling.
 *
 * RDMATOP_ERROR_INVALID_ARGUMENT for an interval out of range,
 * RDMATOP_ERROR_NO_RDMA without RDMA netlink, RDMATOP_ERROR_NO_DEVICE for
 * a device, port or counter that does not exist. */
rdmatop_status rdmatop_capture_new (const char *const *devices, const uint32_t *ports,
                                    size_t n_ports, const char *const *counters,
                                    uint64_t interval_ns, size_t capacity,
                                    rdmatop_capture **out);
/* Starts sampling on the capture's thread; the first pass runs at once.
 * Deadlines are start + k * interval_ns on CLOCK_MONOTONIC; one missed
 * is skipped and counted, never made up by a burst.  Once per capture. */
rdmatop_status rdmatop_capture_start (rdmatop_capture *capture);
/* Stops sampling (no pass runs after it returns); samples stay readable. */
void rdmatop_capture_stop (rdmatop_capture *capture);
/* Moves up to n of the oldest samples not read yet into out; returns how
 * many (0: none waiting).  Strings in them live as long as the capture. */
size_t rdmatop_capture_read (rdmatop_capture *capture, rdmatop_sample *out, size_t n);
void rdmatop_capture_get_stats (rdmatop_capture *capture, rdmatop_capture_stats *out);
/* The sentence of the capture's newest failed port read, or NULL when
 * none failed; kept like rdmatop_last_error() (the calling thread's, until
 * its next failure or call of this). */
const char *rdmatop_capture_read_error (rdmatop_capture *capture);
/* Stops it first. */
void rdmatop_capture_free (rdmatop_capture *capture);

/* A capture with no RDMA: n_ports ports (1 to 64) of a device "synth0",
 * n_counters counters each (1 to 64), made up on the capture's thread
 * where a real capture reads the kernel (every third counter idle, the
 * others counting at a rate that changes every pass).  For tests and
 * benchmarks.  RDMATOP_ERROR_INVALID_ARGUMENT for a count, interval or
 * capacity out of range. */
rdmatop_status rdmatop_capture_new_synthetic (uint32_t n_ports, uint32_t n_counters,
                                              uint64_t interval_ns, size_t capacity,
                                              rdmatop_capture **out);

/* ---- Counter tracks ----
 *
 * Samples turned into the points of counter tracks, one per port and
 * counter, each point a rate per second that holds until the track's next
 * point.  Rates are taken over CLOCK_MONOTONIC and placed at the later
 * sample's time on the clock chosen; a counter that goes backwards (a
 * reset) gives no point rather than a spike; with compaction a point that
 * repeats its track's rate is not kept, except the newest as the track's
 * end.  Fed by the caller or, on its own thread, by a capture. */

typedef struct rdmatop_tracks rdmatop_tracks;

typedef enum {
  RDMATOP_CLOCK_REALTIME = 0,
  RDMATOP_CLOCK_MONOTONIC = 1,
} rdmatop_clock;

typedef struct {
  int64_t time_ns;           /* on the tracks' clock */
  uint32_t track;            /* index for rdmatop_tracks_track() */
  uint32_t reserved;
  double rate;               /* per second */
} rdmatop_track_point;

/* max_points bounds the points kept (0: 4194304, 96 MiB; at most 2^28);
 * points past it are dropped and counted, as are samples of tracks past
 * 65536.  RDMATOP_ERROR_INVALID_ARGUMENT for an unknown clock or too many
 * points. */
rdmatop_status rdmatop_tracks_new (rdmatop_clock clock, int compact, size_t max_points,
                                   rdmatop_tracks **out);
/* Samples in any order within one call; later calls continue earlier ones. */
void rdmatop_tracks_feed (rdmatop_tracks *tracks, const rdmatop_sample *samples, size_t n);
size_t rdmatop_tracks_n_tracks (rdmatop_tracks *tracks);
/* 0 and the track's port, or -1 when there is no such track; the strings
 * live as long as the tracks. */
int rdmatop_tracks_track (rdmatop_tracks *tracks, size_t track, const char **device,
                          uint32_t *port, const char **counter);
/* The points of [start_ns, end_ns], sorted by time, in a new array for
 * rdmatop_tracks_points_free(): the rate a track holds at start_ns becomes
 * a point there and, where the track goes on past end_ns, the rate it
 * holds there a point at end_ns. */
rdmatop_status rdmatop_tracks_clip (rdmatop_tracks *tracks, int64_t start_ns, int64_t end_ns,
                                    rdmatop_track_point **points, size_t *n);
void rdmatop_tracks_points_free (rdmatop_track_point *points);
/* Points and samples not kept because a bound was reached. */
uint64_t rdmatop_tracks_dropped (rdmatop_tracks *tracks);
/* Bytes the tracks hold. */
size_t rdmatop_tracks_size (rdmatop_tracks *tracks);
void rdmatop_tracks_free (rdmatop_tracks *tracks);
/* Before the capture starts: its passes go into tracks, on the capture's
 * thread, instead of waiting for rdmatop_capture_read().  The tracks must
 * stay until the capture is stopped or freed. */
rdmatop_status rdmatop_capture_set_tracks (rdmatop_capture *capture, rdmatop_tracks *tracks);

/* ---- Jobs (API version 2) ----
 *
 * The job a process belongs to, as its cgroup says: a Slurm job step, a
 * Kubernetes pod's container, a Docker or Podman container, a systemd
 * service, a user's login session, or else the bare cgroup path.  The same
 * reading rdmatop-cli and the app show for each process (/proc/<pid>/cgroup,
 * which any user may read; no root).  Job names say who runs what: they are
 * for the user's own traces and screens, not to be sent anywhere unasked. */

typedef struct rdmatop_job rdmatop_job;

/* The job of process pid (0: the calling process), into *out for
 * rdmatop_job_free().  RDMATOP_ERROR_INVALID_ARGUMENT for a negative pid
 * or a NULL out; RDMATOP_ERROR_NO_PROCESS when there is no process pid (or
 * it exited while read); RDMATOP_ERROR_NO_JOB when its cgroup names no job
 * (an empty file, or a kernel without cgroups); RDMATOP_ERROR_PERMISSION
 * or RDMATOP_ERROR_FAILED when its cgroup cannot be read.  *out is NULL
 * on every failure. */
rdmatop_status rdmatop_job_of_process (int32_t pid, rdmatop_job **out);
/* What kind of job: "slurm", "kubernetes", "container", "service",
 * "session" or "cgroup" (a path that matches no layout).  Stable: the same
 * words as rdmatop-cli's JSON, recordings and the exporter's label. */
const char *rdmatop_job_kind (const rdmatop_job *job);
/* The job id: Slurm's job id ("1234"), the pod UID, the container id, the
 * service ("foo.service"), the session id, or the cgroup path. */
const char *rdmatop_job_id (const rdmatop_job *job);
/* The detail, or NULL when the kind has none or the path says none: the
 * Slurm step ("0", "batch"), the pod's container id, the container runtime
 * ("docker", "podman"), the session's uid. */
const char *rdmatop_job_detail (const rdmatop_job *job);
/* A short, language-neutral name: "slurm 1234.0", "pod <uid>/<container>",
 * "docker 3d2ae0c5b6d4", "session 3". */
const char *rdmatop_job_name (const rdmatop_job *job);
void rdmatop_job_free (rdmatop_job *job);

#ifdef __cplusplus
}
#endif

#endif /* RDMATOP_H */
