/* rtop-capture.c: chosen ports' counters at a fixed period on a thread.
 *
 * One full collector pass at creation finds the ports (and leaves the
 * collector holding their open counter files and reply templates); from
 * then on each pass is rtop_collector_read_port_counters() per port.  The
 * thread asks for 1 ns of timer slack so that a 1 ms deadline is not
 * rounded by the default 50 us.  Samples are fixed-size records in a ring;
 * names are interned once, so a sample costs no allocation. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "rtop-capture.h"
#include "rtop-error.h"
#include "rtop-providers.h"

#define NS_PER_S G_GINT64_CONSTANT (1000000000)
/* A stop request is seen within this, however long the interval. */
#define MAX_SLEEP_NS (50 * G_GINT64_CONSTANT (1000000))
/* Passes between readings of the thread's CPU time. */
#define CPU_EVERY 64
/* Distinct counter names kept: far more than any driver has. */
#define MAX_NAMES 4096
/* Interval histogram: exact microseconds below 64, then 32 steps per
 * power of two (each within 1/32 of its value) up to 2^36 us. */
#define HIST_LINEAR 64
#define HIST_STEPS 32
#define HIST_TOP_BIT 36
#define HIST_N (HIST_LINEAR + (HIST_TOP_BIT - 5) * HIST_STEPS)

/* A port captured, and the device and port as the first pass saw them
 * (in first). */
typedef struct {
  char *device;
  guint32 port;
  const RtopDevice *dev;
  const RtopPort *facts;
} PortSlot;

#define MAX_SLOTS G_MAXUINT16

typedef struct {
  gint64 realtime_ns;
  gint64 monotonic_ns;
  guint64 value;
  guint16 slot;
  guint16 source;            /* RtopCounterSource */
  guint32 name;
} Record;

struct _RtopCapture {
  RtopCollector *collector;  /* the thread's alone once started */
  RtopSnapshot *first;       /* the full pass that found the ports */
  guint64 sequence;          /* of the snapshots read */
  gint64 interval_ns;
  GArray *slots;             /* PortSlot: the ports read, in order */
  GHashTable *wanted;        /* counter names to keep, or NULL: all */
  GHashTable *name_ids;      /* thread only: name -> id + 1 */
  GPtrArray *names;          /* char*, by id; only appended to (under lock) */
  GArray *scratch;           /* thread only: this pass's records */
  RtopTracks *tracks;        /* not owned: fed each pass instead of the ring */
  GArray *fed;               /* thread only: RtopTrackSample for tracks */
  guint64 *synthetic;        /* n_slots * n_synthetic counter values, or NULL */
  guint n_synthetic;         /* counters of a synthetic port */
  GThread *thread;
  gint stopping;             /* atomic */

  GMutex lock;               /* guards what follows, and names */
  Record *ring;
  guint capacity, head, count;
  RtopCaptureStats stats;
  guint32 hist[HIST_N];
  gint64 last_start_ns;
  double interval_sum_ns;
  char *last_error;
};

