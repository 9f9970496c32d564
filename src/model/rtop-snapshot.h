/* rtop-snapshot.h: the immutable, reference-counted result of one sampling pass.
 *
 * This is the contract between the collector (which builds snapshots on its
 * worker thread) and everything that reads them: the GTK app, the CLI, the
 * recorder.  Fields are public for reading.  Once a snapshot has been handed
 * out (rtop_snapshot_seal()), nobody writes to it again, so it may be read
 * from any thread without locks.
 *
 * The builder functions (rtop_*_new, rtop_*_add_*) are for the collector, the
 * recording reader and tests; the UI never builds snapshots. */
#pragma once

#include <glib-object.h>

#include "rtop-job.h"

G_BEGIN_DECLS

/* Canonical metrics: what every provider's counters are mapped to
 * (rtop-providers.c holds the table). */
typedef enum {
  RTOP_METRIC_TX_BYTES,
  RTOP_METRIC_RX_BYTES,
  RTOP_METRIC_TX_PACKETS,
  RTOP_METRIC_RX_PACKETS,
  RTOP_METRIC_DROPS,
  RTOP_METRIC_RDMA_READ_BYTES,
  RTOP_METRIC_RDMA_WRITE_BYTES,
  RTOP_METRIC_RETRANSMITS,
  RTOP_METRIC_ERRORS,            /* sum of the three error classes below */
  RTOP_METRIC_LINK_ERRORS,       /* symbol errors, link downed, bad packets on the wire */
  RTOP_METRIC_TRANSPORT_ERRORS,  /* sequence errors, ack timeouts, RNR retries exceeded */
  RTOP_METRIC_OPERATION_ERRORS,  /* failed work requests / completions, remote access errors */
  RTOP_METRIC_CONGESTION,        /* CNPs sent/handled, ECN-marked packets */
  RTOP_METRIC_N
} RtopMetricId;

/* What a counter means for health. */
typedef enum {
  RTOP_COUNTER_CLASS_INFO,             /* a count with no health meaning */
  RTOP_COUNTER_CLASS_DATA,             /* bytes or packets moved */
  RTOP_COUNTER_CLASS_DROP,
  RTOP_COUNTER_CLASS_RETRANSMIT,
  RTOP_COUNTER_CLASS_LINK_ERROR,
  RTOP_COUNTER_CLASS_TRANSPORT_ERROR,
  RTOP_COUNTER_CLASS_OPERATION_ERROR,
  RTOP_COUNTER_CLASS_CONGESTION,
  RTOP_COUNTER_CLASS_N
} RtopCounterClass;

/* Where a raw counter was read.  Each kernel counter is read from exactly one
 * place, so nothing is counted twice. */
typedef enum {
  RTOP_COUNTER_SOURCE_NETLINK,      /* STAT_GET hw counters (what `rdma statistic` shows) */
  RTOP_COUNTER_SOURCE_SYSFS_PORT,   /* ports/<p>/counters/ (IB PMA counters) */
  RTOP_COUNTER_SOURCE_SYSFS_HW,     /* ports/<p>/hw_counters/, only when STAT_GET failed */
  RTOP_COUNTER_SOURCE_SYSFS_DEVICE, /* <dev>/hw_counters/ (device-level) */
  RTOP_COUNTER_SOURCE_NETDEV,       /* /sys/class/net/<ndev>/statistics/ of the attached netdev */
  RTOP_COUNTER_SOURCE_GPU,          /* a GPU library (NVML, AMD SMI): see rtop-gpu.h */
  RTOP_COUNTER_SOURCE_N
} RtopCounterSource;

typedef enum {
  RTOP_SEVERITY_INFO,
  RTOP_SEVERITY_WARNING,
  RTOP_SEVERITY_ERROR,
} RtopSeverity;

