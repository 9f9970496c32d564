/* rtop-askpass-parse.h: the message rdmatop-askpass sends for one of ssh's
 * questions, and what it means.
 *
 *   "rdmatop-askpass 1\n" KIND "\n" QUESTION      (then the end of input)
 *
 * KIND is "confirm" (SSH_ASKPASS_PROMPT=confirm: only yes or no counts)
 * or anything else (an ordinary question).  The bytes come from another
 * process, so this is outside input: GLib only, no GTK, and fuzzed
 * (tests/fuzz/fuzz-askpass.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  RTOP_ASKPASS_SECRET,       /* a password or passphrase: typed, hidden */
  RTOP_ASKPASS_YES_NO,       /* a host key to accept: "yes" or "no" typed back */
  RTOP_ASKPASS_CONFIRM,      /* yes or no, only the answer's status counts */
} RtopAskpassKind;

#define RTOP_ASKPASS_HEADER "rdmatop-askpass 1\n"
#define RTOP_ASKPASS_QUESTION_MAX 4096
/* The most a whole message may be: the header, a kind, the question. */
#define RTOP_ASKPASS_REQUEST_MAX (sizeof RTOP_ASKPASS_HEADER + 16 + RTOP_ASKPASS_QUESTION_MAX)

/* TRUE with the question as valid UTF-8 without surrounding blanks (free
 * it with g_free) and its kind; FALSE, touching neither, for anything that
 * is not such a message or is longer than RTOP_ASKPASS_REQUEST_MAX. */
gboolean rtop_askpass_parse_request (const char *data, gsize len,
                                     RtopAskpassKind *kind, char **prompt);

G_END_DECLS
