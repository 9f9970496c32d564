/* rtop-nl-parse.c: turns RDMA netlink (NLDEV) reply messages into structs.
 *
 * Every message goes through one policy table: an attribute we use must have
 * its exact kernel size (strings NUL-terminated UTF-8, nests at least a
 * header), an attribute we do not use is skipped, so a newer kernel that adds
 * attributes still parses.  Bytes that do not form a whole attribute are an
 * error: libmnl's iterators stop silently at a truncated attribute, so every
 * walk here also checks that it reached the end of its payload. */
#include "config.h"

#include "rtop-nl-parse-private.h"
#include "rtop-error.h"
#include "uapi/rdma/rdma_netlink.h"

#include <stddef.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <libmnl/libmnl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/socket.h>

/* The attributes rdmatop reads, with the type the kernel puts them as
 * (drivers/infiniband/core/nldev.c).  Everything else is skipped.  Parsed
 * attributes land in a compact table indexed by SLOT_*, so parsing one of
 * the many small nests (a counter, a QP) clears 34 pointers, not 104. */
#define RTOP_NL_POLICY(X) \
  X (DEV_INDEX, RDMA_NLDEV_ATTR_DEV_INDEX, MNL_TYPE_U32) \
  X (DEV_NAME, RDMA_NLDEV_ATTR_DEV_NAME, MNL_TYPE_NUL_STRING) \
  X (PORT_INDEX, RDMA_NLDEV_ATTR_PORT_INDEX, MNL_TYPE_U32) \
  X (FW_VERSION, RDMA_NLDEV_ATTR_FW_VERSION, MNL_TYPE_NUL_STRING) \
  X (NODE_GUID, RDMA_NLDEV_ATTR_NODE_GUID, MNL_TYPE_U64) \
  X (SYS_IMAGE_GUID, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, MNL_TYPE_U64) \
  X (PORT_STATE, RDMA_NLDEV_ATTR_PORT_STATE, MNL_TYPE_U8) \
  X (PORT_PHYS_STATE, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, MNL_TYPE_U8) \
  X (DEV_NODE_TYPE, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, MNL_TYPE_U8) \
  X (RES_QP, RDMA_NLDEV_ATTR_RES_QP, MNL_TYPE_NESTED) \
  X (RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_QP_ENTRY, MNL_TYPE_NESTED) \
  X (RES_LQPN, RDMA_NLDEV_ATTR_RES_LQPN, MNL_TYPE_U32) \
  X (RES_RQPN, RDMA_NLDEV_ATTR_RES_RQPN, MNL_TYPE_U32) \
  X (RES_TYPE, RDMA_NLDEV_ATTR_RES_TYPE, MNL_TYPE_U8) \
  X (RES_STATE, RDMA_NLDEV_ATTR_RES_STATE, MNL_TYPE_U8) \
  X (RES_PID, RDMA_NLDEV_ATTR_RES_PID, MNL_TYPE_U32) \
  X (RES_KERN_NAME, RDMA_NLDEV_ATTR_RES_KERN_NAME, MNL_TYPE_NUL_STRING) \
  X (RES_MR, RDMA_NLDEV_ATTR_RES_MR, MNL_TYPE_NESTED) \
  X (RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MR_ENTRY, MNL_TYPE_NESTED) \
  X (RES_MRLEN, RDMA_NLDEV_ATTR_RES_MRLEN, MNL_TYPE_U64) \
  X (NDEV_INDEX, RDMA_NLDEV_ATTR_NDEV_INDEX, MNL_TYPE_U32) \
  X (NDEV_NAME, RDMA_NLDEV_ATTR_NDEV_NAME, MNL_TYPE_NUL_STRING) \
  X (RES_MRN, RDMA_NLDEV_ATTR_RES_MRN, MNL_TYPE_U32) \
  X (RES_CTXN, RDMA_NLDEV_ATTR_RES_CTXN, MNL_TYPE_U32) \
  X (SYS_ATTR_NETNS_MODE, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, MNL_TYPE_U8) \
  X (DEV_PROTOCOL, RDMA_NLDEV_ATTR_DEV_PROTOCOL, MNL_TYPE_NUL_STRING) \
  X (STAT_HWCOUNTERS, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, MNL_TYPE_NESTED) \
  X (STAT_HWCOUNTER_ENTRY, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, MNL_TYPE_NESTED) \
  X (STAT_HWCOUNTER_ENTRY_NAME, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, MNL_TYPE_NUL_STRING) \
  X (STAT_HWCOUNTER_ENTRY_VALUE, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, MNL_TYPE_U64) \
  X (RES_CTX, RDMA_NLDEV_ATTR_RES_CTX, MNL_TYPE_NESTED) \
  X (RES_CTX_ENTRY, RDMA_NLDEV_ATTR_RES_CTX_ENTRY, MNL_TYPE_NESTED) \
  X (EVENT_TYPE, RDMA_NLDEV_ATTR_EVENT_TYPE, MNL_TYPE_U8) \
  X (SYS_ATTR_MONITOR_MODE, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, MNL_TYPE_U8) \
  X (RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID, MNL_TYPE_NESTED) \
  X (RES_CM_ID_ENTRY, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, MNL_TYPE_NESTED) \
  X (RES_CM_IDN, RDMA_NLDEV_ATTR_RES_CM_IDN, MNL_TYPE_U32) \
  X (RES_PS, RDMA_NLDEV_ATTR_RES_PS, MNL_TYPE_U32) \
  X (RES_SRC_ADDR, RDMA_NLDEV_ATTR_RES_SRC_ADDR, MNL_TYPE_BINARY) \
  X (RES_DST_ADDR, RDMA_NLDEV_ATTR_RES_DST_ADDR, MNL_TYPE_BINARY)

