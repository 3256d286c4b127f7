/*
 * dispatch_test.c - the multidevice's own logic, in one process over two
 * loop-back subdevices: tloopa carries messages up to 1023 bytes and is
 * slow (delay=3 progress calls), tloopb carries larger ones at once.  So a
 * pair's messages really do take two subdevices and can arrive out of
 * order, which is what ordering, the AnyQueue and cancel must cope with.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_sdi.h"
#include "multidev.h"
#include "solo_bootstrap.h"

static const char two_loops[] =
    "multidev-node-config 1\n"
    "node solo\n"
    "device tloopa delay=3\n"
    "device tloopb\n"
    "route solo 0 1023 tloopa -\n"
    "route solo 1024 inf tloopb -\n";

enum { SMALL = 100, LARGE = 5000, CTX = 7 };

static md_t *md;
static char small_buf[SMALL], large_buf[LARGE];

static void setup(void)
{
    cr_assert_eq(solo_init(two_loops, &md), MD_OK);
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

static void send_to_self(md_request_t *req, const void *buf, size_t len, int tag)
{
    cr_assert_eq(md_isend(md, req, buf, len, 0, 0, tag, CTX, 0), MD_OK);
}

TestSuite(dispatch, .init = setup, .fini = teardown, .timeout = 20);

Test(dispatch, routes_by_size)
{
    int32_t hop = -1;

    cr_assert_eq(md_num_subdevs(md), 2);
    cr_assert_eq(md_route(md, 0, 1023, &hop), 0);
    cr_assert_eq(hop, 0);
    cr_assert_eq(md_route(md, 0, 1024, NULL), 1);
    cr_assert_str_eq(md_subdev(md, 1)->name, "tloopb");
}

Test(dispatch, a_pair_stays_ordered_across_two_subdevices)
{
    md_request_t s1 = {0}, s2 = {0}, r1 = {0}, r2 = {0};
    static char in1[LARGE], in2[LARGE];

    /* small goes over the slow subdevice, large over the fast one */
    send_to_self(&s1, small_buf, SMALL, 5);
    send_to_self(&s2, large_buf, LARGE, 5);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(md_irecv(md, &r1, in1, sizeof(in1), 0, 0, 5, CTX, NULL), MD_OK);
    cr_assert_eq(md_irecv(md, &r2, in2, sizeof(in2), 0, 0, 5, CTX, NULL), MD_OK);
    wait_for(&r1);
    wait_for(&r2);
    cr_assert_eq(r1.status.size, SMALL, "first receive gets the first message");
    cr_assert_eq(r1.status.subdev, 0);
    cr_assert_eq(r2.status.size, LARGE);
    cr_assert_eq(r2.status.subdev, 1);
    cr_assert_eq(memcmp(in1, small_buf, SMALL), 0);
    cr_assert_eq(memcmp(in2, large_buf, LARGE), 0);
}

Test(dispatch, ordering_holds_when_receives_are_posted_first)
{
    md_request_t s1 = {0}, s2 = {0}, r1 = {0}, r2 = {0};
    static char in1[LARGE], in2[LARGE];

    cr_assert_eq(md_irecv(md, &r1, in1, sizeof(in1), 0, 0, 5, CTX, NULL), MD_OK);
    cr_assert_eq(md_irecv(md, &r2, in2, sizeof(in2), 0, 0, 5, CTX, NULL), MD_OK);
    send_to_self(&s1, small_buf, SMALL, 5);
    send_to_self(&s2, large_buf, LARGE, 5);
    wait_for(&r1);
    wait_for(&r2);
    cr_assert_eq(r1.status.size, SMALL);
    cr_assert_eq(r2.status.size, LARGE);
}

