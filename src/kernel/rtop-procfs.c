/* rtop-procfs.c: process details from /proc, cached per (pid, start time).
 *
 * The collector asks about a process once for every resource it owns, which
 * can be thousands of times a pass.  The cache answers all but the first
 * question of a pass from memory: one stat read per process and pass, plus
 * cmdline, status and cgroup once in the process's life.  A pid that the kernel
 * reuses has a new start time and so becomes a new entry.  Processes exit at
 * any moment; every read may fail, and a failure is an answer (NULL or
 * partial info), never an error message. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "rtop-cgroup.h"
#include "rtop-error.h"
#include "rtop-procfs-private.h"
#include "rtop-text.h"

/* /proc/<pid>/stat is about 300 bytes plus a comm of at most 64. */
#define STAT_BUF_SIZE 4096
/* Command lines are shown in one table cell; the first 4 KiB say enough
 * (one byte more is read, so a longer one is shown cut). */
#define CMDLINE_MAX RTOP_TEXT_CMDLINE_MAX
#define STATUS_BUF_SIZE 8192
/* A process can be moved to another cgroup (pam_slurm_adopt, systemd-run,
 * a container runtime's exec): its job is read again every this many
 * passes, where its other static facts are read once. */
#define JOB_RECHECK_PASSES 10
/* getpwuid_r buffers grow on ERANGE up to this; NSS entries are small. */
#define PASSWD_BUF_MAX (1024 * 1024)

/* Fields of /proc/<pid>/stat counted after the last ')': field 3 is index 0. */
enum {
  STAT_STATE = 3,
  STAT_THREADS = 20,
  STAT_STARTTIME = 22,
  STAT_RSS = 24,
  STAT_FIRST_AFTER_COMM = 3,
};

typedef struct {
  RtopProcInfo info;
  guint64 pass;              /* last pass it was looked up in */
  gboolean gone;             /* stat unreadable this pass: lookups answer NULL */
  gboolean have_static;      /* cmdline, uid and user read for this start time */
  guint64 job_pass;          /* the pass its cgroup was last read in */
  int stat_fd;               /* <pid>/stat kept open (real procfs only), or -1 */
} CacheEntry;

/* On the real procfs a process's stat file stays open between passes and
 * is re-read with pread(): one system call per process per pass instead of
 * open, fstat, two reads and close.  The open file belongs to that process,
 * not to the pid: once the process is gone it reads ESRCH, and the pid is
 * opened again (maybe a new process: its start time tells).  Fixture trees
 * (tests) are opened every time, as their files are replaced. */
#define PROC_SUPER_MAGIC 0x9fa0

struct _RtopProcCache {
  char *root;
  gboolean keep_open;
  GHashTable *entries;       /* GINT_TO_POINTER (pid) -> CacheEntry* */
  guint64 pass;
  guint64 n_reads;
};

void
rtop_proc_info_clear (RtopProcInfo *info)
{
  if (info == NULL)
    return;
  g_clear_pointer (&info->comm, g_free);
  g_clear_pointer (&info->user, g_free);
  g_clear_pointer (&info->cmdline, g_free);
  rtop_job_clear (&info->job);
}

static gboolean
parse_field_u64 (const char *token, guint64 *out)
{
  char *end = NULL;

  if (token == NULL || !g_ascii_isdigit (token[0]))
    return FALSE;
  errno = 0;
  *out = g_ascii_strtoull (token, &end, 10);
  return errno == 0 && end != token && *end == '\0';
}

static gboolean
malformed (GError **error, const char *why)
{
  g_set_error (error, RTOP_ERROR, RTOP_ERROR_MALFORMED,
               _("The process status file could not be read: %s"), why);
  return FALSE;
}

/* One field of the stat line, in place. */
typedef struct {
  const char *text;
  gsize len;
} StatField;

/* The fields after the comm that rdmatop reads, found in place (this runs
 * for every listed process every pass): fields are separated by runs of
 * spaces or newlines.  FALSE when there are too few. */