typedef enum {
#define SLOT_ENUM(name, attr, type) SLOT_##name,
  RTOP_NL_POLICY (SLOT_ENUM)
#undef SLOT_ENUM
  N_SLOTS
} Slot;

static const struct {
  guint16 attr;
  enum mnl_attr_data_type type;
  const char *name;
} policy[N_SLOTS] = {
#define POLICY_ENTRY(name, attr, type) [SLOT_##name] = { attr, type, #name },
  RTOP_NL_POLICY (POLICY_ENTRY)
#undef POLICY_ENTRY
};

/* Attribute number -> slot + 1; 0 for attributes we skip. */
static const guint8 slot_of[RDMA_NLDEV_ATTR_MAX] = {
#define SLOT_OF(name, attr, type) [attr] = SLOT_##name + 1,
  RTOP_NL_POLICY (SLOT_OF)
#undef SLOT_OF
};

/* One level of attributes, indexed by slot. */
typedef struct {
  const struct nlattr *tb[N_SLOTS];
} AttrTable;

static inline guint64
attr_u64 (const struct nlattr *attr)
{
  guint64 v;

  memcpy (&v, attr_data (attr), sizeof v);
  return v;
}

static inline guint32
attr_u32 (const struct nlattr *attr)
{
  guint32 v;

  memcpy (&v, attr_data (attr), sizeof v);
  return v;
}

/* A NUL-terminated string of len bytes (NUL included) that is valid UTF-8
 * up to its first NUL, as g_utf8_validate (data, -1) judges.  Counter and
 * device names are ASCII: eight bytes at a time decide that, and only a
 * string with a byte >= 0x80 goes to the full check. */
gboolean
rtop_nl_string_is_valid (const char *data, gsize len)
{
  guint64 high = 0;
  gsize i = 0;

  if (len == 0 || data[len - 1] != '\0')
    return FALSE;
  for (; i + sizeof (guint64) <= len - 1; i += sizeof (guint64))
    {
      guint64 w;

      memcpy (&w, data + i, sizeof w);
      high |= w;
    }
  for (; i < len - 1; i++)
    high |= (guchar) data[i];
  if ((high & G_GUINT64_CONSTANT (0x8080808080808080)) == 0)
    return TRUE;
  return g_utf8_validate (data, -1, NULL);
}

/* The same checks as mnl_attr_validate() (exact sizes for integers, a
 * header at least for a non-empty nest, a terminating NUL for strings), done
 * inline: this runs for every attribute of every reply. */
static inline __attribute__ ((always_inline)) gboolean
attr_is_valid (const struct nlattr *attr, enum mnl_attr_data_type type)
{
  gsize len = attr_data_len (attr);

  switch (type)
    {
    case MNL_TYPE_U8:
      return len == sizeof (guint8);
    case MNL_TYPE_U32:
      return len == sizeof (guint32);
    case MNL_TYPE_U64:
      return len == sizeof (guint64);
    case MNL_TYPE_NESTED:
      return len == 0 || len >= MNL_ATTR_HDRLEN;
    case MNL_TYPE_NUL_STRING:
      /* Strings end up in labels and JSON: only valid UTF-8 gets through. */
      return rtop_nl_string_is_valid (attr_data (attr), len);
    case MNL_TYPE_BINARY:
      /* The only binary attributes read are socket addresses, which the
       * kernel puts whole (nla_put of a struct sockaddr_storage). */
      return len == sizeof (struct __kernel_sockaddr_storage);
    default:
      return FALSE;
    }
}

