/* rtop-collector.c: being written. */
