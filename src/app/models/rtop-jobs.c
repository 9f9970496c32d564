/* rtop-jobs.c: the jobs on the hosts in reach (rtop-jobs.h). */
#include "config.h"

#include <glib/gi18n.h>
#include "rtop-jobs.h"
#include "rtop-port-item.h"
#include "rtop-process-item.h"
#include "rtop-text.h"

static void
rtop_job_process_free (RtopJobProcess *p)
{
  g_free (p->host);
  g_free (p->key);
  g_free (p->comm);
  g_free (p->command);
  g_free (p->user);
  g_free (p->part);
  g_free (p->devices);
  g_free (p);
}

static void
rtop_job_device_free (RtopJobDevice *d)
{
  g_free (d->host);
  g_free (d->device);
  g_array_unref (d->ports);
  g_free (d);
}

static void
rtop_job_summary_free (RtopJobSummary *job)
{
  if (job == NULL)
    return;
  g_free (job->id);
  g_free (job->key);
  g_free (job->title);
  g_clear_pointer (&job->hosts, g_ptr_array_unref);
  g_clear_pointer (&job->port_keys, g_ptr_array_unref);
  g_clear_pointer (&job->process_keys, g_ptr_array_unref);
  g_clear_pointer (&job->processes, g_ptr_array_unref);
  g_clear_pointer (&job->devices, g_ptr_array_unref);
  g_free (job);
}

char *
rtop_jobs_key_for (const RtopJob *job)
{
  const char *kind;

  if (job == NULL || job->id == NULL || (kind = rtop_job_kind_to_string (job->kind)) == NULL)
    return NULL;
  return g_strconcat (kind, "/", job->id, NULL);
}

char *
rtop_jobs_title_for (RtopJobKind kind, const char *id)
{
  g_autofree char *shortened = NULL;

  if (id == NULL)
    return NULL;
  switch (kind)
    {
    case RTOP_JOB_SLURM:
      /* Translators: a Slurm job, all of its steps */
      return g_strdup_printf (_("Slurm job %s"), id);
    case RTOP_JOB_KUBERNETES:
      /* Translators: a Kubernetes pod's UID */
      return g_strdup_printf (_("Pod %s"), id);
    case RTOP_JOB_CONTAINER:
      shortened = g_utf8_substring (id, 0, MIN (12, g_utf8_strlen (id, -1)));
      /* Translators: a Docker or Podman container's id (its first 12 characters) */
      return g_strdup_printf (_("Container %s"), shortened);
    case RTOP_JOB_SESSION:
      /* Translators: a systemd-logind session id */
      return g_strdup_printf (_("Session %s"), id);
    case RTOP_JOB_SERVICE:
    case RTOP_JOB_CGROUP:
      return g_strdup (id);
    case RTOP_JOB_NONE:
    case RTOP_JOB_N_KINDS:
    default:
      return NULL;
    }
}

const char *
rtop_jobs_kind_name (RtopJobKind kind)
{
  switch (kind)
    {
    case RTOP_JOB_SLURM:
      return _("Slurm job");
    case RTOP_JOB_KUBERNETES:
      return _("Kubernetes pod");
    case RTOP_JOB_CONTAINER:
      return _("Container");
    case RTOP_JOB_SESSION:
      return _("Login session");
    case RTOP_JOB_SERVICE:
      return _("System service");
    case RTOP_JOB_CGROUP:
      return _("Control group");
    case RTOP_JOB_NONE:
    case RTOP_JOB_N_KINDS:
    default:
      return "";
    }
}

/* The part of a job a process is in, in words: its Slurm step, its pod's
 * container, a container's runtime; NULL when the job has no parts. */
