/* rtop-askpass.h: the questions ssh asks, answered by the user.
 *
 * ssh runs rdmatop-askpass (SSH_ASKPASS, SSH_ASKPASS_REQUIRE=force: never
 * a terminal), which relays each question over a unix socket in a folder
 * of its own under XDG_RUNTIME_DIR (mode 0700) to this object; a caller
 * whose uid is not ours is refused.  Each question is a "request" signal
 * with an RtopAskpassRequest; whoever shows it answers it, and a request
 * that nobody answers is declined when it goes.  No widgets here. */
#pragma once

#include <gio/gio.h>

#include "rtop-askpass-parse.h"

G_BEGIN_DECLS

/* At most this many questions wait for an answer at once; more are declined. */
#define RTOP_ASKPASS_MAX_PENDING 8

#define RTOP_TYPE_ASKPASS_REQUEST (rtop_askpass_request_get_type ())
G_DECLARE_FINAL_TYPE (RtopAskpassRequest, rtop_askpass_request, RTOP, ASKPASS_REQUEST, GObject)

/* ssh's question, as valid UTF-8 (it names the host and the key). */
const char *rtop_askpass_request_get_prompt (RtopAskpassRequest *self);
RtopAskpassKind rtop_askpass_request_get_kind (RtopAskpassRequest *self);
/* answer: the text for ssh ("yes" for a host key, the password), or NULL
 * when the user declined.  Only the first answer counts. */
void rtop_askpass_request_answer (RtopAskpassRequest *self, const char *answer);

#define RTOP_TYPE_ASKPASS (rtop_askpass_get_type ())
G_DECLARE_FINAL_TYPE (RtopAskpass, rtop_askpass, RTOP, ASKPASS, GObject)

/* Listens at once; NULL with error when the socket cannot be made. */
RtopAskpass *rtop_askpass_new (GError **error);
/* For ssh's environment: RDMATOP_ASKPASS_SOCKET=PATH (NULL-terminated). */
const char * const *rtop_askpass_get_environment (RtopAskpass *self);
/* rdmatop-askpass: beside the running program (a build tree), else in
 * libexecdir; NULL when neither has it. */
char *rtop_askpass_find_helper (void);

G_END_DECLS
