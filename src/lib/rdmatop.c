/* rdmatop.c: librdmatop, the public C API over the collector.
 *
 * Every handle is a collector object under another name: a snapshot is an
 * RtopSnapshot, a device an RtopDevice, a port an RtopPort, a capture an
 * RtopCapture; a job is an RtopJob of its own.  GLib stays inside: errors become a status and a sentence
 * kept per thread. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <locale.h>
#include <string.h>
#include <unistd.h>

#include "rdmatop-private.h"
#include "rtop-capture.h"
#include "rtop-tracks.h"
#include "rtop-collector.h"
#include "rtop-error.h"
#include "rtop-procfs.h"
#include "rtop-snapshot.h"

#define EXPORT __attribute__ ((visibility ("default")))

struct rdmatop_collector {
  RtopCollector *collector;
  GStrv devices;
};

static GPrivate last_error = G_PRIVATE_INIT (g_free);

/* Sentences in the user's language, wherever the library was installed. */
static void
init_gettext (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done))
    {
      /* As rdmatop-cli: an uninstalled build points this at build/po. */
      const char *localedir = g_getenv ("RDMATOP_LOCALEDIR");

      bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&done, 1);
    }
}

static rdmatop_status
status_for (const GError *error)
{
  if (error->domain != RTOP_ERROR)
    return RDMATOP_ERROR_FAILED;
  switch (error->code)
    {
    case RTOP_ERROR_NO_NETLINK: return RDMATOP_ERROR_NO_RDMA;
    case RTOP_ERROR_PERMISSION: return RDMATOP_ERROR_PERMISSION;
    case RTOP_ERROR_NO_DEVICE: return RDMATOP_ERROR_NO_DEVICE;
    case RTOP_ERROR_INVALID_ARGUMENT: return RDMATOP_ERROR_INVALID_ARGUMENT;
    case RTOP_ERROR_NO_PROCESS: return RDMATOP_ERROR_NO_PROCESS;
    default: return RDMATOP_ERROR_FAILED;
    }
}

static rdmatop_status
fail (GError *error)
{
  rdmatop_status status = status_for (error);

  g_private_replace (&last_error, g_strdup (error->message));
  g_error_free (error);
  return status;
}

static rdmatop_status
fail_invalid (const char *message)
{
  return fail (g_error_new_literal (RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT, message));
}

EXPORT const char *
rdmatop_version (void)
{
  return PACKAGE_VERSION;
}

EXPORT int
rdmatop_api_version (void)
{
  return RDMATOP_API_VERSION;
}

EXPORT const char *
rdmatop_last_error (void)
{
  const char *message = g_private_get (&last_error);

  return message != NULL ? message : "";
}

/* ---- Snapshots ---- */

static RtopCollector *
open_collector (const char *const *devices, GError **error)
{
  RtopCollectorOptions options = {
    .devices = devices,
    .no_processes = TRUE,
    .no_monitor = TRUE,
    .no_gpu = TRUE,
  };

  init_gettext ();
  return rtop_collector_new (&options, error);
}

EXPORT rdmatop_status
rdmatop_collector_open (const char *const *devices, rdmatop_collector **out)
{
  GError *error = NULL;
  RtopCollector *collector;

  if (out == NULL)
    return fail_invalid (_("rdmatop_collector_open() needs somewhere to put the collector."));
  *out = NULL;
  collector = open_collector (devices, &error);
  if (collector == NULL)
    return fail (error);
  *out = g_new0 (rdmatop_collector, 1);
  (*out)->collector = collector;
  (*out)->devices = g_strdupv ((char **) devices);
  return RDMATOP_OK;
}

EXPORT void
rdmatop_collector_close (rdmatop_collector *collector)
{
  if (collector == NULL)
    return;
  rtop_collector_free (collector->collector);
  g_strfreev (collector->devices);
  g_free (collector);
}

/* A whole pass that failed, or a device asked for that is not there. */
static gboolean
check_snapshot (const rdmatop_collector *c, const RtopSnapshot *snap, GError **error)
{
  if (snap->status != RTOP_STATUS_OK)
    {
      RtopErrorCode code = snap->status == RTOP_STATUS_NO_NETLINK ? RTOP_ERROR_NO_NETLINK
                         : snap->status == RTOP_STATUS_PERMISSION ? RTOP_ERROR_PERMISSION
                         : RTOP_ERROR_FAILED;

      g_set_error_literal (error, RTOP_ERROR, code, snap->status_message);
      return FALSE;
    }
  return rtop_snapshot_has_devices (snap, (const char * const *) c->devices, error);
}