Test(dispatch, any_source_is_satisfied_by_either_subdevice_once)
{
    md_request_t s = {0}, r = {0}, r_next = {0}, s_next = {0};
    static char in[LARGE], in_next[LARGE];

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 9, CTX,
                          NULL), MD_OK);
    send_to_self(&s, large_buf, LARGE, 9);
    wait_for(&r);
    cr_assert_eq(r.status.subdev, 1);
    cr_assert_eq(r.status.size, LARGE);
    cr_assert_eq(r.status.src_world, 0);

    /* The duplicate left on tloopa must be gone: the next small message
     * must wait for a new receive instead of landing in the old buffer. */
    memset(in, 0, sizeof(in));
    send_to_self(&s_next, small_buf, SMALL, 9);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(in[0], 0, "the cancelled duplicate received data");
    cr_assert_eq(md_irecv(md, &r_next, in_next, sizeof(in_next), -1,
                          MD_ANY_SOURCE, 9, CTX, NULL), MD_OK);
    wait_for(&r_next);
    cr_assert_eq(r_next.status.size, SMALL);
}

Test(dispatch, cancelled_any_source_receive_never_completes_with_data)
{
    md_request_t s = {0}, r = {0}, r2 = {0};
    static char in[LARGE], in2[LARGE];

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 3, CTX,
                          NULL), MD_OK);
    cr_assert_eq(md_cancel_recv(md, &r), MD_OK);
    cr_assert(md_request_is_complete(&r));
    cr_assert_eq(r.status.cancelled, 1);
    send_to_self(&s, small_buf, SMALL, 3);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(in[0], 0);
    cr_assert_eq(md_irecv(md, &r2, in2, sizeof(in2), 0, 0, 3, CTX, NULL), MD_OK);
    wait_for(&r2);
    cr_assert_eq(r2.status.size, SMALL);
    cr_assert_eq(r2.status.cancelled, 0);
}

Test(dispatch, cancel_after_match_is_too_late)
{
    md_request_t s = {0}, r = {0};
    static char in[LARGE];

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 4, CTX,
                          NULL), MD_OK);
    send_to_self(&s, large_buf, LARGE, 4);
    wait_for(&r);
    cr_assert_eq(md_cancel_recv(md, &r), MD_ERR_NOT_FOUND);
    cr_assert_eq(r.status.cancelled, 0);
}

Test(dispatch, probe_reports_a_senders_earliest_message)
{
    md_request_t s1 = {0}, s2 = {0}, msg = {0}, r = {0}, r2 = {0};
    md_recv_status_t st;
    int flag = 0;
    static char in[LARGE];

    send_to_self(&s1, small_buf, SMALL, 6);
    send_to_self(&s2, large_buf, LARGE, 6);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(md_iprobe(md, -1, MD_ANY_SOURCE, MD_ANY_TAG, CTX, NULL, &flag,
                           &st), MD_OK);
    cr_assert_eq(flag, 1);
    cr_assert_eq(st.size, SMALL);
    cr_assert_eq(st.tag, 6);

    cr_assert_eq(md_improbe(md, &msg, 0, 0, 6, CTX, NULL, &flag), MD_OK);
    cr_assert_eq(flag, 1);
    cr_assert_eq(msg.status.size, SMALL);

    /* A matched message must be received: take both, in order. */
    cr_assert_eq(md_imrecv(md, &msg, &r, in, sizeof(in)), MD_OK);
    wait_for(&r);
    cr_assert_eq(r.status.size, SMALL);
    cr_assert_eq(md_irecv(md, &r2, in, sizeof(in), 0, 0, 6, CTX, NULL), MD_OK);
    wait_for(&r2);
    cr_assert_eq(r2.status.size, LARGE);
    cr_assert_eq(memcmp(in, large_buf, LARGE), 0);
}

