/*
 * secret_test.c - the job's secret and its key: the core draws a secret,
 * every rank takes rank 0's, and the job key that every subdevice gets
 * (md_subdev_init_args_t.job_key) is derived from it once, the way the NIC
 * firmware derives it (src/jobkey).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "md_core.h"
#include "md_job_key.h"

/* A job of one rank: the allgather hands back what went in. */
static int solo_allgather(void *ctx, const void *in, void *out, size_t len)
{
    (void)ctx;
    memcpy(out, in, len);
    return 0;
}

static md_t *solo_md(void)
{
    md_t *md = calloc(1, sizeof(*md));

    cr_assert_not_null(md);
    md->rank = 0;
    md->size = 1;
    md->bootstrap.allgather = solo_allgather;
    return md;
}

Test(secret, the_job_key_is_derived_from_the_shared_secret)
{
    md_t *md = solo_md();
    uint64_t want;

    cr_assert_eq(md_secret_setup(md), MD_OK);
    cr_assert_eq(md_job_key_derive(md->job_secret, &want), 0);
    cr_assert_neq(md->job_key, 0u, "a job key is never 0");
    cr_assert_eq(md->job_key, want);
    free(md);
}

Test(secret, two_jobs_get_two_keys)
{
    md_t *a = solo_md(), *b = solo_md();

    cr_assert_eq(md_secret_setup(a), MD_OK);
    cr_assert_eq(md_secret_setup(b), MD_OK);
    cr_assert(memcmp(a->job_secret, b->job_secret, sizeof(a->job_secret)) != 0);
    cr_assert_neq(a->job_key, b->job_key);
    free(a);
    free(b);
}