static gint64
clock_ns (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return (gint64) ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

gboolean
rtop_capture_check_interval (gint64 interval_ns, GError **error)
{
  if (interval_ns >= RTOP_CAPTURE_MIN_INTERVAL_NS && interval_ns <= RTOP_CAPTURE_MAX_INTERVAL_NS)
    return TRUE;
  char value[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (value, sizeof value, "%g", interval_ns / 1e9);
  g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
               _("The interval must be a number of seconds from %g to %g, not “%s”"),
               RTOP_CAPTURE_MIN_INTERVAL_NS / 1e9, RTOP_CAPTURE_MAX_INTERVAL_NS / 1e9, value);
  return FALSE;
}

/* ---- Interval statistics ---- */

static guint
hist_index (gint64 ns)
{
  guint64 us = (guint64) MAX (ns, 0) / 1000;
  guint bit;

  if (us < HIST_LINEAR)
    return (guint) us;
  us = MIN (us, (G_GUINT64_CONSTANT (1) << HIST_TOP_BIT) - 1);
  bit = 63 - (guint) __builtin_clzll (us);
  return HIST_LINEAR + (bit - 6) * HIST_STEPS + (guint) ((us >> (bit - 5)) - HIST_STEPS);
}

/* The middle of a bucket, in ns. */
static gint64
hist_value (guint index)
{
  guint bit, step;

  if (index < HIST_LINEAR)
    return (gint64) index * 1000 + 500;
  bit = 6 + (index - HIST_LINEAR) / HIST_STEPS;
  step = HIST_STEPS + (index - HIST_LINEAR) % HIST_STEPS;
  return ((gint64) step << (bit - 5)) * 1000 + ((gint64) 1 << (bit - 5)) * 500;
}

static gint64
hist_quantile (const guint32 *hist, guint64 n, double q)
{
  guint64 rank = (guint64) (q * (double) (n - 1)), seen = 0;

  for (guint i = 0; i < HIST_N; i++)
    {
      seen += hist[i];
      if (seen > rank)
        return hist_value (i);
    }
  return 0;
}

/* Under lock. */
static void
account_interval (RtopCapture *self, gint64 start_ns)
{
  RtopCaptureStats *st = &self->stats;
  gint64 d;

  if (self->last_start_ns != 0)
    {
      d = start_ns - self->last_start_ns;
      if (st->intervals == 0 || d < st->interval_min_ns)
        st->interval_min_ns = d;
      if (st->intervals == 0 || d > st->interval_max_ns)
        st->interval_max_ns = d;
      st->intervals++;
      self->interval_sum_ns += (double) d;
      self->hist[hist_index (d)]++;
    }
  self->last_start_ns = start_ns;
}

/* ---- The pass ---- */

typedef struct {
  RtopCapture *self;
  guint32 slot;
  gint64 realtime_ns, monotonic_ns;
} PassRead;

static guint32
intern (RtopCapture *self, const char *name)
{
  gpointer id = g_hash_table_lookup (self->name_ids, name);
  char *copy;

  if (id != NULL)
    return GPOINTER_TO_UINT (id) - 1;
  if (self->names->len >= MAX_NAMES)
    return G_MAXUINT32;
  copy = g_strdup (name);
  g_mutex_lock (&self->lock);
  g_ptr_array_add (self->names, copy);
  g_mutex_unlock (&self->lock);
  g_hash_table_insert (self->name_ids, copy, GUINT_TO_POINTER (self->names->len));
  return self->names->len - 1;
}

static void
counter_cb (const char *name, guint64 value, RtopCounterSource source, gpointer user_data)
{
  PassRead *pr = user_data;
  RtopCapture *self = pr->self;
  Record rec = { pr->realtime_ns, pr->monotonic_ns, value, (guint16) pr->slot, (guint16) source, 0 };

  if (self->wanted != NULL && !g_hash_table_contains (self->wanted, name))
    return;
  rec.name = intern (self, name);
  if (rec.name != G_MAXUINT32)
    g_array_append_val (self->scratch, rec);
}

/* Reads every port into scratch; a port that fails leaves nothing of it. */
static void
read_ports (RtopCapture *self, char **error_message, guint *n_errors)
{
  for (guint i = 0; i < self->slots->len; i++)
    {
      const PortSlot *ps = &g_array_index (self->slots, PortSlot, i);
      g_autoptr(GError) error = NULL;
      PassRead pr = { self, i, clock_ns (CLOCK_REALTIME), clock_ns (CLOCK_MONOTONIC) };
      guint before = self->scratch->len;

      if (!rtop_collector_read_port_counters (self->collector, ps->device, ps->port,
                                              counter_cb, &pr, &error))
        {
          g_array_set_size (self->scratch, before);
          g_free (*error_message);
          *error_message = g_strdup (error->message);
          (*n_errors)++;
        }
    }
}

/* Whole passes or nothing: a pass that does not fit is dropped. */
static void
store_pass (RtopCapture *self, gint64 start_ns, char *error_message, guint n_errors)
{
  guint n = self->scratch->len;
  RtopCaptureStats *st;

  g_mutex_lock (&self->lock);
  st = &self->stats;
  st->taken++;
  st->read_errors += n_errors;
  if (error_message != NULL)
    {
      g_free (self->last_error);
      self->last_error = error_message;
    }
  account_interval (self, start_ns);
  if (self->tracks != NULL)
    st->samples += n;
  else if (self->count + n > self->capacity)
    {
      st->dropped++;
      st->dropped_samples += n;
    }
  else
    for (guint i = 0; i < n; i++)
      {
        self->ring[(self->head + self->count) % self->capacity] =
          g_array_index (self->scratch, Record, i);
        self->count++;
        st->samples++;
      }
  g_mutex_unlock (&self->lock);
}

/* A system call where the clock has no vDSO path: not every pass. */
static void
account_cpu (RtopCapture *self)
{
  gint64 cpu = clock_ns (CLOCK_THREAD_CPUTIME_ID);

  g_mutex_lock (&self->lock);
  self->stats.cpu_ns = cpu;
  g_mutex_unlock (&self->lock);
}

/* The pass's records as samples, into the tracks (their own lock). */
static void
feed_tracks (RtopCapture *self)
{
  g_array_set_size (self->fed, self->scratch->len);
  for (guint i = 0; i < self->scratch->len; i++)
    {
      const Record *rec = &g_array_index (self->scratch, Record, i);
      const PortSlot *ps = &g_array_index (self->slots, PortSlot, rec->slot);

      g_array_index (self->fed, RtopTrackSample, i) = (RtopTrackSample) {
        rec->realtime_ns, rec->monotonic_ns, ps->device, ps->port,
        g_ptr_array_index (self->names, rec->name), rec->value,
      };
    }
  rtop_tracks_feed (self->tracks, (RtopTrackSample *) (void *) self->fed->data, self->fed->len);
}

static void synthesize_ports (RtopCapture *self);

static void
run_pass (RtopCapture *self)
{
  gint64 start_ns = clock_ns (CLOCK_MONOTONIC);
  char *error_message = NULL;
  guint n_errors = 0;

  g_array_set_size (self->scratch, 0);
  if (self->synthetic != NULL)
    synthesize_ports (self);
  else
    read_ports (self, &error_message, &n_errors);
  store_pass (self, start_ns, error_message, n_errors);
  if (self->tracks != NULL)
    feed_tracks (self);
}

/* FALSE when asked to stop first. */
static gboolean
sleep_until (RtopCapture *self, gint64 deadline_ns)
{
  while (!g_atomic_int_get (&self->stopping))
    {
      gint64 now = clock_ns (CLOCK_MONOTONIC);
      gint64 target = MIN (deadline_ns, now + MAX_SLEEP_NS);
      struct timespec ts = { target / NS_PER_S, target % NS_PER_S };

      if (now >= deadline_ns)
        return TRUE;
      clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
  return FALSE;
}

static gpointer
capture_thread (gpointer data)
{
  RtopCapture *self = data;
  gint64 t0 = clock_ns (CLOCK_MONOTONIC);
  guint64 k = 0;

  prctl (PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  while (sleep_until (self, t0 + (gint64) k * self->interval_ns))
    {
      guint64 next;
      gint64 now;

      run_pass (self);
      if (k % CPU_EVERY == 0)
        account_cpu (self);
      /* The first deadline still ahead; the ones passed are missed. */
      now = clock_ns (CLOCK_MONOTONIC);
      next = (guint64) ((now - t0) / self->interval_ns) + 1;
      next = MAX (next, k + 1);
      if (next > k + 1)
        {
          g_mutex_lock (&self->lock);
          self->stats.missed += next - (k + 1);
          g_mutex_unlock (&self->lock);
        }
      k = next;
    }
  account_cpu (self);
  return NULL;
}

/* ---- Choosing the ports ---- */

static gboolean
counter_is_direct (const RtopCounter *c)
{
  return c->source == RTOP_COUNTER_SOURCE_NETLINK || c->source == RTOP_COUNTER_SOURCE_SYSFS_PORT ||
         c->source == RTOP_COUNTER_SOURCE_SYSFS_HW;
}

static gboolean
port_wanted (const RtopCaptureOptions *o, guint32 port)
{
  if (o->ports == NULL)
    return TRUE;
  for (guint i = 0; i < o->n_ports; i++)
    if (o->ports[i] == port)
      return TRUE;
  return FALSE;
}

static gboolean
check_snapshot (const RtopSnapshot *snap, const RtopCaptureOptions *o, GError **error)
{
  if (snap->status != RTOP_STATUS_OK)
    {
      RtopErrorCode code = snap->status == RTOP_STATUS_NO_NETLINK ? RTOP_ERROR_NO_NETLINK
                         : snap->status == RTOP_STATUS_PERMISSION ? RTOP_ERROR_PERMISSION
                         : RTOP_ERROR_FAILED;

      g_set_error_literal (error, RTOP_ERROR, code,
                           snap->status_message ? snap->status_message
                                                : _("RDMA netlink is not available."));
      return FALSE;
    }
  for (guint i = 0; o->devices != NULL && o->devices[i] != NULL; i++)
    {
      const RtopDevice *dev = rtop_snapshot_find_device (snap, o->devices[i]);

      if (dev == NULL || dev->kind != RTOP_DEVICE_KIND_RDMA)
        {
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                       _("no RDMA device named “%s” (see “rdma dev”)"), o->devices[i]);
          return FALSE;
        }
      for (guint j = 0; j < o->n_ports && o->ports != NULL; j++)
        if (rtop_device_find_port (dev, o->ports[j]) == NULL)
          {
            g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                         _("The RDMA device “%s” has no port %u"), dev->name, o->ports[j]);
            return FALSE;
          }
    }
  return TRUE;
}

static void
add_slots (RtopCapture *self, const RtopSnapshot *snap, const RtopCaptureOptions *o,
           GHashTable *seen, GHashTable *ports_seen)
{
  for (guint i = 0; i < snap->devices->len; i++)
    {
      const RtopDevice *dev = g_ptr_array_index (snap->devices, i);

      if (dev->kind != RTOP_DEVICE_KIND_RDMA)
        continue;
      for (guint j = 0; j < dev->ports->len; j++)
        {
          const RtopPort *port = g_ptr_array_index (dev->ports, j);
          PortSlot ps = { g_strdup (dev->name), port->index, dev, port };

          if (!port_wanted (o, port->index))
            {
              g_free (ps.device);
              continue;
            }
          g_array_append_val (self->slots, ps);
          g_hash_table_add (ports_seen, GUINT_TO_POINTER (port->index));
          for (guint c = 0; c < port->counters->len; c++)
            {
              const RtopCounter *counter = g_ptr_array_index (port->counters, c);

              if (counter_is_direct (counter))
                g_hash_table_add (seen, counter->name);
            }
        }
    }
}

static gboolean
choose (RtopCapture *self, const RtopSnapshot *snap, const RtopCaptureOptions *o, GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) ports_seen = g_hash_table_new (NULL, NULL);

  if (!check_snapshot (snap, o, error))
    return FALSE;
  add_slots (self, snap, o, seen, ports_seen);
  for (guint i = 0; o->ports != NULL && i < o->n_ports; i++)
    if (!g_hash_table_contains (ports_seen, GUINT_TO_POINTER (o->ports[i])))
      {
        g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                     _("No RDMA device captured has a port %u"), o->ports[i]);
        return FALSE;
      }
  if (self->slots->len > MAX_SLOTS)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("A capture reads at most %u ports; choose devices or ports"), MAX_SLOTS);
      return FALSE;
    }
  if (self->slots->len == 0)
    {
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                           _("There is no RDMA port to capture."));
      return FALSE;
    }
  for (guint i = 0; o->counters != NULL && o->counters[i] != NULL; i++)
    {
      if (!g_hash_table_contains (seen, o->counters[i]))
        {
          g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE,
                       _("No port captured has a counter named “%s”"), o->counters[i]);
          return FALSE;
        }
      if (self->wanted == NULL)
        self->wanted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_hash_table_add (self->wanted, g_strdup (o->counters[i]));
    }
  return TRUE;
}

