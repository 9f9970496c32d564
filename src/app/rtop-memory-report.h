/* rtop-memory-report.h: what the app's memory holds, for tests and soaks.
 *
 * Under RDMATOP_REPORT_MEMORY=SECONDS (0.1 to 3600) a thread of its own
 * prints, on stderr, every SECONDS:
 *   rdmatop: memory s=T rss-kb=R heap-used-kb=U heap-free-kb=F
 * T: seconds since the report started; R: resident memory (/proc/self/stat);
 * U: bytes malloc has handed out and not had back (mallinfo2's uordblks
 * plus hblkhd); F: free bytes malloc keeps in its arenas (fordblks), which
 * count in R once touched but are no allocation of the app's.  A leak grows
 * U; memory outside malloc (mappings, shared images) grows R - F; a step in
 * R alone is the allocator keeping freed memory.  On a C library without
 * mallinfo2 the U and F fields are absent.  Nothing of it runs on the UI
 * thread; unset, it costs one getenv. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Starts the reporting thread when the variable asks for it; a value out
 * of range is refused with a warning.  Idempotent. */
void rtop_memory_report_start (void);

G_END_DECLS
