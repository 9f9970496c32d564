/* rtop-nl-parse.c: being written. */
