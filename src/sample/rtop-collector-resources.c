/* rtop-collector-resources.c: the resource dumps of a pass (RES_QP, CTX
 * and MR, and rdma_cm IDs for QPs' peer addresses) added up per owning
 * process, and the processes enriched from /proc. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "uapi/rdma/rdma_netlink.h"
#include "rtop-collector-private.h"
#include "rtop-error.h"
#include "rtop-port-key.h"

static void
res_run_clear (gpointer data)
{
  g_clear_pointer (&((ResRun *) data)->kern_name, g_free);
}

static GArray *
res_runs_new (void)
{
  GArray *runs = g_array_new (FALSE, TRUE, sizeof (ResRun));

  g_array_set_clear_func (runs, res_run_clear);
  return runs;
}

/* ---- Processes ---- */

/* A process seen in this dump, and where its entry for the dump's device
 * is in its devices array (it stays there: the dump adds no other device). */
typedef struct {
  RtopProcess *proc;
  guint32 pid;
  guint pd;
} RecentOwner;

#define N_RECENT_OWNERS 8
#define RUN_LOOKBACK 8

typedef struct {
  RtopNlResKind kind;
  const RtopDevice *dev;
  GHashTable *owners;
  RtopSnapshot *snap;
  /* Entries of a few processes come interleaved (threads creating QPs at
   * once): those are found here, without a hash lookup per entry. */
  RecentOwner recent[N_RECENT_OWNERS];
  guint n_recent, next_recent;
  GArray *kept;              /* ResMessage of the device's last dump of this kind, or NULL */
  guint position;            /* of the message in this dump */
  GArray *runs;              /* ResRun: what the message being walked adds up to */
  GArray *qps;               /* RtopQp: the QPs it lists (QP dumps with runs) */
  GArray *qp_runs;           /* guint: the run of each */
} ResData;

static void account (RtopProcess *proc, guint pd, RtopNlResKind kind, guint64 count,
                     guint64 mr_bytes);
static guint process_device_for (RtopProcess *proc, const char *device);
static RtopProcess *owner_for (GHashTable *owners, const RtopNlRes *r, gboolean *hidden);

/* The process an entry belongs to, and the index of its entry for the
 * dump's device. */
static RtopProcess *
owner_of (ResData *rd, const RtopNlRes *r, guint *pd)
{
  RtopProcess *proc;

  if (r->has_pid)
    for (guint i = 0; i < rd->n_recent; i++)
      if (rd->recent[i].pid == r->pid)
        {
          *pd = rd->recent[i].pd;
          return rd->recent[i].proc;
        }
  proc = owner_for (rd->owners, r, &rd->snap->pids_hidden);
  *pd = process_device_for (proc, rd->dev->name);
  if (r->has_pid)
    {
      RecentOwner *slot = rd->n_recent < N_RECENT_OWNERS ? &rd->recent[rd->n_recent++]
                                                         : &rd->recent[rd->next_recent++ % N_RECENT_OWNERS];

      *slot = (RecentOwner) { proc, r->pid, *pd };
    }
  return proc;
}

/* Lists a QP in its owner's bounded list (and counts one in error). */
static void
list_qp (RtopProcess *proc, const RtopQp *qp)
{
  proc->qps_in_error += qp->state == RTOP_QP_STATE_ERR;
  if (proc->qp_list == NULL)
    proc->qp_list = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), RTOP_PROCESS_MAX_QPS);
  else if (proc->qp_list->len >= RTOP_PROCESS_MAX_QPS)
    {
      proc->qps_not_listed++;
      return;
    }
  g_array_append_val (proc->qp_list, *qp);
}

/* Replays a kept run's QPs: as many as the owner's list has room for, in
 * one copy; the rest only counted. */
static void
list_run_qps (RtopProcess *proc, const ResRun *run, const GArray *qps)
{
  guint room, n;

  if (run->qp_n == 0)
    return;
  if (proc->qp_list == NULL)
    proc->qp_list = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), RTOP_PROCESS_MAX_QPS);
  room = RTOP_PROCESS_MAX_QPS - MIN (proc->qp_list->len, RTOP_PROCESS_MAX_QPS);
  n = MIN (room, run->qp_n);
  if (n > 0)
    g_array_append_vals (proc->qp_list, &g_array_index (qps, RtopQp, run->qp_first), n);
  proc->qps_not_listed += run->qp_n - n;
  proc->qps_in_error += run->qp_errors;
}

