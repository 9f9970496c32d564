/* rtop-sysfs.c: being written. */
