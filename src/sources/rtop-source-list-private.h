/* rtop-source-list-private.h: what only rtop-source-list.c and the tests
 * use. */
#pragma once

#include "rtop-source-list.h"

G_BEGIN_DECLS

gboolean rtop_source_list_is_running (RtopSourceList *self);
/* Whether any source in the list is live. */
gboolean rtop_source_list_has_live (RtopSourceList *self);

G_END_DECLS
