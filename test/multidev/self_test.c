/*
 * self_test.c - the worked example of doc/hacking.md, examples/subdev-self,
 * built out of the tree against the installed SDI and kit alone
 * (out_of_tree.sh builds it and runs this with MULTIDEV_MODULE_PATH set),
 * carries a one-rank job's messages beside tloopb: small ones over self,
 * large ones over tloopb, so ordering across subdevices, receives posted on
 * both (ANY_SOURCE), synchronous sends, probes and cancel all meet it.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "md_kit.h"
#include "md_sdi.h"
#include "multidev.h"
#include "solo_bootstrap.h"

static const char self_and_loop[] =
    "multidev-node-config 1\n"
    "node solo\n"
    "device self max_msg=1023\n"
    "device tloopb\n"
    "route solo 0 1023 self -\n"
    "route solo 1024 inf tloopb -\n";

enum { SMALL = 100, LARGE = 5000, CTX = 11 };

static md_t *md;
static char small_buf[SMALL], large_buf[LARGE];

static void setup(void)
{
    md_init_params_t p = solo_params(self_and_loop);
    int rc;

    /* MULTIDEV_MODULE_PATH (out_of_tree.sh) names where libmd_self was
     * built; tloopb is found in this directory's build */
    p.module_path = NULL;
    rc = md_init(&p, &md);
    unlink(p.config_path);      /* read at md_init, not needed after */
    cr_assert_eq(rc, MD_OK, "is MULTIDEV_MODULE_PATH set (out_of_tree.sh)?");
    memset(small_buf, 's', sizeof(small_buf));
    memset(large_buf, 'L', sizeof(large_buf));
}

static void teardown(void)
{
    cr_assert_eq(md_finalize(md), MD_OK);
}

static void wait_for(md_request_t *req)
{
    cr_assert_eq(solo_wait(md, req, 1000), 1, "request did not complete");
}

TestSuite(self, .init = setup, .fini = teardown, .timeout = 20);

Test(self, is_loaded_with_this_kit)
{
    cr_assert_eq(md_num_subdevs(md), 2);
    cr_assert_str_eq(md_subdev(md, 0)->name, "self");
    cr_assert_eq(md_subdev(md, 0)->ops->kit_abi_version, MD_KIT_ABI_VERSION);
}

Test(self, small_messages_go_over_it_in_order_with_large_ones)
{
    md_request_t s1 = {0}, s2 = {0}, s3 = {0}, r1 = {0}, r2 = {0}, r3 = {0};
    static char in1[LARGE], in2[LARGE], in3[LARGE];

    cr_assert_eq(md_isend(md, &s1, small_buf, SMALL, 0, 0, 4, CTX, 0), MD_OK);
    cr_assert_eq(md_isend(md, &s2, large_buf, LARGE, 0, 0, 4, CTX, 0), MD_OK);
    cr_assert_eq(md_isend(md, &s3, small_buf, SMALL / 2, 0, 0, 4, CTX, 0), MD_OK);
    cr_assert_eq(md_irecv(md, &r1, in1, sizeof(in1), 0, 0, 4, CTX, NULL), MD_OK);
    cr_assert_eq(md_irecv(md, &r2, in2, sizeof(in2), -1, MD_ANY_SOURCE, 4, CTX, NULL), MD_OK);
    cr_assert_eq(md_irecv(md, &r3, in3, sizeof(in3), 0, 0, MD_ANY_TAG, CTX, NULL), MD_OK);
    wait_for(&r1);
    wait_for(&r2);
    wait_for(&r3);
    cr_assert_eq(r1.status.size, SMALL);
    cr_assert_eq(r1.status.subdev, 0, "the small message came over self");
    cr_assert_eq(r2.status.size, LARGE);
    cr_assert_eq(r2.status.subdev, 1);
    cr_assert_eq(r3.status.size, SMALL / 2);
    cr_assert_eq(memcmp(in1, small_buf, SMALL), 0);
    cr_assert_eq(memcmp(in2, large_buf, LARGE), 0);
    cr_assert(md_subdev(md, 0)->counters.msgs_recvd >= 2);
}

Test(self, an_any_source_receive_is_delivered_once)
{
    md_request_t s = {0}, s2 = {0}, r = {0}, r2 = {0};
    static char in[LARGE], in2[LARGE];

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 9, CTX, NULL), MD_OK);
    cr_assert_eq(md_isend(md, &s, large_buf, LARGE, 0, 0, 9, CTX, 0), MD_OK);
    wait_for(&r);
    cr_assert_eq(r.status.subdev, 1, "tloopb won the claim");
    memset(in, 0, sizeof(in));
    /* self's duplicate of r lost its claim: the next message waits */
    cr_assert_eq(md_isend(md, &s2, small_buf, SMALL, 0, 0, 9, CTX, 0), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(in[0], 0, "a duplicate whose claim was lost received data");
    cr_assert_eq(md_irecv(md, &r2, in2, sizeof(in2), -1, MD_ANY_SOURCE, 9, CTX, NULL), MD_OK);
    wait_for(&r2);
    cr_assert_eq(r2.status.size, SMALL);
    cr_assert_eq(r2.status.subdev, 0);
}

Test(self, a_sync_send_completes_only_when_matched)
{
    md_request_t s = {0}, r = {0};
    char in[SMALL];

    cr_assert_eq(md_isend(md, &s, small_buf, SMALL, 0, 0, 6, CTX, MD_ENV_F_SYNC), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_not(md_request_is_complete(&s), "an unmatched Ssend completed");
    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), 0, 0, 6, CTX, NULL), MD_OK);
    wait_for(&r);
    wait_for(&s);
}

Test(self, probes_see_and_take_its_messages)
{
    md_request_t s = {0}, msg = {0}, r = {0};
    md_recv_status_t st;
    char in[SMALL];
    int flag = 0;

    cr_assert_eq(md_isend(md, &s, small_buf, SMALL, 0, 0, 8, CTX, 0), MD_OK);
    for (int i = 0; i < 100 && !flag; i++) {
        md_progress(md);
        cr_assert_eq(md_iprobe(md, 0, 0, 8, CTX, NULL, &flag, &st), MD_OK);
    }
    cr_assert(flag);
    cr_assert_eq(st.msg_size, SMALL);
    flag = 0;
    cr_assert_eq(md_improbe(md, &msg, 0, 0, 8, CTX, NULL, &flag), MD_OK);
    cr_assert(flag);
    cr_assert_eq(md_imrecv(md, &msg, &r, in, sizeof(in)), MD_OK);
    wait_for(&r);
    cr_assert_eq(r.status.size, SMALL);
    cr_assert_eq(memcmp(in, small_buf, SMALL), 0);
}

Test(self, a_posted_receive_is_cancelled)
{
    md_request_t r = {0};
    char in[SMALL];

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), 0, 0, 12, CTX, NULL), MD_OK);
    cr_assert_eq(md_cancel_recv(md, &r), MD_OK);
    cr_assert(md_request_is_complete(&r));
    cr_assert_eq(r.status.cancelled, 1);
}
