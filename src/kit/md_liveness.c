/* md_liveness.c - liveness probes of the awaited peers (md_liveness.h). */
#include "config.h"

#include <time.h>

#include "md_liveness.h"

uint64_t md_liveness_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);   /* vDSO: no system call */
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int md_liveness_due(uint64_t *last_ms, unsigned interval_ms)
{
    uint64_t now = md_liveness_now_ms();

    if (now - *last_ms < interval_ms)
        return 0;
    *last_ms = now;
    return 1;
}

int md_liveness_init(md_liveness_t *l, int32_t world_size, int32_t me, const uint8_t *serves,
                     unsigned interval_ms)
{
    l->interval_ms = interval_ms;
    l->me = me;
    l->serves = serves;
    return md_awaited_init(&l->awaited, world_size);
}

void md_liveness_fini(md_liveness_t *l)
{
    md_awaited_fini(&l->awaited);
}

void md_liveness_mark(void *arg, md_request_t *req)
{
    md_liveness_t *l = arg;
    md_awaited_mark(&l->awaited, req);
}

int md_liveness_round(md_liveness_t *l, const md_cookies_t *cookies,
                      const md_liveness_ops_t *ops, void *arg)
{
    if (!md_awaited_due(&l->awaited, l->interval_ms))
        return 0;
    md_cookie_foreach(cookies, md_awaited_mark, &l->awaited);
    ops->mark_posted(arg, l);
    for (int32_t q = 0; q < l->awaited.world_size; q++)
        if (l->awaited.peer[q] && q != l->me && l->serves[q])
            ops->probe(arg, q);
    return 1;
}
