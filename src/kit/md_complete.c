/* md_complete.c - finishing a subdevice's requests: receive status,
 * counters, hand-off to the host, system-message receives (see
 * md_complete.h). */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_complete.h"
#include "md_log.h"
#include "md_pool.h"

/* A system message's receive request and its buffer, in one block from
 * the pool: a relay or destination of a forwarded stream receives one
 * chunk after the other. */
typedef struct sysmsg_block {
    md_request_t req;
    max_align_t  data[];
} sysmsg_block_t;

void md_recv_status_set(md_request_t *req, const md_envelope_t *env, uint64_t delivered,
                        int32_t subdev)
{
    md_recv_status_fill(&req->status, env, delivered, subdev);
}

void md_counters_complete(md_subdev_counters_t *c, const md_request_t *req)
{
    if (req->status.error != MD_OK && req->status.error != MD_ERR_TRUNCATE)
        return;
    if (req->kind == MD_REQ_SEND) {
        if (req->env.tag < 0) {
            c->sysmsgs_sent++;
        } else {
            c->msgs_sent++;
            c->bytes_sent += req->len;
        }
    } else {
        c->msgs_recvd++;
        c->bytes_recvd += req->status.size;
    }
}

md_request_t *md_sysmsg_recv_new(const md_envelope_t *env, int32_t src)
{
    sysmsg_block_t *b = md_pool_alloc(offsetof(sysmsg_block_t, data) + env->size);

    if (b == NULL)
        return NULL;
    memset(&b->req, 0, sizeof(b->req));
    b->req.kind = MD_REQ_RECV;
    b->req.buf = b->data;
    b->req.len = env->size;
    b->req.env = *env;
    b->req.peer_world = src;
    return &b->req;
}

void md_complete_hand(md_subdev_t *sd, md_request_t *req, int sysmsg, int32_t src)
{
    if (!sysmsg) {
        md_counters_complete(&sd->counters, req);
        sd->host->complete(sd, req);
        return;
    }
    if (req->status.error == MD_OK) {
        sd->counters.sysmsgs_recvd++;
        sd->host->sysmsg(sd, &req->env, req->buf);
    } else {
        sd->host->log(sd, MD_LOG_ERROR, "system message (tag %d) from rank %d lost: %s",
                      (int)req->env.tag, (int)src, md_status_string(req->status.error));
    }
    md_pool_release(req);           /* the block: req is its first member */
}
