/* rtop-source-list.c */
#include "config.h"

#include "rtop-source-list-private.h"

struct _RtopSourceList {
  GObject parent_instance;

  GPtrArray *sources;        /* RtopSource*, owned */
  gboolean running;
};

enum { SIGNAL_SNAPSHOT, N_SIGNALS };
static guint signals[N_SIGNALS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RtopSourceList, rtop_source_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return RTOP_TYPE_SOURCE;
}

static guint
get_n_items (GListModel *model)
{
  return RTOP_SOURCE_LIST (model)->sources->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  RtopSourceList *self = RTOP_SOURCE_LIST (model);

  return position < self->sources->len ? g_object_ref (g_ptr_array_index (self->sources, position)) : NULL;
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
source_snapshot_cb (RtopSource *source, RtopSnapshot *snapshot, RtopSourceList *self)
{
  g_signal_emit (self, signals[SIGNAL_SNAPSHOT], 0, source, snapshot);
}

void
rtop_source_list_add (RtopSourceList *self, RtopSource *source)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));
  g_return_if_fail (RTOP_IS_SOURCE (source));

  if (g_ptr_array_find (self->sources, source, NULL))
    return;
  g_ptr_array_add (self->sources, g_object_ref (source));
  g_signal_connect_object (source, "snapshot", G_CALLBACK (source_snapshot_cb), self, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), self->sources->len - 1, 0, 1);
  if (self->running)
    rtop_source_start (source);
}

gboolean
rtop_source_list_remove (RtopSourceList *self, RtopSource *source)
{
  guint position;
  g_autoptr(RtopSource) hold = NULL;

  g_return_val_if_fail (RTOP_IS_SOURCE_LIST (self), FALSE);

  if (source == NULL || !g_ptr_array_find (self->sources, source, &position))
    return FALSE;
  hold = g_object_ref (source);
  g_signal_handlers_disconnect_by_func (source, source_snapshot_cb, self);
  rtop_source_stop (source);
  g_ptr_array_remove_index (self->sources, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  return TRUE;
}

void
rtop_source_list_remove_all (RtopSourceList *self)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  while (self->sources->len > 0)
    rtop_source_list_remove (self, g_ptr_array_index (self->sources, self->sources->len - 1));
}

void
rtop_source_list_start (RtopSourceList *self)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  self->running = TRUE;
  for (guint i = 0; i < self->sources->len; i++)
    rtop_source_start (g_ptr_array_index (self->sources, i));
}

void
rtop_source_list_stop (RtopSourceList *self)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  self->running = FALSE;
  for (guint i = 0; i < self->sources->len; i++)
    rtop_source_stop (g_ptr_array_index (self->sources, i));
}

gboolean
rtop_source_list_is_running (RtopSourceList *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE_LIST (self), FALSE);
  return self->running;
}

void
rtop_source_list_refresh (RtopSourceList *self)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  for (guint i = 0; i < self->sources->len; i++)
    rtop_source_refresh (g_ptr_array_index (self->sources, i));
}

void
rtop_source_list_deliver_pending (RtopSourceList *self)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func (g_object_unref);

  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  /* A snapshot's handlers may add or remove sources. */
  for (guint i = 0; i < self->sources->len; i++)
    g_ptr_array_add (sources, g_object_ref (g_ptr_array_index (self->sources, i)));
  for (guint i = 0; i < sources->len; i++)
    rtop_source_deliver_pending (g_ptr_array_index (sources, i));
}

void
rtop_source_list_set_interval (RtopSourceList *self, double seconds)
{
  g_return_if_fail (RTOP_IS_SOURCE_LIST (self));

  for (guint i = 0; i < self->sources->len; i++)
    rtop_source_set_interval (g_ptr_array_index (self->sources, i), seconds);
}

gboolean
rtop_source_list_has_live (RtopSourceList *self)
{
  g_return_val_if_fail (RTOP_IS_SOURCE_LIST (self), FALSE);

  for (guint i = 0; i < self->sources->len; i++)
    if (rtop_source_get_live (g_ptr_array_index (self->sources, i)))
      return TRUE;
  return FALSE;
}

RtopSourceList *
rtop_source_list_new (void)
{
  return g_object_new (RTOP_TYPE_SOURCE_LIST, NULL);
}

static void
rtop_source_list_dispose (GObject *object)
{
  RtopSourceList *self = RTOP_SOURCE_LIST (object);

  if (self->sources)
    {
      /* Sources outlive the list only if someone else holds them; either
       * way they stop speaking to us. */
      for (guint i = 0; i < self->sources->len; i++)
        {
          RtopSource *source = g_ptr_array_index (self->sources, i);

          g_signal_handlers_disconnect_by_func (source, source_snapshot_cb, self);
          rtop_source_stop (source);
        }
      g_clear_pointer (&self->sources, g_ptr_array_unref);
    }
  G_OBJECT_CLASS (rtop_source_list_parent_class)->dispose (object);
}

static void
rtop_source_list_class_init (RtopSourceListClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = rtop_source_list_dispose;

  signals[SIGNAL_SNAPSHOT] =
    g_signal_new ("snapshot", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 2,
                  RTOP_TYPE_SOURCE,
                  RTOP_TYPE_SNAPSHOT | G_SIGNAL_TYPE_STATIC_SCOPE);
}

static void
rtop_source_list_init (RtopSourceList *self)
{
  self->sources = g_ptr_array_new_with_free_func (g_object_unref);
}