typedef enum {
  RTOP_EVENT_DEVICE_ADDED,
  RTOP_EVENT_DEVICE_REMOVED,
  RTOP_EVENT_DEVICE_RENAMED,
  RTOP_EVENT_PORT_ADDED,
  RTOP_EVENT_PORT_REMOVED,
  RTOP_EVENT_PORT_STATE,          /* logical state changed (old_value -> new_value) */
  RTOP_EVENT_PORT_PHYS_STATE,     /* physical state changed */
  RTOP_EVENT_LINK_RATE,           /* link rate changed */
  RTOP_EVENT_NETDEV_CHANGED,      /* attached netdev changed */
  RTOP_EVENT_COUNTER_RISING,      /* an error/drop/retransmit counter started increasing */
  RTOP_EVENT_COUNTER_SETTLED,     /* ... and stopped again */
  RTOP_EVENT_COUNTER_RESET,       /* a counter went backwards (driver reload, device re-added) */
  RTOP_EVENT_COLLECTION_ERROR,    /* collection failed (once per failure, not per pass) */
  RTOP_EVENT_COLLECTION_RECOVERED,
  RTOP_EVENT_PORT_DOWN,           /* an Active port went down: an episode, completed when it is
                                     Active again, with the state, physical state, rate and
                                     counter changes it caused folded in */
  RTOP_EVENT_QP_ERROR,            /* a process's queue pair entered the error state */
  RTOP_EVENT_COUNTER_SATURATED,   /* an IB PMA counter stopped at its maximum: no rate */
  RTOP_EVENT_RAIL_IMBALANCE,      /* a port carries far less than the ports that move with it
                                     (a job's, or the host's): an episode, new_value its share */
  RTOP_EVENT_N
} RtopEventKind;

typedef enum {
  RTOP_STATUS_OK,
  RTOP_STATUS_NO_NETLINK,         /* kernel has no RDMA netlink: nothing to show */
  RTOP_STATUS_PERMISSION,
  RTOP_STATUS_ERROR,              /* see status_message */
} RtopStatus;

typedef struct {
  char *name;                /* the kernel's name, e.g. "sent_pkts", "port_xmit_data" */
  guint64 value;             /* the kernel's value, unscaled */
  guint64 delta;             /* increase since this port's previous read (wrap handled);
                                0 on the first sample and on a reset */
  double rate;               /* delta / elapsed seconds; 0 unless has_rate */
  gboolean has_rate;         /* FALSE for the first sample of this counter (baseline) */
  gboolean reset;            /* went backwards this pass and was not a 32-bit wrap */
  gboolean saturated;        /* an IB PMA counter stuck at its width's maximum: it counts
                                no more, so its rate is unknown (has_rate FALSE) */
  RtopCounterSource source;
  RtopCounterClass klass;
} RtopCounter;

/* One queue pair as RES_QP_GET reports it. */
typedef struct {
  const char *device;        /* the device's name, owned by the snapshot's RtopDevice */
  guint32 port;              /* 0 when the QP is not bound to a port yet */
  guint32 lqpn;              /* the QP number */
  guint32 rqpn;              /* the peer's QP number; valid when has_rqpn */
  guint8 has_rqpn;           /* the kernel reports a peer (connected RC/UC QPs) */
  guint8 type;               /* enum ib_qp_type: 2 RC, 3 UC, 4 UD, 8 RAW_PACKET, 9 XRC_INI ... */
  guint8 state;              /* enum ib_qp_state: 0 RESET 1 INIT 2 RTR 3 RTS 4 SQD 5 SQE 6 ERR */
  const char *peer_addr;     /* "192.0.2.1:18515": the rdma_cm ID of the QP connects there
                                (owned by the process's qp_addrs); NULL when none says */
} RtopQp;

#define RTOP_QP_STATE_ERR 6
/* A process lists at most this many QPs; qps_not_listed counts the rest.
 * (A list of 40 is one small allocation that malloc serves from its
 * per-thread cache, pass after pass.) */
#define RTOP_PROCESS_MAX_QPS 40

typedef struct {
  gboolean present;          /* the provider has this metric */
  guint64 value;             /* cumulative, in the metric's unit (bytes, packets, events) */
  double rate;               /* per second; 0 unless has_rate */
  gboolean has_rate;
  gboolean saturated;        /* a counter it is made of is stuck at its maximum (no rate) */
  char *source;              /* where it came from, e.g. "netlink tx_bytes",
                                "sysfs port_xmit_data x4", "netdev d0 tx_bytes" */
} RtopMetric;

/* A port's health at a glance. */
typedef enum {
  RTOP_PORT_HEALTH_OK,
  RTOP_PORT_HEALTH_WARNING,  /* loss, drops or transport errors rising on it */
  RTOP_PORT_HEALTH_ERROR,    /* not Active, physical link down, its read failed, or link
                                or operation errors rising */
} RtopPortHealth;

