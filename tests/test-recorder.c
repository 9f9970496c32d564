/* test-recorder.c: the threaded recorder against real files: complete
 * recordings in every format, never overwriting, a full disk and a
 * read-only folder (small tmpfs mounts in a private mount namespace), a
 * folder removed under it, and a recording killed with SIGKILL.
 *
 * The mounts need a mount namespace: as root the test unshares one; as an
 * ordinary user it unshares a user namespace too (`unshare -rm`).  Only when
 * neither is allowed are those two tests skipped, with the reason. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "support/rec-synth.h"
#include "rtop-error.h"
#include "rtop-recorder-private.h"
#include "rtop-recording-private.h"

static char *sandbox_problem;     /* why mounts are not possible, or NULL */
static const char *self_exe;

/* Mount namespace ------------------------------------------------------- */

static void skip (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
skip (const char *format, ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_test_skip (message);
}

/* /proc files take one write(2); g_file_set_contents() would rename a
 * temporary file over them. */
static gboolean
write_proc (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write (fd, text, strlen (text)) == (ssize_t) strlen (text);
  close (fd);
  return ok;
}

/* Must run before any thread exists (unshare of a user namespace needs a
 * single-threaded process). */
static void
setup_sandbox (void)
{
  if (geteuid () == 0)
    {
      if (unshare (CLONE_NEWNS) != 0)
        {
          sandbox_problem = g_strdup_printf ("unshare(CLONE_NEWNS) as root: %s", g_strerror (errno));
          return;
        }
    }
  else
    {
      uid_t uid = getuid ();
      gid_t gid = getgid ();
      g_autofree char *uid_map = g_strdup_printf ("0 %u 1", (guint) uid);
      g_autofree char *gid_map = g_strdup_printf ("0 %u 1", (guint) gid);

      if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
        {
          sandbox_problem = g_strdup_printf ("unshare(CLONE_NEWUSER|CLONE_NEWNS) as uid %u: %s "
                                             "(unprivileged user namespaces are disabled here)",
                                             (guint) uid, g_strerror (errno));
          return;
        }
      if (!write_proc ("/proc/self/setgroups", "deny")
          || !write_proc ("/proc/self/uid_map", uid_map)
          || !write_proc ("/proc/self/gid_map", gid_map))
        {
          sandbox_problem = g_strdup ("cannot write the user namespace's uid/gid maps");
          return;
        }
    }
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    sandbox_problem = g_strdup_printf ("making / private in the new mount namespace: %s",
                                       g_strerror (errno));
}

/* A fresh tmpfs at a new temporary folder. */
static char *
mount_tmpfs (const char *size, gboolean read_only)
{
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-tmpfs-XXXXXX", NULL);
  g_autofree char *options = g_strdup_printf ("size=%s,mode=0755", size);

  g_assert_nonnull (dir);
  if (mount ("tmpfs", dir, "tmpfs", read_only ? MS_RDONLY : 0, options) != 0)
    {
      skip ("cannot mount a tmpfs: %s", g_strerror (errno));
      g_rmdir (dir);
      return NULL;
    }
  return g_steal_pointer (&dir);
}

static void
unmount_tmpfs (const char *dir)
{
  umount2 (dir, MNT_DETACH);
  g_rmdir (dir);
}

/* Helpers ----------------------------------------------------------------- */

typedef struct {
  guint n_samples_notify;
  guint n_errors;
  GError *last_error;
  GThread *expected_thread;
  gboolean wrong_thread;
} Watch;

static void
notify_samples_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  Watch *watch = user_data;

  watch->n_samples_notify++;
}

static void
notify_bytes_cb (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  Watch *watch = user_data;

  if (g_thread_self () != watch->expected_thread)
    watch->wrong_thread = TRUE;
}

static void
error_cb (RtopRecorder *recorder, const GError *error, gpointer user_data)
{
  Watch *watch = user_data;

  if (g_thread_self () != watch->expected_thread)
    watch->wrong_thread = TRUE;
  watch->n_errors++;
  g_clear_error (&watch->last_error);
  watch->last_error = g_error_copy (error);
}