/* Slot + 1 of an attribute type the policy knows, 0 for one it skips. */
static inline __attribute__ ((always_inline)) guint
slot_for (guint16 type)
{
  return type < G_N_ELEMENTS (slot_of) ? slot_of[type] : 0;
}

static gboolean
invalid_attr (Slot slot, guint16 type, GError **error)
{
  g_autofree char *what = g_strdup_printf (_("attribute %s (%u) has a wrong size or format"),
                                           policy[slot].name, type);

  return rtop_nl_malformed (error, what);
}

/* The next attribute the policy knows, checked against it, with its slot;
 * attributes it does not know are skipped.  NULL at the end, or with error
 * set for one of a wrong format (walk_finish() then says FALSE). */
static inline __attribute__ ((always_inline)) const struct nlattr *
walk_next_known (AttrWalk *w, guint *slot, GError **error)
{
  const struct nlattr *attr;

  while ((attr = walk_next (w)) != NULL)
    {
      guint16 type = attr->nla_type & NLA_TYPE_MASK;
      guint s = slot_for (type);

      if (s-- == 0)
        continue;
      if (!attr_is_valid (attr, policy[s].type))
        {
          w->invalid = TRUE;
          invalid_attr (s, type, error);
          return NULL;
        }
      *slot = s;
      return attr;
    }
  return NULL;
}

/* After walk_next_known() returned NULL: FALSE (error set) when it stopped
 * at a bad attribute or left bytes that are no whole attribute. */
static gboolean
walk_finish (const AttrWalk *w, GError **error)
{
  if (w->invalid)
    return FALSE;
  if (!walk_complete (w))
    return rtop_nl_malformed (error, _("truncated attribute"));
  return TRUE;
}

/* One level of attributes into t. */
static gboolean
parse_attrs (const void *payload, gsize len, AttrTable *t, GError **error)
{
  const struct nlattr *attr;
  AttrWalk w;

  guint slot;

  memset (t, 0, sizeof *t);
  if (len > G_MAXINT)
    return rtop_nl_malformed (error, _("oversized message"));
  walk_init (&w, payload, len);
  while ((attr = walk_next_known (&w, &slot, error)) != NULL)
    t->tb[slot] = attr;
  return walk_finish (&w, error);
}

static gboolean
parse_message (const struct nlmsghdr *nlh, guint16 cmd, AttrTable *t, GError **error)
{
  if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN)
    return rtop_nl_malformed (error, _("truncated message header"));
  if (nlh->nlmsg_type != RDMA_NL_GET_TYPE (RDMA_NL_NLDEV, cmd))
    {
      g_autofree char *what = g_strdup_printf (_("message type %u where %s was expected"),
                                               nlh->nlmsg_type, rtop_nl_command_name (cmd));
      return rtop_nl_malformed (error, what);
    }
  return parse_attrs ((const guint8 *) nlh + MNL_NLMSG_HDRLEN, nlh->nlmsg_len - MNL_NLMSG_HDRLEN,
                      t, error);
}

static gboolean
missing (Slot slot, GError **error)
{
  g_autofree char *what = g_strdup_printf (_("%s is missing"), policy[slot].name);

  return rtop_nl_malformed (error, what);
}

static gboolean
require (const AttrTable *t, Slot slot, GError **error)
{
  return t->tb[slot] != NULL || missing (slot, error);
}

static guint8
get_u8 (const AttrTable *t, Slot slot, guint8 fallback)
{
  return t->tb[slot] ? (guint8) attr_data (t->tb[slot])[0] : fallback;
}

static guint32
get_u32 (const AttrTable *t, Slot slot, guint32 fallback)
{
  return t->tb[slot] ? attr_u32 (t->tb[slot]) : fallback;
}

static guint64
get_u64 (const AttrTable *t, Slot slot)
{
  return t->tb[slot] ? attr_u64 (t->tb[slot]) : 0;
}

static char *
dup_str (const AttrTable *t, Slot slot)
{
  return t->tb[slot] ? g_strdup (attr_data (t->tb[slot])) : NULL;
}