typedef struct {
  guint32 index;             /* 1-based port number */
  guint8 state;              /* IB port state: 0 NOP 1 DOWN 2 INIT 3 ARMED 4 ACTIVE 5 ACTIVE_DEFER */
  guint8 phys_state;         /* 0 unknown 1 SLEEP 2 POLLING 3 DISABLED 4 TRAINING 5 LINK_UP
                                6 LINK_ERROR_RECOVERY 7 PHY_TEST */
  char *netdev;              /* attached netdev or NULL */
  guint32 netdev_index;      /* 0 when none */
  char *link_layer;          /* "InfiniBand", "Ethernet" or NULL */
  char *rate_text;           /* sysfs rate, e.g. "100 Gb/sec (4X EDR)", or NULL */
  double rate_gbps;          /* parsed link rate, 0 when unknown */
  gint64 read_time_us;       /* g_get_monotonic_time() of this port's counter read */
  double elapsed_s;          /* since this port's previous read; 0 on the first */
  GPtrArray *counters;       /* RtopCounter*, sorted by name (strcmp) */
  guint64 counter_layout;    /* 0, or an id shared only by ports whose counters have the
                                same names and sources in the same order, and the same
                                netdev, link_layer and rate_text (health relies on both) */
  RtopMetric metrics[RTOP_METRIC_N];
  char *error;               /* non-NULL when this port's read failed this pass */
  char *remote;              /* GPU links: the other end ("GPU 0000:1b:00.0", "NVSwitch"),
                                or NULL; always NULL for RDMA ports */
  RtopPortHealth health;     /* set by RtopHealth (rtop_health_port_verdict() without it) */
  const char *health_reason; /* translated static text, NULL when OK */
  /* private: see rtop_port_set_shared() */
  RtopCounter *counter_block_;
  gpointer shared_;
  GDestroyNotify shared_release_;
} RtopPort;

/* What a device is.  A GPU is a device whose ports are its interconnect
 * links (NVLink, XGMI), read from a GPU library (rtop-gpu.h):
 *
 * - port N (N >= 1) is link N - 1 as the library numbers it: state (ACTIVE
 *   or DOWN, phys LINK_UP or DISABLED), link_layer "NVLink" or "XGMI",
 *   rate_gbps and rate_text the link's speed, remote its other end, and the
 *   link's own counters (errors; XGMI read/write bytes);
 * - port 0 holds what the library counts for the GPU as a whole, over all
 *   its links: NVLink's data throughput (NVML counts it GPU-wide even when
 *   a link is named, so it is never shown per link) and XGMI's ECC counts;
 *   a GPU without links has no ports at all;
 * - gpu holds the GPU's own gauges. */
typedef enum {
  RTOP_DEVICE_KIND_RDMA,
  RTOP_DEVICE_KIND_GPU,
} RtopDeviceKind;

/* Port number of a GPU's "all links" port. */
#define RTOP_GPU_ALL_LINKS_PORT 0

/* A GPU's gauges: values of the moment, not counters (no rates, no
 * resets).  NAN where the library cannot tell. */
typedef struct {
  char *vendor;              /* "NVIDIA", "AMD" */
  char *model;               /* "NVIDIA H100 80GB HBM3", or NULL */
  char *uuid;                /* or NULL */
  char *pci_bus_id;          /* "00000000:1B:00.0" or NULL */
  double utilisation_pct;    /* busy time of the compute engines, 0..100 */
  double memory_used_bytes;
  double memory_total_bytes;
  double temperature_c;
  double power_w;
} RtopGpu;

typedef struct {
  guint32 index;             /* kernel device index (GPUs: a number derived from the
                                GPU's identity, so a different GPU reads as a reset) */
  char *name;                /* "mlx5_0", "rxe0" */
  char *provider;            /* provider id from rtop-providers: "mlx5", "efa", "erdma", "rxe", ... */
  char *node_type;           /* "ca", "rnic", "switch", ... or NULL */
  char *fw_version;          /* or NULL */
  char *node_guid;           /* "0011:2233:4455:6677" or NULL */
  char *protocol;            /* "ib", "roce", "iw", "opa", "usnic" or NULL */
  guint32 port_count;
  GPtrArray *ports;          /* RtopPort*, by port index */
  GPtrArray *counters;       /* device-level RtopCounter* (sysfs <dev>/hw_counters), sorted */
  RtopDeviceKind kind;
  RtopGpu *gpu;              /* GPUs only, else NULL */
  /* private: see rtop_device_set_shared() */
  gpointer shared_;
  GDestroyNotify shared_release_;
} RtopDevice;

