/* rtop-held-model.c: see rtop-held-model.h. */
#include "config.h"

#include "rtop-held-model.h"

struct _RtopHeldModel
{
  GObject parent_instance;

  GListModel *model;
  gulong changed_id;
  /* Held: the items shown (references), and whether the model has changed
   * since; NULL when not held. */
  GPtrArray *shown;
  gboolean stale;
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (RtopHeldModel, rtop_held_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *list)
{
  return g_list_model_get_item_type (RTOP_HELD_MODEL (list)->model);
}

static guint
get_n_items (GListModel *list)
{
  RtopHeldModel *self = RTOP_HELD_MODEL (list);

  return self->shown ? self->shown->len : g_list_model_get_n_items (self->model);
}

static gpointer
get_item (GListModel *list, guint position)
{
  RtopHeldModel *self = RTOP_HELD_MODEL (list);

  if (self->shown == NULL)
    return g_list_model_get_item (self->model, position);
  return position < self->shown->len ? g_object_ref (g_ptr_array_index (self->shown, position))
                                     : NULL;
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
model_changed_cb (GListModel *model, guint position, guint removed, guint added,
                  RtopHeldModel *self)
{
  if (self->shown != NULL)
    self->stale = TRUE;
  else
    g_list_model_items_changed (G_LIST_MODEL (self), position, removed, added);
}

static GPtrArray *
items_of (GListModel *model)
{
  guint n = g_list_model_get_n_items (model);
  GPtrArray *items = g_ptr_array_new_full (n, g_object_unref);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, g_list_model_get_item (model, i));
  return items;
}

/* What changed between OLD and NEW (the same objects where items stayed) as
 * one change: the run between their common start and common end. */
static void
emit_difference (RtopHeldModel *self, GPtrArray *old, GPtrArray *new)
{
  guint min = MIN (old->len, new->len);
  guint start = 0, end = 0;

  while (start < min && old->pdata[start] == new->pdata[start])
    start++;
  while (end < min - start && old->pdata[old->len - 1 - end] == new->pdata[new->len - 1 - end])
    end++;
  if (old->len - start - end > 0 || new->len - start - end > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), start, old->len - start - end,
                                new->len - start - end);
}

void
rtop_held_model_catch_up (RtopHeldModel *self)
{
  g_autoptr(GPtrArray) old = NULL;

  g_return_if_fail (RTOP_IS_HELD_MODEL (self));

  if (self->shown == NULL || !self->stale)
    return;
  old = g_steal_pointer (&self->shown);
  self->shown = items_of (self->model);
  self->stale = FALSE;
  emit_difference (self, old, self->shown);
}

void
rtop_held_model_set_held (RtopHeldModel *self, gboolean held)
{
  g_return_if_fail (RTOP_IS_HELD_MODEL (self));

  if (!!held == (self->shown != NULL))
    return;
  if (held)
    {
      self->shown = items_of (self->model);
      self->stale = FALSE;
      return;
    }
  /* Released: the change is told while the items shown are the model's. */
  rtop_held_model_catch_up (self);
  g_clear_pointer (&self->shown, g_ptr_array_unref);
}

static void
rtop_held_model_finalize (GObject *object)
{
  RtopHeldModel *self = RTOP_HELD_MODEL (object);

  g_clear_signal_handler (&self->changed_id, self->model);
  g_clear_object (&self->model);
  g_clear_pointer (&self->shown, g_ptr_array_unref);
  G_OBJECT_CLASS (rtop_held_model_parent_class)->finalize (object);
}

static void
rtop_held_model_class_init (RtopHeldModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rtop_held_model_finalize;
}

static void
rtop_held_model_init (RtopHeldModel *self)
{
}

RtopHeldModel *
rtop_held_model_new (GListModel *model)
{
  RtopHeldModel *self;

  g_return_val_if_fail (G_IS_LIST_MODEL (model), NULL);

  self = g_object_new (RTOP_TYPE_HELD_MODEL, NULL);
  self->model = g_object_ref (model);
  self->changed_id = g_signal_connect (model, "items-changed", G_CALLBACK (model_changed_cb), self);
  return self;
}
