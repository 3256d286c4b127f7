/* ring_stress.c - the threaded ring check as a plain program, so that the
 * ThreadSanitizer build (where Criterion cannot run) checks the ring's
 * memory ordering.  Exit 0 on success. */
#include "config.h"

#include <stdio.h>

#include "ring_threads.h"

int main(void)
{
    /* a small ring wraps often and is full most of the time */
    if (ring_threads_run(4096, 200000, 700) != 0)
        return 1;
    if (ring_threads_run(65536, 100000, 9000) != 0)
        return 1;
    printf("ring_stress: ok\n");
    return 0;
}