EXPORT rdmatop_status
rdmatop_collector_snapshot (rdmatop_collector *collector, rdmatop_snapshot **out)
{
  GError *error = NULL;
  RtopSnapshot *snap;

  if (collector == NULL || out == NULL)
    return fail_invalid (_("rdmatop_collector_snapshot() needs a collector and somewhere to put the snapshot."));
  *out = NULL;
  snap = rtop_collector_sample (collector->collector, 0);
  if (!check_snapshot (collector, snap, &error))
    {
      rtop_snapshot_unref (snap);
      return fail (error);
    }
  *out = (rdmatop_snapshot *) snap;
  return RDMATOP_OK;
}

EXPORT void
rdmatop_snapshot_free (rdmatop_snapshot *snapshot)
{
  if (snapshot != NULL)
    rtop_snapshot_unref ((RtopSnapshot *) snapshot);
}

EXPORT int64_t
rdmatop_snapshot_realtime_ns (const rdmatop_snapshot *snapshot)
{
  return ((const RtopSnapshot *) snapshot)->realtime_us * 1000;
}

EXPORT int64_t
rdmatop_snapshot_monotonic_ns (const rdmatop_snapshot *snapshot)
{
  return ((const RtopSnapshot *) snapshot)->monotonic_us * 1000;
}

EXPORT size_t
rdmatop_snapshot_n_devices (const rdmatop_snapshot *snapshot)
{
  return snapshot != NULL ? ((const RtopSnapshot *) snapshot)->devices->len : 0;
}

EXPORT const rdmatop_device *
rdmatop_snapshot_device (const rdmatop_snapshot *snapshot, size_t index)
{
  if (index >= rdmatop_snapshot_n_devices (snapshot))
    return NULL;
  return g_ptr_array_index (((const RtopSnapshot *) snapshot)->devices, index);
}

#define DEV(d) ((const RtopDevice *) (d))
#define PORT(p) ((const RtopPort *) (p))

EXPORT const char *
rdmatop_device_name (const rdmatop_device *device)
{
  return DEV (device)->name;
}

EXPORT const char *
rdmatop_device_provider (const rdmatop_device *device)
{
  return DEV (device)->provider;
}

EXPORT const char *
rdmatop_device_kind (const rdmatop_device *device)
{
  return rtop_device_kind_to_string (DEV (device)->kind);
}

EXPORT size_t
rdmatop_device_n_ports (const rdmatop_device *device)
{
  return device != NULL ? DEV (device)->ports->len : 0;
}

EXPORT const rdmatop_port *
rdmatop_device_port (const rdmatop_device *device, size_t index)
{
  if (index >= rdmatop_device_n_ports (device))
    return NULL;
  return g_ptr_array_index (DEV (device)->ports, index);
}

EXPORT uint32_t
rdmatop_port_number (const rdmatop_port *port)
{
  return PORT (port)->index;
}

EXPORT const char *
rdmatop_port_state (const rdmatop_port *port)
{
  return rtop_port_state_to_string (PORT (port)->state);
}

EXPORT const char *
rdmatop_port_phys_state (const rdmatop_port *port)
{
  return rtop_port_phys_state_to_string (PORT (port)->phys_state);
}

EXPORT const char *
rdmatop_port_netdev (const rdmatop_port *port)
{
  return PORT (port)->netdev;
}

EXPORT const char *
rdmatop_port_link_layer (const rdmatop_port *port)
{
  return PORT (port)->link_layer;
}

EXPORT double
rdmatop_port_rate_gbps (const rdmatop_port *port)
{
  return PORT (port)->rate_gbps;
}

EXPORT const char *
rdmatop_port_health (const rdmatop_port *port)
{
  return rtop_port_health_to_string (PORT (port)->health);
}

EXPORT const char *
rdmatop_port_error (const rdmatop_port *port)
{
  return PORT (port)->error;
}

EXPORT size_t
rdmatop_port_n_counters (const rdmatop_port *port)
{
  return port != NULL ? PORT (port)->counters->len : 0;
}

