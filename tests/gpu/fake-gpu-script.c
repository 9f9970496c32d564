/* fake-gpu-script.c: reads the stand-in libraries' script (see the header). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-gpu-script.h"

#define MAX_LINES 4096

static char *text;
static const char *keys[MAX_LINES];
static const char *values[MAX_LINES];
static int n_lines;
/* Line numbers sorted by key, then by line: a lookup is a binary search
 * (a pass asks thousands of keys of a script of thousands of lines). */
static int order[MAX_LINES];

static int
compare_lines (const void *a, const void *b)
{
  int ia = *(const int *) a, ib = *(const int *) b;
  int c = strcmp (keys[ia], keys[ib]);

  return c != 0 ? c : (ia > ib) - (ia < ib);
}

void
fake_script_load (void)
{
  const char *path = getenv ("RDMATOP_FAKE_GPU_SCRIPT");
  FILE *f;
  long size;

  free (text);
  text = NULL;
  n_lines = 0;
  if (path == NULL || (f = fopen (path, "r")) == NULL)
    return;
  fseek (f, 0, SEEK_END);
  size = ftell (f);
  fseek (f, 0, SEEK_SET);
  text = calloc (1, size + 1);
  if (fread (text, 1, size, f) != (size_t) size)
    text[0] = '\0';
  fclose (f);
  for (char *line = strtok (text, "\n"); line != NULL && n_lines < MAX_LINES; line = strtok (NULL, "\n"))
    {
      char *space = strchr (line, ' ');

      if (space == NULL || line[0] == '#')
        continue;
      *space = '\0';
      keys[n_lines] = line;
      values[n_lines] = space + 1;
      n_lines++;
    }
  for (int i = 0; i < n_lines; i++)
    order[i] = i;
  qsort (order, n_lines, sizeof order[0], compare_lines);
}

const char *
fake_script_get (const char *key)
{
  /* The last line wins, so a test can append a change: the last of the
   * key's run in the sorted order. */
  int lo = 0, hi = n_lines;

  while (lo < hi)
    {
      int mid = lo + (hi - lo) / 2;

      if (strcmp (keys[order[mid]], key) <= 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0 && strcmp (keys[order[lo - 1]], key) == 0)
    return values[order[lo - 1]];
  return NULL;
}

long long
fake_script_int (long long def, const char *format, ...)
{
  char key[256];
  const char *value;
  va_list ap;

  va_start (ap, format);
  vsnprintf (key, sizeof key, format, ap);
  va_end (ap);
  value = fake_script_get (key);
  return value != NULL ? strtoll (value, NULL, 0) : def;
}

const char *
fake_script_str (const char *format, ...)
{
  char key[256];
  va_list ap;

  va_start (ap, format);
  vsnprintf (key, sizeof key, format, ap);
  va_end (ap);
  return fake_script_get (key);
}

/* Unloaded (dlclose) between tests: leave nothing behind. */
__attribute__ ((destructor)) static void
fake_script_unload (void)
{
  free (text);
  text = NULL;
  n_lines = 0;
}
