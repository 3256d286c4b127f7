/* shm_ring.c - creation and attachment of SPSC record rings (shm_ring.h). */
#include "config.h"

#include <string.h>

#include "shm_ring.h"

void shm_ring_format(void *mem, size_t size)
{
    shm_ring_ctrl_t *ctrl = mem;

    memset(ctrl, 0, sizeof(*ctrl));
    atomic_store_explicit(&ctrl->tail, 0, memory_order_relaxed);
    ctrl->size = size;
    /* The first stamp must not look published; fresh shared memory is
     * zero already, but a reused buffer need not be. */
    memset((uint8_t *)mem + sizeof(*ctrl), 0, SHM_LINE);
}

static int shm_ring_size_valid(uint64_t size)
{
    return size >= 4 * SHM_LINE && (size & (size - 1)) == 0;
}

int shm_ring_producer_attach(shm_ring_producer_t *p, void *mem)
{
    shm_ring_ctrl_t *ctrl = mem;

    if (!shm_ring_size_valid(ctrl->size))
        return -1;
    p->ctrl = ctrl;
    p->data = (uint8_t *)mem + sizeof(*ctrl);
    p->size = ctrl->size;
    p->mask = ctrl->size - 1;
    /* A producer attaches before it ever writes: the ring is empty. */
    p->head = atomic_load_explicit(&ctrl->tail, memory_order_acquire);
    p->tail_cache = p->head;
    return 0;
}

int shm_ring_consumer_attach(shm_ring_consumer_t *c, void *mem)
{
    shm_ring_ctrl_t *ctrl = mem;

    if (!shm_ring_size_valid(ctrl->size))
        return -1;
    c->ctrl = ctrl;
    c->data = (uint8_t *)mem + sizeof(*ctrl);
    c->mask = ctrl->size - 1;
    c->tail = atomic_load_explicit(&ctrl->tail, memory_order_relaxed);
    return 0;
}