EXPORT int
rdmatop_port_counter (const rdmatop_port *port, size_t index, const char **name,
                      uint64_t *value, double *rate)
{
  const RtopCounter *c;

  if (index >= rdmatop_port_n_counters (port))
    return -1;
  c = g_ptr_array_index (PORT (port)->counters, index);
  if (name != NULL)
    *name = c->name;
  if (value != NULL)
    *value = c->value;
  if (rate != NULL)
    *rate = c->has_rate ? c->rate : 0;
  return c->has_rate ? 1 : 0;
}

EXPORT size_t
rdmatop_n_metrics (void)
{
  return RTOP_METRIC_N;
}

EXPORT const char *
rdmatop_metric_name (size_t metric)
{
  return metric < RTOP_METRIC_N ? rtop_metric_id_to_string ((RtopMetricId) metric) : NULL;
}

EXPORT int
rdmatop_port_metric (const rdmatop_port *port, size_t metric, uint64_t *value, double *rate)
{
  const RtopMetric *m;

  if (port == NULL || metric >= RTOP_METRIC_N || !PORT (port)->metrics[metric].present)
    return -1;
  m = &PORT (port)->metrics[metric];
  if (value != NULL)
    *value = m->value;
  if (rate != NULL)
    *rate = m->has_rate ? m->rate : 0;
  return m->has_rate ? 1 : 0;
}

/* ---- Captures ---- */

EXPORT rdmatop_status
rdmatop_capture_new (const char *const *devices, const uint32_t *ports, size_t n_ports,
                     const char *const *counters, uint64_t interval_ns, size_t capacity,
                     rdmatop_capture **out)
{
  RtopCaptureOptions options = {
    .devices = devices,
    .ports = ports,
    .n_ports = (guint) MIN (n_ports, G_MAXUINT),
    .counters = counters,
    .interval_ns = (gint64) MIN (interval_ns, (uint64_t) G_MAXINT64),
    .capacity = (guint) MIN (capacity, (size_t) G_MAXUINT),
  };
  GError *error = NULL;
  RtopCollector *collector;
  RtopCapture *capture;

  init_gettext ();
  if (out == NULL)
    return fail_invalid (_("rdmatop_capture_new() needs somewhere to put the capture."));
  *out = NULL;
  if (ports == NULL)
    options.n_ports = 0;
  /* The interval first: it is wrong on any machine. */
  if (!rtop_capture_check_interval (options.interval_ns, &error))
    return fail (error);
  collector = open_collector (devices, &error);
  if (collector == NULL)
    return fail (error);
  capture = rtop_capture_new (collector, &options, &error);
  if (capture == NULL)
    return fail (error);
  *out = (rdmatop_capture *) capture;
  return RDMATOP_OK;
}

EXPORT rdmatop_status
rdmatop_capture_start (rdmatop_capture *capture)
{
  GError *error = NULL;

  if (capture == NULL)
    return fail_invalid (_("rdmatop_capture_start() needs a capture."));
  if (!rtop_capture_start ((RtopCapture *) capture, &error))
    return fail (error);
  return RDMATOP_OK;
}

EXPORT void
rdmatop_capture_stop (rdmatop_capture *capture)
{
  if (capture != NULL)
    rtop_capture_stop ((RtopCapture *) capture);
}

EXPORT size_t
rdmatop_capture_read (rdmatop_capture *capture, rdmatop_sample *out, size_t n)
{
  RtopCaptureSample buf[256];
  size_t total = 0;

  if (capture == NULL || out == NULL)
    return 0;
  while (total < n)
    {
      gsize got = rtop_capture_read ((RtopCapture *) capture, buf, MIN (n - total, G_N_ELEMENTS (buf)));

      for (gsize i = 0; i < got; i++)
        out[total + i] = (rdmatop_sample) {
          .realtime_ns = buf[i].realtime_ns,
          .monotonic_ns = buf[i].monotonic_ns,
          .device = buf[i].device,
          .counter = buf[i].counter,
          .port = buf[i].port,
          .value = buf[i].value,
        };
      total += got;
      if (got == 0)
        break;
    }
  return total;
}