/* Calls func for every entry_type nest inside list (checked to be a nest);
 * other types are skipped.  func parses the entry. */
typedef gboolean (*EntryFunc) (const struct nlattr *entry, gpointer data, GError **error);

static gboolean
parse_list (const struct nlattr *list, guint16 entry_type,
            EntryFunc func, gpointer data, GError **error)
{
  const struct nlattr *attr;
  AttrWalk w;

  walk_init (&w, attr_data (list), attr_data_len (list));
  while ((attr = walk_next (&w)) != NULL)
    {
      if ((attr->nla_type & NLA_TYPE_MASK) != entry_type)
        continue;
      if (!attr_is_valid (attr, MNL_TYPE_NESTED))
        return rtop_nl_malformed (error, _("bad list entry"));
      if (!func (attr, data, error))
        return FALSE;
    }
  if (!walk_complete (&w))
    return rtop_nl_malformed (error, _("truncated list entry"));
  return TRUE;
}

static const char *
get_str (const AttrTable *t, Slot slot)
{
  return t->tb[slot] ? attr_data (t->tb[slot]) : NULL;
}

gboolean
rtop_nl_parse_device_view (const struct nlmsghdr *nlh, RtopNlDeviceView *out, GError **error)
{
  AttrTable t;

  memset (out, 0, sizeof *out);
  if (!parse_message (nlh, RDMA_NLDEV_CMD_GET, &t, error) ||
      !require (&t, SLOT_DEV_INDEX, error) ||
      !require (&t, SLOT_DEV_NAME, error))
    return FALSE;

  out->index = get_u32 (&t, SLOT_DEV_INDEX, 0);
  out->name = get_str (&t, SLOT_DEV_NAME);
  out->port_count = get_u32 (&t, SLOT_PORT_INDEX, 0);
  out->node_type = get_u8 (&t, SLOT_DEV_NODE_TYPE, 0);
  out->fw_version = get_str (&t, SLOT_FW_VERSION);
  out->node_guid = get_u64 (&t, SLOT_NODE_GUID);
  out->sys_image_guid = get_u64 (&t, SLOT_SYS_IMAGE_GUID);
  out->protocol = get_str (&t, SLOT_DEV_PROTOCOL);
  return TRUE;
}

gboolean
rtop_nl_parse_device (const struct nlmsghdr *nlh, RtopNlDevice *out, GError **error)
{
  RtopNlDeviceView v;

  memset (out, 0, sizeof *out);
  if (!rtop_nl_parse_device_view (nlh, &v, error))
    return FALSE;
  out->index = v.index;
  out->name = g_strdup (v.name);
  out->port_count = v.port_count;
  out->node_type = v.node_type;
  out->fw_version = g_strdup (v.fw_version);
  out->node_guid = v.node_guid;
  out->sys_image_guid = v.sys_image_guid;
  out->protocol = g_strdup (v.protocol);
  return TRUE;
}

gboolean
rtop_nl_parse_port_view (const struct nlmsghdr *nlh, RtopNlPort *out, GError **error)
{
  AttrTable t;

  memset (out, 0, sizeof *out);
  if (!parse_message (nlh, RDMA_NLDEV_CMD_PORT_GET, &t, error) ||
      !require (&t, SLOT_DEV_INDEX, error) ||
      !require (&t, SLOT_PORT_INDEX, error))
    return FALSE;

  out->dev_index = get_u32 (&t, SLOT_DEV_INDEX, 0);
  out->dev_name = (char *) get_str (&t, SLOT_DEV_NAME);
  out->port = get_u32 (&t, SLOT_PORT_INDEX, 0);
  out->state = get_u8 (&t, SLOT_PORT_STATE, 0);
  out->phys_state = get_u8 (&t, SLOT_PORT_PHYS_STATE, 0);
  out->ndev_index = get_u32 (&t, SLOT_NDEV_INDEX, 0);
  out->ndev_name = (char *) get_str (&t, SLOT_NDEV_NAME);
  return TRUE;
}

gboolean
rtop_nl_parse_port (const struct nlmsghdr *nlh, RtopNlPort *out, GError **error)
{
  if (!rtop_nl_parse_port_view (nlh, out, error))
    return FALSE;
  out->dev_name = g_strdup (out->dev_name);
  out->ndev_name = g_strdup (out->ndev_name);
  return TRUE;
}