/* ---- Life ---- */

static void
port_slot_clear (gpointer data)
{
  g_free (((PortSlot *) data)->device);
}

/* An empty capture checked against interval_ns and capacity, or NULL. */
static RtopCapture *
capture_alloc (gint64 interval_ns, guint capacity, GError **error)
{
  g_autoptr(RtopCapture) self = g_new0 (RtopCapture, 1);

  g_mutex_init (&self->lock);
  self->slots = g_array_new (FALSE, TRUE, sizeof (PortSlot));
  g_array_set_clear_func (self->slots, port_slot_clear);
  self->names = g_ptr_array_new_with_free_func (g_free);
  self->name_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->scratch = g_array_new (FALSE, FALSE, sizeof (Record));
  self->fed = g_array_new (FALSE, FALSE, sizeof (RtopTrackSample));
  if (!rtop_capture_check_interval (interval_ns, error))
    return NULL;
  if (capacity > RTOP_CAPTURE_MAX_CAPACITY)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("A capture keeps at most %u samples, not %u"),
                   RTOP_CAPTURE_MAX_CAPACITY, capacity);
      return NULL;
    }
  self->interval_ns = interval_ns;
  self->capacity = capacity ? capacity : RTOP_CAPTURE_DEFAULT_CAPACITY;
  return g_steal_pointer (&self);
}