EXPORT void
rdmatop_capture_get_stats (rdmatop_capture *capture, rdmatop_capture_stats *out)
{
  RtopCaptureStats st;

  if (out == NULL)
    return;
  memset (out, 0, sizeof *out);
  if (capture == NULL)
    return;
  rtop_capture_get_stats ((RtopCapture *) capture, &st);
  out->taken = st.taken;
  out->missed = st.missed;
  out->dropped = st.dropped;
  out->dropped_samples = st.dropped_samples;
  out->samples = st.samples;
  out->read_errors = st.read_errors;
  out->intervals = st.intervals;
  out->interval_min_ns = st.interval_min_ns;
  out->interval_max_ns = st.interval_max_ns;
  out->interval_median_ns = st.interval_median_ns;
  out->interval_p99_ns = st.interval_p99_ns;
  out->interval_mean_ns = st.interval_mean_ns;
  out->cpu_ns = st.cpu_ns;
}

EXPORT const char *
rdmatop_capture_read_error (rdmatop_capture *capture)
{
  char *message = capture != NULL ? rtop_capture_dup_last_error ((RtopCapture *) capture) : NULL;

  if (message == NULL)
    return NULL;
  g_private_replace (&last_error, message);
  return message;
}

EXPORT void
rdmatop_capture_free (rdmatop_capture *capture)
{
  rtop_capture_free ((RtopCapture *) capture);
}

EXPORT rdmatop_status
rdmatop_capture_new_synthetic (uint32_t n_ports, uint32_t n_counters, uint64_t interval_ns,
                               size_t capacity, rdmatop_capture **out)
{
  GError *error = NULL;
  RtopCapture *capture;

  init_gettext ();
  if (out == NULL)
    return fail_invalid (_("rdmatop_capture_new_synthetic() needs somewhere to put the capture."));
  *out = NULL;
  capture = rtop_capture_new_synthetic (n_ports, n_counters,
                                        (gint64) MIN (interval_ns, (uint64_t) G_MAXINT64),
                                        (guint) MIN (capacity, (size_t) G_MAXUINT), &error);
  if (capture == NULL)
    return fail (error);
  *out = (rdmatop_capture *) capture;
  return RDMATOP_OK;
}

/* ---- Counter tracks ---- */

G_STATIC_ASSERT (sizeof (rdmatop_track_point) == sizeof (RtopTrackPoint));
G_STATIC_ASSERT (G_STRUCT_OFFSET (rdmatop_track_point, track) == G_STRUCT_OFFSET (RtopTrackPoint, track));
G_STATIC_ASSERT (G_STRUCT_OFFSET (rdmatop_track_point, rate) == G_STRUCT_OFFSET (RtopTrackPoint, rate));

#define TRACKS(t) ((RtopTracks *) (t))

EXPORT rdmatop_status
rdmatop_tracks_new (rdmatop_clock clock, int compact, size_t max_points, rdmatop_tracks **out)
{
  GError *error = NULL;
  RtopTracks *tracks;

  init_gettext ();
  if (out == NULL)
    return fail_invalid (_("rdmatop_tracks_new() needs somewhere to put the tracks."));
  *out = NULL;
  tracks = rtop_tracks_new ((RtopTracksClock) clock, compact != 0, max_points, &error);
  if (tracks == NULL)
    return fail (error);
  *out = (rdmatop_tracks *) tracks;
  return RDMATOP_OK;
}

EXPORT void
rdmatop_tracks_feed (rdmatop_tracks *tracks, const rdmatop_sample *samples, size_t n)
{
  g_autofree RtopTrackSample *buf = NULL;

  if (tracks == NULL || samples == NULL || n == 0)
    return;
  /* One call, one ordering: the samples go in whole. */
  buf = g_new (RtopTrackSample, n);
  for (size_t i = 0; i < n; i++)
    buf[i] = (RtopTrackSample) {
      samples[i].realtime_ns, samples[i].monotonic_ns, samples[i].device, samples[i].port,
      samples[i].counter, samples[i].value,
    };
  rtop_tracks_feed (TRACKS (tracks), buf, n);
}

EXPORT size_t
rdmatop_tracks_n_tracks (rdmatop_tracks *tracks)
{
  return tracks != NULL ? rtop_tracks_get_n_tracks (TRACKS (tracks)) : 0;
}

