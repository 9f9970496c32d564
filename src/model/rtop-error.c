/* rtop-error.c: the project's GError domain. */
#include "rtop-error.h"

G_DEFINE_QUARK (rtop-error-quark, rtop_error)
