/* rtop-source-list.h: the sources a consumer holds, as a GListModel.
 *
 * A consumer (the app's session, the CLI) adds and removes sources while
 * they run and hears every source's snapshots through one signal, with the
 * source beside it.  A removed source is stopped first, so not one of its
 * snapshots arrives after rtop_source_list_remove() returns.
 *
 * Signal:
 *   void snapshot (RtopSourceList *self, RtopSource *source,
 *                  RtopSnapshot *snapshot, gpointer user_data) */
#pragma once

#include <gio/gio.h>
#include "rtop-source.h"

G_BEGIN_DECLS

#define RTOP_TYPE_SOURCE_LIST (rtop_source_list_get_type ())
G_DECLARE_FINAL_TYPE (RtopSourceList, rtop_source_list, RTOP, SOURCE_LIST, GObject)

RtopSourceList *rtop_source_list_new (void);
/* Appends (takes a reference); starts the source when the list runs.  A
 * source already in the list is not added twice. */
void rtop_source_list_add (RtopSourceList *self, RtopSource *source);
/* Stops the source and drops it; FALSE when it was not in the list. */
gboolean rtop_source_list_remove (RtopSourceList *self, RtopSource *source);
/* Stops and drops every source. */
void rtop_source_list_remove_all (RtopSourceList *self);
/* Starts every source, and any added from now on. */
void rtop_source_list_start (RtopSourceList *self);
/* Stops every source; sources added from now on wait for start(). */
void rtop_source_list_stop (RtopSourceList *self);
/* To every source that supports it. */
void rtop_source_list_refresh (RtopSourceList *self);
/* Every source's snapshots that wait only for the main loop, now
 * (rtop_source_deliver_pending()). */
void rtop_source_list_deliver_pending (RtopSourceList *self);
void rtop_source_list_set_interval (RtopSourceList *self, double seconds);

G_END_DECLS
