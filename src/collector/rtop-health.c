/* rtop-health.c: being written. */
