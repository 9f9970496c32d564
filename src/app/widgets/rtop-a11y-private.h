/* rtop-a11y-private.h: what only rtop-a11y.c and the tests use. */
#pragma once

#include "rtop-a11y.h"

G_BEGIN_DECLS

/* "Health _Events" -> "Health Events"; "__" stays one underscore. */
char *rtop_a11y_strip_mnemonic (const char *text);

G_END_DECLS
