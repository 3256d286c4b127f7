/*
 * md_pending.c - sends a subdevice pushed back with MD_ERR_NO_RESOURCE.
 * They are retried in posting order from md_progress; while any send is
 * pending, new sends queue behind it so that nothing overtakes.
 */
#include "config.h"

#include "md_core.h"
#include "md_fail.h"
#include "md_log.h"
#include "md_thread.h"

#define md_pending_next(_req) ((_req)->md_next)

void md_pending_push(md_pending_t *q, md_request_t *req)
{
    md_pending_next(req) = NULL;
    if (q->tail != NULL)
        md_pending_next(q->tail) = req;
    else
        q->head = req;
    q->tail = req;
}

int md_pending_retry(md_t *md)
{
    int events = 0;

    while (md->pending.head != NULL) {
        md_request_t *req = md->pending.head;
        md_subdev_t *sd = md_sd(md, req->subdev);
        int rc = sd->ops->isend(sd, req);

        if (rc == MD_ERR_NO_RESOURCE)
            break;
        md->pending.head = md_pending_next(req);
        if (md->pending.head == NULL)
            md->pending.tail = NULL;
        events++;
        if (rc != MD_OK) {
            md_log_error("send of %zu bytes to rank %d over %s failed: %s",
                         req->len, req->env.dst_world, sd->name,
                         md_status_string(rc));
            req->status.error = rc;
            md_request_done(md, req);
        }
    }
    return events;
}

void md_pending_fail(md_t *md, int32_t rank, int status)
{
    md_request_t *keep_head = NULL, *keep_tail = NULL, *req = md->pending.head;

    while (req != NULL) {
        md_request_t *next = md_pending_next(req);
        if (req->peer_world == rank) {
            req->status.error = status;
            md_request_done(md, req);
        } else {
            md_pending_next(req) = NULL;
            if (keep_tail != NULL)
                md_pending_next(keep_tail) = req;
            else
                keep_head = req;
            keep_tail = req;
        }
        req = next;
    }
    md->pending.head = keep_head;
    md->pending.tail = keep_tail;
}