RtopCapture *
rtop_capture_new (RtopCollector *collector, const RtopCaptureOptions *options, GError **error)
{
  g_autoptr(RtopCapture) self = capture_alloc (options->interval_ns, options->capacity, error);

  if (self == NULL)
    {
      rtop_collector_free (collector);
      return NULL;
    }
  self->collector = collector;
  self->first = rtop_collector_sample (collector, 0);
  if (!choose (self, self->first, options, error))
    return NULL;
  self->ring = g_new (Record, self->capacity);
  return g_steal_pointer (&self);
}

/* ---- Synthetic captures ---- */

/* Counter names of a Soft-RoCE port, then numbered ones. */
static const char *const synthetic_names[] = {
  "sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err",
  "send_rnr_err", "rcvd_seq_err", "ack_deferred", "retry_exceeded_err",
  "retry_rnr_exceeded_err", "completer_retry_err", "send_err", "link_downed",
  "rdma_sends", "rdma_recvs",
};

RtopCapture *
rtop_capture_new_synthetic (guint n_ports, guint n_counters, gint64 interval_ns,
                            guint capacity, GError **error)
{
  g_autoptr(RtopCapture) self = NULL;

  if (n_ports < 1 || n_ports > RTOP_CAPTURE_MAX_SYNTHETIC
      || n_counters < 1 || n_counters > RTOP_CAPTURE_MAX_SYNTHETIC)
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                   _("A synthetic capture has 1 to %u ports and 1 to %u counters, not %u and %u"),
                   RTOP_CAPTURE_MAX_SYNTHETIC, RTOP_CAPTURE_MAX_SYNTHETIC, n_ports, n_counters);
      return NULL;
    }
  self = capture_alloc (interval_ns, capacity, error);
  if (self == NULL)
    return NULL;
  for (guint p = 0; p < n_ports; p++)
    g_array_append_vals (self->slots, &(PortSlot) { g_strdup ("synth0"), p + 1, NULL, NULL }, 1);
  for (guint c = 0; c < n_counters; c++)
    {
      g_autofree char *numbered = g_strdup_printf ("counter_%u", c);
      intern (self, c < G_N_ELEMENTS (synthetic_names) ? synthetic_names[c] : numbered);
    }
  self->n_synthetic = n_counters;
  self->synthetic = g_new0 (guint64, (gsize) n_ports * n_counters);
  self->ring = g_new (Record, self->capacity);
  return g_steal_pointer (&self);
}

