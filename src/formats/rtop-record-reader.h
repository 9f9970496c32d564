/* rtop-record-reader.h: how a format is read back.  Each format's reader
 * (rtop-trace-reader.c, rtop-csv-reader.c) implements this vtable; loading
 * and recovery (rtop-recording.c) pick the reader from the format table by
 * the file's first line (rtop_record_format_detect()).
 *
 * A reader works on a bounded line source (rtop-line-source.h) and fills an
 * RtopRecordLoad; everything it reads is untrusted and bounded. */
#pragma once

#include <gio/gio.h>
#include "rtop-line-source.h"
#include "rtop-record-file.h"
#include "rtop-format-info.h"
#include "rtop-snapshot.h"

G_BEGIN_DECLS

/* What a reader hands back. */
typedef struct {
  GPtrArray *snapshots;          /* RtopSnapshot*, sealed, oldest first (owned by the loader) */
  double interval_s;             /* between loaded snapshots */
  guint merge_factor;            /* recorded intervals per loaded snapshot */
  gboolean complete;             /* FALSE: cut short, loaded to its last interval */
  char *producer;                /* the writer's version, or NULL */
} RtopRecordLoad;

struct _RtopRecordReaderClass {
  /* TRUE when a file whose first line (without its newline) is this is
   * this reader's to load. */
  gboolean (*probe) (const char *first_line, gsize len);
  /* Loads the whole source (at its start) within budget port-samples
   * (ports x intervals), merging intervals when there are more. */
  gboolean (*load) (RtopLineSource *src, guint budget, RtopRecordLoad *out, GError **error);
  /* Writes a complete copy of a file cut short to out (already created, of
   * the same compression); NULL when every complete line of the format is
   * readable as it is and nothing needs recovering. */
  gboolean (*recover) (RtopLineSource *src, RtopRecordFile *out, GError **error);
};


/* The first line of a recording, which must be whole: an empty file or
 * one cut off in its first line is not a recording (error set). */
gboolean rtop_record_reader_first_line (RtopLineSource *src, const char **line, gsize *len,
                                        GError **error);

/* Intervals merged into one loaded snapshot so port_samples fit budget. */
guint rtop_record_reader_merge_factor (guint64 port_samples, guint budget);

/* A port already down (DOWN, INIT or ARMED) when its recording starts has
 * no Down event in the file: its episode began before.  On the port's first
 * snapshot this adds an Error event that says so, unless the recording has
 * a state event for that port there.  seen: the ports met so far, a set
 * made with g_str_hash, g_str_equal and g_free keys, which stops growing
 * (and this noting) at RTOP_RECORD_READER_MAX_PORTS_SEEN ports.  Call
 * before sealing snap. */
#define RTOP_RECORD_READER_MAX_PORTS_SEEN 65536
void rtop_record_reader_note_down_at_start (GHashTable *seen, RtopSnapshot *snap);

/* Sets RTOP_ERROR_INVALID_RECORDING with message; returns FALSE. */
gboolean rtop_record_reader_invalid (GError **error, const char *message);
/* Puts "Cannot open “path”: " before an RTOP_ERROR (an I/O error names
 * the file already). */
void rtop_record_reader_prefix_error (GError **error, const char *path);

G_END_DECLS
