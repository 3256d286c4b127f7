/*
 * test_host.h - what the subdevice test harnesses' md_sdi_host_t keep of
 * the peer_failed upcall: which peers the subdevice declared failed, with
 * what status, and whether it said so twice for one peer (the SDI asks for
 * once per peer).
 */
#ifndef TEST_HOST_H
#define TEST_HOST_H

#include <stdint.h>

#define TEST_HOST_MAX_RANKS 64

typedef struct test_peer_failures {
    int status[TEST_HOST_MAX_RANKS];   /* 0: not declared failed */
    int repeats;                        /* a peer declared failed again */
    int out_of_range;                   /* a rank outside the job */
} test_peer_failures_t;

static inline void test_peer_failures_note(test_peer_failures_t *f, int32_t peer, int status)
{
    if (peer < 0 || peer >= TEST_HOST_MAX_RANKS)
        f->out_of_range++;
    else if (f->status[peer] != 0)
        f->repeats++;
    else
        f->status[peer] = status != 0 ? status : -1;
}

#endif /* TEST_HOST_H */