/* One pass of made-up counters: every third idle, the others counting
 * by a step that changes every pass, like traffic read at 1 ms. */
static void
synthesize_ports (RtopCapture *self)
{
  guint64 k = self->stats.taken;  /* written only by this thread */

  for (guint slot = 0; slot < self->slots->len; slot++)
    {
      gint64 real = clock_ns (CLOCK_REALTIME), mono = clock_ns (CLOCK_MONOTONIC);

      for (guint c = 0; c < self->n_synthetic; c++)
        {
          guint64 *v = &self->synthetic[(gsize) slot * self->n_synthetic + c];
          Record rec = { real, mono, 0, (guint16) slot, RTOP_COUNTER_SOURCE_NETLINK, c };

          if (c % 3 != 2)
            *v += (guint64) (slot + 1) * (c + 1) * (1 + (k + slot + c) % 5);
          rec.value = *v;
          g_array_append_val (self->scratch, rec);
        }
    }
}

gboolean
rtop_capture_set_tracks (RtopCapture *self, RtopTracks *tracks, GError **error)
{
  if (self->thread != NULL || g_atomic_int_get (&self->stopping))
    {
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                           _("Tracks are given to a capture before it starts."));
      return FALSE;
    }
  self->tracks = tracks;
  /* Nothing waits to be read any more: the ring is not needed (count
   * stays 0, so nothing indexes it). */
  g_clear_pointer (&self->ring, g_free);
  return TRUE;
}