EXPORT int
rdmatop_tracks_track (rdmatop_tracks *tracks, size_t track, const char **device, uint32_t *port,
                      const char **counter)
{
  const char *d, *c;
  guint32 p;

  if (tracks == NULL || track > G_MAXUINT
      || !rtop_tracks_get_track (TRACKS (tracks), (guint) track, &d, &p, &c))
    return -1;
  if (device != NULL)
    *device = d;
  if (port != NULL)
    *port = p;
  if (counter != NULL)
    *counter = c;
  return 0;
}

EXPORT rdmatop_status
rdmatop_tracks_clip (rdmatop_tracks *tracks, int64_t start_ns, int64_t end_ns,
                     rdmatop_track_point **points, size_t *n)
{
  gsize got;

  init_gettext ();
  if (tracks == NULL || points == NULL || n == NULL)
    return fail_invalid (_("rdmatop_tracks_clip() needs tracks and somewhere to put the points."));
  *points = (rdmatop_track_point *) rtop_tracks_clip (TRACKS (tracks), start_ns, end_ns, &got);
  *n = got;
  return RDMATOP_OK;
}

EXPORT void
rdmatop_tracks_points_free (rdmatop_track_point *points)
{
  g_free (points);
}

EXPORT uint64_t
rdmatop_tracks_dropped (rdmatop_tracks *tracks)
{
  return tracks != NULL ? rtop_tracks_get_dropped (TRACKS (tracks)) : 0;
}

EXPORT size_t
rdmatop_tracks_size (rdmatop_tracks *tracks)
{
  return tracks != NULL ? rtop_tracks_get_size (TRACKS (tracks)) : 0;
}

EXPORT void
rdmatop_tracks_free (rdmatop_tracks *tracks)
{
  rtop_tracks_free (TRACKS (tracks));
}

EXPORT rdmatop_status
rdmatop_capture_set_tracks (rdmatop_capture *capture, rdmatop_tracks *tracks)
{
  GError *error = NULL;

  init_gettext ();
  if (capture == NULL || tracks == NULL)
    return fail_invalid (_("rdmatop_capture_set_tracks() needs a capture and tracks."));
  if (!rtop_capture_set_tracks ((RtopCapture *) capture, TRACKS (tracks), &error))
    return fail (error);
  return RDMATOP_OK;
}

/* ---- Jobs ---- */

struct rdmatop_job {
  RtopJob job;
};

rdmatop_status
rdmatop_job_of_process_at (const char *proc_root, int32_t pid, rdmatop_job **out)
{
  GError *error = NULL;
  RtopJob job = { 0 };

  init_gettext ();
  if (out == NULL)
    return fail_invalid (_("rdmatop_job_of_process() needs somewhere to put the job."));
  *out = NULL;
  if (pid < 0)
    {
      g_autofree char *message = g_strdup_printf (
          _("“%d” is not a process id: give one from 1 up, or 0 for the calling process"), pid);

      return fail_invalid (message);
    }
  if (pid == 0)
    pid = getpid ();
  if (!rtop_proc_read_job (proc_root, pid, &job, &error))
    return fail (error);
  if (job.kind == RTOP_JOB_NONE)
    {
      g_autofree char *message = g_strdup_printf (_("Process %d is in no job: its cgroup names none"),
                                                  pid);

      g_private_replace (&last_error, g_steal_pointer (&message));
      return RDMATOP_ERROR_NO_JOB;
    }
  *out = g_new0 (rdmatop_job, 1);
  (*out)->job = job;
  return RDMATOP_OK;
}

EXPORT rdmatop_status
rdmatop_job_of_process (int32_t pid, rdmatop_job **out)
{
  return rdmatop_job_of_process_at ("/proc", pid, out);
}

EXPORT const char *
rdmatop_job_kind (const rdmatop_job *job)
{
  return job != NULL ? rtop_job_kind_to_string (job->job.kind) : NULL;
}

EXPORT const char *
rdmatop_job_id (const rdmatop_job *job)
{
  return job != NULL ? job->job.id : NULL;
}

EXPORT const char *
rdmatop_job_detail (const rdmatop_job *job)
{
  return job != NULL ? job->job.detail : NULL;
}

EXPORT const char *
rdmatop_job_name (const rdmatop_job *job)
{
  return job != NULL ? job->job.name : NULL;
}

EXPORT void
rdmatop_job_free (rdmatop_job *job)
{
  if (job == NULL)
    return;
  rtop_job_clear (&job->job);
  g_free (job);
}