static void
watch_connect (Watch *watch, RtopRecorder *recorder)
{
  watch->expected_thread = g_thread_self ();
  g_signal_connect (recorder, "notify::samples", G_CALLBACK (notify_samples_cb), watch);
  g_signal_connect (recorder, "notify::bytes-written", G_CALLBACK (notify_bytes_cb), watch);
  g_signal_connect (recorder, "error", G_CALLBACK (error_cb), watch);
}

static void
watch_clear (Watch *watch)
{
  g_clear_error (&watch->last_error);
}

/* Iterates the default context until cond() holds; a guard against a hang
 * (a failure, not a timing assertion). */
#define WAIT_FOR(cond)                                                   \
  G_STMT_START {                                                         \
    gint64 _deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;    \
    while (!(cond))                                                      \
      {                                                                  \
        g_main_context_iteration (NULL, FALSE);                          \
        g_usleep (1000);                                                 \
        g_assert_cmpint (g_get_monotonic_time (), <, _deadline);         \
      }                                                                  \
  } G_STMT_END

static void
add_samples (RtopRecorder *recorder, RecSynth *synth, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);
      rtop_recorder_add (recorder, snap);
    }
}

static guint64
file_size (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (guint64) st.st_size;
}

static void
assert_loads (const char *path, guint n_snapshots, gboolean complete)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = rtop_recording_load (path, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), ==, n_snapshots);
  g_assert_cmpint (rtop_recording_is_complete (rec), ==, complete);
}

/* Tests ------------------------------------------------------------------- */

