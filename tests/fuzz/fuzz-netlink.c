/* fuzz-netlink.c: libFuzzer target for the RDMA netlink reply path.
 *
 * Arbitrary bytes go through rtop_nl_process_buffer() exactly as a received
 * datagram would, and every data message is handed to every parser, so the
 * header walk, error/ext-ack handling and all attribute parsers see the
 * input.  Sequence and port id 0 accept every message. */
#include "rtop-nl-private.h"

#include <string.h>

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static void
run_res_parser (const struct nlmsghdr *nlh, RtopNlResKind kind, GArray *arr)
{
  g_autoptr(GError) error = NULL;

  if (rtop_nl_parse_res (nlh, kind, arr, &error))
    {
      g_assert_no_error (error);
      /* Whatever address bytes got through are formatted, or refused. */
      for (guint i = 0; i < arr->len; i++)
        {
          const RtopNlRes *r = &g_array_index (arr, RtopNlRes, i);
          char text[64];

          if (rtop_nl_format_sockaddr (r->src_addr, text, sizeof text))
            g_assert_nonnull (memchr (text, ':', sizeof text));
          if (rtop_nl_format_sockaddr (r->dst_addr, text, sizeof text))
            g_assert_nonnull (memchr (text, ':', sizeof text));
        }
    }
  else
    g_assert_nonnull (error);
}

static gboolean
count_cb (const char *name, guint64 value, gpointer user_data, GError **error)
{
  g_assert_nonnull (name);
  (*(guint *) user_data)++;
  return TRUE;
}

static gboolean
all_parsers_cb (const struct nlmsghdr *nlh, gpointer user_data, GError **error)
{
  GArray *res = user_data;
  GError *e = NULL;
  RtopNlDevice dev;
  RtopNlPort port;
  RtopNlStat stat;
  RtopNlSys sys;
  RtopNlEvent ev;

  /* Each parser either succeeds with no error or fails with one, and
   * leaves nothing to free on failure (the sanitizers check the rest). */
  if (rtop_nl_parse_device (nlh, &dev, &e))
    rtop_nl_device_clear (&dev);
  g_clear_error (&e);
  if (rtop_nl_parse_port (nlh, &port, &e))
    rtop_nl_port_clear (&port);
  g_clear_error (&e);
  if (rtop_nl_parse_stat (nlh, &stat, &e))
    {
      for (guint i = 0; i < stat.counters->len; i++)
        g_assert_nonnull (g_array_index (stat.counters, RtopNlCounter, i).name);
      rtop_nl_stat_clear (&stat);
    }
  g_clear_error (&e);
  {
    guint n = 0;
    gboolean parsed = rtop_nl_parse_stat_foreach (nlh, NULL, NULL, count_cb, &n, &e);
    RtopNlStatTemplate *t = rtop_nl_stat_template_new (nlh);

    g_clear_error (&e);
    /* A template exactly when the reply parses, and it matches itself
     * with the values the parse saw. */
    g_assert_true ((t != NULL) == parsed);
    if (t != NULL)
      {
        g_autofree guint64 *values = g_new (guint64, MAX (rtop_nl_stat_template_get_n_counters (t), 1));

        g_assert_cmpuint (rtop_nl_stat_template_get_n_counters (t), ==, n);
        g_assert_true (rtop_nl_stat_template_match (t, nlh, values));
        rtop_nl_stat_template_free (t);
      }
  }
  run_res_parser (nlh, RTOP_NL_RES_QP, res);
  run_res_parser (nlh, RTOP_NL_RES_CTX, res);
  run_res_parser (nlh, RTOP_NL_RES_MR, res);
  run_res_parser (nlh, RTOP_NL_RES_CM_ID, res);
  rtop_nl_parse_sys (nlh, &sys, &e);
  g_clear_error (&e);
  {
    RtopNlLinkStats st;
    const char *name = NULL;
    guint32 ifindex;

    if (rtop_nl_parse_link_stats (nlh, &st, &e))
      g_assert_true (st.has_stats || st.tx_bytes == 0);
    g_clear_error (&e);
    if (rtop_nl_parse_link_name (nlh, &ifindex, &name, &e))
      g_assert_nonnull (name);
    g_clear_error (&e);
  }
  if (rtop_nl_parse_event (nlh, &ev, &e))
    rtop_nl_event_clear (&ev);
  g_clear_error (&e);
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  g_autoptr(GArray) res = g_array_new (FALSE, TRUE, sizeof (RtopNlRes));
  g_autoptr(GError) error = NULL;
  gboolean done = FALSE;

  g_array_set_clear_func (res, (GDestroyNotify) rtop_nl_res_clear);
  if (!rtop_nl_process_buffer (data, size, 0, 0, all_parsers_cb, res, &done, &error))
    g_assert_nonnull (error);
  /* The same bytes as a reply to a specific request: filtering paths. */
  g_clear_error (&error);
  rtop_nl_process_buffer (data, size, 1, 1, all_parsers_cb, res, &done, &error);
  return 0;
}