/* Orders a walked message's QPs by run (a counting sort: runs are few and
 * their QPs keep their order), so that a replay copies each run's QPs as
 * one slice. */
static GArray *
group_qps_by_run (GArray *runs, GArray *qps, GArray *qp_runs)
{
  GArray *sorted;
  guint next = 0;

  if (qps == NULL || qps->len == 0)
    return NULL;
  for (guint i = 0; i < qps->len; i++)
    {
      ResRun *run = &g_array_index (runs, ResRun, g_array_index (qp_runs, guint, i));

      run->qp_n++;
      run->qp_errors += g_array_index (qps, RtopQp, i).state == RTOP_QP_STATE_ERR;
    }
  for (guint r = 0; r < runs->len; r++)
    {
      ResRun *run = &g_array_index (runs, ResRun, r);

      run->qp_first = next;
      next += run->qp_n;
      run->qp_n = 0;
    }
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (RtopQp), qps->len);
  g_array_set_size (sorted, qps->len);
  for (guint i = 0; i < qps->len; i++)
    {
      ResRun *run = &g_array_index (runs, ResRun, g_array_index (qp_runs, guint, i));

      g_array_index (sorted, RtopQp, run->qp_first + run->qp_n++) = g_array_index (qps, RtopQp, i);
    }
  return sorted;
}

/* Kept QPs name the device of the pass that kept them: a device's name
 * string is the same from pass to pass while its facts are, else the
 * slice is pointed at this pass's. */
static void
rename_kept_qps (ResMessage *rm, const char *device)
{
  if (rm->qps == NULL || rm->qps_device == device)
    return;
  for (guint i = 0; i < rm->qps->len; i++)
    g_array_index (rm->qps, RtopQp, i).device = device;
  rm->qps_device = device;
}

static gboolean
res_entry_cb (const RtopNlRes *r, gpointer user_data, GError **error)
{
  ResData *rd = user_data;
  RtopProcess *proc;
  guint pd;

  if (r->dev_index != rd->dev->index)
    return TRUE;
  proc = owner_of (rd, r, &pd);
  account (proc, pd, r->kind, 1, r->mr_len);
  if (r->kind == RTOP_NL_RES_QP)
    {
      RtopQp qp = { rd->dev->name, r->port, r->id, r->rqpn, r->has_rqpn, r->qp_type, r->qp_state };

      list_qp (proc, &qp);
      if (rd->qps != NULL)
        g_array_append_val (rd->qps, qp);
    }
  if (rd->runs != NULL)
    {
      ResRun *run = NULL;

      /* The entries of a few owners come interleaved: an owner among the
       * last few items adds to its item (the order of owners in a message
       * does not change what it adds up to). */
      for (guint i = rd->runs->len; i > 0 && i + RUN_LOOKBACK > rd->runs->len; i--)
        {
          ResRun *candidate = &g_array_index (rd->runs, ResRun, i - 1);

          if (candidate->has_pid == r->has_pid && (!r->has_pid || candidate->pid == r->pid) &&
              g_strcmp0 (candidate->kern_name, r->has_pid ? NULL : r->kern_name) == 0)
            {
              run = candidate;
              break;
            }
        }
      if (run == NULL)
        {
          ResRun added = { r->has_pid, r->pid, r->has_pid ? NULL : g_strdup (r->kern_name), 0, 0 };

          g_array_append_val (rd->runs, added);
          run = &g_array_index (rd->runs, ResRun, rd->runs->len - 1);
        }
      run->count++;
      run->mr_bytes += r->mr_len;
      if (rd->qps != NULL && r->kind == RTOP_NL_RES_QP)
        {
          guint index = run - (ResRun *) rd->runs->data;

          g_array_append_val (rd->qp_runs, index);
        }
    }
  return TRUE;
}

