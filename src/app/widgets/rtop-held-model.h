/* rtop-held-model.h: a list model that can be held: while held it keeps
 * showing the items it had when it was held and only notes that its model
 * changed; released, it catches up in one "items-changed" covering what
 * changed between the two lists.  A view that is not shown holds its list,
 * so that rows come and go in its table only when someone sees them. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define RTOP_TYPE_HELD_MODEL (rtop_held_model_get_type ())
G_DECLARE_FINAL_TYPE (RtopHeldModel, rtop_held_model, RTOP, HELD_MODEL, GObject)

/* Of MODEL's items (a reference is taken); not held to begin with. */
RtopHeldModel *rtop_held_model_new (GListModel *model);
void rtop_held_model_set_held (RtopHeldModel *self, gboolean held);
/* Held, shows what the model has now and stays held (a dump of a hidden
 * view says what it would show); not held, does nothing. */
void rtop_held_model_catch_up (RtopHeldModel *self);

G_END_DECLS
