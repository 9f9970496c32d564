/* rtop-text.h: text from outside (a process's comm and command line, a
 * user name from NSS, a remote host's or a recording's copy of them) made
 * safe to show.
 *
 * A process chooses its own comm and arguments: terminal escape sequences,
 * invalid UTF-8, bidirectional overrides that make "gpt.sh" read as
 * "hs.tpg", 64 KiB of arguments.  rtop_text_escape() is the one place that
 * turns such text into what people see: printable UTF-8 where everything
 * that is not shown as itself reads as a backslash escape, cut to a bounded
 * length.  rtop_text_make_safe() is for text that may already be escaped:
 * safe text comes back unchanged, so each consumer applies it without
 * doubling an escape. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bounds, in bytes of escaped text (an ellipsis marks a cut). */
#define RTOP_TEXT_COMM_MAX 256
#define RTOP_TEXT_CMDLINE_MAX 4096
#define RTOP_TEXT_USER_MAX 256

/* Escapes len bytes of text (-1: up to its NUL; an embedded NUL is
 * escaped too): a backslash as "\\", a control character as "\xNN" (C0,
 * DEL) or "\u0085" (C1), an invalid UTF-8 byte as "\xNN", a bidirectional
 * or line-breaking format character (U+061C, U+200E/F, U+202A..U+202E,
 * U+2066..U+2069, U+2028/9, U+FEFF) as "\uNNNN".  The result is at most
 * max_bytes long (9 when less: an escape and the ellipsis), cut on a
 * character boundary with "…". */
char *rtop_text_escape (const char *text, gssize len, gsize max_bytes);

/* TRUE when text (NUL-terminated) is valid UTF-8 that rtop_text_escape()
 * would leave as it is, backslashes aside, and at most max_bytes long. */
gboolean rtop_text_is_safe (const char *text, gsize max_bytes);

/* A copy of text that is safe to show: text itself when rtop_text_is_safe(),
 * else rtop_text_escape() of it.  NULL for NULL. */
char *rtop_text_make_safe (const char *text, gsize max_bytes);

G_END_DECLS
