/* rtop-nl-parse-private.h: what the netlink parsers (rtop-nl-parse.c for
 * RDMA netlink, rtop-nl-parse-link.c for routing netlink) share: the
 * attribute walk and accessors, inline because they run for every
 * attribute of every reply, and the error for a malformed reply. */
#pragma once

#include <glib/gi18n-lib.h>
#include <libmnl/libmnl.h>
#include <string.h>

#include "rtop-error.h"
#include "rtop-nl-private.h"

G_BEGIN_DECLS

static inline gboolean
rtop_nl_malformed (GError **error, const char *what)
{
  g_set_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED,
               _("The kernel sent an RDMA netlink reply rdmatop cannot read (%s)."), what);
  return FALSE;
}

/* libmnl's accessors, inline: they are one addition each, and called
 * through the PLT for every attribute of every reply they showed up in
 * profiles of a pass.  Payloads are only 4-byte aligned, hence memcpy. */
static inline const char *
attr_data (const struct nlattr *attr)
{
  return (const char *) attr + MNL_ATTR_HDRLEN;
}

static inline gsize
attr_data_len (const struct nlattr *attr)
{
  return attr->nla_len - MNL_ATTR_HDRLEN;   /* nla_len >= header: checked by every walk */
}

/* A NUL-terminated string of len bytes (NUL included) that is valid UTF-8
 * up to its first NUL. */
gboolean rtop_nl_string_is_valid (const char *data, gsize len);

/* The walk every loop here takes, libmnl's (mnl_attr_parse_payload()): an
 * attribute is whole when its header fits, its length covers the header
 * and stays inside the payload; the next one starts at the aligned end.
 * Written out, and inline, because it runs for every attribute of every
 * reply.  Bytes left over that are no whole attribute make the walk
 * incomplete: an error for the caller. */
typedef struct {
  const guint8 *start;
  gsize len, off;
  gboolean invalid;          /* walk_next_known() met an attribute of a wrong format */
} AttrWalk;

static inline __attribute__ ((always_inline)) void
walk_init (AttrWalk *w, const void *payload, gsize len)
{
  w->start = payload;
  w->len = len;
  w->off = 0;
  w->invalid = FALSE;
}

static inline __attribute__ ((always_inline)) const struct nlattr *
walk_next (AttrWalk *w)
{
  const struct nlattr *attr = (const struct nlattr *) (gconstpointer) (w->start + w->off);

  if (w->off + sizeof (struct nlattr) > w->len ||
      attr->nla_len < sizeof (struct nlattr) || attr->nla_len > w->len - w->off)
    return NULL;
  w->off += MNL_ALIGN (attr->nla_len);
  return attr;
}

static inline __attribute__ ((always_inline)) gboolean
walk_complete (const AttrWalk *w)
{
  return w->off >= w->len;
}

G_END_DECLS
