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