static gboolean
scan_after_comm (const char *after, StatField *state, StatField *threads, StatField *start,
                 StatField *rss)
{
  guint number = STAT_FIRST_AFTER_COMM;
  const char *p = after;

  for (;;)
    {
      const char *begin;
      StatField field;

      while (*p == ' ' || *p == '\n')
        p++;
      if (*p == '\0')
        return FALSE;
      begin = p;
      while (*p != '\0' && *p != ' ' && *p != '\n')
        p++;
      field = (StatField) { begin, (gsize) (p - begin) };
      if (number == STAT_STATE)
        *state = field;
      else if (number == STAT_THREADS)
        *threads = field;
      else if (number == STAT_STARTTIME)
        *start = field;
      else if (number == STAT_RSS)
        {
          *rss = field;
          return TRUE;
        }
      number++;
    }
}

static gboolean
parse_stat_u64 (const StatField *field, guint64 *out)
{
  char token[32];

  /* More digits than that overflow 64 bits anyway. */
  if (field->len == 0 || field->len >= sizeof token)
    return FALSE;
  memcpy (token, field->text, field->len);
  token[field->len] = '\0';
  return parse_field_u64 (token, out);
}

gboolean
rtop_proc_parse_stat (const char *text, gsize len, RtopProcInfo *out, GError **error)
{
  g_autofree char *copy = NULL;
  const char *lparen, *rparen;
  guint64 pid, threads, start, rss;
  long page_size = sysconf (_SC_PAGESIZE);
  StatField state = { 0 }, threads_field = { 0 }, start_field = { 0 }, rss_field = { 0 };

  g_return_val_if_fail (out != NULL, FALSE);

  if (text == NULL || len == 0 || len > STAT_BUF_SIZE)
    return malformed (error, _("empty or too long"));
  copy = g_strndup (text, len);
  if (strlen (copy) != len)
    return malformed (error, _("it contains a NUL byte"));

  /* The comm may contain spaces, '(' and ')': it ends at the LAST ')'. */
  lparen = strchr (copy, '(');
  rparen = strrchr (copy, ')');
  if (lparen == NULL || rparen == NULL || rparen < lparen)
    return malformed (error, _("no command name in parentheses"));
  {
    g_autofree char *pid_text = g_strstrip (g_strndup (copy, lparen - copy));

    if (!parse_field_u64 (pid_text, &pid) || pid == 0 || pid > G_MAXINT32)
      return malformed (error, _("no process id"));
  }

  if (!scan_after_comm (rparen + 1, &state, &threads_field, &start_field, &rss_field))
    return malformed (error, _("too few fields"));
  if (state.len != 1 || !g_ascii_isalpha (state.text[0]))
    return malformed (error, _("no process state"));
  if (!parse_stat_u64 (&threads_field, &threads) || threads > G_MAXUINT32 ||
      !parse_stat_u64 (&start_field, &start) ||
      !parse_stat_u64 (&rss_field, &rss) || rss > G_MAXUINT64 / 65536)
    return malformed (error, _("a number field does not parse"));

  out->pid = (gint32) pid;
  out->state = state.text[0];
  out->threads = (guint32) threads;
  out->start_time = start;
  out->rss_bytes = rss * (guint64) (page_size > 0 ? page_size : 4096);
  /* out is the caller's: zeroed, or cleared with rtop_proc_info_clear(). */
  out->comm = rtop_text_escape (lparen + 1, rparen - lparen - 1, RTOP_TEXT_COMM_MAX);
  return TRUE;
}

char *
rtop_proc_parse_cmdline (const char *buf, gsize len)
{
  g_autofree char *joined = NULL;

  if (buf == NULL)
    return NULL;
  /* Arguments end in NUL; trailing NULs are not empty arguments. */
  while (len > 0 && buf[len - 1] == '\0')
    len--;
  if (len == 0)
    return NULL;
  /* buf holds len bytes, no terminating NUL promised. */
  joined = g_malloc (len + 1);
  memcpy (joined, buf, len);
  joined[len] = '\0';
  for (gsize i = 0; i < len; i++)
    if (joined[i] == '\0')
      joined[i] = ' ';
  return rtop_text_escape (joined, len, RTOP_TEXT_CMDLINE_MAX);
}

