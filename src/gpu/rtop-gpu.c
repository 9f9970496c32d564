/* rtop-gpu.c: the table of GPU libraries, loading them, reading each
 * pass into GPU devices, and the "why nothing is shown" sentence.
 *
 * A library that is not installed is looked for again now and then (a
 * driver may be installed while rdmatop runs); one that failed to start is
 * tried again after a short wait, so a pass never pays for it twice in a
 * row. */
#include "config.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "rtop-gpu.h"

#define RETRY_ABSENT_US (60 * G_USEC_PER_SEC)
#define RETRY_FAILED_US (10 * G_USEC_PER_SEC)

/* Each library's file lives in its own source file. */
gpointer rtop_gpu_nvml_open (void *handle, GError **error);
void rtop_gpu_nvml_close (gpointer state);
gboolean rtop_gpu_nvml_read (gpointer state, GPtrArray *devices, GError **error);
gpointer rtop_gpu_amdsmi_open (void *handle, GError **error);
void rtop_gpu_amdsmi_close (gpointer state);
gboolean rtop_gpu_amdsmi_read (gpointer state, GPtrArray *devices, GError **error);

static const char *
nvml_absent (void)
{
  return _("No NVIDIA driver on this machine.");
}

static const char *
amdsmi_absent (void)
{
  return _("No AMD GPU driver (AMD SMI) on this machine.");
}

static const char * const nvml_sonames[] = { "libnvidia-ml.so.1", NULL };
/* ROCm installs the versioned names; the plain one is the development link. */
static const char * const amdsmi_sonames[] = {
  "libamd_smi.so", "libamd_smi.so.26", "libamd_smi.so.25", "libamd_smi.so.24", NULL
};

static const RtopGpuLibrary libraries[] = {
  { "nvml", "nvidia", "RDMATOP_NVML_LIBRARY", nvml_sonames,
    rtop_gpu_nvml_open, rtop_gpu_nvml_close, rtop_gpu_nvml_read, nvml_absent },
  { "amdsmi", "amdgpu", "RDMATOP_AMDSMI_LIBRARY", amdsmi_sonames,
    rtop_gpu_amdsmi_open, rtop_gpu_amdsmi_close, rtop_gpu_amdsmi_read, amdsmi_absent },
};

/* One library as this source has it. */
typedef struct {
  const RtopGpuLibrary *lib;
  char *path;                /* a file to load instead of the sonames, or NULL */
  void *handle;
  gpointer state;            /* open() succeeded */
  char *message;             /* why it shows nothing, while it does not */
  gint64 retry_us;           /* when to try opening again */
  GPtrArray *last;           /* RtopDevice*: the last good read, without counters */
} Loaded;

struct _RtopGpuSource {
  gboolean disabled;
  Loaded *loaded;
  guint n_loaded;
  gboolean has_gpus;
};

static const char *
override_for (const RtopGpuOptions *options, const RtopGpuLibrary *lib)
{
  const char *path = NULL;

  if (options != NULL && strcmp (lib->id, "nvml") == 0)
    path = options->nvml_library;
  else if (options != NULL && strcmp (lib->id, "amdsmi") == 0)
    path = options->amdsmi_library;
  if (path == NULL)
    path = g_getenv (lib->env);
  return path != NULL && *path != '\0' ? path : NULL;
}

RtopGpuSource *
rtop_gpu_source_new (const RtopGpuOptions *options)
{
  RtopGpuSource *self = g_new0 (RtopGpuSource, 1);

  self->disabled = options != NULL && options->disabled;
  self->n_loaded = G_N_ELEMENTS (libraries);
  self->loaded = g_new0 (Loaded, self->n_loaded);
  for (guint i = 0; i < self->n_loaded; i++)
    {
      /* Readers tell GPUs by these ids where a format has no kind. */
      g_warn_if_fail (rtop_device_kind_for_provider (libraries[i].id) == RTOP_DEVICE_KIND_GPU);
      self->loaded[i].lib = &libraries[i];
      self->loaded[i].path = g_strdup (override_for (options, &libraries[i]));
      self->loaded[i].last = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
    }
  return self;
}

static void
loaded_close (Loaded *l)
{
  if (l->state != NULL)
    l->lib->close (l->state);
  l->state = NULL;
  if (l->handle != NULL)
    dlclose (l->handle);
  l->handle = NULL;
}

void
rtop_gpu_source_free (RtopGpuSource *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_loaded; i++)
    {
      loaded_close (&self->loaded[i]);
      g_free (self->loaded[i].path);
      g_free (self->loaded[i].message);
      g_ptr_array_unref (self->loaded[i].last);
    }
  g_free (self->loaded);
  g_free (self);
}

static void
set_message (Loaded *l, const char *message)
{
  g_free (l->message);
  l->message = g_strdup (message);
}

static void *
load (Loaded *l)
{
  void *handle;

  if (l->path != NULL)
    {
      handle = dlopen (l->path, RTLD_NOW | RTLD_LOCAL);
      if (handle == NULL)
        {
          const char *why = dlerror ();
          g_autofree char *text = g_strdup_printf (_("Cannot load the GPU library “%s”: %s"),
                                                   l->path, why != NULL ? why : "?");
          set_message (l, text);
        }
      return handle;
    }
  for (guint i = 0; l->lib->sonames[i] != NULL; i++)
    if ((handle = dlopen (l->lib->sonames[i], RTLD_NOW | RTLD_LOCAL)) != NULL)
      return handle;
  set_message (l, l->lib->absent_message ());
  return NULL;
}

