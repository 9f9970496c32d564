/* rtop-health-rules-private.h: what the health engine (rtop-health.c)
 * takes from the rule table (rtop-health-rules.c); nothing else includes
 * it. */
#pragma once

#include "rtop-health-private.h"

G_BEGIN_DECLS

/* Which counter classes make episodes, how loud they are, and which
 * episode of a port their rises go to: drops, retransmits and transport
 * errors are the symptoms of one cause, loss, so they are one episode. */
typedef enum {
  GROUP_LOSS,
  GROUP_LINK,
  GROUP_OPERATION,
  GROUP_CONGESTION,
  GROUP_PEER,                /* the receiving end's view of its peer's loss */
  N_GROUPS,
  NO_GROUP = N_GROUPS
} Group;

typedef struct {
  gboolean watched;
  RtopSeverity severity;
  Group group;
  const char *label;
} ClassRule;

/* The rule of each counter class. */
extern const ClassRule rtop_health_class_rules[RTOP_COUNTER_CLASS_N];

/* What each group's episodes are called, untranslated (N_()). */
extern const char * const rtop_health_group_labels[N_GROUPS];

/* The class's name for people ("Retransmits", "Link errors"), translated. */
const char *rtop_counter_class_to_label (RtopCounterClass klass);

G_END_DECLS