gboolean
rtop_capture_start (RtopCapture *self, GError **error)
{
  if (self->thread != NULL || g_atomic_int_get (&self->stopping))
    {
      g_set_error_literal (error, RTOP_ERROR, RTOP_ERROR_INVALID_ARGUMENT,
                           _("A capture can be started only once."));
      return FALSE;
    }
  self->thread = g_thread_try_new ("rdmatop-capture", capture_thread, self, error);
  return self->thread != NULL;
}

void
rtop_capture_stop (RtopCapture *self)
{
  g_atomic_int_set (&self->stopping, 1);
  if (self->thread != NULL)
    g_thread_join (g_steal_pointer (&self->thread));
}

gsize
rtop_capture_read (RtopCapture *self, RtopCaptureSample *out, gsize n)
{
  gsize i;

  g_mutex_lock (&self->lock);
  for (i = 0; i < n && self->count > 0; i++)
    {
      const Record *rec = &self->ring[self->head];
      const PortSlot *ps = &g_array_index (self->slots, PortSlot, rec->slot);

      out[i] = (RtopCaptureSample) {
        rec->realtime_ns, rec->monotonic_ns, ps->device, ps->port,
        g_ptr_array_index (self->names, rec->name), rec->value,
      };
      self->head = (self->head + 1) % self->capacity;
      self->count--;
    }
  g_mutex_unlock (&self->lock);
  return i;
}

/* ---- Passes as snapshots ---- */

/* Whether rec starts another port read than prev's, and another pass:
 * within a pass the ports come in slot order, each read once. */
static gboolean
starts_pass (const Record *prev, const Record *rec)
{
  return prev == NULL || rec->slot < prev->slot ||
         (rec->slot == prev->slot && rec->monotonic_ns != prev->monotonic_ns);
}

static gboolean
starts_port (const Record *prev, const Record *rec)
{
  return prev == NULL || rec->slot != prev->slot || rec->monotonic_ns != prev->monotonic_ns;
}

/* Under lock: the records of up to max whole passes, taken from the ring. */
static GArray *
take_passes (RtopCapture *self, guint max)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Record));
  const Record *prev = NULL;
  guint passes = 0;

  while (self->count > 0)
    {
      const Record *rec = &self->ring[self->head];

      if (starts_pass (prev, rec) && passes++ == max)
        break;
      g_array_append_val (out, *rec);
      prev = &g_array_index (out, Record, out->len - 1);
      self->head = (self->head + 1) % self->capacity;
      self->count--;
    }
  return out;
}

static RtopDevice *
device_like (RtopSnapshot *snap, const RtopDevice *facts)
{
  RtopDevice *dev = snap->devices->len > 0 ? g_ptr_array_index (snap->devices, snap->devices->len - 1)
                                           : NULL;

  if (dev != NULL && strcmp (dev->name, facts->name) == 0)
    return dev;
  dev = rtop_device_new (facts->index, facts->name);
  dev->provider = g_strdup (facts->provider);
  dev->node_type = g_strdup (facts->node_type);
  dev->fw_version = g_strdup (facts->fw_version);
  dev->node_guid = g_strdup (facts->node_guid);
  dev->protocol = g_strdup (facts->protocol);
  dev->port_count = facts->port_count;
  dev->kind = facts->kind;
  g_ptr_array_add (snap->devices, dev);
  return dev;
}

static RtopPort *
port_like (const RtopPort *facts, const Record *rec)
{
  RtopPort *port = rtop_port_new (facts->index);

  port->state = facts->state;
  port->phys_state = facts->phys_state;
  port->netdev = g_strdup (facts->netdev);
  port->netdev_index = facts->netdev_index;
  port->link_layer = g_strdup (facts->link_layer);
  port->rate_text = g_strdup (facts->rate_text);
  port->rate_gbps = facts->rate_gbps;
  port->read_time_us = rec->monotonic_ns / 1000;
  return port;
}

