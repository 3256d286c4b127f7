/*
 * recv_test.c - md_recv, the receive and arrival skeleton: a receive takes
 * a matching unexpected message, is dropped when another subdevice won its
 * claim, fails when its sender is gone, or is posted; an arrival is a
 * system message, held back, or matched (the host hears of it) or kept
 * unexpected; an arrival's copy carries its envelope and data.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "md_recv.h"

/* The host: counts what it is told. */
static int      narrived, nsysmsg;
static uint64_t allowed;        /* arrival_ok lets seq <= allowed in */

static int fake_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    (void)sd;
    return env->seq <= allowed;
}

static void fake_arrived(md_subdev_t *sd, const md_envelope_t *env)
{
    (void)sd;
    (void)env;
    narrived++;
}

static void fake_sysmsg(md_subdev_t *sd, const md_envelope_t *env, const void *payload)
{
    (void)sd;
    (void)env;
    (void)payload;
    nsysmsg++;
}

static md_sdi_host_t host = { .arrival_ok = fake_arrival_ok, .arrived = fake_arrived,
                              .sysmsg = fake_sysmsg };
static md_subdev_t sd = { .host = &host, .index = 1 };

/* A subdevice's own message, as a subdevice lays one out. */
typedef struct test_msg {
    md_mq_msg_t    mq;
    md_held_link_t held;
    int32_t        src;
    uint32_t       len;
    uint8_t        data[];
} test_msg_t;

static md_envelope_t env_of(int32_t src, int32_t tag, uint64_t seq)
{
    return (md_envelope_t){ .src_rank = src, .src_world = src, .tag = tag, .seq = seq };
}

static void recv_init(md_request_t *req, int32_t src, int32_t tag)
{
    memset(req, 0, sizeof(*req));
    req->kind = MD_REQ_RECV;
    req->match = (md_match_t){ .src_rank = src, .tag = tag };
    req->peer_world = src;
}

static test_msg_t *msg_new(const md_envelope_t *env, const void *data, uint32_t len)
{
    const test_msg_t head = { .mq.env = *env, .src = env->src_world, .len = len };
    test_msg_t *m = md_recv_msg_new(&head, sizeof(head), offsetof(test_msg_t, data), data, len);

    cr_assert_not_null(m);
    return m;
}

static void reset(void)
{
    narrived = nsysmsg = 0;
    allowed = 0;
    sd.counters.unexpected = 0;
    sd.counters.sysmsgs_recvd = 0;
}

TestSuite(recv, .init = reset);

Test(recv, a_receive_takes_a_matching_unexpected_message_else_it_is_posted)
{
    md_mq_t q;
    md_request_t req, other;
    md_mq_msg_t *got;
    md_envelope_t env = env_of(2, 7, 1);
    test_msg_t *m = msg_new(&env, "hi", 2);

    md_mq_init(&q);
    md_arrival_keep_unexpected(&q, &sd, &m->mq);
    cr_assert_eq(sd.counters.unexpected, 1, "kept unexpected is counted");
    recv_init(&req, 2, 7);
    cr_assert_eq(md_recv_start(&q, &req, sd.index, 0, &got), MD_RECV_FROM_UNEXPECTED);
    cr_assert_eq(got, &m->mq);
    recv_init(&other, 2, 7);
    cr_assert_eq(md_recv_start(&q, &other, sd.index, 0, &got), MD_RECV_POSTED);
    cr_assert_null(got);
    cr_assert_eq(md_arrival_match(&q, &sd, &env), &other, "an arrival finds the posted one");
    cr_assert_eq(narrived, 1, "and the host hears of it");
    free(m);
}

