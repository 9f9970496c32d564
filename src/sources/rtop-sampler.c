/* rtop-sampler.c: collector passes on a worker thread, snapshots delivered
 * on the caller's main context.
 *
 * The worker sleeps in poll() on a wakeup eventfd and the collector's
 * hotplug monitor fd until the next deadline.  Deadlines are start + k *
 * interval, so the pass's own cost never makes the period drift; a pass that
 * overruns skips the deadlines it missed instead of bunching up. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rtop-error.h"
#include "rtop-health.h"
#include "rtop-sampler-private.h"
#include "rtop-source.h"

/* Snapshots waiting for the main loop; past this the UI is stalled and the
 * oldest undelivered snapshots are dropped rather than piling up. */
#define MAX_PENDING 64

struct _RtopSampler {
  GObject parent_instance;

  RtopCollectorOptions options;
  GStrv devices;
  char *sysfs_root;
  char *proc_root;

  GMutex lock;
  double interval;           /* guarded by lock */
  gboolean stopping;         /* guarded by lock */
  gboolean refresh;          /* guarded by lock */
  GQueue deliveries;         /* guarded by lock: Delivery* not yet delivered, oldest first */
  guint generation;          /* bumped by stop(): stale deliveries are dropped */

  int wakeup_fd;
  GThread *thread;
  RtopCollector *collector;  /* worker-only while running; kept across restarts */
  RtopHealth *startup_health; /* worker-only: events for passes with no collector */
  guint64 sequence;          /* worker-only: numbers every delivered snapshot */
  GMainContext *context;
  RtopSnapshot *latest;      /* main-context side only */
  RtopSourceProps source;    /* main-context side only */
};

enum { PROP_0, PROP_INTERVAL, N_PROPS, PROP_SOURCE_FIRST = N_PROPS };

static GParamSpec *properties[N_PROPS];

static void source_iface_init (RtopSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RtopSampler, rtop_sampler, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (RTOP_TYPE_SOURCE, source_iface_init))

/* Owned by its idle source (freed when the source goes); the sampler's
 * queue holds it, with a ref on that source, until it is delivered. */
typedef struct {
  RtopSampler *sampler;      /* strong ref */
  RtopSnapshot *snapshot;
  guint generation;
  GSource *source;           /* the queue's ref, while queued */
} Delivery;

static void
delivery_free (gpointer data)
{
  Delivery *d = data;
  RtopSampler *self = d->sampler;
  GSource *queued;

  /* Still queued: its source went without being dispatched (the main
   * context was destroyed). */
  g_mutex_lock (&self->lock);
  queued = g_steal_pointer (&d->source);
  if (queued != NULL)
    g_queue_remove (&self->deliveries, d);
  g_mutex_unlock (&self->lock);
  if (queued != NULL)
    g_source_unref (queued);
  g_object_unref (d->sampler);
  rtop_snapshot_unref (d->snapshot);
  g_free (d);
}

/* Emits d's snapshot, once it has left the queue (lock not held). */
static void
deliver (Delivery *d, gboolean current)
{
  RtopSampler *self = d->sampler;

  if (!current)
    return;   /* stopped since: no signal after stop() */

  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  self->latest = rtop_snapshot_ref (d->snapshot);
  /* The source stays running while the kernel refuses: it retries, and
   * the reason is its error until a pass succeeds. */
  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_RUNNING,
                      d->snapshot->status == RTOP_STATUS_OK ? NULL : d->snapshot->status_message);
  rtop_source_emit_snapshot (RTOP_SOURCE (self), d->snapshot);
}

/* TRUE when d belongs to the running generation.  Lock held. */
static gboolean
current_locked (RtopSampler *self, Delivery *d)
{
  return d->generation == self->generation && self->thread != NULL;
}

static gboolean
deliver_cb (gpointer data)
{
  Delivery *d = data;
  RtopSampler *self = d->sampler;
  GSource *source;
  gboolean current;

  g_mutex_lock (&self->lock);
  g_queue_remove (&self->deliveries, d);
  current = current_locked (self, d);
  source = g_steal_pointer (&d->source);
  g_mutex_unlock (&self->lock);
  /* The main context holds the source while it dispatches it. */
  g_source_unref (source);
  deliver (d, current);
  return G_SOURCE_REMOVE;
}

/* What the worker has posted and the main loop not yet dispatched,
 * delivered now, in order (the main context's thread). */
