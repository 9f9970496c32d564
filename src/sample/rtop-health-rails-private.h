/* rtop-health-rails-private.h: the rail imbalance rule's state, kept by
 * RtopHealth (rtop-health.c) across passes; the rule is in
 * rtop-health-rules.c, the check in rtop-health-rails.c. */
#pragma once

#include "rtop-snapshot.h"

G_BEGIN_DECLS

typedef struct _RtopHealthRails RtopHealthRails;

RtopHealthRails *rtop_health_rails_new (void);
void rtop_health_rails_free (RtopHealthRails *self);
/* Judges this pass's rails and appends rail-imbalance events to snap;
 * episode ids come from *last_episode, which it advances. */
void rtop_health_rails_check (RtopHealthRails *self, RtopSnapshot *snap, guint64 pass,
                              guint64 *last_episode);

G_END_DECLS
