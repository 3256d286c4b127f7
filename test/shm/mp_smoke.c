/* mp_smoke.c - forked ranks driving the shm subdevice, as a plain program
 * so that the ThreadSanitizer build (where Criterion cannot run) exercises
 * the subdevice's code paths too.  Exit 0 on success. */
#include "config.h"

#include <stdio.h>

#include "mp_ranks.h"

static int run_one(const char *what, int nprocs, tb_rank_fn fn,
                   const char *const *params)
{
    tb_shared_t *tb = tb_create(nprocs);
    int failed = tb_run(tb, fn, (void *)params, 100, NULL);
    int left = tb_count_segments(tb);

    tb_destroy(tb);
    printf("mp_smoke: %-24s %s\n", what, failed || left ? "FAILED" : "ok");
    return failed || left;
}

int main(void)
{
    static const char *const nocma[] = { "cma=0", NULL };
    static const char *const small[] = {
        "ring_size=8k", "eager_limit=2k", "frag_size=1k", NULL };
    int bad = 0;

    bad += run_one("pingpong", 2, pingpong_rank, NULL);
    bad += run_one("pingpong cma=0", 2, pingpong_rank, nocma);
    bad += run_one("window small ring", 2, window_rank, small);
    bad += run_one("any source", 4, any_source_rank, NULL);
    bad += run_one("system messages", 2, sysmsg_rank, NULL);
    return bad ? 1 : 0;
}
