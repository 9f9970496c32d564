/* rtop-recorder-writer-private.h: what the recorder object (rtop-recorder.c)
 * and its writer thread (rtop-recorder-writer.c) share; nothing else
 * includes it. */
#pragma once

#include "rtop-record-file.h"
#include "rtop-recorder.h"

G_BEGIN_DECLS

typedef enum {
  ITEM_SNAPSHOT,
  ITEM_CLOSE,
  ITEM_SAVE_AS,
  ITEM_DISCARD,
} ItemKind;

typedef struct {
  ItemKind kind;
  RtopSnapshot *snapshot;
  char *path;
  GTask *task;
} Item;

/* Shared between the caller's thread and the writer thread. */
typedef struct {
  GMutex lock;
  GMainContext *context;       /* the creator's; notifications go there */
  /* Caller's thread only: called (in an idle on context) after the writer
   * thread changed something; owner is NULL after dispose. */
  void (*changed) (RtopRecorder *owner);
  RtopRecorder *owner;
  gboolean notify_pending;
  /* under lock: */
  gboolean writer_exited;      /* nothing pushed from now on is taken */
  guint64 bytes_written;
  guint64 dropped;
  GError *error;
  guint error_serial;          /* bumped when a new error is set */
  RtopRecorderState state;
  char *path;
  char *partial_path;
} Shared;

typedef struct _Writer Writer;

Shared *rtop_recorder_shared_new (GMainContext *context);
void rtop_recorder_shared_unref (Shared *shared);

void rtop_recorder_item_free (Item *item);

/* The writer thread's state, for rtop_recorder_writer_thread().  Takes file. */
Writer *rtop_recorder_writer_new (Shared *shared, GAsyncQueue *queue, RtopRecordFormat format,
                                  RtopRecordFile *file);
/* The writer thread: takes items from the queue until the file is complete
 * or discarded, then frees its state. */
gpointer rtop_recorder_writer_thread (gpointer data);

G_END_DECLS
