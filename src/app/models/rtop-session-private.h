/* rtop-session-private.h: what only rtop-session.c and the tests use. */
#pragma once

#include "rtop-session.h"

G_BEGIN_DECLS

/* An ssh client configuration (-F) for the hosts added from now on, or
 * NULL: the user's own (the tests' sshd has its own). */
void rtop_session_set_ssh_config (RtopSession *self, const char *config_file);

G_END_DECLS
