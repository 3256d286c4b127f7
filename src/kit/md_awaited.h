/*
 * md_awaited.h - for network subdevices: the peers that requests wait on.
 * A request waiting for a peer's answer (a message on a posted receive, a
 * rendezvous reply, an acknowledgement) learns that the peer's node died
 * only through traffic, so a subdevice probes the awaited peers now and
 * then; this keeps the marks and says when a round is due.  Not
 * thread-safe: the caller serialises.
 */
#ifndef MD_AWAITED_H
#define MD_AWAITED_H

#include <stdint.h>

#include "md_sdi.h"

typedef struct md_awaited {
    uint8_t *peer;          /* [world_size]: 1 if some request waits on it */
    int32_t  world_size;
    uint64_t last_ms;       /* start of the last round */
} md_awaited_t;

int  md_awaited_init(md_awaited_t *a, int32_t world_size);
void md_awaited_fini(md_awaited_t *a);
/* 1 when interval_ms have passed since the last round (a coarse clock, no
 * system call): the marks are cleared for the caller to set again. */
int  md_awaited_due(md_awaited_t *a, unsigned interval_ms);
/* Marks the peer req names, if any (arg is the md_awaited_t: fits
 * md_cookie_foreach and md_mq_foreach_posted). */
void md_awaited_mark(void *a, md_request_t *req);

#endif /* MD_AWAITED_H */