/* A resource message equal to the one at its position in the device's
 * last dump of this kind (the same bytes but for sequence number and port
 * id: idle QPs list the same way pass after pass) adds up what it added
 * then; any other is walked, and kept for the next pass. */
static gboolean
res_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  ResData *rd = user_data;
  guint position = rd->position++;
  GArray *kept = rd->kept;
  gboolean ok;

  if (kept != NULL && position < kept->len &&
      kept_message_equal (&g_array_index (kept, ResMessage, position).msg, nlh))
    {
      ResMessage *rm = &g_array_index (kept, ResMessage, position);

      rename_kept_qps (rm, rd->dev->name);
      for (guint i = 0; i < rm->runs->len; i++)
        {
          const ResRun *run = &g_array_index (rm->runs, ResRun, i);
          RtopNlRes r = { .kind = rd->kind, .has_pid = run->has_pid, .pid = run->pid,
                          .kern_name = run->kern_name };
          guint pd;
          RtopProcess *proc = owner_of (rd, &r, &pd);

          account (proc, pd, rd->kind, run->count, run->mr_bytes);
          if (rm->qps != NULL)
            list_run_qps (proc, run, rm->qps);
        }
      return TRUE;
    }
  rd->runs = kept != NULL ? res_runs_new () : NULL;
  if (kept != NULL && rd->kind == RTOP_NL_RES_QP)
    {
      rd->qps = g_array_new (FALSE, FALSE, sizeof (RtopQp));
      rd->qp_runs = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  ok = rtop_nl_parse_res_foreach (nlh, rd->kind, res_entry_cb, rd, error);
  if (ok && kept != NULL)
    {
      ResMessage *rm;

      if (position >= kept->len)
        g_array_set_size (kept, position + 1);
      rm = &g_array_index (kept, ResMessage, position);
      kept_message_set (&rm->msg, nlh);
      g_clear_pointer (&rm->runs, g_array_unref);
      g_clear_pointer (&rm->qps, g_array_unref);
      rm->qps = group_qps_by_run (rd->runs, rd->qps, rd->qp_runs);
      rm->qps_device = rd->dev->name;
      rm->runs = g_steal_pointer (&rd->runs);
    }
  g_clear_pointer (&rd->runs, g_array_unref);
  g_clear_pointer (&rd->qps, g_array_unref);
  g_clear_pointer (&rd->qp_runs, g_array_unref);
  return ok;
}

/* Owners are keyed by pid, or by kernel name for kernel-owned objects, or
 * gathered as "hidden" when the owner is outside our PID namespace. */
static RtopProcess *
owner_for (GHashTable *owners, const RtopNlRes *r, gboolean *hidden)
{
  char key[RTOP_PORT_KEY_SIZE];
  RtopProcess *proc;

  /* "p/<pid>", "k<name>", "h": no printf, this runs per owner run. */
  if (r->has_pid)
    rtop_port_key (key, "p", r->pid);
  else if (r->kern_name != NULL)
    {
      key[0] = 'k';
      g_strlcpy (key + 1, r->kern_name, sizeof key - 1);
    }
  else
    {
      g_strlcpy (key, "h", sizeof key);
      *hidden = TRUE;
    }
  proc = g_hash_table_lookup (owners, key);
  if (proc == NULL)
    {
      proc = rtop_process_new (r->has_pid ? (gint32) MIN (r->pid, G_MAXINT32) : 0);
      proc->kernel = !r->has_pid && r->kern_name != NULL;
      if (proc->kernel)
        proc->comm = g_strdup (r->kern_name);
      g_hash_table_insert (owners, g_strdup (key), proc);
    }
  return proc;
}

/* The index of proc's entry for device in proc->devices, added if new. */
static guint
process_device_for (RtopProcess *proc, const char *device)
{
  RtopProcessDevice pd = { 0 };

  /* Devices are dumped one after another and never twice in a pass (their
   * names are unique, device_cb() sees to it): a process's entry for this
   * device, if it has one, is the one added last. */
  if (proc->devices->len > 0)
    {
      RtopProcessDevice *d = &g_array_index (proc->devices, RtopProcessDevice, proc->devices->len - 1);
      if (g_strcmp0 (d->device, device) == 0)
        return proc->devices->len - 1;
    }
  pd.device = g_strdup (device);
  g_array_append_val (proc->devices, pd);
  return proc->devices->len - 1;
}

