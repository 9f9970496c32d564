/* rtop-nl.c: being written. */
