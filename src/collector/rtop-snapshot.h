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
  RtopCounterSource source;
  RtopCounterClass klass;
} RtopCounter;

typedef struct {
  gboolean present;          /* the provider has this metric */
  guint64 value;             /* cumulative, in the metric's unit (bytes, packets, events) */
  double rate;               /* per second; 0 unless has_rate */
  gboolean has_rate;
  char *source;              /* where it came from, e.g. "netlink tx_bytes",
                                "sysfs port_xmit_data x4", "netdev d0 tx_bytes" */
} RtopMetric;

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
  /* private: see rtop_port_set_shared() */
  RtopCounter *counter_block_;
  gpointer shared_;
  GDestroyNotify shared_release_;
} RtopPort;

typedef struct {
  guint32 index;             /* kernel device index */
  char *name;                /* "mlx5_0", "rxe0" */
  char *provider;            /* provider id from rtop-providers: "mlx5", "efa", "erdma", "rxe", ... */
  char *node_type;           /* "ca", "rnic", "switch", ... or NULL */
  char *fw_version;          /* or NULL */
  char *node_guid;           /* "0011:2233:4455:6677" or NULL */
  char *protocol;            /* "ib", "roce", "iw", "opa", "usnic" or NULL */
  guint32 port_count;
  GPtrArray *ports;          /* RtopPort*, by port index */
  GPtrArray *counters;       /* device-level RtopCounter* (sysfs <dev>/hw_counters), sorted */
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
  guint64 rss_bytes;
  guint32 threads;
  char state;                /* /proc state letter, '?' when unknown */
  guint32 qps, contexts, mrs;  /* totals over devices */
  guint64 mr_bytes;
  GArray *devices;           /* RtopProcessDevice, sorted by device name */
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
  gboolean hotplug_events;   /* devices are tracked by netlink monitor events */
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
RtopPort *rtop_device_find_port (const RtopDevice *self, guint32 index);
/* Sorts an RtopCounter* array by name (then source), as seal does. */
void rtop_counters_sort (GPtrArray *counters);
/* Binary search in a sorted RtopCounter* array. */
RtopCounter *rtop_counters_find (GPtrArray *counters, const char *name);
RtopProcess *rtop_snapshot_find_process (const RtopSnapshot *self, gint32 pid);
/* Total number of ports over all devices. */
guint rtop_snapshot_get_n_ports (const RtopSnapshot *self);

/* Builders.  Strings are copied. */
RtopDevice *rtop_device_new (guint32 index, const char *name);
void rtop_device_free (RtopDevice *self);
RtopPort *rtop_port_new (guint32 index);
void rtop_port_free (RtopPort *self);
RtopCounter *rtop_counter_new (const char *name, guint64 value, RtopCounterSource source);
RtopCounter *rtop_counter_copy (const RtopCounter *self);
void rtop_counter_free (RtopCounter *self);
void rtop_metric_clear (RtopMetric *self);
RtopProcess *rtop_process_new (gint32 pid);
void rtop_process_free (RtopProcess *self);
RtopEvent *rtop_event_new (RtopEventKind kind, RtopSeverity severity,
                           const char *device, guint32 port, const char *message);
RtopEvent *rtop_event_copy (const RtopEvent *self);
void rtop_event_free (RtopEvent *self);

/* Natural order: "rxe2" < "rxe10", "mlx5_2" < "mlx5_10". */
int rtop_natural_compare (const char *a, const char *b);

const char *rtop_metric_id_to_string (RtopMetricId id);      /* "tx_bytes", ... stable, for JSON/CSV */
gboolean rtop_metric_id_from_string (const char *s, RtopMetricId *out);
const char *rtop_counter_class_to_string (RtopCounterClass klass); /* "error.link", ... */
const char *rtop_counter_source_to_string (RtopCounterSource source); /* "netlink", ... */
const char *rtop_severity_to_string (RtopSeverity severity);    /* "info", "warning", "error" */
const char *rtop_event_kind_to_string (RtopEventKind kind);     /* "device-added", ... */
const char *rtop_port_state_to_string (guint8 state);           /* "ACTIVE", ... (kernel's names) */
const char *rtop_port_phys_state_to_string (guint8 phys_state); /* "LINK_UP", ... */

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopSnapshot, rtop_snapshot_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopDevice, rtop_device_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopPort, rtop_port_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopProcess, rtop_process_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtopEvent, rtop_event_free)

G_END_DECLS