/* count entries of kind, whose MRs (for MR entries) add up to mr_bytes. */
static void
account (RtopProcess *proc, guint pd_index, RtopNlResKind kind, guint64 count, guint64 mr_bytes)
{
  RtopProcessDevice *pd = &g_array_index (proc->devices, RtopProcessDevice, pd_index);

  switch (kind)
    {
    case RTOP_NL_RES_QP:
      pd->qps += (guint32) count;
      proc->qps += (guint32) count;
      break;
    case RTOP_NL_RES_CTX:
      pd->contexts += (guint32) count;
      proc->contexts += (guint32) count;
      break;
    case RTOP_NL_RES_MR:
      pd->mrs += (guint32) count;
      proc->mrs += (guint32) count;
      pd->mr_bytes += mr_bytes;
      proc->mr_bytes += mr_bytes;
      break;
    case RTOP_NL_RES_CM_ID:
      break;             /* read for QPs' peer addresses, counted nowhere */
    }
}

static void
enrich (RtopCollector *self, RtopProcess *proc)
{
  const RtopProcInfo *info;

  if (proc->pid <= 0)
    return;
  info = rtop_proc_cache_lookup (self->procs, proc->pid);
  if (info == NULL)
    return;     /* exited between the dump and now */
  proc->start_time = info->start_time;
  proc->comm = g_strdup (info->comm);
  proc->cmdline = g_strdup (info->cmdline);
  proc->user = g_strdup (info->user);
  rtop_job_copy (&proc->job, &info->job);
  proc->uid = info->uid;
  proc->rss_bytes = info->rss_bytes;
  proc->threads = info->threads;
  proc->state = info->state;
}

/* The kernel lists resources one device at a time (RES_*_GET dumps need
 * DEV_INDEX), so the pass asks for the devices it already has. */
static void
dump_resources (RtopCollector *self, const RtopDevice *dev, GHashTable *owners,
                RtopSnapshot *snap)
{
  static const struct { RtopNlResKind kind; guint16 cmd; } dumps[] = {
    { RTOP_NL_RES_QP, RDMA_NLDEV_CMD_RES_QP_GET },
    { RTOP_NL_RES_CTX, RDMA_NLDEV_CMD_RES_CTX_GET },
    { RTOP_NL_RES_MR, RDMA_NLDEV_CMD_RES_MR_GET },
  };

  DeviceCache *dc = g_hash_table_lookup (self->devices, dev->name);

  G_STATIC_ASSERT (G_N_ELEMENTS (dumps) == N_RES_KINDS);
  for (guint d = 0; d < G_N_ELEMENTS (dumps); d++)
    {
      ResData rd = { dumps[d].kind, dev, owners, snap, { { 0 } }, 0, 0,
                     dc != NULL ? dc->res_msgs[dumps[d].kind] : NULL, 0, NULL, NULL, NULL };
      g_autoptr(GError) error = NULL;

      /* Entries are counted as they arrive, without copies; a dump that
       * fails part-way keeps what it counted, and processes_error says
       * the list is incomplete. */
      if (rtop_nl_query (self->nl, dumps[d].cmd, TRUE, dev->index, 0, res_cb, &rd, &error))
        {
          /* Fewer messages than last time: forget the positions past them. */
          if (rd.kept != NULL && rd.position < rd.kept->len)
            g_array_set_size (rd.kept, rd.position);
        }
      else
        {
          if (rd.kept != NULL)
            g_array_set_size (rd.kept, 0);
          /* A device that vanished since the device dump has nothing to
           * list; anything else leaves the process list incomplete, and
           * the snapshot says so rather than passing fewer processes off
           * as all of them. */
          if (!g_error_matches (error, RTOP_ERROR, RTOP_ERROR_NO_DEVICE) &&
              snap->processes_error == NULL)
            snap->processes_error = g_strdup_printf (_("Listing the processes on %s failed: %s"),
                                                     dev->name, error->message);
        }
    }
}

