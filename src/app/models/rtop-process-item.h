/* rtop-process-item.h: one process that holds RDMA resources. */
#pragma once

#include <gio/gio.h>
#include "rtop-snapshot.h"

G_BEGIN_DECLS

#define RTOP_TYPE_PROCESS_ITEM (rtop_process_item_get_type ())
G_DECLARE_FINAL_TYPE (RtopProcessItem, rtop_process_item, RTOP, PROCESS_ITEM, GObject)

/* The identity under which a process is tracked across snapshots. */
char *rtop_process_item_key_for (const RtopProcess *process, const char *host);

/* host: the remote host it runs on, NULL for this computer. */
RtopProcessItem *rtop_process_item_new (const RtopProcess *process, const char *host);
const char *rtop_process_item_get_host (RtopProcessItem *self);
/* Its identity (rtop_process_item_key_for()), e.g. for win.show-process. */
const char *rtop_process_item_get_key (RtopProcessItem *self);
/* Emits "updated". */
void rtop_process_item_update (RtopProcessItem *self, const RtopProcess *process);

gint32 rtop_process_item_get_pid (RtopProcessItem *self);
gboolean rtop_process_item_get_kernel (RtopProcessItem *self);
const char *rtop_process_item_get_user (RtopProcessItem *self);
const char *rtop_process_item_get_comm (RtopProcessItem *self);
/* The command line when readable, else the command name. */
const char *rtop_process_item_get_command (RtopProcessItem *self);
/* The job from the process's cgroup in words ("Slurm job 1234, step 0"),
 * NULL when none is known. */
const char *rtop_process_item_get_job_text (RtopProcessItem *self);
/* The job from its cgroup (kind RTOP_JOB_NONE when none is known). */
const RtopJob *rtop_process_item_get_job (RtopProcessItem *self);
const char *rtop_process_item_get_devices (RtopProcessItem *self);  /* "mlx5_0, rxe0" */
gboolean rtop_process_item_uses_device (RtopProcessItem *self, const char *device);
guint32 rtop_process_item_get_qps (RtopProcessItem *self);
guint32 rtop_process_item_get_contexts (RtopProcessItem *self);
guint32 rtop_process_item_get_mrs (RtopProcessItem *self);
guint64 rtop_process_item_get_mr_bytes (RtopProcessItem *self);
guint64 rtop_process_item_get_rss_bytes (RtopProcessItem *self);
guint32 rtop_process_item_get_threads (RtopProcessItem *self);

/* Its QPs (RtopQpItem, at most RTOP_PROCESS_MAX_QPS, in the kernel's
 * order), for a process page; unchanged rows stay from pass to pass. */
GListModel *rtop_process_item_get_qp_list (RtopProcessItem *self);
/* QPs beyond the list, and QPs in the error state (listed or not). */
guint32 rtop_process_item_get_qps_not_listed (RtopProcessItem *self);
guint32 rtop_process_item_get_qps_in_error (RtopProcessItem *self);
/* Its QPs on one device (what a port's Processes tab counts). */
guint32 rtop_process_item_get_qps_on (RtopProcessItem *self, const char *device);

G_END_DECLS