RtopProcCache *
rtop_proc_cache_new (const char *proc_root)
{
  RtopProcCache *self = g_new0 (RtopProcCache, 1);

  struct statfs fs;

  self->root = g_strdup (proc_root != NULL ? proc_root : "/proc");
  self->entries = g_hash_table_new (NULL, NULL);
  self->keep_open = statfs (self->root, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
  return self;
}

static void
close_stat (CacheEntry *entry)
{
  if (entry->stat_fd >= 0)
    close (entry->stat_fd);
  entry->stat_fd = -1;
}

static void
cache_entry_free (CacheEntry *entry)
{
  close_stat (entry);
  rtop_proc_info_clear (&entry->info);
  g_free (entry);
}

void
rtop_proc_cache_free (RtopProcCache *self)
{
  GHashTableIter iter;
  gpointer value;

  if (self == NULL)
    return;
  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    cache_entry_free (value);
  g_hash_table_destroy (self->entries);
  g_free (self->root);
  g_free (self);
}

void
rtop_proc_cache_begin_pass (RtopProcCache *self)
{
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (self != NULL);

  /* Keep what the pass that just ended asked for; forget the rest. */
  g_hash_table_iter_init (&iter, self->entries);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      CacheEntry *entry = value;

      if (entry->pass != self->pass)
        {
          g_hash_table_iter_remove (&iter);
          cache_entry_free (entry);
        }
    }
  self->pass++;
}

/* Reads <root>/<pid>/<name> into buf (NUL-terminated); its length, or -1
 * with errno set. */
static gssize
read_file_at (const char *root, gint32 pid, const char *name,
              char *buf, gsize size, struct stat *owner, int *keep_fd)
{
  char rel[64];
  g_autofree char *path = NULL;
  gsize total = 0;
  int fd;

  g_snprintf (rel, sizeof rel, "%d/%s", pid, name);
  path = g_build_filename (root, rel, NULL);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    return -1;
  if (owner != NULL && fstat (fd, owner) != 0)
    memset (owner, 0, sizeof *owner);
  /* /proc files may come in several reads; stop at EOF or a full buffer. */
  while (total < size - 1)
    {
      ssize_t n = read (fd, buf + total, size - 1 - total);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          close (fd);
          errno = saved;
          return -1;
        }
      if (n == 0)
        break;
      total += n;
    }
  if (keep_fd != NULL)
    *keep_fd = fd;
  else
    close (fd);
  buf[total] = '\0';
  return total;
}

/* The same from the cache's root, counted. */
static gssize
read_proc_file (RtopProcCache *self, gint32 pid, const char *name,
                char *buf, gsize size, struct stat *owner, int *keep_fd)
{
  self->n_reads++;
  return read_file_at (self->root, pid, name, buf, size, owner, keep_fd);
}

/* The job of <root>/<pid>/cgroup, read into buf (RTOP_CGROUP_FILE_MAX + 2
 * bytes); -1 with errno set when it cannot be read.  A file cut at the
 * buffer's end loses at most its last line. */
static gssize
read_cgroup_job (const char *root, gint32 pid, char *buf, RtopJob *job)
{
  gssize n = read_file_at (root, pid, "cgroup", buf, RTOP_CGROUP_FILE_MAX + 1, NULL, NULL);
  int saved = errno;

  if (n <= 0 || !rtop_cgroup_parse (buf, n, job))
    rtop_job_clear (job);
  errno = saved;
  return n;
}