Test(recv, a_receive_whose_sender_is_gone_fails_unless_a_message_is_left)
{
    md_mq_t q;
    md_request_t req;
    md_mq_msg_t *got;
    md_envelope_t env = env_of(3, 1, 1);
    test_msg_t *m = msg_new(&env, NULL, 0);

    md_mq_init(&q);
    md_arrival_keep_unexpected(&q, &sd, &m->mq);
    recv_init(&req, 3, 1);
    cr_assert_eq(md_recv_start(&q, &req, sd.index, MD_ERR_PEER_FAILED, &got),
                 MD_RECV_FROM_UNEXPECTED, "what the sender sent before it went is still received");
    recv_init(&req, 3, 1);
    req.status.size = 5;
    cr_assert_eq(md_recv_start(&q, &req, sd.index, MD_ERR_PEER_FAILED, &got),
                 MD_RECV_SENDER_GONE);
    cr_assert_eq(md_mq_cancel_posted(&q, &req), MD_ERR_NOT_FOUND, "it is not posted");
    cr_assert_eq(req.status.error, MD_ERR_PEER_FAILED, "it failed with the sender's error");
    cr_assert_eq(req.status.size, 0);
    free(m);
}

Test(recv, a_receive_another_subdevice_claimed_is_dropped)
{
    md_mq_t q;
    md_request_t req;
    md_claim_t claim = { .owner = 0 };   /* subdevice 0 has it */
    md_mq_msg_t *got;
    md_envelope_t env = env_of(4, 2, 1);
    test_msg_t *m = msg_new(&env, NULL, 0);

    md_mq_init(&q);
    recv_init(&req, 4, 2);
    req.claim = &claim;
    cr_assert_eq(md_recv_start(&q, &req, sd.index, MD_ERR_PEER_FAILED, &got), MD_RECV_DROPPED,
                 "a gone sender does not fail a receive another subdevice owns");
    md_arrival_keep_unexpected(&q, &sd, &m->mq);
    recv_init(&req, 4, 2);
    req.claim = &claim;
    cr_assert_eq(md_recv_start(&q, &req, sd.index, 0, &got), MD_RECV_DROPPED);
    cr_assert(md_mq_dropped(&req));
    cr_assert_eq(md_mq_take_unexpected(&q, &(md_request_t){ .match = req.match },
                                       sd.index), &m->mq, "the message stays");
    free(m);
}

Test(recv, the_sender_of_a_receive_is_a_world_rank_in_range_never_any_source)
{
    md_request_t req;

    recv_init(&req, 5, 0);
    cr_assert_eq(md_recv_sender(&req, 8), 5);
    cr_assert_eq(md_recv_sender(&req, 5), -1);
    recv_init(&req, MD_ANY_SOURCE, 0);
    req.peer_world = 2;
    cr_assert_eq(md_recv_sender(&req, 8), -1);
}

Test(recv, an_arrival_is_a_sysmsg_or_held_back_or_matched_now)
{
    md_held_t h = { 0 };
    md_envelope_t sys = env_of(1, -3, 0), first = env_of(1, 0, 1), second = env_of(1, 0, 2);
    test_msg_t *m = msg_new(&second, NULL, 0);

    allowed = 1;
    cr_assert_eq(md_arrival_route(&h, &sd, &sys), MD_ARRIVAL_SYSMSG);
    md_arrival_sysmsg(&sd, &sys, "x");
    cr_assert_eq(nsysmsg, 1);
    cr_assert_eq(sd.counters.sysmsgs_recvd, 1);
    cr_assert_eq(md_arrival_route(&h, &sd, &first), MD_ARRIVAL_MATCH);
    cr_assert_eq(md_arrival_route(&h, &sd, &second), MD_ARRIVAL_HOLD);
    md_held_push(&h, &m->held, m, &m->mq.env);
    cr_assert_eq(md_arrival_route(&h, &sd, &first), MD_ARRIVAL_HOLD,
                 "nothing overtakes a held arrival");
    md_held_drop(&h);   /* frees m */
}

Test(recv, an_arrival_copy_carries_its_envelope_and_data_and_a_zeroed_header)
{
    md_envelope_t env = env_of(6, 9, 4);
    test_msg_t *m = msg_new(&env, "payload", 7);

    cr_assert_eq(m->mq.env.src_world, 6);
    cr_assert_eq(m->mq.env.seq, 4);
        cr_assert_eq(m->src, 6);
    cr_assert_eq(m->len, 7);
    cr_assert_eq(memcmp(m->data, "payload", 7), 0);
    free(m);
}
