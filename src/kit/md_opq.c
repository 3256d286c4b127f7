/* md_opq.c - a peer's operations waiting to be sent (md_opq.h). */
#include "config.h"

#include <stdlib.h>

#include "md_fifo.h"
#include "md_log.h"
#include "md_opq.h"

md_op_t *md_op_new(uint32_t kind, md_request_t *req)
{
    md_op_t *op = calloc(1, sizeof(*op));

    if (op != NULL) {
        op->kind = kind;
        op->req = req;
    }
    return op;
}

void md_opq_push(md_opq_t *q, md_op_t *op)
{
    MD_FIFO_PUSH(q, op);
}

void md_opq_post(md_opq_t *q, md_peerset_t *busy, int32_t peer, md_op_t *op)
{
    md_opq_push(q, op);
    md_peerset_add(busy, peer);
}

int md_opq_post_ctl(md_opq_t *q, md_peerset_t *busy, int32_t peer, uint32_t kind,
                    const uint64_t *args, unsigned nargs)
{
    md_op_t *op = md_op_new(kind, NULL);

    if (op == NULL)
        return MD_ERR_NO_MEMORY;
    for (unsigned i = 0; i < nargs && i < sizeof(op->args) / sizeof(op->args[0]); i++)
        op->args[i] = args[i];
    md_opq_post(q, busy, peer, op);
    return MD_OK;
}

static md_op_t *md_opq_pop(md_opq_t *q)
{
    md_op_t *op;

    MD_FIFO_POP(q, op);
    return op;
}

int md_opq_drain(md_opq_t *q, int (*emit)(void *arg, int32_t peer, md_op_t *op),
                 void *arg, int32_t peer, int *events)
{
    int rc = 1;

    while (q->head != NULL && (rc = emit(arg, peer, q->head)) == 1) {
        free(md_opq_pop(q));
        (*events)++;
    }
    return rc;
}

int md_opq_drain_or_lose(md_opq_t *q, md_subdev_t *sd,
                         int (*emit)(void *arg, int32_t peer, md_op_t *op),
                         void (*lose)(void *arg, int32_t peer, int status), void *arg,
                         int32_t peer, int *events)
{
    int rc = md_opq_drain(q, emit, arg, peer, events);

    if (rc < 0) {
        sd->host->log(sd, MD_LOG_ERROR, "sending to rank %d failed: %s", peer,
                      md_status_string(rc));
        lose(arg, peer, rc);
    }
    return !md_opq_empty(q);
}

void md_opq_flush(md_opq_t *q, void (*fail)(void *arg, md_request_t *req), void *arg)
{
    while (q->head != NULL) {
        md_op_t *op = md_opq_pop(q);
        if (fail != NULL && op->req != NULL)
            fail(arg, op->req);
        free(op);
    }
}