static char *
part_for (const RtopJob *job)
{
  g_autofree char *shortened = NULL;

  if (job->detail == NULL)
    return NULL;
  switch (job->kind)
    {
    case RTOP_JOB_SLURM:
      /* Translators: a Slurm job step ("0", "batch", "extern") on a job's page */
      return g_strdup_printf (_("step %s"), job->detail);
    case RTOP_JOB_KUBERNETES:
      shortened = g_utf8_substring (job->detail, 0, MIN (12, g_utf8_strlen (job->detail, -1)));
      /* Translators: a pod's container id (its first 12 characters) on a job's page */
      return g_strdup_printf (_("container %s"), shortened);
    case RTOP_JOB_CONTAINER:
      return g_strdup (job->detail);   /* the runtime: "docker", "podman" */
    case RTOP_JOB_SESSION:
    case RTOP_JOB_SERVICE:
    case RTOP_JOB_CGROUP:
    case RTOP_JOB_NONE:
    case RTOP_JOB_N_KINDS:
    default:
      return NULL;
    }
}

static void
add_unique (GPtrArray *strings, GHashTable *seen, char *string)
{
  if (g_hash_table_contains (seen, string))
    {
      g_free (string);
      return;
    }
  g_hash_table_add (seen, string);
  g_ptr_array_add (strings, string);
}

/* A job's device of one host while it is summed up. */
typedef struct {
  RtopJobDevice *device;
  guint host_index;
} DeviceOrder;

typedef struct {
  RtopJobSummary *job;
  GHashTable *ports_seen;    /* keys owned by job->port_keys (until they are sorted) */
  GHashTable *hosts_seen;
  GHashTable *devices;       /* "host index\tdevice" -> DeviceOrder */
} Building;

static void
building_free (gpointer data)
{
  Building *b = data;

  g_hash_table_unref (b->devices);
  g_hash_table_unref (b->ports_seen);
  g_hash_table_unref (b->hosts_seen);
  rtop_job_summary_free (b->job);
  g_free (b);
}

static int
compare_title (gconstpointer a, gconstpointer b)
{
  const RtopJobSummary *x = *(RtopJobSummary * const *) a;
  const RtopJobSummary *y = *(RtopJobSummary * const *) b;
  int c = rtop_natural_compare (x->title, y->title);

  return c != 0 ? c : g_strcmp0 (x->key, y->key);
}

/* Port keys are "dev/port" or "host:dev/port"; within a host, the devices'
 * natural order, then the port number. */
typedef struct {
  const char *key;
  guint host_index;
  char *device;
  guint32 port;
} PortOrder;

static int
compare_port_order (gconstpointer a, gconstpointer b)
{
  const PortOrder *x = a, *y = b;
  int c;

  if (x->host_index != y->host_index)
    return x->host_index < y->host_index ? -1 : 1;
  if ((c = rtop_natural_compare (x->device, y->device)) != 0)
    return c;
  return x->port < y->port ? -1 : x->port > y->port;
}

static void
device_order_free (DeviceOrder *o)
{
  if (o->device != NULL)
    rtop_job_device_free (o->device);
  g_free (o);
}

static int
compare_device_order (gconstpointer a, gconstpointer b)
{
  const DeviceOrder *x = *(DeviceOrder * const *) a;
  const DeviceOrder *y = *(DeviceOrder * const *) b;

  if (x->host_index != y->host_index)
    return x->host_index < y->host_index ? -1 : 1;
  return rtop_natural_compare (x->device->device, y->device->device);
}