static void
rtop_sampler_deliver_pending (RtopSource *source)
{
  RtopSampler *self = RTOP_SAMPLER (source);

  for (;;)
    {
      Delivery *d;
      GSource *idle;
      gboolean current;

      g_mutex_lock (&self->lock);
      d = g_queue_pop_head (&self->deliveries);
      if (d != NULL)
        {
          current = current_locked (self, d);
          idle = g_steal_pointer (&d->source);
        }
      g_mutex_unlock (&self->lock);
      if (d == NULL)
        return;
      /* The sampler outlives this: d holds a ref until the source goes. */
      deliver (d, current);
      g_source_destroy (idle);   /* frees d */
      g_source_unref (idle);
    }
}

static void
post (RtopSampler *self, RtopSnapshot *snap, guint generation)
{
  Delivery *d;
  GSource *source;

  g_mutex_lock (&self->lock);
  if (self->deliveries.length >= MAX_PENDING)
    {
      g_mutex_unlock (&self->lock);
      g_warning ("The main loop has not taken %u snapshots; dropping one.", MAX_PENDING);
      rtop_snapshot_unref (snap);
      return;
    }
  g_mutex_unlock (&self->lock);
  /* One numbering per sampler, across collector re-creation and restarts. */
  snap->sequence = ++self->sequence;

  d = g_new0 (Delivery, 1);
  d->sampler = g_object_ref (self);
  d->snapshot = snap;
  d->generation = generation;
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, deliver_cb, d, delivery_free);
  g_source_set_static_name (source, "[rdmatop] snapshot delivery");
  /* Queued and attached at once: deliver_pending() never sees a source
   * that is not attached yet, nor deliver_cb() one that is not queued.
   * (Lock order: ours, then the context's; the main thread never takes
   * ours while it holds the context's.) */
  g_mutex_lock (&self->lock);
  d->source = source;      /* the queue's ref */
  g_queue_push_tail (&self->deliveries, d);
  g_source_attach (source, self->context);
  g_mutex_unlock (&self->lock);
}

/* A snapshot that says why there is nothing to show. */
static RtopSnapshot *
error_snapshot (const GError *error, double interval)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  snap->monotonic_us = g_get_monotonic_time ();
  snap->realtime_us = g_get_real_time ();
  snap->interval_s = interval;
  if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_NO_NETLINK))
    snap->status = RTOP_STATUS_NO_NETLINK;
  else if (g_error_matches (error, RTOP_ERROR, RTOP_ERROR_PERMISSION))
    snap->status = RTOP_STATUS_PERMISSION;
  else
    snap->status = RTOP_STATUS_ERROR;
  snap->status_message = g_strdup (error->message);
  return snap;
}

/* A collector that cannot start (no RDMA netlink, no permission) is a
 * collection error like any other: an event when it starts failing, not
 * one per pass, and one when it works again. */
static RtopSnapshot *
startup_error_snapshot (RtopSampler *self, const GError *error, double interval)
{
  RtopSnapshot *snap = error_snapshot (error, interval);

  if (self->startup_health == NULL)
    self->startup_health = rtop_health_new ();
  rtop_health_process (self->startup_health, snap);
  return snap;
}

static RtopSnapshot *
startup_recovered (RtopSampler *self, RtopSnapshot *snap)
{
  RtopEvent *ev;

  if (self->startup_health == NULL)
    return snap;
  g_clear_pointer (&self->startup_health, rtop_health_free);
  ev = rtop_event_new (RTOP_EVENT_COLLECTION_RECOVERED, RTOP_SEVERITY_INFO, NULL, 0,
                       _("Collecting RDMA statistics works again."));
  ev->realtime_us = snap->realtime_us;
  ev->monotonic_us = snap->monotonic_us;
  /* Nobody reads the snapshot before it is posted. */
  g_ptr_array_insert (snap->events, 0, ev);
  return snap;
}

/* Waits until deadline, a refresh, a stop, or a hotplug event.  Returns
 * FALSE when stopping. */
static gboolean
wait_until (RtopSampler *self, gint64 deadline, int monitor_fd)
{
  for (;;)
    {
      struct pollfd fds[2] = { { self->wakeup_fd, POLLIN, 0 }, { monitor_fd, POLLIN, 0 } };
      gint64 now = g_get_monotonic_time ();
      gboolean stopping, refresh;
      int timeout_ms, n;

      g_mutex_lock (&self->lock);
      stopping = self->stopping;
      refresh = self->refresh;
      self->refresh = FALSE;
      g_mutex_unlock (&self->lock);
      if (stopping)
        return FALSE;
      if (refresh || now >= deadline)
        return TRUE;

      timeout_ms = (int) MIN ((deadline - now + 999) / 1000, G_MAXINT);
      n = poll (fds, monitor_fd >= 0 ? 2 : 1, timeout_ms);
      if (n < 0 && errno != EINTR)
        return TRUE;
      if (n > 0 && (fds[0].revents & POLLIN))
        {
          guint64 v;
          if (read (self->wakeup_fd, &v, sizeof v) < 0)
            { /* nothing pending: fine */ }
        }
      if (n > 0 && monitor_fd >= 0 && (fds[1].revents & (POLLIN | POLLERR)))
        return TRUE;    /* a device came or went: look now */
    }
}

