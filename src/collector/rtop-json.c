/* rtop-json.c: being written. */
