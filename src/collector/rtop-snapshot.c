/* rtop-snapshot.c: being written. */