static int
compare_guint32 (gconstpointer a, gconstpointer b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

/* The job's sums on device of host h (made when first asked for). */
static RtopJobDevice *
building_device (Building *b, guint h, const char *host, const char *device)
{
  g_autofree char *key = g_strdup_printf ("%u\t%s", h, device);
  DeviceOrder *o = g_hash_table_lookup (b->devices, key);

  if (o == NULL)
    {
      o = g_new0 (DeviceOrder, 1);
      o->host_index = h;
      o->device = g_new0 (RtopJobDevice, 1);
      o->device->host = g_strdup (host != NULL ? host : "");
      o->device->device = g_strdup (device);
      o->device->ports = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (b->devices, g_steal_pointer (&key), o);
    }
  return o->device;
}

/* One process of the job: its row, and its share of each device's sums. */
static void
building_add_process (Building *b, guint h, const char *host, const RtopProcess *proc)
{
  RtopJobProcess *p = g_new0 (RtopJobProcess, 1);
  GString *devices = g_string_new (NULL);

  p->host = g_strdup (host != NULL ? host : "");
  p->key = rtop_process_item_key_for (proc, host);
  p->pid = proc->pid;
  /* Shown as they are: escaped, as the process's own page shows them. */
  p->comm = rtop_text_make_safe (proc->comm, RTOP_TEXT_COMM_MAX);
  p->command = proc->cmdline != NULL && proc->cmdline[0] != '\0'
               ? rtop_text_make_safe (proc->cmdline, RTOP_TEXT_CMDLINE_MAX) : g_strdup (p->comm);
  p->user = rtop_text_make_safe (proc->user, RTOP_TEXT_USER_MAX);
  p->part = part_for (&proc->job);
  p->qps = proc->qps;
  p->mrs = proc->mrs;
  p->mr_bytes = proc->mr_bytes;
  for (guint d = 0; proc->devices != NULL && d < proc->devices->len; d++)
    {
      const RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, d);
      RtopJobDevice *jd;

      if (pd->device == NULL)
        continue;
      jd = building_device (b, h, host, pd->device);
      jd->qps += pd->qps;
      jd->mrs += pd->mrs;
      jd->mr_bytes += pd->mr_bytes;
      if (devices->len > 0)
        g_string_append (devices, ", ");
      g_string_append (devices, pd->device);
    }
  p->devices = g_string_free (devices, FALSE);
  g_ptr_array_add (b->job->processes, p);
  for (guint q = 0; proc->qp_list != NULL && q < proc->qp_list->len; q++)
    {
      const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, q);
      RtopJobDevice *jd;
      gboolean known = FALSE;

      if (qp->port == 0 || qp->device == NULL)
        continue;
      jd = building_device (b, h, host, qp->device);
      for (guint i = 0; !known && i < jd->ports->len; i++)
        known = g_array_index (jd->ports, guint32, i) == qp->port;
      if (!known)
        g_array_append_val (jd->ports, qp->port);
    }
}