static double
get_interval (RtopSampler *self)
{
  double v;

  g_mutex_lock (&self->lock);
  v = self->interval;
  g_mutex_unlock (&self->lock);
  return v;
}

static gpointer
worker (gpointer data)
{
  RtopSampler *self = data;
  guint generation;
  gint64 deadline = g_get_monotonic_time ();

  g_mutex_lock (&self->lock);
  generation = self->generation;
  g_mutex_unlock (&self->lock);

  while (wait_until (self, deadline,
                     self->collector ? rtop_collector_get_monitor_fd (self->collector) : -1))
    {
      double interval = get_interval (self);
      gint64 period = (gint64) (interval * G_USEC_PER_SEC);
      gint64 now;

      if (self->collector == NULL)
        {
          g_autoptr(GError) error = NULL;

          self->collector = rtop_collector_new (&self->options, &error);
          if (self->collector == NULL)
            post (self, startup_error_snapshot (self, error, interval), generation);
        }
      if (self->collector != NULL)
        post (self, startup_recovered (self, rtop_collector_sample (self->collector, interval)),
              generation);

      now = g_get_monotonic_time ();
      deadline += period;
      if (deadline <= now)
        deadline += ((now - deadline) / period + 1) * period;
    }
  return NULL;
}

static void
wake (RtopSampler *self)
{
  guint64 one = 1;

  if (write (self->wakeup_fd, &one, sizeof one) < 0)
    { /* the counter is saturated: the worker is awake anyway */ }
}

void
rtop_sampler_start (RtopSampler *self)
{
  g_return_if_fail (RTOP_IS_SAMPLER (self));

  if (self->thread != NULL)
    return;
  g_clear_pointer (&self->context, g_main_context_unref);
  self->context = g_main_context_ref_thread_default ();
  g_mutex_lock (&self->lock);
  self->stopping = FALSE;
  g_mutex_unlock (&self->lock);
  self->thread = g_thread_new ("rdmatop-sampler", worker, self);
  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_CONNECTING, NULL);
}

void
rtop_sampler_stop (RtopSampler *self)
{
  g_return_if_fail (RTOP_IS_SAMPLER (self));

  if (self->thread == NULL)
    return;
  g_mutex_lock (&self->lock);
  self->stopping = TRUE;
  self->generation++;
  g_mutex_unlock (&self->lock);
  wake (self);
  g_thread_join (self->thread);
  self->thread = NULL;
  /* What is still queued would be dropped when dispatched: drop it now,
   * so that the snapshots (and the refs on us and on the main context)
   * go even if that context is never iterated again. */
  for (;;)
    {
      Delivery *d;
      GSource *idle;

      g_mutex_lock (&self->lock);
      d = g_queue_pop_head (&self->deliveries);
      idle = d != NULL ? g_steal_pointer (&d->source) : NULL;
      g_mutex_unlock (&self->lock);
      if (idle == NULL)
        break;
      g_source_destroy (idle);   /* frees d */
      g_source_unref (idle);
    }
  rtop_source_update (RTOP_SOURCE (self), RTOP_SOURCE_STATE_STOPPED, NULL);
}

gboolean
rtop_sampler_is_running (RtopSampler *self)
{
  g_return_val_if_fail (RTOP_IS_SAMPLER (self), FALSE);
  return self->thread != NULL;
}

void
rtop_sampler_refresh (RtopSampler *self)
{
  g_return_if_fail (RTOP_IS_SAMPLER (self));

  g_mutex_lock (&self->lock);
  self->refresh = TRUE;
  g_mutex_unlock (&self->lock);
  wake (self);
}

RtopSnapshot *
rtop_sampler_get_latest (RtopSampler *self)
{
  g_return_val_if_fail (RTOP_IS_SAMPLER (self), NULL);
  return self->latest;
}

double
rtop_sampler_get_interval (RtopSampler *self)
{
  g_return_val_if_fail (RTOP_IS_SAMPLER (self), 1.0);
  return get_interval (self);
}