/* TRUE when the library is open and started. */
static gboolean
ensure_open (Loaded *l, gint64 now)
{
  g_autoptr(GError) error = NULL;

  if (l->state != NULL)
    return TRUE;
  if (now < l->retry_us)
    return FALSE;
  l->handle = load (l);
  if (l->handle == NULL)
    {
      l->retry_us = now + RETRY_ABSENT_US;
      return FALSE;
    }
  l->state = l->lib->open (l->handle, &error);
  if (l->state == NULL)
    {
      set_message (l, error->message);
      loaded_close (l);
      l->retry_us = now + RETRY_FAILED_US;
      return FALSE;
    }
  g_clear_pointer (&l->message, g_free);
  return TRUE;
}

/* Each port's counters in name order, read at read_time_us. */
static void
finish_device (RtopDevice *dev, gint64 read_time_us)
{
  for (guint p = 0; p < dev->ports->len; p++)
    {
      RtopPort *port = g_ptr_array_index (dev->ports, p);

      rtop_counters_sort (port->counters);
      port->read_time_us = read_time_us;
    }
}

/* What a device was, for a pass whose read fails: its identity and ports. */
static RtopDevice *
device_outline (const RtopDevice *dev)
{
  RtopDevice *copy = rtop_device_new (dev->index, dev->name);

  copy->kind = dev->kind;
  copy->provider = g_strdup (dev->provider);
  copy->protocol = g_strdup (dev->protocol);
  copy->port_count = dev->port_count;
  copy->gpu = rtop_gpu_new (dev->gpu != NULL ? dev->gpu->vendor : NULL);
  if (dev->gpu != NULL)
    {
      copy->gpu->model = g_strdup (dev->gpu->model);
      copy->gpu->uuid = g_strdup (dev->gpu->uuid);
      copy->gpu->pci_bus_id = g_strdup (dev->gpu->pci_bus_id);
    }
  for (guint p = 0; p < dev->ports->len; p++)
    {
      const RtopPort *port = g_ptr_array_index (dev->ports, p);
      RtopPort *outline = rtop_port_new (port->index);

      outline->state = port->state;
      outline->phys_state = port->phys_state;
      outline->link_layer = g_strdup (port->link_layer);
      outline->rate_text = g_strdup (port->rate_text);
      outline->rate_gbps = port->rate_gbps;
      outline->remote = g_strdup (port->remote);
      g_ptr_array_add (copy->ports, outline);
    }
  return copy;
}

/* A read that fails (the driver stopped answering) is not the GPUs going
 * away: the last devices stay, their ports saying why they have no values
 * (and the sampling layer keeps their rates' baselines over the gap). */
static void
keep_last (Loaded *l, GPtrArray *devices, const char *why)
{
  for (guint i = 0; i < l->last->len; i++)
    {
      RtopDevice *dev = device_outline (g_ptr_array_index (l->last, i));

      for (guint p = 0; p < dev->ports->len; p++)
        {
          RtopPort *port = g_ptr_array_index (dev->ports, p);

          port->error = g_strdup (why);
        }
      g_ptr_array_add (devices, dev);
    }
}

static guint
read_library (Loaded *l, GPtrArray *devices)
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_device_free);
  g_autoptr(GError) error = NULL;
  gint64 read_time_us;

  if (!l->lib->read (l->state, found, &error))
    {
      set_message (l, error->message);
      keep_last (l, devices, error->message);
      return 0;
    }
  read_time_us = g_get_monotonic_time ();
  if (found->len == 0)
    {
      g_autofree char *text = g_strdup_printf (_("The GPU library “%s” lists no GPU."), l->lib->id);
      set_message (l, text);
      g_ptr_array_set_size (l->last, 0);
      return 0;
    }
  g_clear_pointer (&l->message, g_free);
  g_ptr_array_set_size (l->last, 0);
  for (guint i = 0; i < found->len; i++)
    {
      RtopDevice *dev = g_ptr_array_index (found, i);

      finish_device (dev, read_time_us);
      g_ptr_array_add (l->last, device_outline (dev));
      g_ptr_array_add (devices, dev);
      found->pdata[i] = NULL;
    }
  return found->len;
}

char *
rtop_gpu_source_read (RtopGpuSource *self, GPtrArray *devices)
{
  gint64 now = g_get_monotonic_time ();
  g_autoptr(GString) why = g_string_new (NULL);
  guint n_gpus = 0;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->disabled)
    return NULL;
  for (guint i = 0; i < self->n_loaded; i++)
    {
      Loaded *l = &self->loaded[i];

      if (ensure_open (l, now))
        n_gpus += read_library (l, devices);
    }
  self->has_gpus = n_gpus > 0;
  if (self->has_gpus)
    return NULL;
  for (guint i = 0; i < self->n_loaded; i++)
    if (self->loaded[i].message != NULL)
      {
        if (why->len > 0)
          g_string_append_c (why, ' ');
        g_string_append (why, self->loaded[i].message);
      }
  return why->len > 0 ? g_strdup (why->str) : NULL;
}

gboolean
rtop_gpu_source_has_gpus (RtopGpuSource *self)
{
  return self != NULL && self->has_gpus;
}