gboolean
rtop_proc_read_job (const char *proc_root, gint32 pid, RtopJob *out, GError **error)
{
  g_autofree char *buf = NULL;
  char rel[32];
  g_autofree char *dir = NULL;
  struct stat st;
  int err;

  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (pid > 0, FALSE);
  rtop_job_clear (out);
  if (proc_root == NULL)
    proc_root = "/proc";
  buf = g_malloc (RTOP_CGROUP_FILE_MAX + 2);
  if (read_cgroup_job (proc_root, pid, buf, out) >= 0)
    return TRUE;
  err = errno;
  g_snprintf (rel, sizeof rel, "%d", pid);
  dir = g_build_filename (proc_root, rel, NULL);
  /* No such process, or it exited while its file was read (ESRCH). */
  if (err == ESRCH || (err == ENOENT && stat (dir, &st) != 0 && errno == ENOENT))
    {
      g_set_error (error, RTOP_ERROR, RTOP_ERROR_NO_PROCESS,
                   _("There is no process %d"), pid);
      return FALSE;
    }
  /* A process whose kernel has no cgroups has no such file: no job. */
  if (err == ENOENT)
    return TRUE;
  g_set_error (error, RTOP_ERROR, err == EACCES || err == EPERM ? RTOP_ERROR_PERMISSION : RTOP_ERROR_IO,
               _("The cgroup of process %d could not be read: %s"), pid, g_strerror (err));
  return FALSE;
}

/* The real uid from the "Uid:" line of status. */
gboolean
rtop_proc_parse_status_uid (const char *status, guint32 *uid)
{
  const char *line = strstr (status, "\nUid:");
  g_autofree char *copy = NULL;
  char *end;
  guint64 value;

  if (line == NULL)
    return FALSE;
  line += strlen ("\nUid:");
  end = strchr (line, '\n');
  copy = g_strstrip (g_strndup (line, end != NULL ? (gsize) (end - line) : strlen (line)));
  /* "1000\t1000\t1000\t1000": the first is the real uid. */
  copy[strcspn (copy, " \t")] = '\0';
  if (!parse_field_u64 (copy, &value) || value > G_MAXUINT32)
    return FALSE;
  *uid = (guint32) value;
  return TRUE;
}

/* getpwuid_r so NSS (LDAP, sssd) names resolve; the uid as text otherwise. */
static char *
lookup_user (guint32 uid)
{
  long suggested = sysconf (_SC_GETPW_R_SIZE_MAX);
  gsize size = suggested > 0 ? (gsize) suggested : 1024;

  for (;;)
    {
      g_autofree char *buf = g_malloc (size);
      struct passwd pwd, *result = NULL;
      int err = getpwuid_r (uid, &pwd, buf, size, &result);

      if (err == ERANGE && size < PASSWD_BUF_MAX)
        {
          size *= 2;
          continue;
        }
      if (err == 0 && result != NULL && result->pw_name != NULL && result->pw_name[0] != '\0')
        return rtop_text_escape (result->pw_name, -1, RTOP_TEXT_USER_MAX);
      return g_strdup_printf ("%u", uid);
    }
}

/* cmdline, uid, user and job: once per (pid, start time). */
static void
read_static_facts (RtopProcCache *self, CacheEntry *entry, const struct stat *stat_owner)
{
  g_autofree char *buf = g_malloc (MAX (MAX (CMDLINE_MAX, STATUS_BUF_SIZE), RTOP_CGROUP_FILE_MAX) + 2);
  gssize n;

  n = read_proc_file (self, entry->info.pid, "cmdline", buf, CMDLINE_MAX + 2, NULL, NULL);
  entry->info.cmdline = n > 0 ? rtop_proc_parse_cmdline (buf, n) : NULL;

  n = read_proc_file (self, entry->info.pid, "status", buf, STATUS_BUF_SIZE + 1, NULL, NULL);
  if (n <= 0 || !rtop_proc_parse_status_uid (buf, &entry->info.uid))
    entry->info.uid = stat_owner->st_uid;
  entry->info.user = lookup_user (entry->info.uid);

  self->n_reads++;
  read_cgroup_job (self->root, entry->info.pid, buf, &entry->info.job);
  entry->job_pass = self->pass;
  entry->have_static = TRUE;
}

