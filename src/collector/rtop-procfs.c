/* rtop-procfs.c: being written. */
