/* ring_threads.h - one producer thread and one consumer thread on one
 * shm ring, checking order and content of every record.  Shared by
 * ring_test (Criterion) and ring_stress (plain C, for ThreadSanitizer). */
#ifndef RING_THREADS_H
#define RING_THREADS_H

#include <stddef.h>

/* Sends records numbered 0..records-1 with lengths cycling up to max_len
 * bytes; returns 0 when the consumer saw every record intact and in
 * order, else -1 (with a message on stderr). */
int ring_threads_run(size_t ring_size, long records, size_t max_len);

#endif
