/* fake-gpu-script.h: the scripted answers of the stand-in GPU libraries.
 *
 * The file named by RDMATOP_FAKE_GPU_SCRIPT holds "key value" lines
 * ("gpus 2", "gpu.0.name NVIDIA H100", "gpu.0.link.1.up 0"); the stand-ins
 * read it again whenever a caller starts a pass (asks for the GPU count),
 * so a test changes the machine between passes by rewriting the file. */
#pragma once

#include <stdint.h>

/* Re-reads the script (a missing file is an empty script). */
void fake_script_load (void);
/* The value of a key, or NULL. */
const char *fake_script_get (const char *key);
/* The value of printf-formatted key as a number, or def. */
long long fake_script_int (long long def, const char *format, ...)
  __attribute__ ((format (printf, 2, 3)));
const char *fake_script_str (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