static void
test_formats (gconstpointer data)
{
  RtopRecordFormat format = GPOINTER_TO_INT (data);
  RecSynthOptions options = { .n_devices = 4, .interval_s = 0.1, .busy_all = TRUE,
                              .processes = TRUE, .events = TRUE, .seed = 21 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *name = g_strconcat ("out", rtop_record_format_get_extension (format), NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  Watch watch = { 0 };

  recorder = rtop_recorder_new (path, format, &error);
  g_assert_no_error (error);
  watch_connect (&watch, recorder);
  g_assert_true (g_file_test (partial, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpstr (rtop_recorder_get_partial_path (recorder), ==, partial);

  add_samples (recorder, synth, 30);
  g_assert_cmpuint (rtop_recorder_get_samples (recorder), ==, 30);
  g_assert_cmpuint (watch.n_samples_notify, ==, 30);
  g_assert_cmpint (rtop_recorder_get_elapsed_us (recorder), ==, 29 * 100000);
  WAIT_FOR (rtop_recorder_get_bytes_written (recorder) > 0);

  rtop_recorder_close (recorder, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rtop_recorder_get_state (recorder), ==, RTOP_RECORDER_STATE_CLOSED);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (rtop_recorder_get_bytes_written (recorder), ==, file_size (path));
  g_assert_null (rtop_recorder_get_error (recorder));
  assert_loads (path, 30, TRUE);
  if (format == RTOP_RECORD_FORMAT_JSON_GZ)
    {
      /* A real gzip file whose content is strict JSON. */
      gzFile gz = gzopen (path, "rb");
      GString *text = g_string_new (NULL);
      char buf[8192];
      int n, errnum;
      g_autoptr(JsonParser) parser = json_parser_new ();

      while ((n = gzread (gz, buf, sizeof buf)) > 0)
        g_string_append_len (text, buf, n);
      gzerror (gz, &errnum);
      g_assert_cmpint (errnum, ==, Z_OK);
      gzclose (gz);
      json_parser_load_from_data (parser, text->str, text->len, &error);
      g_assert_no_error (error);
      g_string_free (text, TRUE);
    }

  /* Everything ran on this thread's context. */
  WAIT_FOR (!g_main_context_pending (NULL));
  g_assert_false (watch.wrong_thread);
  g_assert_cmpuint (watch.n_errors, ==, 0);
  /* Adding after close is ignored. */
  add_samples (recorder, synth, 1);
  g_assert_cmpuint (rtop_recorder_get_samples (recorder), ==, 30);

  watch_clear (&watch);
  g_clear_object (&recorder);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_no_overwrite (void)
{
  RecSynthOptions options = { .n_devices = 2, .interval_s = 1, .busy_all = TRUE, .seed = 22 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "taken.json", NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autofree char *later = g_build_filename (dir, "later.json", NULL);
  g_autofree char *elsewhere = g_build_filename (dir, "elsewhere.json", NULL);
  g_autofree char *content = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;

  g_file_set_contents (path, "precious", -1, &error);
  g_assert_no_error (error);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_null (recorder);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "taken.json"));
  g_clear_error (&error);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));

  /* A partial file of the same name (another recording) is not touched either. */
  g_unlink (path);
  g_file_set_contents (partial, "other recording", -1, &error);
  g_assert_no_error (error);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_null (recorder);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_file_get_contents (partial, &content, NULL, &error);
  g_assert_cmpstr (content, ==, "other recording");
  g_unlink (partial);

  /* The name is taken while recording: close refuses to replace it, keeps
   * the samples, and save_as puts them elsewhere. */
  recorder = rtop_recorder_new (later, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_no_error (error);
  add_samples (recorder, synth, 10);
  g_file_set_contents (later, "created meanwhile", -1, &error);
  g_assert_no_error (error);
  g_assert_false (rtop_recorder_close (recorder, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_assert_nonnull (strstr (error->message, "later.json"));
  g_clear_error (&error);
  g_assert_cmpint (rtop_recorder_get_state (recorder), ==, RTOP_RECORDER_STATE_RECORDING);
  g_assert_nonnull (rtop_recorder_get_error (recorder));
  g_free (content);
  g_file_get_contents (later, &content, NULL, &error);
  g_assert_cmpstr (content, ==, "created meanwhile");

  rtop_recorder_save_as (recorder, elsewhere, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rtop_recorder_get_state (recorder), ==, RTOP_RECORDER_STATE_CLOSED);
  g_assert_cmpstr (rtop_recorder_get_path (recorder), ==, elsewhere);
  g_assert_null (rtop_recorder_get_error (recorder));
  assert_loads (elsewhere, 10, TRUE);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));

  g_clear_object (&recorder);
  g_unlink (later);
  g_unlink (elsewhere);
  g_rmdir (dir);
}

static void
test_unwritable_folder (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;

  if (sandbox_problem != NULL)
    {
      skip ("no mount namespace for a read-only folder: %s", sandbox_problem);
      return;
    }
  dir = mount_tmpfs ("64k", TRUE);
  if (dir == NULL)
    return;
  path = g_build_filename (dir, "rec.json", NULL);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_null (recorder);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY);
  /* The folder and the reason, in a sentence. */
  g_assert_nonnull (strstr (error->message, dir));
  g_assert_nonnull (strstr (error->message, g_strerror (EROFS)));
  unmount_tmpfs (dir);
}

static void
test_disk_full (void)
{
  RecSynthOptions options = { .n_devices = 16, .interval_s = 0.1, .busy_all = TRUE,
                              .processes = TRUE, .seed = 23 };
  g_autoptr(RecSynth) synth = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *safe_dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *safe = g_build_filename (safe_dir, "saved.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  Watch watch = { 0 };

  if (sandbox_problem != NULL)
    {
      skip ("no mount namespace for a small tmpfs: %s", sandbox_problem);
      g_rmdir (safe_dir);
      return;
    }
  dir = mount_tmpfs ("64k", FALSE);
  if (dir == NULL)
    return;
  path = g_build_filename (dir, "rec.json", NULL);
  synth = rec_synth_new (&options);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_no_error (error);
  watch_connect (&watch, recorder);

  /* 16 busy ports write a few kB per interval: 64 kB fill up quickly. */
  add_samples (recorder, synth, 60);
  WAIT_FOR (watch.n_errors > 0);
  g_assert_false (watch.wrong_thread);
  g_assert_error (watch.last_error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_assert_nonnull (strstr (watch.last_error->message, "rec.json.partial"));
  g_assert_nonnull (strstr (watch.last_error->message, g_strerror (ENOSPC)));
  g_assert_nonnull (rtop_recorder_get_error (recorder));

  /* Recording goes on in memory. */
  add_samples (recorder, synth, 40);
  g_assert_cmpuint (rtop_recorder_get_samples (recorder), ==, 100);
  /* The file on the full disk ends on an interval boundary. */
  rtop_recorder_save_as (recorder, safe, &error);
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_null (rtop_recorder_get_error (recorder));
  add_samples (recorder, synth, 5);
  rtop_recorder_close (recorder, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recorder_get_dropped (recorder), ==, 0);
  assert_loads (safe, 105, TRUE);

  watch_clear (&watch);
  g_clear_object (&recorder);
  g_unlink (safe);
  g_rmdir (safe_dir);
  unmount_tmpfs (dir);
}

/* The file left on a full disk is readable up to its last whole interval. */
static void
test_disk_full_file (void)
{
  RecSynthOptions options = { .n_devices = 16, .interval_s = 0.1, .busy_all = TRUE, .seed = 24 };
  g_autoptr(RecSynth) synth = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *partial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  Watch watch = { 0 };

  if (sandbox_problem != NULL)
    {
      skip ("no mount namespace for a small tmpfs: %s", sandbox_problem);
      return;
    }
  dir = mount_tmpfs ("64k", FALSE);
  if (dir == NULL)
    return;
  path = g_build_filename (dir, "rec.json.gz", NULL);
  partial = g_strconcat (path, ".partial", NULL);
  synth = rec_synth_new (&options);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON_GZ, &error);
  g_assert_no_error (error);
  watch_connect (&watch, recorder);
  /* gzip: more intervals before the disk is full. */
  for (guint i = 0; i < 2000 && watch.n_errors == 0; i += 50)
    {
      add_samples (recorder, synth, 50);
      WAIT_FOR (watch.n_errors > 0 || rtop_recorder_get_bytes_written (recorder) > 0);
      g_main_context_iteration (NULL, FALSE);
    }
  WAIT_FOR (watch.n_errors > 0);
  rec = rtop_recording_load (partial, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), >, 10);
  g_assert_false (rtop_recording_is_complete (rec));

  rtop_recorder_discard (recorder);
  g_clear_object (&recorder);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  watch_clear (&watch);
  unmount_tmpfs (dir);
}

static void
test_folder_removed (void)
{
  RecSynthOptions options = { .n_devices = 2, .interval_s = 1, .busy_all = TRUE, .seed = 25 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *sub = g_build_filename (dir, "sub", NULL);
  g_autofree char *path = g_build_filename (sub, "rec.json", NULL);
  g_autofree char *safe = g_build_filename (dir, "saved.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  Watch watch = { 0 };

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_no_error (error);
  watch_connect (&watch, recorder);
  add_samples (recorder, synth, 5);
  WAIT_FOR (rtop_recorder_get_bytes_written (recorder) > 0);

  g_assert_cmpint (g_unlink (rtop_recorder_get_partial_path (recorder)), ==, 0);
  g_assert_cmpint (g_rmdir (sub), ==, 0);
  add_samples (recorder, synth, 5);
  WAIT_FOR (watch.n_errors > 0);
  g_assert_error (watch.last_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (watch.last_error->message, "rec.json"));

  g_assert_false (rtop_recorder_close (recorder, &error));
  g_assert_nonnull (strstr (error->message, "rec.json"));
  g_clear_error (&error);
  rtop_recorder_save_as (recorder, safe, &error);
  g_assert_no_error (error);
  g_assert_cmpint (rtop_recorder_get_state (recorder), ==, RTOP_RECORDER_STATE_CLOSED);
  assert_loads (safe, 10, TRUE);

  watch_clear (&watch);
  g_clear_object (&recorder);
  g_unlink (safe);
  g_rmdir (dir);
}

static void
test_discard (void)
{
  RecSynthOptions options = { .n_devices = 1, .interval_s = 1, .seed = 26 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "a.csv", NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autoptr(GError) error = NULL;
  RtopRecorder *recorder;

  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_CSV, &error);
  g_assert_no_error (error);
  add_samples (recorder, synth, 3);
  rtop_recorder_discard (recorder);
  g_assert_false (rtop_recorder_close (recorder, &error));
  g_clear_error (&error);
  g_assert_cmpint (rtop_recorder_get_state (recorder), ==, RTOP_RECORDER_STATE_DISCARDED);
  WAIT_FOR (!g_file_test (partial, G_FILE_TEST_EXISTS));
  g_assert_finalize_object (recorder);

  /* Dropping a recorder that was never closed discards too. */
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_CSV, &error);
  g_assert_no_error (error);
  add_samples (recorder, synth, 3);
  g_assert_finalize_object (recorder);
  g_assert_false (g_file_test (partial, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_rmdir (dir);
}

static void
closed_cb (GObject *source, GAsyncResult *result, gpointer user_data)
{
  guint *n_ok = user_data;
  g_autoptr(GError) error = NULL;

  if (rtop_recorder_close_finish (RTOP_RECORDER (source), result, &error))
    (*n_ok)++;
  g_assert_no_error (error);
}

/* Stop pressed twice: both closes answer, neither hangs. */
static void
test_double_close (void)
{
  RecSynthOptions options = { .n_devices = 2, .interval_s = 1, .seed = 29 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "twice.json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  guint n_ok = 0;

  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON, &error);
  g_assert_no_error (error);
  add_samples (recorder, synth, 4);
  rtop_recorder_close_async (recorder, NULL, closed_cb, &n_ok);
  rtop_recorder_close_async (recorder, NULL, closed_cb, &n_ok);
  WAIT_FOR (n_ok == 2);
  g_assert_true (rtop_recorder_close (recorder, &error));
  g_assert_no_error (error);
  g_assert_false (rtop_recorder_save_as (recorder, path, &error));
  g_assert_error (error, RTOP_ERROR, RTOP_ERROR_FAILED);
  assert_loads (path, 4, TRUE);
  g_clear_object (&recorder);
  g_unlink (path);
  g_rmdir (dir);
}

/* add() never waits for the writer: beyond the queue bound samples are
 * counted as dropped, and every sample is either accepted or dropped. */
static void
test_queue_bound (void)
{
  RecSynthOptions options = { .n_devices = 16, .interval_s = 0.1, .busy_all = TRUE, .seed = 27 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-rec-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "q.json.gz", NULL);
  g_autoptr(GPtrArray) snaps = g_ptr_array_new_with_free_func ((GDestroyNotify) rtop_snapshot_unref);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  guint n = RTOP_RECORDER_QUEUE_MAX * 3;

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (snaps, rec_synth_next (synth));
  recorder = rtop_recorder_new (path, RTOP_RECORD_FORMAT_JSON_GZ, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    rtop_recorder_add (recorder, g_ptr_array_index (snaps, i));
  g_assert_cmpuint (rtop_recorder_get_samples (recorder) + rtop_recorder_get_dropped (recorder), ==, n);
  g_assert_cmpuint (rtop_recorder_get_samples (recorder), >=, RTOP_RECORDER_QUEUE_MAX);
  rtop_recorder_close (recorder, &error);
  g_assert_no_error (error);
  assert_loads (path, rtop_recorder_get_samples (recorder), TRUE);
  g_clear_object (&recorder);
  g_unlink (path);
  g_rmdir (dir);
}

/* SIGKILL ----------------------------------------------------------------- */

/* Child: records until killed, printing the number of samples each time
 * the file has grown (so the parent knows how many intervals are on disk). */
static int
record_child (const char *path, const char *format_name)
{
  RecSynthOptions options = { .n_devices = 4, .interval_s = 0.1, .busy_all = TRUE,
                              .processes = TRUE, .seed = 28 };
  g_autoptr(RecSynth) synth = rec_synth_new (&options);
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecorder) recorder = NULL;
  RtopRecordFormat format;

  if (!rtop_record_format_from_string (format_name, &format))
    return 2;
  recorder = rtop_recorder_new (path, format, &error);
  if (recorder == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  for (guint i = 0; i < 100000; i++)
    {
      guint64 before = rtop_recorder_get_bytes_written (recorder);
      g_autoptr(RtopSnapshot) snap = rec_synth_next (synth);

      rtop_recorder_add (recorder, snap);
      while (rtop_recorder_get_bytes_written (recorder) == before)
        g_usleep (200);
      printf ("%u\n", i + 1);
      fflush (stdout);
    }
  return 0;
}

static void
test_killed (gconstpointer data)
{
  const char *format_name = data;
  g_autofree char *dir = g_dir_make_tmp ("rdmatop-kill-XXXXXX", NULL);
  g_autofree char *name = g_strconcat ("killed.", format_name, NULL);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *partial = g_strconcat (path, ".partial", NULL);
  g_autofree char *recovered = NULL;
  const char *argv[] = { self_exe, "--record-child", path, format_name, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(RtopRecording) rec = NULL;
  g_autoptr(RtopRecording) rec2 = NULL;
  GPid pid;
  int out_fd, status;
  FILE *out;
  char line[64];
  guint on_disk = 0;

  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &pid, NULL, &out_fd, NULL, &error);
  g_assert_no_error (error);
  out = fdopen (out_fd, "r");
  while (on_disk < 25 && fgets (line, sizeof line, out) != NULL)
    on_disk = (guint) g_ascii_strtoull (line, NULL, 10);
  g_assert_cmpuint (on_disk, >=, 25);
  kill (pid, SIGKILL);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  fclose (out);
  g_spawn_close_pid (pid);

  /* Loadable directly, up to at least the intervals known to be on disk. */
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  rec = rtop_recording_load (partial, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec), >=, on_disk);
  g_assert_false (rtop_recording_is_complete (rec));

  /* And the documented recovery step writes a complete file next to it. */
  recovered = rtop_recording_recover (partial, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (recovered, ==, path);
  rec2 = rtop_recording_load (recovered, &error);
  g_assert_no_error (error);
  g_assert_true (rtop_recording_is_complete (rec2));
  g_assert_cmpuint (rtop_recording_get_n_snapshots (rec2), ==, rtop_recording_get_n_snapshots (rec));

  g_unlink (partial);
  g_unlink (path);
  g_rmdir (dir);
}

/* "/recording/recorder/json-gz" for every format the recorder can write. */
static void
add_format_tests (void)
{
  const RtopRecordFormatInfo *formats;
  guint n;

  formats = rtop_record_formats (&n);
  for (guint i = 0; i < n; i++)
    if (formats[i].sink != NULL)
      {
        g_autofree char *name = g_strdelimit (g_strdup (formats[i].name), ".", '-');
        g_autofree char *path = g_strconcat ("/recording/recorder/", name, NULL);

        g_test_add_data_func (path, GINT_TO_POINTER (formats[i].id), test_formats);
      }
}

int
main (int argc, char **argv)
{
  if (argc == 4 && strcmp (argv[1], "--record-child") == 0)
    return record_child (argv[2], argv[3]);

  self_exe = argv[0];
  setup_sandbox ();
  g_test_init (&argc, &argv, NULL);

  add_format_tests ();
  g_test_add_func ("/recording/recorder/no-overwrite", test_no_overwrite);
  g_test_add_func ("/recording/recorder/unwritable-folder", test_unwritable_folder);
  g_test_add_func ("/recording/recorder/disk-full", test_disk_full);
  g_test_add_func ("/recording/recorder/disk-full-file", test_disk_full_file);
  g_test_add_func ("/recording/recorder/folder-removed", test_folder_removed);
  g_test_add_func ("/recording/recorder/discard", test_discard);
  g_test_add_func ("/recording/recorder/queue-bound", test_queue_bound);
  g_test_add_func ("/recording/recorder/double-close", test_double_close);
  g_test_add_data_func ("/recording/recorder/killed/json", "json", test_killed);
  g_test_add_data_func ("/recording/recorder/killed/json-gz", "json.gz", test_killed);
  return g_test_run ();
}
