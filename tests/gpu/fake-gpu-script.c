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
}

const char *
fake_script_get (const char *key)
{
  /* The last line wins, so a test can append a change. */
  for (int i = n_lines - 1; i >= 0; i--)
    if (strcmp (keys[i], key) == 0)
      return values[i];
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
