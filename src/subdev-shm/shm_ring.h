/*
 * shm_ring.h - single-producer single-consumer record ring in shared memory.
 *
 * One ring carries the records of one sender to one receiver; it lives in
 * the receiver's segment, so the receiver polls local memory and the sender
 * writes across.  A record is variable-length (header + body) and starts on
 * a 64-byte boundary, so a record header never straddles cache lines and a
 * small message (header + up to 8 payload bytes) is one line.
 *
 * Publication without a shared head index: every record begins with a
 * stamp word, the record's stream position + 1, written last with release
 * order.  The consumer polls the stamp at its own tail position; a stale
 * stamp from an earlier lap can never equal tail + 1.  Stale *payload* bytes
 * could, so before publishing a record the producer zeroes the stamp word
 * where the next record will start; the ring therefore always keeps one
 * line of slack.  The consumer publishes its tail (bytes consumed) on its
 * own cache line; the producer reads it only when its cached copy says the
 * ring is full.
 *
 * A record that does not fit before the end of the data area is preceded by
 * a PAD record covering the rest of the area.  Hence the largest record is
 * about half the ring (shm_ring_max_record()).
 *
 * Roles: shm_ring_reserve/commit only from the one producer,
 * shm_ring_peek/release only from the one consumer.  Neither side locks.
 * Positions are 64-bit byte counts and never wrap in practice.
 */
#ifndef SHM_RING_H
#define SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_LINE        64u    /**< cache line and record alignment */
#define SHM_RING_PAD    1u     /**< record type reserved by the ring */

/* Control block in front of the data area (in shared memory). */
typedef struct shm_ring_ctrl {
    _Atomic uint64_t tail;               /**< consumed bytes; consumer only */
    uint8_t          pad0[SHM_LINE - sizeof(uint64_t)];
    uint64_t         size;               /**< data bytes, power of two */
    uint8_t          pad1[SHM_LINE - sizeof(uint64_t)];
} shm_ring_ctrl_t;

/* Every record starts with this. */
typedef struct shm_ring_rec {
    _Atomic uint64_t stamp;   /**< stream position + 1; written last */
    uint32_t         len;     /**< bytes of the record, header included */
    uint16_t         type;    /**< SHM_RING_PAD or a protocol type */
    uint16_t         flags;
} shm_ring_rec_t;

/* Producer's private view (lives in the producer's memory). */
typedef struct shm_ring_producer {
    uint8_t         *data;
    shm_ring_ctrl_t *ctrl;
    uint64_t         size;
    uint64_t         mask;
    uint64_t         head;        /**< next write position */
    uint64_t         tail_cache;  /**< last tail read from ctrl */
} shm_ring_producer_t;

/* Consumer's private view. */
typedef struct shm_ring_consumer {
    uint8_t         *data;
    shm_ring_ctrl_t *ctrl;
    uint64_t         mask;
    uint64_t         tail;        /**< next read position */
} shm_ring_consumer_t;

static inline uint64_t shm_align_line(uint64_t n)
{
    return (n + SHM_LINE - 1) & ~(uint64_t)(SHM_LINE - 1);
}

/* Bytes a ring with size data bytes occupies (control block included). */
static inline size_t shm_ring_footprint(size_t size)
{
    return sizeof(shm_ring_ctrl_t) + size;
}

/* Largest record (header included) a ring of this size always accepts
 * once the consumer has caught up: record + wrap padding + one line of
 * slack must fit. */
static inline size_t shm_ring_max_record(size_t size)
{
    return (size - SHM_LINE) / 2 & ~(size_t)(SHM_LINE - 1);
}

/* Creator: formats zeroed memory as an empty ring; size is a power of two
 * of at least 4 lines. */
void shm_ring_format(void *mem, size_t size);
/* Attach the producer or consumer view to a formatted ring. 0 or -1 when
 * the control block is not a valid ring. */
int shm_ring_producer_attach(shm_ring_producer_t *p, void *mem);
int shm_ring_consumer_attach(shm_ring_consumer_t *c, void *mem);

/* Producer: room for a record of len bytes (header included), or NULL if
 * the ring is full right now.  May write a PAD record to wrap. */
static inline void *shm_ring_reserve(shm_ring_producer_t *p, uint32_t len)
{
    uint64_t alen = shm_align_line(len);
    uint64_t off = p->head & p->mask;
    uint64_t contig = p->size - off;
    uint64_t need = alen + SHM_LINE + (alen > contig ? contig : 0);

    if (p->size - (p->head - p->tail_cache) < need) {
        p->tail_cache = atomic_load_explicit(&p->ctrl->tail,
                                             memory_order_acquire);
        if (p->size - (p->head - p->tail_cache) < need)
            return NULL;
    }
    if (alen > contig) {
        shm_ring_rec_t *pad = (shm_ring_rec_t *)(p->data + off);
        shm_ring_rec_t *first = (shm_ring_rec_t *)p->data;

        pad->len = (uint32_t)contig;
        pad->type = SHM_RING_PAD;
        pad->flags = 0;
        atomic_store_explicit(&first->stamp, 0, memory_order_relaxed);
        atomic_store_explicit(&pad->stamp, p->head + 1, memory_order_release);
        p->head += contig;
        off = 0;
    }
    return p->data + off;
}

/* Producer: publish the record reserved last; rec->len and rec->type must
 * be set (shm_ring_commit sets them for convenience). */
static inline void shm_ring_commit(shm_ring_producer_t *p, void *rec_mem,
                                   uint16_t type, uint32_t len)
{
    shm_ring_rec_t *rec = (shm_ring_rec_t *)rec_mem;
    uint64_t next = p->head + shm_align_line(len);
    shm_ring_rec_t *after = (shm_ring_rec_t *)(p->data + (next & p->mask));

    rec->len = len;
    rec->type = type;
    atomic_store_explicit(&after->stamp, 0, memory_order_relaxed);
    atomic_store_explicit(&rec->stamp, p->head + 1, memory_order_release);
    p->head = next;
}

/* Consumer: the next record, or NULL if none has been published.  PAD
 * records are skipped here. */
static inline shm_ring_rec_t *shm_ring_peek(shm_ring_consumer_t *c)
{
    for (;;) {
        shm_ring_rec_t *rec =
            (shm_ring_rec_t *)(c->data + (c->tail & c->mask));

        if (atomic_load_explicit(&rec->stamp, memory_order_acquire) !=
            c->tail + 1)
            return NULL;
        if (rec->type != SHM_RING_PAD)
            return rec;
        c->tail += rec->len;
        atomic_store_explicit(&c->ctrl->tail, c->tail, memory_order_release);
    }
}

/* Consumer: done with the record returned by the last peek; the producer
 * may overwrite it from now on. */
static inline void shm_ring_release(shm_ring_consumer_t *c, shm_ring_rec_t *rec)
{
    c->tail += shm_align_line(rec->len);
    atomic_store_explicit(&c->ctrl->tail, c->tail, memory_order_release);
}

/* Consumer: nothing published yet (cheap; used by idle progress). */
static inline int shm_ring_empty(shm_ring_consumer_t *c)
{
    shm_ring_rec_t *rec = (shm_ring_rec_t *)(c->data + (c->tail & c->mask));
    return atomic_load_explicit(&rec->stamp, memory_order_relaxed) !=
           c->tail + 1;
}

#endif /* SHM_RING_H */
