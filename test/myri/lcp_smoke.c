/* lcp_smoke.c - (plain C, for ThreadSanitizer) two in-process firmwares,
 * the host polling both endpoints: 20000 requests, half with payload. */
#include "config.h"

#include <sched.h>
#include <stdio.h>

#include "lcp_pair.h"

static unsigned got;
static void h(myri_gam_t *g, void *arg, int32_t src, const myri_desc_t *d, const void *p)
{
    got++;
}

int main(void)
{
    lcp_pair_t p;
    lcp_pair_opts_t o = { .n = 2, .credits = 8 };
    static char buf[4096];
    unsigned sent = 0, n = 20000;

    if (lcp_pair_start(&p, &o) != 0)
        return 1;
    myri_gam_set_handler(p.node[1].g, 1, h, NULL);
    uint64_t end = nic_now_ns() + 60000000000ull;
    while (got < n && nic_now_ns() < end) {
        if (sent < n && myri_gam_request(p.node[0].g, 1, 1, NULL, buf, sent % 2 ? 4096 : 0) == 0)
            sent++;
        if (lcp_pair_poll(&p) == 0)
            sched_yield();
    }
    lcp_pair_stop(&p);
    printf("lcp_smoke: %u of %u delivered\n", got, n);
    return got == n ? 0 : 1;
}
