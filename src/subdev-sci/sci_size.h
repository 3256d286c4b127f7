/*
 * sci_size.h - the defaults of the SCI segment's sizes, chosen so that the
 * segments of a node's ranks fit its bridge's upstream ATT, and the check
 * that they do.
 *
 * Every rank exports one segment with a block per peer it serves
 * (sci_layout.h); a node's bridge maps the segments of all its ranks in
 * one upstream ATT (MULTIDEV_SCI_UP_ATT pages of 4 KiB).  The defaults must
 * agree on every rank of the job (sci_connect compares them), so they
 * depend on what every rank knows alike: the world size, the most ranks on
 * one node and the ATT; not on the peers a rank serves, which only its own
 * node knows.  They assume the worst, a block for every other rank.
 */
#ifndef SCI_SIZE_H
#define SCI_SIZE_H

#include <stdint.h>

#include "sci_layout.h"

/* A parameter not given: sci_size_auto fills it. */
#define SCI_AUTO UINT32_MAX

/* The largest defaults, as before sizing: P4's ScaMPI values. */
#define SCI_RING_MAX_AUTO   (256u * 1024)
#define SCI_RING_MIN_AUTO   4096u
#define SCI_EAGER_MAX_AUTO  (128u * 1024)
#define SCI_CHUNK_MAX_AUTO  (128u * 1024)
#define SCI_CHUNK_MIN_AUTO  4096u
#define SCI_NMSG_MAX_AUTO   64u
#define SCI_NMSG_MIN_AUTO   8u
#define SCI_INLINE_AUTO     560u

typedef struct sci_size_job {
    uint32_t world;       /* ranks in the job */
    uint32_t node_max;    /* the most ranks on one node */
    uint64_t att_bytes;   /* a bridge's upstream ATT: entries x 4 KiB */
} sci_size_job_t;

/* Fill every field of *p and *eager that is SCI_AUTO (p->world_size and the
 * given fields as they are).  The first step that fits is taken: the
 * segments of the fullest node, each with a block for every other rank,
 * within 3/4 of the ATT.  Step 0 is ring_size 256k, dma_chunk 128k, nmsg
 * 64; each next one halves ring_size and dma_chunk (not below 4k), and from
 * the fourth nmsg too (not below 8).  ring_size holds at least one message
 * of a given eager_limit; eager_limit is half of ring_size, at most 128k;
 * inline_max is 560, at most eager_limit.  Where no step fits, the
 * smallest is taken and sci_size_check says so. */
void sci_size_auto(const sci_size_job_t *j, sci_params_t *p, uint32_t *eager);

/* Bytes the segments of a node's ranks take in its ATT: ranks x segment
 * (the segment's pages). */
uint64_t sci_size_node(uint32_t ranks, uint64_t seg_bytes);

#endif /* SCI_SIZE_H */