Test(dispatch, mprobe_then_mrecv_delivers_that_message)
{
    md_request_t s = {0}, msg = {0}, r = {0};
    int flag = 0;
    static char in[LARGE];

    send_to_self(&s, large_buf, LARGE, 8);
    for (int i = 0; i < 10 && !flag; i++) {
        md_progress(md);
        cr_assert_eq(md_improbe(md, &msg, -1, MD_ANY_SOURCE, 8, CTX, NULL,
                                &flag), MD_OK);
    }
    cr_assert_eq(flag, 1);
    cr_assert_eq(md_imrecv(md, &msg, &r, in, sizeof(in)), MD_OK);
    wait_for(&r);
    cr_assert_eq(r.status.size, LARGE);
    cr_assert_eq(memcmp(in, large_buf, LARGE), 0);
}

Test(dispatch, any_tag_never_matches_a_system_message)
{
    md_request_t r = {0}, s = {0};
    static char in[LARGE];
    int flag = 1;
    md_recv_status_t st;

    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), -1, MD_ANY_SOURCE,
                          MD_ANY_TAG, CTX, NULL), MD_OK);
    cr_assert_eq(md_sysmsg_isend(md, &s, 0, -70, small_buf, SMALL), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_not(md_request_is_complete(&r));
    cr_assert_eq(md_iprobe(md, -1, MD_ANY_SOURCE, MD_ANY_TAG, CTX, NULL, &flag,
                           &st), MD_OK);
    cr_assert_eq(flag, 0);
    cr_assert_eq(md_cancel_recv(md, &r), MD_OK);
}

static int sys_calls;
static size_t sys_len;
static void on_sys(void *ctx, int32_t src, int32_t tag, const void *p, size_t len)
{
    cr_assert_eq(ctx, &sys_calls);
    cr_assert_eq(src, 0);
    cr_assert_eq(tag, -64);
    cr_assert_eq(((const char *)p)[0], 'L');
    sys_calls++;
    sys_len = len;
}

/* System messages sent and received over all subdevices. */
static void sysmsg_counts(uint64_t *sent, uint64_t *recvd)
{
    *sent = *recvd = 0;
    for (int i = 0; i < md_num_subdevs(md); i++) {
        *sent += md_subdev(md, i)->counters.sysmsgs_sent;
        *recvd += md_subdev(md, i)->counters.sysmsgs_recvd;
    }
}

Test(dispatch, system_messages_reach_their_handler)
{
    md_request_t s = {0};
    uint64_t sent0, recvd0, sent1, recvd1;

    cr_assert_eq(md_sysmsg_register(md, -64, on_sys, &sys_calls), MD_OK);
    cr_assert_eq(md_sysmsg_register(md, -5, on_sys, NULL), MD_ERR_INVALID,
                 "tags above -64 belong to the multidevice");
    sysmsg_counts(&sent0, &recvd0);
    cr_assert_eq(md_sysmsg_isend(md, &s, 0, -64, large_buf, LARGE), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_eq(sys_calls, 1);
    cr_assert_eq(sys_len, LARGE);
    sysmsg_counts(&sent1, &recvd1);
    cr_assert_eq(sent1 - sent0, 1, "one system message sent, counted once (%llu)", (unsigned long long)(sent1 - sent0));
    cr_assert_eq(recvd1 - recvd0, 1, "one system message received, counted once (%llu)", (unsigned long long)(recvd1 - recvd0));
}

Test(dispatch, negative_user_tags_are_rejected)
{
    md_request_t s = {0};

    cr_assert_eq(md_isend(md, &s, small_buf, SMALL, 0, 0, -1, CTX, 0),
                 MD_ERR_INVALID);
    cr_assert_eq(md_isend(md, &s, small_buf, SMALL, 5, 0, 1, CTX, 0),
                 MD_ERR_INVALID, "rank 5 does not exist");
}

Test(dispatch, truncation_is_reported_with_the_full_size)
{
    md_request_t s = {0}, r = {0};
    static char in[10];

    send_to_self(&s, large_buf, LARGE, 2);
    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), 0, 0, 2, CTX, NULL), MD_OK);
    wait_for(&r);
    cr_assert_eq(r.status.error, MD_ERR_TRUNCATE);
    cr_assert_eq(r.status.size, sizeof(in));
    cr_assert_eq(r.status.msg_size, LARGE);
}