typedef struct {
  char *device;              /* device name */
  guint32 qps;
  guint32 contexts;
  guint32 mrs;
  guint64 mr_bytes;          /* registered memory */
} RtopProcessDevice;

typedef struct {
  gint32 pid;                /* 0 when the owner is not visible in our PID namespace */
  guint64 start_time;        /* /proc/<pid>/stat field 22 (clock ticks since boot) */
  gboolean kernel;           /* kernel-owned resources (kern_name from netlink) */
  char *comm;
  char *cmdline;             /* NUL-separated args joined by spaces; NULL when unreadable */
  char *user;                /* user name, or the uid as text when it has none */
  guint32 uid;
  RtopJob job;               /* from its cgroup; kind RTOP_JOB_NONE when not known */
  guint64 rss_bytes;
  guint32 threads;
  char state;                /* /proc state letter, '?' when unknown */
  guint32 qps, contexts, mrs;  /* totals over devices */
  guint64 mr_bytes;
  GArray *devices;           /* RtopProcessDevice, sorted by device name */
  GArray *qp_list;           /* RtopQp in dump order, at most RTOP_PROCESS_MAX_QPS; NULL: none */
  guint32 qps_not_listed;    /* QPs beyond the cap */
  guint32 qps_in_error;      /* of all its QPs, listed or not */
  GPtrArray *qp_addrs;       /* the strings qp_list's peer_addr point to; NULL: none */
} RtopProcess;

typedef struct {
  gint64 realtime_us;        /* g_get_real_time() */
  gint64 monotonic_us;       /* g_get_monotonic_time() */
  RtopEventKind kind;
  RtopSeverity severity;
  char *device;              /* NULL for collection-wide events */
  guint32 port;              /* 0 for device-level events */
  char *counter;             /* counter name for counter events, else NULL */
  char *old_value;           /* e.g. "ACTIVE", "100 Gb/sec"; may be NULL */
  char *new_value;
  char *message;             /* translated sentence for people */
  /* An episode (a counter class rising on a port until it settles, a port
   * that went down until it is up again) is raised when it starts, and the
   * same episode id comes again, ongoing FALSE, when it ends: a reader
   * shows one row and updates it in place.  0 for one-off events. */
  guint64 episode;
  gboolean ongoing;
  gint64 started_us;         /* monotonic start of the episode */
  gint64 duration_us;        /* so far, or in all once ended */
  guint64 total;             /* how much its counters rose */
  double peak_rate;          /* the highest rise per second in one pass */
  gint32 pid;                /* the process a QP event is about (0: none or hidden) */
  char *process;             /* its command name, or NULL */
} RtopEvent;

typedef struct {
  guint64 sequence;          /* 1 for the first pass of a collector */
  gint64 monotonic_us;       /* start of the pass */
  gint64 realtime_us;
  double interval_s;         /* the sampler's interval when it was taken (0 for one-shot) */
  RtopStatus status;
  char *status_message;      /* translated, actionable; NULL when OK */
  char *processes_error;     /* why the process list is incomplete this pass, or NULL */
  gboolean pids_hidden;      /* some resource owners are outside our PID namespace */
  gboolean processes_withheld; /* the source was not asked for process names and ids
                                  (a remote host without serve --processes) */
  gboolean hotplug_events;   /* devices are tracked by netlink monitor events */
  char *gpu_status;          /* translated: why no GPU interconnect is shown ("No NVIDIA
                                driver on this machine"); NULL when a GPU library
                                answered or GPU reading is off */
  gboolean health_judged;    /* RtopHealth set its ports' health (else: a recording's) */
  GPtrArray *devices;        /* RtopDevice*, natural order of names (rxe2 before rxe10) */
  GPtrArray *processes;      /* RtopProcess*, by pid */
  GPtrArray *events;         /* RtopEvent*, raised since the previous snapshot, in order */
  char *host;                /* the host it was taken on, as the user named it (a remote
                                source sets it); NULL for this computer and recordings */
} RtopSnapshot;

#define RTOP_TYPE_SNAPSHOT (rtop_snapshot_get_type ())
GType rtop_snapshot_get_type (void) G_GNUC_CONST;