void
rtop_sampler_set_interval (RtopSampler *self, double seconds)
{
  gboolean changed;

  g_return_if_fail (RTOP_IS_SAMPLER (self));

  if (!(seconds >= RTOP_SAMPLER_MIN_INTERVAL))  /* also catches NaN */
    seconds = RTOP_SAMPLER_MIN_INTERVAL;
  seconds = MIN (seconds, RTOP_SAMPLER_MAX_INTERVAL);
  g_mutex_lock (&self->lock);
  changed = self->interval != seconds;
  self->interval = seconds;
  g_mutex_unlock (&self->lock);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INTERVAL]);
}

RtopSampler *
rtop_sampler_new (const RtopCollectorOptions *options)
{
  RtopSampler *self = g_object_new (RTOP_TYPE_SAMPLER, NULL);

  if (options != NULL)
    {
      self->options = *options;
      self->devices = g_strdupv ((char **) options->devices);
      self->sysfs_root = g_strdup (options->sysfs_root);
      self->proc_root = g_strdup (options->proc_root);
      self->options.devices = (const char * const *) self->devices;
      self->options.sysfs_root = self->sysfs_root;
      self->options.proc_root = self->proc_root;
    }
  return self;
}

static void
rtop_sampler_finalize (GObject *object)
{
  RtopSampler *self = RTOP_SAMPLER (object);

  rtop_sampler_stop (self);
  g_clear_pointer (&self->collector, rtop_collector_free);
  g_clear_pointer (&self->startup_health, rtop_health_free);
  g_clear_pointer (&self->latest, rtop_snapshot_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  rtop_source_props_clear (&self->source);
  g_strfreev (self->devices);
  g_free (self->sysfs_root);
  g_free (self->proc_root);
  if (self->wakeup_fd >= 0)
    close (self->wakeup_fd);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (rtop_sampler_parent_class)->finalize (object);
}

static void
rtop_sampler_dispose (GObject *object)
{
  RtopSampler *self = RTOP_SAMPLER (object);

  /* The worker holds no reference; stop it before anything is torn down.
   * No notification this late: nobody should hear from a dying object. */
  if (self->thread != NULL)
    {
      g_object_freeze_notify (object);
      rtop_sampler_stop (self);
      g_object_thaw_notify (object);
    }
  G_OBJECT_CLASS (rtop_sampler_parent_class)->dispose (object);
}

static void
rtop_sampler_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  if (rtop_source_get_common_property (RTOP_SOURCE (object), PROP_SOURCE_FIRST, prop_id, value))
    return;
  switch (prop_id)
    {
    case PROP_INTERVAL:
      g_value_set_double (value, rtop_sampler_get_interval (RTOP_SAMPLER (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_sampler_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_INTERVAL:
      rtop_sampler_set_interval (RTOP_SAMPLER (object), g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
rtop_sampler_class_init (RtopSamplerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = rtop_sampler_dispose;
  object_class->finalize = rtop_sampler_finalize;
  object_class->get_property = rtop_sampler_get_property;
  object_class->set_property = rtop_sampler_set_property;

  properties[PROP_INTERVAL] =
    g_param_spec_double ("interval", NULL, NULL,
                         RTOP_SAMPLER_MIN_INTERVAL, RTOP_SAMPLER_MAX_INTERVAL, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  rtop_source_install_properties (object_class, PROP_SOURCE_FIRST);
}

static RtopSourceProps *
sampler_get_props (RtopSource *source)
{
  return &RTOP_SAMPLER (source)->source;
}

static void
sampler_start (RtopSource *source)
{
  rtop_sampler_start (RTOP_SAMPLER (source));
}

static void
sampler_stop (RtopSource *source)
{
  rtop_sampler_stop (RTOP_SAMPLER (source));
}

static void
sampler_refresh (RtopSource *source)
{
  rtop_sampler_refresh (RTOP_SAMPLER (source));
}

static void
sampler_set_interval (RtopSource *source, double seconds)
{
  rtop_sampler_set_interval (RTOP_SAMPLER (source), seconds);
}

static void
source_iface_init (RtopSourceInterface *iface)
{
  iface->get_props = sampler_get_props;
  iface->start = sampler_start;
  iface->stop = sampler_stop;
  iface->refresh = sampler_refresh;
  iface->deliver_pending = rtop_sampler_deliver_pending;
  iface->set_interval = sampler_set_interval;
}

static void
rtop_sampler_init (RtopSampler *self)
{
  g_mutex_init (&self->lock);
  self->interval = 1.0;
  /* Translators: the local machine as a data source, beside remote hosts and recordings */
  self->source.name = g_strdup (_("This computer"));
  self->source.live = TRUE;
  self->wakeup_fd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (self->wakeup_fd < 0)
    g_error ("eventfd: %s", g_strerror (errno));
}