typedef struct {
  RtopNlCounterFunc func;
  gpointer user_data;
  const guint8 *msg;         /* with offsets: where each value sits in msg */
  GArray *offsets;
} CounterCall;

/* One counter entry: parse_attrs() without the table, since a port has
 * dozens to hundreds of these per pass and only two attributes matter.
 * Every attribute the policy knows is checked all the same. */
static gboolean
counter_entry_cb (const struct nlattr *entry, gpointer data, GError **error)
{
  CounterCall *call = data;
  const struct nlattr *name = NULL, *value = NULL, *attr;
  AttrWalk w;
  guint slot;

  walk_init (&w, attr_data (entry), attr_data_len (entry));
  while ((attr = walk_next_known (&w, &slot, error)) != NULL)
    {
      if (slot == SLOT_STAT_HWCOUNTER_ENTRY_NAME)
        name = attr;
      else if (slot == SLOT_STAT_HWCOUNTER_ENTRY_VALUE)
        value = attr;
    }
  if (!walk_finish (&w, error))
    return FALSE;
  if (name == NULL)
    return missing (SLOT_STAT_HWCOUNTER_ENTRY_NAME, error);
  if (value == NULL)
    return missing (SLOT_STAT_HWCOUNTER_ENTRY_VALUE, error);
  if (call->offsets != NULL)
    {
      guint32 at = (guint32) ((const guint8 *) attr_data (value) - call->msg);

      g_array_append_val (call->offsets, at);
    }
  return call->func == NULL ||
         call->func (attr_data (name), attr_u64 (value), call->user_data, error);
}

/* Reads the header attributes into t and the out parameters, then walks
 * the counter table. */
static gboolean
stat_walk (const struct nlmsghdr *nlh, AttrTable *t, guint32 *dev_index, guint32 *port,
           RtopNlCounterFunc func, gpointer user_data, GArray *offsets, GError **error)
{
  CounterCall call = { func, user_data, (const guint8 *) nlh, offsets };

  if (!parse_message (nlh, RDMA_NLDEV_CMD_STAT_GET, t, error) ||
      !require (t, SLOT_DEV_INDEX, error) ||
      !require (t, SLOT_PORT_INDEX, error))
    return FALSE;
  if (dev_index != NULL)
    *dev_index = get_u32 (t, SLOT_DEV_INDEX, 0);
  if (port != NULL)
    *port = get_u32 (t, SLOT_PORT_INDEX, 0);
  if (t->tb[SLOT_STAT_HWCOUNTERS] == NULL)
    return TRUE;
  return parse_list (t->tb[SLOT_STAT_HWCOUNTERS], RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
                     counter_entry_cb, &call, error);
}

gboolean
rtop_nl_parse_stat_foreach (const struct nlmsghdr *nlh, guint32 *dev_index, guint32 *port,
                            RtopNlCounterFunc func, gpointer user_data, GError **error)
{
  AttrTable t;

  return stat_walk (nlh, &t, dev_index, port, func, user_data, NULL, error);
}

gboolean
rtop_nl_reply_equal (const guint8 *kept, guint32 len, const struct nlmsghdr *nlh)
{
  const gsize skip = offsetof (struct nlmsghdr, nlmsg_seq);
  const gsize from = sizeof (struct nlmsghdr);

  return kept != NULL && len >= from && len == nlh->nlmsg_len &&
         memcmp (kept, nlh, skip) == 0 &&
         memcmp (kept + from, (const guint8 *) nlh + from, len - from) == 0;
}

/* A STAT_GET reply as it came, and where its counter values sit. */
struct _RtopNlStatTemplate {
  guint32 len;
  guint n;
  guint8 *bytes;
  guint32 *offsets;          /* of each value payload (8 bytes), ascending */
};

RtopNlStatTemplate *
rtop_nl_stat_template_new (const struct nlmsghdr *nlh)
{
  g_autoptr(GArray) offsets = g_array_new (FALSE, FALSE, sizeof (guint32));
  RtopNlStatTemplate *t;
  AttrTable table;

  if (!stat_walk (nlh, &table, NULL, NULL, NULL, NULL, offsets, NULL))
    return NULL;
  t = g_new0 (RtopNlStatTemplate, 1);
  t->len = nlh->nlmsg_len;
  t->n = offsets->len;
  t->bytes = g_memdup2 (nlh, nlh->nlmsg_len);
  t->offsets = (guint32 *) (gpointer) g_array_free (g_steal_pointer (&offsets), FALSE);
  return t;
}

