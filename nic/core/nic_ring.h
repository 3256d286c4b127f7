/*
 * nic_ring.h - one side's view of a ring in an endpoint segment.
 *
 * Each side keeps its own index privately (it never trusts the peer's copy
 * of it) and caches the other side's index, re-reading it only when the ring
 * looks full (producer) or empty (consumer).  Roles are fixed: only the
 * producer calls the produce functions, only the consumer the consume
 * functions; a side that uses a ring from several threads holds its own lock
 * around these calls.  See nic_abi.h for the protocol.
 */
#ifndef NIC_RING_H
#define NIC_RING_H

#include <stdatomic.h>
#include <stdint.h>

#include "nic_abi.h"

typedef struct nic_ring {
    nic_entry_t      *slots;
    uint32_t          mask;          /* entries - 1 */
    uint32_t          local;         /* my next index */
    uint32_t          other;         /* cached index of the other side */
    _Atomic uint32_t *prod;
    _Atomic uint32_t *cons;
} nic_ring_t;

static inline void nic_ring_init(nic_ring_t *r, nic_entry_t *slots, uint32_t entries,
                                 _Atomic uint32_t *prod, _Atomic uint32_t *cons,
                                 int producer)
{
    r->slots = slots;
    r->mask = entries - 1;
    r->prod = prod;
    r->cons = cons;
    r->local = atomic_load_explicit(producer ? prod : cons, memory_order_acquire);
    r->other = atomic_load_explicit(producer ? cons : prod, memory_order_acquire);
}

/* Producer: the next free slot, or NULL if the ring is full. */
static inline nic_entry_t *nic_ring_slot(nic_ring_t *r)
{
    if (r->local - r->other > r->mask) {
        r->other = atomic_load_explicit(r->cons, memory_order_acquire);
        if (r->local - r->other > r->mask)
            return NULL;
    }
    return &r->slots[r->local & r->mask];
}

/* Producer: free slots (re-reads the consumer index). */
static inline uint32_t nic_ring_space(nic_ring_t *r)
{
    r->other = atomic_load_explicit(r->cons, memory_order_acquire);
    return r->mask + 1 - (r->local - r->other);
}

/* Producer: hand the slot returned by nic_ring_slot() to the consumer.
 * Sequentially consistent so that a following load of the firmware's
 * sleeping flag cannot be ordered before it (nic_abi.h, "Sleeping"). */
static inline void nic_ring_commit(nic_ring_t *r)
{
    r->local++;
    atomic_store_explicit(r->prod, r->local, memory_order_seq_cst);
}

/* Consumer: the oldest unconsumed entry, or NULL if the ring is empty. */
static inline nic_entry_t *nic_ring_peek(nic_ring_t *r)
{
    if (r->local == r->other) {
        r->other = atomic_load_explicit(r->prod, memory_order_acquire);
        if (r->local == r->other)
            return NULL;
    }
    return &r->slots[r->local & r->mask];
}

/* Consumer: the producer claims more entries than the ring holds (only a
 * broken or hostile producer does that). */
static inline int nic_ring_corrupt(const nic_ring_t *r)
{
    return r->other - r->local > r->mask + 1;
}

/* Consumer: give the entry returned by nic_ring_peek() back. */
static inline void nic_ring_release(nic_ring_t *r)
{
    r->local++;
    atomic_store_explicit(r->cons, r->local, memory_order_release);
}

/* Index of the entry nic_ring_peek()/nic_ring_slot() returns. */
static inline uint32_t nic_ring_index(const nic_ring_t *r)
{
    return r->local & r->mask;
}

#endif /* NIC_RING_H */
