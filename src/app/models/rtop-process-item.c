/* rtop-process-item.c: one process that holds RDMA resources, updated in place
 * from each snapshot. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "rtop-process-item.h"
#include "rtop-qp-item.h"
#include "rtop-text.h"

static gboolean rtop_process_item_get_device_usage (RtopProcessItem *self, const char *device, RtopProcessDevice *out);

struct _RtopProcessItem {
  GObject parent_instance;

  char *key;           /* rtop_process_item_key_for() of the process it was made for */
  char *host;
  gint32 pid;
  gboolean kernel;
  char *user;
  char *comm;
  char *cmdline;
  RtopJob job;
  char *job_text;      /* the job in words, translated; NULL when none */
  char *devices_text;
  GArray *devices;     /* RtopProcessDevice with device names owned by us */
  guint32 qps, contexts, mrs, threads;
  guint64 mr_bytes, rss_bytes;
  GListStore *qp_list;       /* RtopQpItem, as the snapshot lists them */
  guint32 qps_not_listed, qps_in_error;
};

G_DEFINE_FINAL_TYPE (RtopProcessItem, rtop_process_item, G_TYPE_OBJECT)

enum { UPDATED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
clear_device (gpointer data)
{
  g_free (((RtopProcessDevice *) data)->device);
}

static void
rtop_process_item_finalize (GObject *object)
{
  RtopProcessItem *self = RTOP_PROCESS_ITEM (object);

  g_free (self->key);
  g_free (self->host);
  g_free (self->user);
  g_free (self->comm);
  g_free (self->cmdline);
  rtop_job_clear (&self->job);
  g_free (self->job_text);
  g_free (self->devices_text);
  g_array_unref (self->devices);
  g_clear_object (&self->qp_list);
  G_OBJECT_CLASS (rtop_process_item_parent_class)->finalize (object);
}

static void
rtop_process_item_class_init (RtopProcessItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_process_item_finalize;
  signals[UPDATED] = g_signal_new ("updated", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
rtop_process_item_init (RtopProcessItem *self)
{
  self->devices = g_array_new (FALSE, TRUE, sizeof (RtopProcessDevice));
  g_array_set_clear_func (self->devices, clear_device);
  self->qp_list = g_list_store_new (RTOP_TYPE_QP_ITEM);
}

/* Rows that did not change stay (a view keeps its selection and scroll);
 * from the first difference on, the list is replaced. */
static void
update_qps (RtopProcessItem *self, const RtopProcess *process)
{
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->qp_list));
  guint n_new = process->qp_list != NULL ? process->qp_list->len : 0;
  g_autoptr(GPtrArray) fresh = NULL;
  guint same = 0;

  while (same < n_old && same < n_new)
    {
      g_autoptr(RtopQpItem) item = g_list_model_get_item (G_LIST_MODEL (self->qp_list), same);

      if (!rtop_qp_item_equals (item, &g_array_index (process->qp_list, RtopQp, same)))
        break;
      same++;
    }
  self->qps_not_listed = process->qps_not_listed;
  self->qps_in_error = process->qps_in_error;
  if (same == n_old && same == n_new)
    return;
  fresh = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = same; i < n_new; i++)
    g_ptr_array_add (fresh, rtop_qp_item_new (&g_array_index (process->qp_list, RtopQp, i)));
  g_list_store_splice (self->qp_list, same, n_old - same, fresh->pdata, fresh->len);
}

char *
rtop_process_item_key_for (const RtopProcess *process, const char *host)
{
  /* pid + start time survives pid reuse; owners outside our PID namespace
   * (pid 0) are told apart by name; the same pid on two hosts by the host. */
  return g_strdup_printf ("%s%s%d:%" G_GUINT64_FORMAT ":%d:%s", host ? host : "",
                          host ? "@" : "", process->pid,
                          process->start_time, process->kernel,
                          process->comm ? process->comm : "");
}

RtopProcessItem *
rtop_process_item_new (const RtopProcess *process, const char *host)
{
  RtopProcessItem *self = g_object_new (RTOP_TYPE_PROCESS_ITEM, NULL);

  self->key = rtop_process_item_key_for (process, host);
  self->host = g_strdup (host);
  rtop_process_item_update (self, process);
  return self;
}

const char *
rtop_process_item_get_host (RtopProcessItem *self)
{
  g_return_val_if_fail (RTOP_IS_PROCESS_ITEM (self), NULL);
  return self->host;
}

const char *
rtop_process_item_get_key (RtopProcessItem *self)
{
  g_return_val_if_fail (RTOP_IS_PROCESS_ITEM (self), NULL);
  return self->key;
}

static void
copy_devices (RtopProcessItem *self, GArray *devices)
{
  GString *text = g_string_new (NULL);

  g_array_set_size (self->devices, 0);
  for (guint i = 0; devices && i < devices->len; i++)
    {
      RtopProcessDevice d = g_array_index (devices, RtopProcessDevice, i);

      d.device = g_strdup (d.device);
      g_array_append_val (self->devices, d);
      if (text->len > 0)
        g_string_append (text, ", ");
      g_string_append (text, d.device ? d.device : "?");
    }
  g_free (self->devices_text);
  self->devices_text = g_string_free (text, FALSE);
}

/* A container id as docker ps shows it: its first twelve characters. */
static char *
short_id (const char *id)
{
  return id != NULL ? g_utf8_substring (id, 0, MIN (12, g_utf8_strlen (id, -1))) : NULL;
}