/* Peer addresses: RES_QP has none, but the rdma_cm ID of a QP that
 * rdma_cm connected names its QP and the address it connects to.  Asked
 * for only on a device where a listed QP has a peer, and kept only for
 * listed QPs, so memory follows the bounded QP lists. */
typedef struct {
  const RtopDevice *dev;
  GHashTable *wanted;        /* lqpn -> PeerSlot */
} PeerData;

typedef struct {
  RtopProcess *proc;
  guint index;               /* in proc->qp_list */
} PeerSlot;

static gboolean
cm_id_entry_cb (const RtopNlRes *r, gpointer user_data, GError **error)
{
  PeerData *pd = user_data;
  const PeerSlot *slot;
  RtopQp *qp;
  char text[64];

  if (r->dev_index != pd->dev->index || !r->has_lqpn || r->dst_addr == NULL)
    return TRUE;
  slot = g_hash_table_lookup (pd->wanted, GUINT_TO_POINTER (r->lqpn));
  if (slot == NULL || !rtop_nl_format_sockaddr (r->dst_addr, text, sizeof text))
    return TRUE;
  qp = &g_array_index (slot->proc->qp_list, RtopQp, slot->index);
  if (qp->peer_addr != NULL)
    return TRUE;
  if (slot->proc->qp_addrs == NULL)
    slot->proc->qp_addrs = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (slot->proc->qp_addrs, g_strdup (text));
  qp->peer_addr = g_ptr_array_index (slot->proc->qp_addrs, slot->proc->qp_addrs->len - 1);
  return TRUE;
}

static gboolean
cm_id_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  return rtop_nl_parse_res_foreach (nlh, RTOP_NL_RES_CM_ID, cm_id_entry_cb, user_data, error);
}

static void
add_peer_addresses (RtopCollector *self, const RtopDevice *dev, GHashTable *owners)
{
  g_autoptr(GHashTable) wanted = NULL;
  g_autoptr(GError) error = NULL;
  PeerData pd = { dev, NULL };
  GHashTableIter iter;
  RtopProcess *proc;

  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &proc))
    for (guint i = 0; proc->qp_list != NULL && i < proc->qp_list->len; i++)
      {
        const RtopQp *qp = &g_array_index (proc->qp_list, RtopQp, i);
        PeerSlot *slot;

        if (!qp->has_rqpn || qp->peer_addr != NULL || g_strcmp0 (qp->device, dev->name) != 0)
          continue;
        if (wanted == NULL)
          wanted = g_hash_table_new_full (NULL, NULL, NULL, g_free);
        slot = g_new (PeerSlot, 1);
        *slot = (PeerSlot) { proc, i };
        g_hash_table_replace (wanted, GUINT_TO_POINTER (qp->lqpn), slot);
      }
  if (wanted == NULL)
    return;
  pd.wanted = wanted;
  /* Peer addresses add to the list; without them (a kernel without
   * rdma_cm IDs in netlink, a dump that fails) it is still complete. */
  if (!rtop_nl_query (self->nl, RDMA_NLDEV_CMD_RES_CM_ID_GET, TRUE, dev->index, 0, cm_id_cb,
                      &pd, &error))
    g_debug ("No rdma_cm IDs on %s: %s", dev->name, error->message);
}

void
rtop_collector_collect_processes (RtopCollector *self, RtopSnapshot *snap)
{
  g_autoptr(GHashTable) owners = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  RtopProcess *proc;

  for (guint i = 0; i < snap->devices->len; i++)
    {
      dump_resources (self, g_ptr_array_index (snap->devices, i), owners, snap);
      add_peer_addresses (self, g_ptr_array_index (snap->devices, i), owners);
    }

  rtop_proc_cache_begin_pass (self->procs);
  g_hash_table_iter_init (&iter, owners);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &proc))
    {
      enrich (self, proc);
      g_ptr_array_add (snap->processes, proc);
    }
}
