/*
 * md_opq.h - for network subdevices: one peer's operations that wait to be
 * sent (held back by credits or by send descriptors), first in, first out.
 * An operation is the subdevice's message kind, the send request it
 * carries (if any) and the arguments of a control message (a CTS, an
 * acknowledgement).  Not thread-safe: the caller serialises.
 */
#ifndef MD_OPQ_H
#define MD_OPQ_H

#include <stdint.h>

#include "md_peerset.h"
#include "md_sdi.h"

typedef struct md_op {
    struct md_op *next;
    uint32_t      kind;         /* the subdevice's message kind */
    md_request_t *req;          /* the send it carries, or NULL */
    uint64_t      args[5];      /* a control message's arguments */
} md_op_t;

typedef struct md_opq {
    md_op_t *head, *tail;
} md_opq_t;

/* A zeroed operation of this kind; NULL without memory. */
md_op_t *md_op_new(uint32_t kind, md_request_t *req);
void     md_opq_push(md_opq_t *q, md_op_t *op);
/* Queues op for peer on its queue q and adds peer to busy, the set of
 * peers whose queues the subdevice's progress drains (md_peerset_sweep). */
void     md_opq_post(md_opq_t *q, md_peerset_t *busy, int32_t peer, md_op_t *op);
/* md_opq_post of a control message (no request) of this kind whose
 * arguments are args[0 .. nargs-1] (nargs at most 5; the others are 0).
 * MD_OK, or MD_ERR_NO_MEMORY (nothing queued). */
int      md_opq_post_ctl(md_opq_t *q, md_peerset_t *busy, int32_t peer, uint32_t kind,
                         const uint64_t *args, unsigned nargs);
static inline int md_opq_empty(const md_opq_t *q) { return q->head == NULL; }
/* Emits the operations in order.  emit returns 1 when the operation left
 * (it is then freed and counted in *events), 0 when it must wait (no
 * credit, no descriptor) and a negative status on an error; the drain
 * stops at the first that does not leave and returns that value (1 if
 * the queue emptied). */
int      md_opq_drain(md_opq_t *q, int (*emit)(void *arg, int32_t peer, md_op_t *op),
                      void *arg, int32_t peer, int *events);
/* md_opq_drain for one peer of a subdevice's md_peerset_sweep: an error
 * (a negative status from emit) loses the peer -- logged through sd's host
 * as "sending to rank <peer> failed: <status>" and handed to
 * lose(arg, peer, status), which fails what waits on it.  1 while
 * operations still wait in q, 0 when it is empty. */
int      md_opq_drain_or_lose(md_opq_t *q, md_subdev_t *sd,
                              int (*emit)(void *arg, int32_t peer, md_op_t *op),
                              void (*lose)(void *arg, int32_t peer, int status), void *arg,
                              int32_t peer, int *events);
/* Frees every operation, first calling fail(arg, req) for each that
 * carries a request (fail may be NULL). */
void     md_opq_flush(md_opq_t *q, void (*fail)(void *arg, md_request_t *req), void *arg);

#endif /* MD_OPQ_H */
