/* fuzz-reuse.c: libFuzzer target for the collector's reply reuse.
 *
 * A reply that equals the last one is not parsed again: a STAT_GET reply
 * equal to its template but for the counter values gives the values at the
 * template's offsets (rtop_nl_stat_template_match), and a GET or PORT_GET
 * reply equal to the kept one but for sequence number and port id keeps
 * the kept parse (rtop_nl_reply_equal).  The input is a reply A and edits
 * that turn a copy of it into B; wherever the reuse takes B, a full parse
 * of B must give what the reuse gave: never a value read at a stale offset.
 *
 * Input: len:u16le  A[len]  { offset:u16le  xor:u8 }...  (offsets modulo
 * len; A's nlmsg_len is set to len). */
#include "rtop-nl-private.h"

#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

#define MAX_MSG 8192

typedef struct {
  guint n;
  char *names[512];
  guint64 values[512];
  gboolean overflow;
} Counters;

static gboolean
collect_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  Counters *c = user_data;

  if (c->n == G_N_ELEMENTS (c->names))
    {
      c->overflow = TRUE;
      return TRUE;
    }
  c->names[c->n] = g_strdup (name);
  c->values[c->n] = value;
  c->n++;
  return TRUE;
}

static void
counters_clear (Counters *c)
{
  for (guint i = 0; i < c->n; i++)
    g_free (c->names[i]);
  c->n = 0;
}

/* A full parse of b agrees with the template's reading of it. */
static void
check_stat_reuse (const struct nlmsghdr *a, const struct nlmsghdr *b)
{
  g_autoptr(RtopNlStatTemplate) t = rtop_nl_stat_template_new (a);
  Counters ca = { 0 }, cb = { 0 };
  guint32 dev_a = 0, port_a = 0, dev_b = 0, port_b = 0;
  g_autofree guint64 *values = NULL;
  guint n;

  if (t == NULL)
    return;
  n = rtop_nl_stat_template_get_n_counters (t);
  values = g_new0 (guint64, MAX (n, 1));
  g_assert_true (rtop_nl_parse_stat_foreach (a, &dev_a, &port_a, collect_cb, &ca, NULL));
  g_assert_true (rtop_nl_stat_template_match (t, a, values));
  if (!ca.overflow)
    {
      g_assert_cmpuint (ca.n, ==, n);
      for (guint k = 0; k < n; k++)
        g_assert_cmpuint (values[k], ==, ca.values[k]);
    }
  if (rtop_nl_stat_template_match (t, b, values))
    {
      /* Taken: B must parse, to the same port and names, and the values
       * the template read must be B's own. */
      g_assert_true (rtop_nl_parse_stat_foreach (b, &dev_b, &port_b, collect_cb, &cb, NULL));
      g_assert_cmpuint (dev_b, ==, dev_a);
      g_assert_cmpuint (port_b, ==, port_a);
      g_assert_cmpuint (cb.n, ==, ca.n);
      g_assert_cmpint (cb.overflow, ==, ca.overflow);
      for (guint k = 0; k < cb.n; k++)
        {
          g_assert_cmpstr (cb.names[k], ==, ca.names[k]);
          if (!cb.overflow)
            g_assert_cmpuint (values[k], ==, cb.values[k]);
        }
    }
  counters_clear (&ca);
  counters_clear (&cb);
}

static void
check_device_reuse (const struct nlmsghdr *a, const struct nlmsghdr *b)
{
  RtopNlDevice da, db;
  gboolean ok_a = rtop_nl_parse_device (a, &da, NULL);
  gboolean ok_b = rtop_nl_parse_device (b, &db, NULL);

  g_assert_cmpint (ok_a, ==, ok_b);
  if (ok_a)
    {
      g_assert_cmpuint (da.index, ==, db.index);
      g_assert_cmpstr (da.name, ==, db.name);
      g_assert_cmpuint (da.port_count, ==, db.port_count);
      g_assert_cmpuint (da.node_type, ==, db.node_type);
      g_assert_cmpstr (da.fw_version, ==, db.fw_version);
      g_assert_cmpuint (da.node_guid, ==, db.node_guid);
      g_assert_cmpuint (da.sys_image_guid, ==, db.sys_image_guid);
      g_assert_cmpstr (da.protocol, ==, db.protocol);
      rtop_nl_device_clear (&da);
      rtop_nl_device_clear (&db);
    }
}

static void
check_port_reuse (const struct nlmsghdr *a, const struct nlmsghdr *b)
{
  RtopNlPort pa, pb;
  gboolean ok_a = rtop_nl_parse_port (a, &pa, NULL);
  gboolean ok_b = rtop_nl_parse_port (b, &pb, NULL);

  g_assert_cmpint (ok_a, ==, ok_b);
  if (ok_a)
    {
      g_assert_cmpuint (pa.dev_index, ==, pb.dev_index);
      g_assert_cmpstr (pa.dev_name, ==, pb.dev_name);
      g_assert_cmpuint (pa.port, ==, pb.port);
      g_assert_cmpuint (pa.state, ==, pb.state);
      g_assert_cmpuint (pa.phys_state, ==, pb.phys_state);
      g_assert_cmpuint (pa.ndev_index, ==, pb.ndev_index);
      g_assert_cmpstr (pa.ndev_name, ==, pb.ndev_name);
      rtop_nl_port_clear (&pa);
      rtop_nl_port_clear (&pb);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static guint32 abuf[MAX_MSG / 4], bbuf[MAX_MSG / 4];
  struct nlmsghdr *a = (struct nlmsghdr *) abuf, *b = (struct nlmsghdr *) bbuf;
  gsize len;

  if (size < 2)
    return 0;
  len = data[0] | (data[1] << 8);
  if (len < sizeof (struct nlmsghdr) || len > MAX_MSG || len > size - 2)
    return 0;
  memset (abuf, 0, sizeof abuf);
  memcpy (abuf, data + 2, len);
  a->nlmsg_len = len;
  memcpy (bbuf, abuf, sizeof bbuf);
  for (gsize i = 2 + len; i + 3 <= size; i += 3)
    ((guint8 *) bbuf)[(data[i] | (data[i + 1] << 8)) % len] ^= data[i + 2];
  /* An edit of B's length field changes how much of it there is. */
  if (b->nlmsg_len > len)
    b->nlmsg_len = len;

  check_stat_reuse (a, b);
  if (rtop_nl_reply_equal ((const guint8 *) a, a->nlmsg_len, b))
    {
      check_device_reuse (a, b);
      check_port_reuse (a, b);
    }
  return 0;
}