RtopSnapshot *rtop_snapshot_new (void);
RtopSnapshot *rtop_snapshot_ref (RtopSnapshot *self);
void rtop_snapshot_unref (RtopSnapshot *self);
/* Sort devices naturally, processes by pid, counters by name. Call once, when built. */
void rtop_snapshot_seal (RtopSnapshot *self);
/* For a builder that keeps strings from pass to pass (the collector): the
 * port's counters become the n structs of block (taken, sorted as
 * rtop_counters_sort() sorts: seal leaves them as they are), and the counter
 * names, the metric source strings and the port's netdev, link_layer and
 * rate_text are not the port's own but belong to shared, which the port
 * releases with release when it is freed.  The port must have no counters
 * and no metric sources yet; the caller points the strings into shared. */
void rtop_port_set_shared (RtopPort *port, RtopCounter *block, guint n,
                           gpointer shared, GDestroyNotify release);
/* The same for a device: its name, provider, node_type, fw_version,
 * node_guid and protocol belong to shared from now on (set them to point
 * into it; any the device had are freed first). */
void rtop_device_set_shared (RtopDevice *dev, gpointer shared, GDestroyNotify release);

RtopDevice *rtop_snapshot_find_device (const RtopSnapshot *self, const char *name);
/* Devices asked for by name (--device): FALSE with RTOP_ERROR_NO_DEVICE
 * and a sentence naming the first one the snapshot does not have.  names
 * is NULL-terminated; NULL asks for none. */
gboolean rtop_snapshot_has_devices (const RtopSnapshot *self, const char *const *names, GError **error);
RtopPort *rtop_device_find_port (const RtopDevice *self, guint32 index);
/* Sorts an RtopCounter* array by name (then source), as seal does. */
void rtop_counters_sort (GPtrArray *counters);
void rtop_port_free (RtopPort *self);
/* Total number of ports over all devices. */
guint rtop_snapshot_get_n_ports (const RtopSnapshot *self);

/* Builders.  Strings are copied. */
RtopDevice *rtop_device_new (guint32 index, const char *name);
void rtop_device_free (RtopDevice *self);
RtopGpu *rtop_gpu_new (const char *vendor);   /* gauges NAN */
RtopPort *rtop_port_new (guint32 index);
RtopCounter *rtop_counter_new (const char *name, guint64 value, RtopCounterSource source);
void rtop_counter_free (RtopCounter *self);
RtopProcess *rtop_process_new (gint32 pid);
void rtop_process_free (RtopProcess *self);
RtopEvent *rtop_event_new (RtopEventKind kind, RtopSeverity severity,
                           const char *device, guint32 port, const char *message);
RtopEvent *rtop_event_copy (const RtopEvent *self);
void rtop_event_free (RtopEvent *self);

/* Natural order: "rxe2" < "rxe10", "mlx5_2" < "mlx5_10". */
int rtop_natural_compare (const char *a, const char *b);

const char *rtop_metric_id_to_string (RtopMetricId id);      /* "tx_bytes", ... stable, for JSON/CSV */
const char *rtop_counter_source_to_string (RtopCounterSource source); /* "netlink", ... */
const char *rtop_severity_to_string (RtopSeverity severity);    /* "info", "warning", "error" */
const char *rtop_event_kind_to_string (RtopEventKind kind);     /* "device-added", ... */
const char *rtop_port_state_to_string (guint8 state);           /* "ACTIVE", ... (kernel's names) */
const char *rtop_port_phys_state_to_string (guint8 phys_state); /* "LINK_UP", ... */
const char *rtop_device_kind_to_string (RtopDeviceKind kind);   /* "rdma", "gpu" */
/* GPU for the provider ids of the GPU libraries ("nvml", "amdsmi"), RDMA
 * for any other (readers of formats without a kind field use it). */
RtopDeviceKind rtop_device_kind_for_provider (const char *provider);
const char *rtop_port_health_to_string (RtopPortHealth health); /* "ok", "warning", "error" */
const char *rtop_qp_type_to_string (guint8 type);               /* "RC", "UD", ... (iproute2's) */
const char *rtop_qp_state_to_string (guint8 state);             /* "RTS", "ERR", ... */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopSnapshot, rtop_snapshot_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopDevice, rtop_device_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopPort, rtop_port_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopProcess, rtop_process_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopEvent, rtop_event_free)

G_END_DECLS
