/* rtop-rates.c: being written. */
