/* test-format-schema.c: the files that cannot read the format table list
 * its formats all the same (suite 'data').
 *  - The settings schema: its RecordingFormat enum holds exactly the
 *    recordable rows (nick = name, value = the RtopRecordFormat), and the
 *    recording-format key's default is one of them.
 *  - rdmatop-cli(1): the --format entry names every recordable format.
 *
 * Usage: test-format-schema SCHEMA.gschema.xml RDMATOP-CLI.1 */
#include "config.h"

#include <string.h>

#include "rtop-record-format.h"

#define ENUM_ID APP_ID ".RecordingFormat"
#define KEY_NAME "recording-format"

typedef struct {
  gboolean in_enum;
  gboolean in_key;
  gboolean in_default;
  GHashTable *values;          /* nick -> value + 1 */
  GString *key_default;
} SchemaFormats;

static const char *
attribute (const char **names, const char **values, const char *name)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (strcmp (names[i], name) == 0)
      return values[i];
  return NULL;
}

static void
start_element (GMarkupParseContext *context, const char *element, const char **names,
               const char **values, gpointer data, GError **error)
{
  SchemaFormats *sf = data;

  if (strcmp (element, "enum") == 0)
    sf->in_enum = g_strcmp0 (attribute (names, values, "id"), ENUM_ID) == 0;
  else if (strcmp (element, "value") == 0 && sf->in_enum)
    {
      const char *nick = attribute (names, values, "nick");
      const char *value = attribute (names, values, "value");

      g_assert_nonnull (nick);
      g_assert_nonnull (value);
      g_hash_table_insert (sf->values, g_strdup (nick),
                           GINT_TO_POINTER ((int) g_ascii_strtoll (value, NULL, 10) + 1));
    }
  else if (strcmp (element, "key") == 0)
    sf->in_key = g_strcmp0 (attribute (names, values, "name"), KEY_NAME) == 0;
  else if (strcmp (element, "default") == 0)
    sf->in_default = sf->in_key;
}

static void
end_element (GMarkupParseContext *context, const char *element, gpointer data, GError **error)
{
  SchemaFormats *sf = data;

  if (strcmp (element, "enum") == 0)
    sf->in_enum = FALSE;
  else if (strcmp (element, "key") == 0)
    sf->in_key = FALSE;
  else if (strcmp (element, "default") == 0)
    sf->in_default = FALSE;
}

static void
text (GMarkupParseContext *context, const char *s, gsize len, gpointer data, GError **error)
{
  SchemaFormats *sf = data;

  if (sf->in_default)
    g_string_append_len (sf->key_default, s, (gssize) len);
}

static const char *schema_path;
static const char *man_path;

static void
test_enum_is_table (void)
{
  static const GMarkupParser parser = { start_element, end_element, text, NULL, NULL };
  SchemaFormats sf = { 0 };
  g_autoptr(GMarkupParseContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *xml = NULL;
  const RtopRecordFormatInfo *formats;
  g_autofree char *quoted = NULL;
  gsize len;
  guint n, recordable = 0;

  g_file_get_contents (schema_path, &xml, &len, &error);
  g_assert_no_error (error);
  sf.values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sf.key_default = g_string_new (NULL);
  context = g_markup_parse_context_new (&parser, 0, &sf, NULL);
  g_markup_parse_context_parse (context, xml, (gssize) len, &error);
  g_assert_no_error (error);

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    {
      gpointer value;

      if (!(formats[i].flags & RTOP_RECORD_FORMAT_RECORDABLE))
        {
          g_assert_false (g_hash_table_contains (sf.values, formats[i].name));
          continue;
        }
      recordable++;
      if (!g_hash_table_lookup_extended (sf.values, formats[i].name, NULL, &value))
        g_error ("%s: the enum %s has no value with nick “%s” (a row of rtop-record-format.c)",
                 schema_path, ENUM_ID, formats[i].name);
      g_assert_cmpint (GPOINTER_TO_INT (value) - 1, ==, formats[i].id);
    }
  g_assert_cmpuint (g_hash_table_size (sf.values), ==, recordable);

  /* The default is a quoted nick: 'json.gz'. */
  g_strstrip (sf.key_default->str);
  g_assert_true (g_str_has_prefix (sf.key_default->str, "'"));
  g_assert_true (g_str_has_suffix (sf.key_default->str, "'"));
  quoted = g_strndup (sf.key_default->str + 1, strlen (sf.key_default->str) - 2);
  g_assert_true (g_hash_table_contains (sf.values, quoted));

  g_hash_table_unref (sf.values);
  g_string_free (sf.key_default, TRUE);
}

/* The man page's --format entry: from its tag line to the next ".TP". */
static void
test_man_page (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *man = NULL;
  g_autofree char *entry = NULL;
  const RtopRecordFormatInfo *formats;
  const char *start, *end;
  guint n;

  g_file_get_contents (man_path, &man, NULL, &error);
  g_assert_no_error (error);
  start = strstr (man, "\\-\\-format =");
  g_assert_nonnull (start);
  end = strstr (start, "\n.TP");
  g_assert_nonnull (end);
  entry = g_strndup (start, end - start);

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *escaped = g_regex_escape_string (formats[i].name, -1);
      g_autofree char *pattern = g_strdup_printf ("(^|[^a-z.])%s($|[^a-z.])", escaped);

      if (!(formats[i].flags & RTOP_RECORD_FORMAT_RECORDABLE))
        continue;
      if (!g_regex_match_simple (pattern, entry, G_REGEX_MULTILINE, 0))
        g_error ("%s: the --format entry does not name “%s” (a row of rtop-record-format.c):\n%s",
                 man_path, formats[i].name, entry);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (argc != 3)
    {
      g_printerr ("usage: %s SCHEMA.gschema.xml RDMATOP-CLI.1\n", argv[0]);
      return 2;
    }
  schema_path = argv[1];
  man_path = argv[2];
  g_test_add_func ("/data/schema/recording-formats", test_enum_is_table);
  g_test_add_func ("/data/man/recording-formats", test_man_page);
  return g_test_run ();
}
