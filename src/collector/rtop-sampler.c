/* rtop-sampler.c: being written. */
