/* rtop-openmetrics-accept.c: which exposition an HTTP Accept header asks for.
 *
 * The header is outside input (any client may send any bytes), so it is
 * read with explicit bounds, never past len, and anything that does not
 * parse is a media range that matches nothing. */
#include "config.h"

#include <string.h>

#include "rtop-openmetrics.h"

typedef struct {
  const char *p;
  const char *end;
} Cursor;

typedef struct {
  const char *type;     /* "application/openmetrics-text" */
  gsize type_len;
  const char *version;  /* the one version we write; absent matches too */
} Offer;

static const Offer offers[] = {
  [RTOP_EXPOSITION_OPENMETRICS] = { "application/openmetrics-text", 28, "1.0.0" },
  [RTOP_EXPOSITION_PROMETHEUS] = { "text/plain", 10, "0.0.4" },
};

const char *
rtop_exposition_content_type (RtopExposition format)
{
  return format == RTOP_EXPOSITION_OPENMETRICS
           ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
           : "text/plain; version=0.0.4; charset=utf-8";
}

static void
skip_ows (Cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
    c->p++;
}

static gboolean
is_tchar (char ch)
{
  return g_ascii_isalnum (ch) || (ch != '\0' && strchr ("!#$%&'*+-.^_`|~/", ch) != NULL);
}

/* A token (with '/' allowed, for media types); its length, 0 when none. */
static gsize
read_token (Cursor *c, const char **start)
{
  *start = c->p;
  while (c->p < c->end && is_tchar (*c->p))
    c->p++;
  return c->p - *start;
}

/* A quoted-string, unescaped into out (at most out_size - 1 bytes kept). */
static gboolean
read_quoted (Cursor *c, char *out, gsize out_size)
{
  gsize n = 0;

  c->p++;  /* the opening quote */
  while (c->p < c->end && *c->p != '"')
    {
      if (*c->p == '\\' && c->p + 1 < c->end)
        c->p++;
      if (n + 1 < out_size)
        out[n++] = *c->p;
      c->p++;
    }
  out[n] = '\0';
  if (c->p >= c->end)
    return FALSE;
  c->p++;
  return TRUE;
}

/* q = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ), in thousandths. */
static gboolean
parse_q (const char *s, int *q)
{
  int value, digits = 0;

  if (s[0] != '0' && s[0] != '1')
    return FALSE;
  value = (s[0] - '0') * 1000;
  s++;
  if (*s == '.')
    for (s++; g_ascii_isdigit (*s) && digits < 3; s++, digits++)
      value += (*s - '0') * (digits == 0 ? 100 : digits == 1 ? 10 : 1);
  if (*s != '\0' || value > 1000)
    return FALSE;
  *q = value;
  return TRUE;
}

typedef struct {
  const char *type;
  gsize type_len;
  char version[16];
  gboolean has_version;
  int q;
} Range;

static gboolean
read_param (Cursor *c, Range *range)
{
  const char *name, *tok;
  gsize name_len, tok_len;
  char value[16];

  skip_ows (c);
  name_len = read_token (c, &name);
  skip_ows (c);
  if (name_len == 0 || c->p >= c->end || *c->p != '=')
    return FALSE;
  c->p++;
  skip_ows (c);
  if (c->p < c->end && *c->p == '"')
    {
      if (!read_quoted (c, value, sizeof value))
        return FALSE;
    }
  else
    {
      tok_len = read_token (c, &tok);
      if (tok_len == 0)
        return FALSE;
      tok_len = MIN (tok_len, sizeof value - 1);
      memcpy (value, tok, tok_len);
      value[tok_len] = '\0';
    }
  if (name_len == 1 && g_ascii_tolower (name[0]) == 'q')
    return parse_q (value, &range->q);
  if (name_len == 7 && g_ascii_strncasecmp (name, "version", 7) == 0)
    {
      g_strlcpy (range->version, value, sizeof range->version);
      range->has_version = TRUE;
    }
  return TRUE;
}

/* One media range up to the next top-level ',' (consumed).  FALSE when it
 * does not parse: it then matches nothing. */
static gboolean
read_range (Cursor *c, Range *range)
{
  gboolean ok;

  memset (range, 0, sizeof *range);
  range->q = 1000;
  skip_ows (c);
  range->type_len = read_token (c, &range->type);
  ok = range->type_len > 0 && memchr (range->type, '/', range->type_len) != NULL;
  skip_ows (c);
  while (ok && c->p < c->end && *c->p == ';')
    {
      c->p++;
      ok = read_param (c, range);
      skip_ows (c);
    }
  ok = ok && (c->p >= c->end || *c->p == ',');
  /* Resynchronise on the next ',' outside quotes. */
  for (gboolean quoted = FALSE; c->p < c->end && (quoted || *c->p != ','); c->p++)
    if (*c->p == '"')
      quoted = !quoted;
    else if (quoted && *c->p == '\\' && c->p + 1 < c->end)
      c->p++;
  if (c->p < c->end)
    c->p++;
  return ok;
}

