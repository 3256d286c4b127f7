/*
 * md_held.h - for subdevices that copy arrivals out of their NIC: user
 * messages held back by the ordering across subdevices.
 *
 * Before it matches a user message a subdevice asks host->arrival_ok(); 0
 * means an earlier message of the same sender is still on its way over
 * another subdevice.  The message then waits, and so does every later one
 * of that sender (in arrival order), until the host lets the first go.
 * md_held_t is one sender's queue of such messages; md_held_set_t keeps
 * one per peer and knows which peers have some, so progress retries those
 * and no other.  A message is the subdevice's own record, from malloc,
 * with an md_held_link_t in it; a message dropped from a queue is freed.
 * Not thread-safe: the caller serialises.
 */
#ifndef MD_HELD_H
#define MD_HELD_H

#include <stdint.h>

#include "md_peerset.h"
#include "md_sdi.h"

typedef struct md_held_link {
    struct md_held_link *next;
    void                *msg;      /* the record the link is in */
    const md_envelope_t *env;      /* the message's envelope (in the record) */
} md_held_link_t;

typedef struct md_held {
    md_held_link_t *head, *tail;
} md_held_t;

static inline int md_held_empty(const md_held_t *h) { return h->head == NULL; }

/* 1 if an arrival with envelope env from the sender of h must be held: an
 * earlier one is held already, or the host says its turn has not come. */
int  md_held_must_wait(const md_held_t *h, md_subdev_t *sd, const md_envelope_t *env);
/* Appends msg, whose link and envelope are in it. */
void md_held_push(md_held_t *h, md_held_link_t *link, void *msg, const md_envelope_t *env);
/* Hands the held messages whose turn has come (host->arrival_ok), first
 * first, to accept(arg, msg), which takes the message over (and frees it);
 * stops at the first that must still wait.  Returns how many went. */
int  md_held_release(md_held_t *h, md_subdev_t *sd, void (*accept)(void *arg, void *msg),
                     void *arg);
/* Unlinks and frees every message. */
void md_held_drop(md_held_t *h);

/* Every peer's held messages, and the peers that have some. */
typedef struct md_held_set {
    md_held_t    *peer;            /* [world_size] */
    md_peerset_t  waiting;         /* peers whose queue is not empty */
} md_held_set_t;

typedef struct md_held_ops {
    /* Takes over a held message that may be matched now. */
    void (*accept)(void *arg, void *msg);
    /* Peer q's queue became empty (by md_held_set_retry): the subdevice
     * may, e.g., fail the receives a failed q can no longer satisfy.
     * NULL: nothing to do. */
    void (*drained)(void *arg, int32_t q);
} md_held_ops_t;

int  md_held_set_init(md_held_set_t *s, int32_t world_size);
/* Frees what is still held, and the set. */
void md_held_set_fini(md_held_set_t *s);
/* Holds msg from peer q (md_held_push). */
void md_held_set_hold(md_held_set_t *s, int32_t q, md_held_link_t *link, void *msg,
                      const md_envelope_t *env);
/* Releases what may go now of every peer with held messages (peers that
 * join meanwhile too); ops->drained for each whose queue empties.
 * Returns how many messages went. */
int  md_held_set_retry(md_held_set_t *s, md_subdev_t *sd, const md_held_ops_t *ops, void *arg);
/* Drops (frees) every peer's held messages. */
void md_held_set_drop_all(md_held_set_t *s);

#endif /* MD_HELD_H */
