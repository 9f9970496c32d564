/* text-oracle.h: what rtop-text.h promises, written out a second time.
 *
 * The escaper's own rtop_text_is_safe() shares its character rules, so a
 * test that judges rtop_text_escape() with it cannot see a rule that is
 * wrong at the edge of a range.  This oracle is built from the Unicode
 * definitions instead (the C0 and C1 control ranges, DEL, the
 * bidirectional and line-breaking format characters, the well-formed UTF-8
 * byte sequences) and calls nothing of rtop-text.c, nor GLib's UTF-8
 * decoder, which the escaper uses.  Tests and the fuzz targets compare the
 * escaper's output with it byte for byte. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The contract's floor on the bound: one escape and the ellipsis. */
#define TEXT_ORACLE_MIN_BOUND 9
/* U+2026 HORIZONTAL ELLIPSIS, which marks a cut. */
#define TEXT_ORACLE_ELLIPSIS "\xe2\x80\xa6"

/* How the contract shows one character. */
typedef enum {
  TEXT_ORACLE_PLAIN,         /* as itself */
  TEXT_ORACLE_BACKSLASH,     /* U+005C, doubled */
  TEXT_ORACLE_C0,            /* U+0000..U+001F, as "\xNN" */
  TEXT_ORACLE_DEL,           /* U+007F, as "\x7f" */
  TEXT_ORACLE_C1,            /* U+0080..U+009F, as "\uNNNN" */
  TEXT_ORACLE_FORMAT,        /* bidirectional or line-breaking format, as "\uNNNN" */
} TextOracleClass;

TextOracleClass text_oracle_classify (gunichar c);

/* TRUE for the characters that are never shown as themselves. */
gboolean text_oracle_must_escape (gunichar c);

/* The length of the well-formed UTF-8 sequence at the start of bytes (at
 * most len of them), with its code point in *c; 0 when the first byte does
 * not start one, which the escaper then shows as "\xNN". */
gsize text_oracle_decode (const guint8 *bytes, gsize len, gunichar *c);

/* What rtop_text_escape (text, len, max_bytes) must return. */
char *text_oracle_escape (const char *text, gsize len, gsize max_bytes);

/* TRUE when text (NUL-terminated) may be shown as it is: well-formed
 * UTF-8 with nothing that must be escaped, at most max_bytes long. */
gboolean text_oracle_is_safe (const char *text, gsize max_bytes);

/* What rtop_text_make_safe (text, max_bytes) must return. */
char *text_oracle_make_safe (const char *text, gsize max_bytes);

G_END_DECLS
