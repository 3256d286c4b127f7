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