/* How specifically range names offer: 3 exact type, 2 type/ *, 1 * / *, 0 not. */
static int
match (const Range *range, const Offer *offer)
{
  const char *slash = memchr (offer->type, '/', offer->type_len);
  gsize major = slash - offer->type;

  if (range->type_len == 3 && memcmp (range->type, "*/*", 3) == 0)
    return 1;
  if (range->type_len == major + 2 && g_ascii_strncasecmp (range->type, offer->type, major + 1) == 0 &&
      range->type[major + 1] == '*')
    return 2;
  if (range->type_len != offer->type_len ||
      g_ascii_strncasecmp (range->type, offer->type, offer->type_len) != 0)
    return 0;
  if (range->has_version && strcmp (range->version, offer->version) != 0)
    return 0;
  return 3;
}

gboolean
rtop_exposition_negotiate (const char *accept, gsize len, RtopExposition *format)
{
  Cursor c = { accept, accept != NULL ? accept + len : NULL };
  int q[G_N_ELEMENTS (offers)] = { 0 }, level[G_N_ELEMENTS (offers)] = { 0 };
  gboolean any = FALSE;

  while (accept != NULL && c.p < c.end)
    {
      Range range;

      if (!read_range (&c, &range))
        continue;
      any = TRUE;
      for (guint i = 0; i < G_N_ELEMENTS (offers); i++)
        {
          int m = match (&range, &offers[i]);

          /* The most specific range decides; among equals, the best q. */
          if (m > level[i] || (m == level[i] && m > 0 && range.q > q[i]))
            {
              level[i] = m;
              q[i] = range.q;
            }
        }
    }
  if (!any)
    {
      /* No preference stated (or nothing that parses): the 0.0.4 text,
       * which every scraper reads (curl into promtool, agents), as
       * Prometheus's own client libraries answer. */
      *format = RTOP_EXPOSITION_PROMETHEUS;
      return TRUE;
    }
  if (q[RTOP_EXPOSITION_OPENMETRICS] == 0 && q[RTOP_EXPOSITION_PROMETHEUS] == 0)
    return FALSE;
  /* OpenMetrics when it is preferred, or named as such at an equal q;
   * a wildcard alone (curl's * / *) is no preference for it. */
  if (q[RTOP_EXPOSITION_OPENMETRICS] != q[RTOP_EXPOSITION_PROMETHEUS])
    *format = q[RTOP_EXPOSITION_OPENMETRICS] > q[RTOP_EXPOSITION_PROMETHEUS]
                ? RTOP_EXPOSITION_OPENMETRICS : RTOP_EXPOSITION_PROMETHEUS;
  else
    *format = level[RTOP_EXPOSITION_OPENMETRICS] == 3
                ? RTOP_EXPOSITION_OPENMETRICS : RTOP_EXPOSITION_PROMETHEUS;
  return TRUE;
}

/* Accept-Encoding = #( codings [ weight ] ); "gzip" or "x-gzip" or "*"
 * with a q above 0, and no "gzip;q=0" that refuses it. */
gboolean
rtop_http_accepts_gzip (const char *accept_encoding, gsize len)
{
  Cursor c = { accept_encoding, accept_encoding != NULL ? accept_encoding + len : NULL };
  int gzip_q = -1, any_q = -1;

  while (accept_encoding != NULL && c.p < c.end)
    {
      Range range;
      gboolean ok;

      memset (&range, 0, sizeof range);
      range.q = 1000;
      skip_ows (&c);
      range.type_len = read_token (&c, &range.type);
      ok = range.type_len > 0;
      skip_ows (&c);
      while (ok && c.p < c.end && *c.p == ';')
        {
          c.p++;
          ok = read_param (&c, &range);
          skip_ows (&c);
        }
      ok = ok && (c.p >= c.end || *c.p == ',');
      while (c.p < c.end && *c.p != ',')
        c.p++;
      if (c.p < c.end)
        c.p++;
      if (!ok)
        continue;
      if ((range.type_len == 4 && g_ascii_strncasecmp (range.type, "gzip", 4) == 0) ||
          (range.type_len == 6 && g_ascii_strncasecmp (range.type, "x-gzip", 6) == 0))
        gzip_q = MAX (gzip_q, range.q);
      else if (range.type_len == 1 && range.type[0] == '*')
        any_q = MAX (any_q, range.q);
    }
  return gzip_q >= 0 ? gzip_q > 0 : any_q > 0;
}
