/*
 * sdbase_test.c - md_sdbase, the state every subdevice keeps: set up from
 * the init arguments (who it is, a copy of the peers it serves, the empty
 * queues), torn down with what is still queued in it, and safe to tear
 * down after a set-up that never ran (a subdevice whose init failed early).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "md_sdbase.h"

static const md_sdi_host_t host;

Test(sdbase, is_set_up_from_the_init_arguments)
{
    uint8_t serves[4] = { 0, 1, 0, 1 };
    md_subdev_init_args_t args = { .world_rank = 2, .world_size = 4, .serves = serves };
    md_subdev_t sd = { .host = &host };
    md_sdbase_t b;

    memset(&b, 0, sizeof(b));
    cr_assert_eq(md_sdbase_init(&b, &sd, &args), MD_OK);
    cr_assert_eq(b.sd, &sd);
    cr_assert_eq(b.host, &host);
    cr_assert_eq(b.me, 2);
    cr_assert_eq(b.world_size, 4);
    cr_assert_neq(b.serves, serves, "serves is a copy: args live only during init");
    cr_assert_arr_eq(b.serves, serves, 4);
    cr_assert_eq(b.mq.num_posted, 0);
    cr_assert_eq(b.mq.num_unexpected, 0);
    cr_assert_null(b.done.head);
    serves[1] = 0;
    cr_assert_eq(b.serves[1], 1);
    md_sdbase_fini(&b);
    cr_assert_null(b.serves);
}

Test(sdbase, frees_the_unexpected_messages_still_queued)
{
    uint8_t serves[2] = { 1, 1 };
    md_subdev_init_args_t args = { .world_rank = 0, .world_size = 2, .serves = serves };
    md_subdev_t sd = { .host = &host };
    md_sdbase_t b;

    memset(&b, 0, sizeof(b));
    cr_assert_eq(md_sdbase_init(&b, &sd, &args), MD_OK);
    for (int i = 0; i < 3; i++) {
        md_mq_msg_t *m = calloc(1, sizeof(*m) + 16);
        cr_assert_not_null(m);
        m->env.tag = i;
        md_mq_push_unexpected(&b.mq, m);
    }
    cr_assert_eq(b.mq.num_unexpected, 3);
    md_sdbase_fini(&b);     /* ASan's leak check (run-tests.sh) fails if they stay */
    cr_assert_eq(b.mq.num_unexpected, 0);
}

Test(sdbase, tears_down_what_was_never_set_up)
{
    md_sdbase_t b;

    memset(&b, 0, sizeof(b));
    md_sdbase_fini(&b);
    md_sdbase_fini(&b);
    cr_assert_null(b.serves);
}