/* Rates and metrics as the collector computes them, over the port's own
 * read times. */
static void
finish_port (RtopDevice *dev, RtopPort *port, RtopRates *rates)
{
  if (port == NULL)
    return;
  rtop_counters_sort (port->counters);
  port->elapsed_s = rtop_rates_update (rates, dev->name, dev->index, port->index,
                                       port->read_time_us, port->counters, NULL);
  rtop_provider_apply (dev->provider, port);
  g_ptr_array_add (dev->ports, port);
}

static RtopSnapshot *
snapshot_begin (RtopCapture *self, const Record *rec, RtopRates *rates)
{
  RtopSnapshot *snap = rtop_snapshot_new ();

  snap->sequence = ++self->sequence;
  snap->monotonic_us = rec->monotonic_ns / 1000;
  snap->realtime_us = rec->realtime_ns / 1000;
  snap->interval_s = self->interval_ns / 1e9;
  rtop_rates_begin_pass (rates);
  return snap;
}

static void
snapshot_end (RtopSnapshot *snap, RtopDevice *dev, RtopPort *port, RtopRates *rates,
              GPtrArray *out)
{
  finish_port (dev, port, rates);
  rtop_rates_end_pass (rates);
  rtop_snapshot_seal (snap);
  g_ptr_array_add (out, snap);
}

GPtrArray *
rtop_capture_read_snapshots (RtopCapture *self, RtopRates *rates, guint max)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  g_autoptr(GArray) recs = NULL;
  RtopSnapshot *snap = NULL;
  RtopDevice *dev = NULL;
  RtopPort *port = NULL;
  const Record *prev = NULL;

  if (self->first == NULL)  /* a synthetic capture has no device facts */
    return out;

  g_mutex_lock (&self->lock);
  recs = take_passes (self, max);
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < recs->len; prev = &g_array_index (recs, Record, i), i++)
    {
      const Record *rec = &g_array_index (recs, Record, i);
      const PortSlot *ps = &g_array_index (self->slots, PortSlot, rec->slot);

      if (starts_pass (prev, rec))
        {
          if (snap != NULL)
            snapshot_end (snap, dev, port, rates, out);
          snap = snapshot_begin (self, rec, rates);
          port = NULL;
        }
      if (starts_port (prev, rec))
        {
          if (port != NULL)
            finish_port (dev, port, rates);
          dev = device_like (snap, ps->dev);
          port = port_like (ps->facts, rec);
        }
      g_ptr_array_add (port->counters,
                       rtop_counter_new (g_ptr_array_index (self->names, rec->name), rec->value,
                                         (RtopCounterSource) rec->source));
    }
  if (snap != NULL)
    snapshot_end (snap, dev, port, rates, out);
  return out;
}

void
rtop_capture_get_stats (RtopCapture *self, RtopCaptureStats *out)
{
  g_mutex_lock (&self->lock);
  *out = self->stats;
  if (out->intervals > 0)
    {
      out->interval_mean_ns = self->interval_sum_ns / (double) out->intervals;
      out->interval_median_ns = hist_quantile (self->hist, out->intervals, 0.5);
      out->interval_p99_ns = hist_quantile (self->hist, out->intervals, 0.99);
    }
  g_mutex_unlock (&self->lock);
}

char *
rtop_capture_dup_last_error (RtopCapture *self)
{
  char *copy;

  g_mutex_lock (&self->lock);
  copy = g_strdup (self->last_error);
  g_mutex_unlock (&self->lock);
  return copy;
}

void
rtop_capture_free (RtopCapture *self)
{
  if (self == NULL)
    return;
  rtop_capture_stop (self);
  rtop_collector_free (self->collector);
  g_array_unref (self->slots);
  g_clear_pointer (&self->first, rtop_snapshot_unref);
  g_clear_pointer (&self->wanted, g_hash_table_unref);
  g_hash_table_unref (self->name_ids);
  g_ptr_array_unref (self->names);
  g_array_unref (self->scratch);
  g_array_unref (self->fed);
  g_free (self->synthetic);
  g_free (self->ring);
  g_free (self->last_error);
  g_mutex_clear (&self->lock);
  g_free (self);
}
