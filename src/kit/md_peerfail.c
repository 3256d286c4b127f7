/* md_peerfail.c - failing the requests that wait on a lost peer
 * (md_peerfail.h). */
#include "config.h"

#include "md_peerfail.h"

void md_peerfail_req(void *arg, md_request_t *req)
{
    const md_peerfail_t *f = arg;
    int32_t waits_on = f->peer_of != NULL ? f->peer_of(req) : req->peer_world;

    if (f->peer < 0 || waits_on == f->peer)
        f->fail(f->arg, req, f->status);
}

void md_peerfail_posted(md_mq_t *mq, int subdev_index, const md_peerfail_t *f)
{
    md_reqlist_t gone;
    md_request_t *req;

    md_mq_remove_posted_from(mq, subdev_index, f->peer, &gone);
    while ((req = md_reqlist_pop(&gone)) != NULL)
        f->fail(f->arg, req, f->status);
}

void md_peerfail_waiting(const md_peerfail_t *f, const md_cookies_t *cookies, md_held_set_t *held,
                         md_mq_t *mq, int subdev_index)
{
    if (f->peer < 0)
        md_held_set_drop_all(held);
    md_cookie_foreach(cookies, md_peerfail_req, (void *)f);
    if (f->peer < 0 || md_held_empty(&held->peer[f->peer]))
        md_peerfail_posted(mq, subdev_index, f);
}

void md_peerfail_served(md_subdev_t *sd, const uint8_t *serves, int32_t world_size,
                        int *(*status_of)(void *arg, int32_t q), void *arg, int status)
{
    for (int32_t q = 0; q < world_size; q++) {
        int *lost = serves[q] ? status_of(arg, q) : NULL;
        if (lost != NULL && *lost == 0) {
            *lost = status;
            sd->host->peer_failed(sd, q, status);
        }
    }
}
