/*
 * md_peerset.h - for network subdevices: the peers that have work of one
 * kind waiting (operations held back by credits, arrivals held back by the
 * ordering, send descriptors to reap), each once, in the order they got
 * it, so that progress visits those and not every peer.  Not thread-safe:
 * the caller serialises.
 */
#ifndef MD_PEERSET_H
#define MD_PEERSET_H

#include <stdint.h>

#include "md_sdi.h"

typedef struct md_peerset {
    int32_t *peer;          /* [n] the members, in the order they joined */
    uint8_t *in;            /* [world_size] 1 for a member */
    uint32_t n;
} md_peerset_t;

int  md_peerset_init(md_peerset_t *s, int32_t world_size);
void md_peerset_fini(md_peerset_t *s);
/* q joins, unless it is a member already. */
void md_peerset_add(md_peerset_t *s, int32_t q);
void md_peerset_clear(md_peerset_t *s);
/* Calls work(arg, q, &events) for every member, also those that join
 * meanwhile; a member for which work returns 0 (nothing left) leaves.
 * Returns the events work added up. */
int  md_peerset_sweep(md_peerset_t *s, int (*work)(void *arg, int32_t q, int *events),
                      void *arg);

#endif /* MD_PEERSET_H */
