/* rtop-providers.c: being written. */