/* The processes by host (they came host by host), then pid. */
static int
compare_process (gconstpointer a, gconstpointer b, gpointer hosts)
{
  const RtopJobProcess *x = *(RtopJobProcess * const *) a;
  const RtopJobProcess *y = *(RtopJobProcess * const *) b;
  guint hx = GPOINTER_TO_UINT (g_hash_table_lookup (hosts, x->host));
  guint hy = GPOINTER_TO_UINT (g_hash_table_lookup (hosts, y->host));

  if (hx != hy)
    return hx < hy ? -1 : 1;
  return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The devices in order, their ports ascending. */
static void
building_finish_devices (Building *b)
{
  g_autoptr(GPtrArray) order = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  /* g_hash_table_get_values_as_ptr_array() is GLib 2.76. */
  g_hash_table_iter_init (&iter, b->devices);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (order, value);
  g_ptr_array_sort (order, compare_device_order);
  for (guint i = 0; i < order->len; i++)
    {
      DeviceOrder *o = g_ptr_array_index (order, i);

      g_array_sort (o->device->ports, compare_guint32);
      g_ptr_array_add (b->job->devices, g_steal_pointer (&o->device));
    }
}

GPtrArray *
rtop_jobs_collect (RtopHistory *history)
{
  g_autoptr(GHashTable) by_key = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) building = g_ptr_array_new_with_free_func (building_free);
  g_autoptr(GHashTable) port_order = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) host_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_job_summary_free);
  guint n_hosts;

  g_return_val_if_fail (RTOP_IS_HISTORY (history), jobs);
  n_hosts = rtop_history_get_n_hosts (history);
  for (guint h = 0; h < n_hosts; h++)
    {
      const char *host = rtop_history_get_host_name (history, h);
      RtopSnapshot *snap = rtop_history_get_host_latest (history, host);

      g_hash_table_insert (host_index, g_strdup (host != NULL ? host : ""), GUINT_TO_POINTER (h));

      for (guint i = 0; snap != NULL && snap->processes != NULL && i < snap->processes->len; i++)
        {
          const RtopProcess *proc = g_ptr_array_index (snap->processes, i);
          g_autofree char *key = proc->kernel ? NULL : rtop_jobs_key_for (&proc->job);
          Building *b;

          if (key == NULL)
            continue;
          b = g_hash_table_lookup (by_key, key);
          if (b == NULL)
            {
              if (building->len >= RTOP_JOBS_MAX)
                continue;
              b = g_new0 (Building, 1);
              b->job = g_new0 (RtopJobSummary, 1);
              b->job->kind = proc->job.kind;
              b->job->id = g_strdup (proc->job.id);
              b->job->key = g_steal_pointer (&key);
              b->job->title = rtop_jobs_title_for (proc->job.kind, proc->job.id);
              b->job->hosts = g_ptr_array_new_with_free_func (g_free);
              b->job->port_keys = g_ptr_array_new_with_free_func (g_free);
              b->job->process_keys = g_ptr_array_new_with_free_func (g_free);
              b->job->processes = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_job_process_free);
              b->job->devices = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_job_device_free);
              b->devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) device_order_free);
              b->ports_seen = g_hash_table_new (g_str_hash, g_str_equal);
              b->hosts_seen = g_hash_table_new (g_str_hash, g_str_equal);
              g_hash_table_insert (by_key, b->job->key, b);
              g_ptr_array_add (building, b);
            }
          add_unique (b->job->hosts, b->hosts_seen, g_strdup (host != NULL ? host : ""));
          g_ptr_array_add (b->job->process_keys, rtop_process_item_key_for (proc, host));
          b->job->qps += proc->qps;
          b->job->mrs += proc->mrs;
          b->job->mr_bytes += proc->mr_bytes;
          building_add_process (b, h, host, proc);
          for (guint q = 0; proc->qp_list != NULL && q < proc->qp_list->len; q++)
            {
              const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, q);
              char *port_key;

              if (qp->port == 0 || qp->device == NULL)
                continue;
              port_key = rtop_port_item_key_for (host, qp->device, qp->port);
              if (!g_hash_table_contains (port_order, port_key))
                {
                  PortOrder *o = g_new0 (PortOrder, 1);

                  o->host_index = h;
                  o->port = qp->port;
                  g_hash_table_insert (port_order, port_key, o);
                  o->key = port_key;
                  /* The device's name is owned by the snapshot, which
                   * outlives this call. */
                  o->device = (char *) qp->device;
                  port_key = g_strdup (port_key);
                }
              add_unique (b->job->port_keys, b->ports_seen, port_key);
            }
        }
    }

  for (guint i = 0; i < building->len; i++)
    {
      Building *b = g_ptr_array_index (building, i);
      g_autoptr(GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (PortOrder), b->job->port_keys->len);

      for (guint p = 0; p < b->job->port_keys->len; p++)
        g_array_append_val (order, *(PortOrder *) g_hash_table_lookup (port_order, g_ptr_array_index (b->job->port_keys, p)));
      g_array_sort (order, compare_port_order);
      g_ptr_array_set_size (b->job->port_keys, 0);
      for (guint p = 0; p < order->len; p++)
        g_ptr_array_add (b->job->port_keys, g_strdup (g_array_index (order, PortOrder, p).key));
      building_finish_devices (b);
      g_ptr_array_sort_with_data (b->job->processes, compare_process, host_index);
      g_ptr_array_add (jobs, g_steal_pointer (&b->job));
    }
  g_ptr_array_sort (jobs, compare_title);
  return jobs;
}

RtopJobSummary *
rtop_jobs_find (GPtrArray *jobs, const char *key)
{
  for (guint i = 0; jobs != NULL && key != NULL && i < jobs->len; i++)
    {
      RtopJobSummary *job = g_ptr_array_index (jobs, i);

      if (g_strcmp0 (job->key, key) == 0)
        return job;
    }
  return NULL;
}

gboolean
rtop_job_summary_uses_port (const RtopJobSummary *job, const char *port_key)
{
  for (guint i = 0; job != NULL && port_key != NULL && i < job->port_keys->len; i++)
    if (g_strcmp0 (g_ptr_array_index (job->port_keys, i), port_key) == 0)
      return TRUE;
  return FALSE;
}