void
rtop_nl_stat_template_free (RtopNlStatTemplate *t)
{
  if (t == NULL)
    return;
  g_free (t->bytes);
  g_free (t->offsets);
  g_free (t);
}

guint
rtop_nl_stat_template_get_n_counters (const RtopNlStatTemplate *t)
{
  return t->n;
}

/* Every byte but the header's sequence number and port id (the transport
 * checked those) and the counter values must be the template's; then the
 * message parses to the same counters in the same order, and only the
 * values are read. */
gboolean
rtop_nl_stat_template_match (const RtopNlStatTemplate *t, const struct nlmsghdr *nlh,
                             guint64 *values)
{
  const guint8 *msg = (const guint8 *) nlh;
  gsize from = offsetof (struct nlmsghdr, nlmsg_seq) + sizeof nlh->nlmsg_seq + sizeof nlh->nlmsg_pid;

  if (nlh->nlmsg_len != t->len || memcmp (msg, t->bytes, offsetof (struct nlmsghdr, nlmsg_seq)) != 0)
    return FALSE;
  for (guint k = 0; k < t->n; k++)
    {
      if (memcmp (msg + from, t->bytes + from, t->offsets[k] - from) != 0)
        return FALSE;
      from = t->offsets[k] + sizeof (guint64);
    }
  if (memcmp (msg + from, t->bytes + from, t->len - from) != 0)
    return FALSE;
  for (guint k = 0; k < t->n; k++)
    memcpy (&values[k], msg + t->offsets[k], sizeof (guint64));
  return TRUE;
}

static gboolean
append_counter_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  RtopNlCounter c = { g_strdup (name), value };

  g_array_append_val ((GArray *) user_data, c);
  return TRUE;
}

static void
counter_clear (gpointer data)
{
  RtopNlCounter *c = data;

  g_clear_pointer (&c->name, g_free);
}

gboolean
rtop_nl_parse_stat (const struct nlmsghdr *nlh, RtopNlStat *out, GError **error)
{
  AttrTable t;

  memset (out, 0, sizeof *out);
  /* Providers have 15 (rxe) to ~100 (mlx5) counters: start big enough. */
  out->counters = g_array_sized_new (FALSE, FALSE, sizeof (RtopNlCounter), 64);
  g_array_set_clear_func (out->counters, counter_clear);
  if (!stat_walk (nlh, &t, &out->dev_index, &out->port, append_counter_cb, out->counters, NULL,
                  error))
    {
      rtop_nl_stat_clear (out);
      out->dev_index = out->port = 0;
      return FALSE;
    }
  out->dev_name = dup_str (&t, SLOT_DEV_NAME);
  return TRUE;
}

/* Where each resource kind lives in the message. */
static const struct {
  guint16 cmd;
  Slot list;
  guint16 entry;             /* attribute number of one list entry */
  Slot id;
} res_layout[] = {
  [RTOP_NL_RES_QP] = { RDMA_NLDEV_CMD_RES_QP_GET, SLOT_RES_QP,
                       RDMA_NLDEV_ATTR_RES_QP_ENTRY, SLOT_RES_LQPN },
  [RTOP_NL_RES_CTX] = { RDMA_NLDEV_CMD_RES_CTX_GET, SLOT_RES_CTX,
                        RDMA_NLDEV_ATTR_RES_CTX_ENTRY, SLOT_RES_CTXN },
  [RTOP_NL_RES_MR] = { RDMA_NLDEV_CMD_RES_MR_GET, SLOT_RES_MR,
                       RDMA_NLDEV_ATTR_RES_MR_ENTRY, SLOT_RES_MRN },
  [RTOP_NL_RES_CM_ID] = { RDMA_NLDEV_CMD_RES_CM_ID_GET, SLOT_RES_CM_ID,
                          RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, SLOT_RES_CM_IDN },
};

typedef struct {
  RtopNlResKind kind;
  guint32 dev_index;
  const char *dev_name;
  RtopNlResFunc func;
  gpointer user_data;
} ResContext;

/* One resource entry: like counter entries, walked without the table
 * (every attribute the policy knows is still checked; a repeated one
 * counts as its last, as in parse_attrs()). */