Test(dispatch, sync_send_completes_only_after_the_match)
{
    md_request_t s = {0}, r = {0};
    static char in[LARGE];

    cr_assert_eq(md_isend(md, &s, large_buf, LARGE, 0, 0, 11, CTX,
                          MD_ENV_F_SYNC), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(md);
    cr_assert_not(md_request_is_complete(&s), "no receive posted yet");
    cr_assert_eq(md_irecv(md, &r, in, sizeof(in), 0, 0, 11, CTX, NULL), MD_OK);
    wait_for(&r);
    wait_for(&s);
}

Test(dispatch, communicator_masks_limit_any_source_duplicates)
{
    md_comm_t *comm;
    int32_t members[] = { 0 };

    cr_assert_eq(md_comm_create(md, 1, members, &comm), MD_OK);
    md_comm_free(md, comm);
    cr_assert_eq(md_comm_create(md, 1, (int32_t[]){ 3 }, &comm), MD_ERR_INVALID);
}

/* A message that arrives between the multidevice's probe and its posting
 * of the duplicates (tloopa's probe is blind to what it holds): the first
 * duplicate matches while it is posted, before the second exists (MPICH's
 * anysrc_partner race "a match that completes before the partner is
 * linked").  No second duplicate is posted, the receive has the message's
 * status, the AnyQueue empties, and nothing is left on tloopb to swallow
 * its next large message. */
static const char blind_loops[] =
    "multidev-node-config 1\n"
    "node solo\n"
    "device tloopa blind_probe=1\n"
    "device tloopb\n"
    "route solo 0 1023 tloopa -\n"
    "route solo 1024 inf tloopb -\n";

Test(dispatch_race, a_duplicate_that_matches_as_it_is_posted_stops_the_others, .timeout = 20)
{
    md_t *m;
    md_request_t s = { 0 }, r = { 0 }, s2 = { 0 }, r2 = { 0 };
    md_anyq_counters_t c;
    static char in[LARGE], out[LARGE];

    cr_assert_eq(solo_init(blind_loops, &m), MD_OK);
    memset(out, 'x', sizeof(out));
    cr_assert_eq(md_isend(m, &s, out, SMALL, 0, 0, 4, CTX, 0), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(m);                     /* it is in tloopa's queue now */
    cr_assert_eq(md_irecv(m, &r, in, sizeof(in), -1, MD_ANY_SOURCE, 4, CTX, NULL), MD_OK);
    md_get_anyq_counters(m, &c);
    cr_assert_eq(c.receives, 1, "the probe saw nothing: the receive was duplicated");
    cr_assert_eq(c.duplicates, 1, "no duplicate was posted after the first matched");
    cr_assert(md_request_is_complete(&r));
    cr_assert_eq(r.status.size, SMALL);
    cr_assert_eq(r.status.subdev, 0);
    cr_assert_eq(in[0], 'x');
    for (int i = 0; i < 10; i++)
        md_progress(m);
    md_get_anyq_counters(m, &c);
    cr_assert_eq(c.in_queue, 0, "the AnyQueue empties");

    memset(in, 0, sizeof(in));
    cr_assert_eq(md_isend(m, &s2, out, LARGE, 0, 0, 4, CTX, 0), MD_OK);
    for (int i = 0; i < 10; i++)
        md_progress(m);
    cr_assert_eq(in[0], 0, "a duplicate left on tloopb received data");
    cr_assert_eq(md_irecv(m, &r2, in, sizeof(in), 0, 0, 4, CTX, NULL), MD_OK);
    for (int i = 0; i < 100 && !md_request_is_complete(&r2); i++)
        md_progress(m);
    cr_assert(md_request_is_complete(&r2));
    cr_assert_eq(r2.status.size, LARGE);
    cr_assert_eq(md_finalize(m), MD_OK);
}