/* The job again; a file that cannot be read now (the process is exiting)
 * leaves the job it had. */
static void
recheck_job (RtopProcCache *self, CacheEntry *entry)
{
  g_autofree char *buf = g_malloc (RTOP_CGROUP_FILE_MAX + 2);
  RtopJob job = { 0 };

  self->n_reads++;
  entry->job_pass = self->pass;
  if (read_cgroup_job (self->root, entry->info.pid, buf, &job) <= 0)
    return;
  rtop_job_clear (&entry->info.job);
  entry->info.job = job;
}

static void
forget_static_facts (CacheEntry *entry)
{
  g_clear_pointer (&entry->info.cmdline, g_free);
  g_clear_pointer (&entry->info.user, g_free);
  rtop_job_clear (&entry->info.job);
  entry->info.uid = 0;
  entry->have_static = FALSE;
}

/* Re-reads stat; FALSE when the process is gone or its stat is garbage. */
static gboolean
refresh_entry (RtopProcCache *self, CacheEntry *entry, gint32 pid)
{
  char buf[STAT_BUF_SIZE + 1];
  RtopProcInfo parsed = { 0 };
  struct stat owner = { 0 };
  gssize n;

  n = -1;
  if (entry->stat_fd >= 0)
    {
      self->n_reads++;
      do
        n = pread (entry->stat_fd, buf, sizeof buf - 1, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0)
        close_stat (entry);   /* that process is gone; the pid may be another's */
      else
        buf[n] = '\0';
    }
  if (n <= 0)
    n = read_proc_file (self, pid, "stat", buf, sizeof buf, &owner,
                        self->keep_open ? &entry->stat_fd : NULL);
  if (n <= 0 || !rtop_proc_parse_stat (buf, n, &parsed, NULL) || parsed.pid != pid)
    {
      rtop_proc_info_clear (&parsed);
      close_stat (entry);
      return FALSE;
    }
  if (entry->have_static && entry->info.start_time != parsed.start_time)
    forget_static_facts (entry);   /* the pid was reused by a new process */

  g_free (entry->info.comm);
  entry->info.comm = g_steal_pointer (&parsed.comm);
  entry->info.pid = pid;
  entry->info.start_time = parsed.start_time;
  entry->info.state = parsed.state;
  entry->info.threads = parsed.threads;
  entry->info.rss_bytes = parsed.rss_bytes;
  if (!entry->have_static)
    {
      if (owner.st_ino == 0 && entry->stat_fd >= 0 && fstat (entry->stat_fd, &owner) != 0)
        memset (&owner, 0, sizeof owner);
      read_static_facts (self, entry, &owner);
    }
  else if (self->pass - entry->job_pass >= JOB_RECHECK_PASSES)
    recheck_job (self, entry);
  return TRUE;
}

const RtopProcInfo *
rtop_proc_cache_lookup (RtopProcCache *self, gint32 pid)
{
  CacheEntry *entry;

  g_return_val_if_fail (self != NULL, NULL);
  if (pid <= 0)
    return NULL;

  entry = g_hash_table_lookup (self->entries, GINT_TO_POINTER (pid));
  if (entry != NULL && entry->pass == self->pass)
    return entry->gone ? NULL : &entry->info;

  if (entry == NULL)
    {
      entry = g_new0 (CacheEntry, 1);
      entry->stat_fd = -1;
      g_hash_table_insert (self->entries, GINT_TO_POINTER (pid), entry);
    }
  entry->pass = self->pass;
  /* A gone process is remembered for the pass too, so asking again is free. */
  entry->gone = !refresh_entry (self, entry, pid);
  if (entry->gone)
    forget_static_facts (entry);
  return entry->gone ? NULL : &entry->info;
}

guint64
rtop_proc_cache_get_n_reads (RtopProcCache *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_reads;
}