static gboolean
res_entry_cb (const struct nlattr *entry, gpointer data, GError **error)
{
  ResContext *ctx = data;
  RtopNlRes r = { 0, };
  Slot id_slot = res_layout[ctx->kind].id;
  gboolean has_id = FALSE;
  const struct nlattr *attr;
  AttrWalk w;
  guint slot;

  walk_init (&w, attr_data (entry), attr_data_len (entry));
  while ((attr = walk_next_known (&w, &slot, error)) != NULL)
    {
      if (slot == id_slot)
        {
          r.id = attr_u32 (attr);
          has_id = TRUE;
        }
      else if (slot == SLOT_PORT_INDEX)
        r.port = attr_u32 (attr);
      else if (slot == SLOT_RES_LQPN)
        {
          /* A CM ID's QP (QP entries have it as their id). */
          r.lqpn = attr_u32 (attr);
          r.has_lqpn = TRUE;
        }
      else if (slot == SLOT_RES_PS)
        r.ps = attr_u32 (attr);
      else if (slot == SLOT_RES_SRC_ADDR)
        r.src_addr = (const guint8 *) attr_data (attr);
      else if (slot == SLOT_RES_DST_ADDR)
        r.dst_addr = (const guint8 *) attr_data (attr);
      else if (slot == SLOT_RES_TYPE)
        r.qp_type = (guint8) attr_data (attr)[0];
      else if (slot == SLOT_RES_STATE)
        r.qp_state = (guint8) attr_data (attr)[0];
      else if (slot == SLOT_RES_RQPN)
        {
          /* Only connected QPs (RC, UC) have a peer. */
          r.rqpn = attr_u32 (attr);
          r.has_rqpn = TRUE;
        }
      else if (slot == SLOT_RES_MRLEN)
        r.mr_len = attr_u64 (attr);
      else if (slot == SLOT_RES_PID)
        {
          r.has_pid = TRUE;
          r.pid = attr_u32 (attr);
        }
      else if (slot == SLOT_RES_KERN_NAME)
        r.kern_name = (char *) attr_data (attr);
    }
  if (!walk_finish (&w, error))
    return FALSE;
  if (!has_id)
    return missing (id_slot, error);
  r.kind = ctx->kind;
  if (r.kind == RTOP_NL_RES_QP)
    {
      r.lqpn = r.id;
      r.has_lqpn = TRUE;
    }
  r.dev_index = ctx->dev_index;
  r.dev_name = (char *) ctx->dev_name;
  return ctx->func (&r, ctx->user_data, error);
}

gboolean
rtop_nl_parse_res_foreach (const struct nlmsghdr *nlh, RtopNlResKind kind,
                           RtopNlResFunc func, gpointer user_data, GError **error)
{
  AttrTable t;
  ResContext ctx;
  const struct nlattr *list;

  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (res_layout), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (!parse_message (nlh, res_layout[kind].cmd, &t, error) ||
      !require (&t, SLOT_DEV_INDEX, error))
    return FALSE;

  ctx.kind = kind;
  ctx.dev_index = get_u32 (&t, SLOT_DEV_INDEX, 0);
  ctx.dev_name = t.tb[SLOT_DEV_NAME] ? attr_data (t.tb[SLOT_DEV_NAME]) : NULL;
  ctx.func = func;
  ctx.user_data = user_data;
  list = t.tb[res_layout[kind].list];
  return list == NULL || parse_list (list, res_layout[kind].entry, res_entry_cb, &ctx, error);
}

static gboolean
append_res_cb (const RtopNlRes *res, gpointer user_data, GError **error)
{
  RtopNlRes r = *res;

  r.dev_name = g_strdup (res->dev_name);
  r.kern_name = g_strdup (res->kern_name);
  r.src_addr = res->src_addr ? g_memdup2 (res->src_addr, RTOP_NL_SOCKADDR_SIZE) : NULL;
  r.dst_addr = res->dst_addr ? g_memdup2 (res->dst_addr, RTOP_NL_SOCKADDR_SIZE) : NULL;
  g_array_append_val ((GArray *) user_data, r);
  return TRUE;
}

