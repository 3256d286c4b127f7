/* log_text_test.c - a line of the NIC's host library reaches the
 * multidevice through the subdevice's sink with its text exactly, and
 * without the subdevice's name, which the multidevice's logger puts in
 * front of every subdevice line ("myri: <text>"), so that it comes out
 * once.  One process, rank 0 of 8, its firmware a thread of the test. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "md_kit.h"
#include "md_log.h"
#include "md_sdi.h"
#include "test_job.h"
#include "test_nic_rundir.h"

MD_LOAD_DEVICE_PTR(myri);

#define KEPT_MAX 16

static struct {
    int  n;
    int  level[KEPT_MAX];
    char text[KEPT_MAX][512];
} kept;

static void keep_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;

    (void)sd;
    if (kept.n >= KEPT_MAX)
        return;
    va_start(ap, fmt);
    vsnprintf(kept.text[kept.n], sizeof(kept.text[0]), fmt, ap);
    va_end(ap);
    kept.level[kept.n++] = level;
}

Test(myri_log, a_nic_line_is_forwarded_exactly_and_without_the_prefix, .timeout = 30)
{
    static const char said[] = "4096 credits x 8 nodes need an in-queue of 65792 entries "
                               "(at most 65536): lower the credits";
    int32_t node_of_rank[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    uint8_t serves[8] = { 1, 1, 1, 1, 1, 1, 1, 1 }, card[MD_CARD_MAX];
    md_param_t params[] = { { "credits", "4096" }, { "firmware", "thread" } };
    md_sdi_host_t host = { .log = keep_log };
    md_subdev_ops_t ops;
    md_subdev_t sd = { .ops = &ops, .host = &host, .index = 1, .name = "myri" };
    size_t card_len = 0;
    int found = -1;

    cr_assert_eq(test_nic_rundir("mylog"), 0);
    cr_assert_eq(myri_LoadDevicePtr(&ops), MD_OK);
    md_subdev_init_args_t a = {
        .world_rank = 0, .world_size = 8, .node_of_rank = node_of_rank, .my_node = 0,
        .num_nodes = 8, .node_name = "n0", .job_id = "mylog",
        .job_secret = test_job_secret("mylog"), .serves = serves, .role = MD_ROLE_GLOBAL,
        .params = params, .num_params = 2,
    };
    /* 2 x credits x ranks + sq entries: more than an in-queue can hold */
    cr_assert_eq(ops.init(&sd, &a, card, &card_len), MD_ERR_CONFIG);
    for (int i = 0; i < kept.n; i++) {
        cr_expect(strncmp(kept.text[i], "myri", 4) != 0,
                  "a subdevice line names no subdevice itself: '%s'", kept.text[i]);
        if (strcmp(kept.text[i], said) == 0)
            found = i;
    }
    cr_assert_geq(found, 0, "the NIC's line came through as '%s' (%d lines, the first '%s')",
                  said, kept.n, kept.n > 0 ? kept.text[0] : "");
    cr_expect_eq(kept.level[found], MD_LOG_ERROR);
}
