/* md_awaited.c - the peers requests wait on, for liveness probes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_awaited.h"
#include "md_liveness.h"

int md_awaited_init(md_awaited_t *a, int32_t world_size)
{
    a->peer = calloc((size_t)world_size, 1);
    a->world_size = world_size;
    a->last_ms = 0;
    return a->peer != NULL ? MD_OK : MD_ERR_NO_MEMORY;
}

void md_awaited_fini(md_awaited_t *a)
{
    free(a->peer);
    a->peer = NULL;
}

int md_awaited_due(md_awaited_t *a, unsigned interval_ms)
{
    if (!md_liveness_due(&a->last_ms, interval_ms))
        return 0;
    memset(a->peer, 0, (size_t)a->world_size);
    return 1;
}

void md_awaited_mark(void *arg, md_request_t *req)
{
    md_awaited_t *a = arg;
    if (req->peer_world >= 0 && req->peer_world < a->world_size)
        a->peer[req->peer_world] = 1;
}