gboolean
rtop_nl_parse_res (const struct nlmsghdr *nlh, RtopNlResKind kind, GArray *out, GError **error)
{
  guint old_len;

  g_return_val_if_fail ((guint) kind < G_N_ELEMENTS (res_layout), FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (g_array_get_element_size (out) == sizeof (RtopNlRes), FALSE);

  old_len = out->len;
  if (!rtop_nl_parse_res_foreach (nlh, kind, append_res_cb, out, error))
    {
      /* Leave the array as it was; clearing twice is safe if it has a clear func. */
      for (guint i = old_len; i < out->len; i++)
        rtop_nl_res_clear (&g_array_index (out, RtopNlRes, i));
      g_array_set_size (out, old_len);
      return FALSE;
    }
  return TRUE;
}

gboolean
rtop_nl_parse_sys (const struct nlmsghdr *nlh, RtopNlSys *out, GError **error)
{
  AttrTable t;

  memset (out, 0, sizeof *out);
  if (!parse_message (nlh, RDMA_NLDEV_CMD_SYS_GET, &t, error))
    return FALSE;

  out->has_monitor_mode = t.tb[SLOT_SYS_ATTR_MONITOR_MODE] != NULL;
  out->monitor_mode = get_u8 (&t, SLOT_SYS_ATTR_MONITOR_MODE, 0);
  out->has_netns_mode = t.tb[SLOT_SYS_ATTR_NETNS_MODE] != NULL;
  out->netns_mode = get_u8 (&t, SLOT_SYS_ATTR_NETNS_MODE, 0);
  return TRUE;
}

gboolean
rtop_nl_parse_event (const struct nlmsghdr *nlh, RtopNlEvent *out, GError **error)
{
  AttrTable t;

  memset (out, 0, sizeof *out);
  out->dev_index = RTOP_NL_NO_INDEX;
  if (!parse_message (nlh, RDMA_NLDEV_CMD_MONITOR, &t, error) ||
      !require (&t, SLOT_EVENT_TYPE, error))
    return FALSE;

  out->event_type = get_u8 (&t, SLOT_EVENT_TYPE, 0);
  out->dev_index = get_u32 (&t, SLOT_DEV_INDEX, RTOP_NL_NO_INDEX);
  out->dev_name = dup_str (&t, SLOT_DEV_NAME);
  out->port = get_u32 (&t, SLOT_PORT_INDEX, 0);
  out->ndev_index = get_u32 (&t, SLOT_NDEV_INDEX, 0);
  out->ndev_name = dup_str (&t, SLOT_NDEV_NAME);
  return TRUE;
}

void
rtop_nl_device_clear (RtopNlDevice *d)
{
  g_clear_pointer (&d->name, g_free);
  g_clear_pointer (&d->fw_version, g_free);
  g_clear_pointer (&d->protocol, g_free);
}

void
rtop_nl_port_clear (RtopNlPort *p)
{
  g_clear_pointer (&p->dev_name, g_free);
  g_clear_pointer (&p->ndev_name, g_free);
}

void
rtop_nl_stat_clear (RtopNlStat *s)
{
  g_clear_pointer (&s->dev_name, g_free);
  g_clear_pointer (&s->counters, g_array_unref);
}

void
rtop_nl_res_clear (RtopNlRes *r)
{
  g_clear_pointer (&r->dev_name, g_free);
  g_clear_pointer (&r->kern_name, g_free);
  g_clear_pointer ((guint8 **) &r->src_addr, g_free);
  g_clear_pointer ((guint8 **) &r->dst_addr, g_free);
}

/* Family first, in host order (the kernel copies its struct as it is);
 * the rest read from the address's own layout, without alignment. */
gboolean
rtop_nl_format_sockaddr (const guint8 *sockaddr, char *buf, gsize size)
{
  char host[INET6_ADDRSTRLEN];
  sa_family_t family;
  guint16 port;

  if (sockaddr == NULL || size == 0)
    return FALSE;
  memcpy (&family, sockaddr, sizeof family);
  if (family == AF_INET)
    {
      struct sockaddr_in in;

      memcpy (&in, sockaddr, sizeof in);
      port = ntohs (in.sin_port);
      if (inet_ntop (AF_INET, &in.sin_addr, host, sizeof host) == NULL)
        return FALSE;
      return (gsize) g_snprintf (buf, size, "%s:%u", host, port) < size;
    }
  if (family == AF_INET6)
    {
      struct sockaddr_in6 in6;

      memcpy (&in6, sockaddr, sizeof in6);
      port = ntohs (in6.sin6_port);
      if (inet_ntop (AF_INET6, &in6.sin6_addr, host, sizeof host) == NULL)
        return FALSE;
      return (gsize) g_snprintf (buf, size, "[%s]:%u", host, port) < size;
    }
  return FALSE;
}

void
rtop_nl_event_clear (RtopNlEvent *e)
{
  g_clear_pointer (&e->dev_name, g_free);
  g_clear_pointer (&e->ndev_name, g_free);
}