/* The job in words.  Its parts are already safe (rtop_job_set). */
static char *
job_text (const RtopJob *job)
{
  g_autofree char *shortened = NULL;

  switch (job->kind)
    {
    case RTOP_JOB_SLURM:
      if (job->detail != NULL)
        /* Translators: a Slurm job id and its step ("0", "batch", "extern") */
        return g_strdup_printf (_("Slurm job %s, step %s"), job->id, job->detail);
      return g_strdup_printf (_("Slurm job %s"), job->id);
    case RTOP_JOB_KUBERNETES:
      if (job->detail == NULL)
        /* Translators: %s is a Kubernetes pod's UID */
        return g_strdup_printf (_("Pod %s"), job->id);
      shortened = short_id (job->detail);
      /* Translators: a Kubernetes pod's UID and a container id */
      return g_strdup_printf (_("Pod %s, container %s"), job->id, shortened);
    case RTOP_JOB_CONTAINER:
      shortened = short_id (job->id);
      /* Translators: a container runtime ("docker", "podman") and a container id */
      return g_strdup_printf (_("%s container %s"), job->detail ? job->detail : "", shortened);
    case RTOP_JOB_SESSION:
      /* Translators: a systemd-logind session id and the user's uid */
      return g_strdup_printf (_("Session %s of uid %s"), job->id, job->detail ? job->detail : "?");
    case RTOP_JOB_SERVICE:
    case RTOP_JOB_CGROUP:
      return g_strdup (job->id);
    case RTOP_JOB_NONE:
    case RTOP_JOB_N_KINDS:
    default:
      return NULL;
    }
}

void
rtop_process_item_update (RtopProcessItem *self, const RtopProcess *process)
{
  g_return_if_fail (RTOP_IS_PROCESS_ITEM (self));

  self->pid = process->pid;
  self->kernel = process->kernel;
  g_free (self->user);
  /* Labels show bidirectional overrides and control characters as they
   * are: only the escaped form reaches the window. */
  self->user = rtop_text_make_safe (process->user, RTOP_TEXT_USER_MAX);
  g_free (self->comm);
  self->comm = rtop_text_make_safe (process->comm, RTOP_TEXT_COMM_MAX);
  g_free (self->cmdline);
  self->cmdline = process->cmdline && *process->cmdline
                    ? rtop_text_make_safe (process->cmdline, RTOP_TEXT_CMDLINE_MAX)
                    : NULL;
  if (self->job_text == NULL || !rtop_job_equal (&self->job, &process->job))
    {
      rtop_job_set (&self->job, process->job.kind, process->job.id, process->job.detail);
      g_free (self->job_text);
      self->job_text = job_text (&self->job);
    }
  self->qps = process->qps;
  self->contexts = process->contexts;
  self->mrs = process->mrs;
  self->mr_bytes = process->mr_bytes;
  self->rss_bytes = process->rss_bytes;
  self->threads = process->threads;
  copy_devices (self, process->devices);
  update_qps (self, process);
  g_signal_emit (self, signals[UPDATED], 0);
}

gint32
rtop_process_item_get_pid (RtopProcessItem *self)
{
  return self->pid;
}

gboolean
rtop_process_item_get_kernel (RtopProcessItem *self)
{
  return self->kernel;
}

const char *
rtop_process_item_get_user (RtopProcessItem *self)
{
  return self->user;
}

const char *
rtop_process_item_get_comm (RtopProcessItem *self)
{
  return self->comm;
}

const char *
rtop_process_item_get_command (RtopProcessItem *self)
{
  return self->cmdline ? self->cmdline : self->comm;
}

const char *
rtop_process_item_get_job_text (RtopProcessItem *self)
{
  return self->job_text;
}

const RtopJob *
rtop_process_item_get_job (RtopProcessItem *self)
{
  g_return_val_if_fail (RTOP_IS_PROCESS_ITEM (self), NULL);
  return &self->job;
}

const char *
rtop_process_item_get_devices (RtopProcessItem *self)
{
  return self->devices_text;
}

static gboolean
rtop_process_item_get_device_usage (RtopProcessItem *self, const char *device,
                                    RtopProcessDevice *out)
{
  for (guint i = 0; i < self->devices->len; i++)
    {
      RtopProcessDevice *d = &g_array_index (self->devices, RtopProcessDevice, i);

      if (g_strcmp0 (d->device, device) == 0)
        {
          if (out)
            *out = *d;
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
rtop_process_item_uses_device (RtopProcessItem *self, const char *device)
{
  return rtop_process_item_get_device_usage (self, device, NULL);
}

guint32
rtop_process_item_get_qps (RtopProcessItem *self)
{
  return self->qps;
}

guint32
rtop_process_item_get_contexts (RtopProcessItem *self)
{
  return self->contexts;
}

guint32
rtop_process_item_get_mrs (RtopProcessItem *self)
{
  return self->mrs;
}

guint64
rtop_process_item_get_mr_bytes (RtopProcessItem *self)
{
  return self->mr_bytes;
}

guint64
rtop_process_item_get_rss_bytes (RtopProcessItem *self)
{
  return self->rss_bytes;
}

guint32
rtop_process_item_get_threads (RtopProcessItem *self)
{
  return self->threads;
}

GListModel *
rtop_process_item_get_qp_list (RtopProcessItem *self)
{
  return G_LIST_MODEL (self->qp_list);
}

guint32
rtop_process_item_get_qps_not_listed (RtopProcessItem *self)
{
  return self->qps_not_listed;
}

guint32
rtop_process_item_get_qps_in_error (RtopProcessItem *self)
{
  return self->qps_in_error;
}

guint32
rtop_process_item_get_qps_on (RtopProcessItem *self, const char *device)
{
  RtopProcessDevice usage;

  return rtop_process_item_get_device_usage (self, device, &usage) ? usage.qps : 0;
}
