/*
 * mq_test.c - the kit's matching engine (md_mq) and its request list
 * (md_reqlist): MPI's matching order, wildcards, the one rule for a receive
 * whose claim another subdevice won (two queues share one claim, as the
 * duplicates of an ANY_SOURCE receive do), cancel, removal by predicate,
 * the unexpected queue and probes.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_mq.h"
#include "md_reqlist.h"

#define CTX 7u

static void recv_init(md_request_t *req, int32_t src_rank, int32_t peer_world, int32_t tag,
                      md_claim_t *claim)
{
    memset(req, 0, sizeof(*req));
    req->kind = MD_REQ_RECV;
    req->peer_world = peer_world;
    req->match = (md_match_t){ .src_rank = src_rank, .tag = tag, .context_id = CTX };
    req->claim = claim;
}

static md_envelope_t env_of(int32_t src, int32_t tag, uint64_t seq)
{
    return (md_envelope_t){ .src_rank = src, .src_world = src, .dst_world = 0, .tag = tag,
                            .context_id = CTX, .seq = seq, .size = 8 + seq };
}

static void claim_init(md_claim_t *c)
{
    atomic_init(&c->owner, -1);
}

/* --- md_reqlist --- */

Test(reqlist, appends_pops_and_removes_any_member_in_order)
{
    md_request_t r[3];
    md_reqlist_t l;

    memset(r, 0, sizeof(r));
    md_reqlist_init(&l);
    cr_assert(md_reqlist_empty(&l));
    for (int i = 0; i < 3; i++)
        md_reqlist_append(&l, &r[i]);
    md_reqlist_remove(&l, &r[1]);
    cr_assert_eq(md_reqlist_next(&r[0]), &r[2], "the middle one is gone");
    cr_assert_eq(md_reqlist_pop(&l), &r[0]);
    cr_assert_eq(md_reqlist_pop(&l), &r[2]);
    cr_assert_null(md_reqlist_pop(&l));
    cr_assert(md_reqlist_empty(&l));
    md_reqlist_append(&l, &r[1]);
    cr_assert_eq(l.head, &r[1], "a removed request can be linked again");
    cr_assert_eq(l.tail, &r[1]);
}

/* --- order and wildcards --- */

Test(mq, an_arrival_takes_the_earliest_posted_receive_that_accepts_it)
{
    md_mq_t q;
    md_request_t a, b, c, other;
    md_envelope_t e = env_of(1, 5, 0);

    md_mq_init(&q);
    recv_init(&other, 2, 2, 5, NULL);     /* another sender: never */
    recv_init(&a, 1, 1, 5, NULL);
    recv_init(&b, MD_ANY_SOURCE, -1, 5, NULL);
    recv_init(&c, 1, 1, MD_ANY_TAG, NULL);
    md_mq_post(&q, &other);
    md_mq_post(&q, &a);
    md_mq_post(&q, &b);
    md_mq_post(&q, &c);
    cr_assert_eq(md_mq_num_posted(&q), 4);
    cr_assert_eq(md_mq_take_posted(&q, &e, 0), &a);
    cr_assert_eq(md_mq_take_posted(&q, &e, 0), &b, "ANY_SOURCE keeps its posting order");
    cr_assert_eq(md_mq_take_posted(&q, &e, 0), &c);
    cr_assert_null(md_mq_take_posted(&q, &e, 0));
    cr_assert_eq(md_mq_num_posted(&q), 1);
    cr_assert_eq(md_mq_cancel_posted(&q, &a), MD_ERR_NOT_FOUND, "a matched receive completes");
    cr_assert_eq(md_mq_cancel_posted(&q, &other), MD_OK);
    cr_assert_eq(md_mq_num_posted(&q), 0);
    cr_assert_eq(md_mq_cancel_posted(&q, &other), MD_ERR_NOT_FOUND, "cancelled once");
}

Test(mq, wildcards_match_by_rank_tag_and_context_never_a_system_message)
{
    md_mq_t q;
    md_request_t any;
    md_envelope_t sys = env_of(3, -4, 0), other_ctx = env_of(3, 1, 0), user = env_of(3, 1, 1);

    other_ctx.context_id = CTX + 1;
    md_mq_init(&q);
    recv_init(&any, MD_ANY_SOURCE, -1, MD_ANY_TAG, NULL);
    md_mq_post(&q, &any);
    cr_assert_null(md_mq_take_posted(&q, &sys, 0), "ANY_TAG takes no negative tag");
    cr_assert_null(md_mq_take_posted(&q, &other_ctx, 0), "nor another communicator's");
    cr_assert_eq(md_mq_take_posted(&q, &user, 0), &any);
}

/* --- the lost claim --- */

/* An ANY_SOURCE receive posted as a duplicate on two subdevices (queues 0
 * and 1, sharing one claim), then a specific receive on queue 1. */
typedef struct dup_fixture {
    md_mq_t      q0, q1;
    md_claim_t   claim;
    md_request_t dup0, dup1, later;
} dup_fixture_t;

static void dup_setup(dup_fixture_t *f)
{
    md_mq_init(&f->q0);
    md_mq_init(&f->q1);
    claim_init(&f->claim);
    recv_init(&f->dup0, MD_ANY_SOURCE, -1, 5, &f->claim);
    recv_init(&f->dup1, MD_ANY_SOURCE, -1, 5, &f->claim);
    recv_init(&f->later, 4, 4, 5, NULL);
    md_mq_post(&f->q0, &f->dup0);
    md_mq_post(&f->q1, &f->dup1);
    md_mq_post(&f->q1, &f->later);
}

Test(mq_claim, the_loser_is_dropped_and_the_arrival_takes_the_next_receive)
{
    dup_fixture_t f;
    md_envelope_t e0 = env_of(3, 5, 0), e1 = env_of(4, 5, 0);

    dup_setup(&f);
    cr_assert_eq(md_mq_take_posted(&f.q0, &e0, 0), &f.dup0, "subdevice 0 wins the claim");
    cr_assert_eq(md_mq_take_posted(&f.q1, &e1, 1), &f.later,
                 "the arrival on subdevice 1 skips the lost duplicate");
    cr_assert(md_mq_dropped(&f.dup1));
    cr_assert_eq(md_mq_num_posted(&f.q1), 0, "the lost duplicate is unlinked");
    cr_assert_eq(md_mq_cancel_posted(&f.q1, &f.dup1), MD_OK,
                 "the multidevice's cancel of a dropped duplicate succeeds");
    cr_assert_not(md_mq_dropped(&f.dup1));
    cr_assert_eq(md_mq_cancel_posted(&f.q1, &f.dup1), MD_ERR_NOT_FOUND);
}

Test(mq_claim, with_no_other_receive_the_arrival_stays_unexpected)
{
    dup_fixture_t f;
    md_envelope_t e = env_of(3, 5, 0);

    dup_setup(&f);
    cr_assert_eq(md_mq_take_posted(&f.q0, &e, 0), &f.dup0);
    cr_assert_null(md_mq_take_posted(&f.q1, &e, 1), "rank 3 matches no receive left");
    cr_assert(md_mq_dropped(&f.dup1));
    cr_assert_eq(md_mq_num_posted(&f.q1), 1, "the specific receive stays posted");
    cr_assert_eq(md_mq_cancel_posted(&f.q1, &f.dup1), MD_OK);
}

Test(mq_claim, a_claim_won_by_a_cancel_drops_every_duplicate)
{
    dup_fixture_t f;
    md_envelope_t e = env_of(3, 5, 0);

    dup_setup(&f);
    atomic_store(&f.claim.owner, 99);     /* the user's MPI_Cancel won */
    cr_assert_null(md_mq_take_posted(&f.q0, &e, 0));
    cr_assert(md_mq_dropped(&f.dup0));
    cr_assert_eq(md_mq_cancel_posted(&f.q0, &f.dup0), MD_OK);
    cr_assert_eq(md_mq_cancel_posted(&f.q1, &f.dup1), MD_OK, "still posted: unlinked now");
    cr_assert_eq(md_mq_num_posted(&f.q1), 1);
}

Test(mq_claim, a_receive_posted_after_its_claim_was_lost_is_dropped_not_posted)
{
    md_mq_t q;
    md_claim_t claim;
    md_request_t dup;
    md_mq_msg_t m = { .env = env_of(3, 5, 0) };

    md_mq_init(&q);
    claim_init(&claim);
    atomic_store(&claim.owner, 0);        /* subdevice 0 delivered already */
    recv_init(&dup, MD_ANY_SOURCE, -1, 5, &claim);
    md_mq_push_unexpected(&q, &m);
    cr_assert_null(md_mq_take_unexpected(&q, &dup, 1));
    cr_assert(md_mq_dropped(&dup));
    cr_assert_eq(md_mq_num_unexpected(&q), 1, "the message waits for another receive");
    cr_assert_eq(md_mq_num_posted(&q), 0);
    cr_assert_eq(md_mq_cancel_posted(&q, &dup), MD_OK);
}

Test(mq_claim, md_mq_claim_says_won_or_drops)
{
    md_claim_t claim;
    md_request_t a, b, plain;

    claim_init(&claim);
    recv_init(&a, MD_ANY_SOURCE, -1, 1, &claim);
    recv_init(&b, MD_ANY_SOURCE, -1, 1, &claim);
    recv_init(&plain, 1, 1, 1, NULL);
    cr_assert(md_mq_claim(&a, 2));
    cr_assert_not(md_mq_dropped(&a));
    cr_assert_not(md_mq_claim(&b, 3));
    cr_assert(md_mq_dropped(&b));
    cr_assert(md_mq_claim(&plain, 3), "a receive without a claim is always won");
}

/* --- posting against the unexpected queue --- */

Test(mq, a_receive_takes_the_earliest_arrival_it_accepts)
{
    md_mq_t q;
    md_mq_msg_t m1 = { .env = env_of(1, 1, 0) }, m2 = { .env = env_of(2, 1, 1) },
                m3 = { .env = env_of(1, 2, 2) };
    md_request_t r;

    md_mq_init(&q);
    md_mq_push_unexpected(&q, &m1);
    md_mq_push_unexpected(&q, &m2);
    md_mq_push_unexpected(&q, &m3);
    recv_init(&r, 1, 1, 2, NULL);
    cr_assert_eq(md_mq_take_unexpected(&q, &r, 0), &m3);
    cr_assert_not(md_mq_dropped(&r));
    cr_assert_eq(md_mq_cancel_posted(&q, &r), MD_ERR_NOT_FOUND, "taken, not posted");
    recv_init(&r, MD_ANY_SOURCE, -1, 1, NULL);
    cr_assert_eq(md_mq_take_unexpected(&q, &r, 0), &m1);
    recv_init(&r, 5, 5, MD_ANY_TAG, NULL);
    cr_assert_null(md_mq_take_unexpected(&q, &r, 0));
    cr_assert_not(md_mq_dropped(&r), "no match: the caller posts it");
    cr_assert_eq(md_mq_num_unexpected(&q), 1);
    cr_assert_eq(md_mq_find_unexpected(&q, &(md_match_t){ MD_ANY_SOURCE, MD_ANY_TAG, CTX }),
                 &m2);
}

Test(mq, a_probe_reports_the_earliest_match_and_leaves_it_queued)
{
    md_mq_t q;
    md_mq_msg_t m1 = { .env = env_of(1, 1, 3) }, m2 = { .env = env_of(2, 1, 4) };
    md_recv_status_t st;
    int flag = -1;

    md_mq_init(&q);
    m2.env.flags = MD_ENV_F_SYNC;
    md_mq_push_unexpected(&q, &m1);
    md_mq_push_unexpected(&q, &m2);
    cr_assert_eq(md_mq_probe(&q, &(md_match_t){ 2, MD_ANY_TAG, CTX }, 6, &flag, &st), &m2);
    cr_assert_eq(flag, 1);
    cr_assert_eq(st.src_rank, 2);
    cr_assert_eq(st.tag, 1);
    cr_assert_eq(st.size, m2.env.size);
    cr_assert_eq(st.msg_size, m2.env.size);
    cr_assert_eq(st.seq, 4);
    cr_assert_eq(st.flags, MD_ENV_F_SYNC);
    cr_assert_eq(st.subdev, 6);
    cr_assert_eq(st.error, MD_OK);
    cr_assert_eq(md_mq_num_unexpected(&q), 2);
    cr_assert_null(md_mq_probe(&q, &(md_match_t){ 3, MD_ANY_TAG, CTX }, 6, &flag, NULL));
    cr_assert_eq(flag, 0);
    memset(&st, 0, sizeof(st));
    cr_assert_eq(md_mq_improbe(&q, &(md_match_t){ MD_ANY_SOURCE, 1, CTX }, 6, &flag, &st), &m1,
                 "a matched probe takes the earliest");
    cr_assert_eq(flag, 1);
    cr_assert_eq(st.seq, 3);
    cr_assert_eq(md_mq_num_unexpected(&q), 1, "and unlinks it");
    cr_assert_eq(md_mq_find_unexpected(&q, &(md_match_t){ MD_ANY_SOURCE, 1, CTX }), &m2);
}

/* --- removal by predicate --- */

Test(mq_remove, posted_receives_of_one_rank_go_in_order_the_lost_are_dropped)
{
    md_mq_t q;
    md_claim_t lost;
    md_request_t a, b, wild, lost_dup, c;
    md_reqlist_t out;
    int32_t rank = 1;

    md_mq_init(&q);
    claim_init(&lost);
    atomic_store(&lost.owner, 0);
    recv_init(&a, 1, 1, 1, NULL);
    recv_init(&b, 2, 2, 1, NULL);
    recv_init(&wild, MD_ANY_SOURCE, -1, 1, NULL);
    recv_init(&lost_dup, 1, 1, 2, &lost);
    recv_init(&c, 1, 1, 3, NULL);
    md_mq_post(&q, &a);
    md_mq_post(&q, &b);
    md_mq_post(&q, &wild);
    md_mq_post(&q, &lost_dup);
    md_mq_post(&q, &c);
    cr_assert_eq(md_mq_remove_posted_if(&q, 1, md_mq_from_rank, &rank, &out), 2);
    cr_assert_eq(md_reqlist_pop(&out), &a, "in posting order");
    cr_assert_eq(md_reqlist_pop(&out), &c);
    cr_assert(md_reqlist_empty(&out));
    cr_assert(md_mq_dropped(&lost_dup), "its claim went elsewhere: dropped, not handed over");
    cr_assert_eq(md_mq_num_posted(&q), 2, "b and the wildcard stay");
    cr_assert_null(md_mq_find_posted_if(&q, md_mq_from_rank, &rank));
    rank = 2;
    cr_assert_eq(md_mq_find_posted_if(&q, md_mq_from_rank, &rank), &b);
    cr_assert_eq(md_mq_cancel_posted(&q, &wild), MD_OK);
    cr_assert_eq(md_mq_cancel_posted(&q, &lost_dup), MD_OK);
    cr_assert_eq(md_mq_cancel_posted(&q, &a), MD_ERR_NOT_FOUND, "handed over, not posted");
}

Test(mq_remove, a_peer_gone_removes_its_receives_everyone_gone_removes_all)
{
    md_mq_t q;
    md_request_t r[3], wild;
    md_reqlist_t out;

    md_mq_init(&q);
    for (int i = 0; i < 3; i++) {
        recv_init(&r[i], i, i, 0, NULL);
        md_mq_post(&q, &r[i]);
    }
    recv_init(&wild, MD_ANY_SOURCE, -1, 0, NULL);
    md_mq_post(&q, &wild);
    cr_assert_eq(md_mq_remove_posted_from(&q, 0, 1, &out), 1);
    cr_assert_eq(md_reqlist_pop(&out), &r[1]);
    cr_assert_eq(md_mq_remove_posted_from(&q, 0, -1, &out), 3);
    cr_assert_eq(md_reqlist_pop(&out), &r[0]);
    cr_assert_eq(md_reqlist_pop(&out), &r[2]);
    cr_assert_eq(md_reqlist_pop(&out), &wild, "everyone gone: the wildcard too");
    cr_assert_eq(md_mq_num_posted(&q), 0);
    cr_assert_null(md_mq_take_posted(&q, &(md_envelope_t){ .context_id = CTX }, 0));
    md_mq_post(&q, &r[0]);
    cr_assert_eq(md_mq_take_posted(&q, &(md_envelope_t){ .context_id = CTX }, 0), &r[0],
                 "a request handed over can be posted again");
}

typedef struct msg_log {
    md_mq_msg_t *msg[8];
    int          n;
} msg_log_t;

static int from_src_1(void *arg, const md_mq_msg_t *m)
{
    (void)arg;
    return m->env.src_world == 1;
}

static void log_msg(void *arg, md_mq_msg_t *m)
{
    msg_log_t *l = arg;

    cr_assert_null(m->next, "handed over unlinked");
    l->msg[l->n++] = m;
}

Test(mq_remove, unexpected_messages_by_predicate_in_arrival_order)
{
    md_mq_t q;
    md_mq_msg_t m[4] = { { .env = env_of(1, 1, 0) }, { .env = env_of(2, 1, 0) },
                         { .env = env_of(1, 2, 1) }, { .env = env_of(3, 1, 0) } };
    msg_log_t l = { 0 };

    md_mq_init(&q);
    for (int i = 0; i < 4; i++)
        md_mq_push_unexpected(&q, &m[i]);
    cr_assert_eq(md_mq_remove_unexpected_if(&q, from_src_1, NULL, log_msg, &l), 2);
    cr_assert_eq(l.msg[0], &m[0]);
    cr_assert_eq(l.msg[1], &m[2]);
    cr_assert_eq(md_mq_num_unexpected(&q), 2);
    cr_assert_eq(md_mq_find_unexpected(&q, &(md_match_t){ MD_ANY_SOURCE, MD_ANY_TAG, CTX }),
                 &m[1]);
    cr_assert_eq(md_mq_remove_unexpected_if(&q, NULL, NULL, log_msg, &l), 2);
    cr_assert_eq(l.msg[3], &m[3]);
    cr_assert_eq(md_mq_num_unexpected(&q), 0);
    cr_assert_null(md_mq_find_unexpected(&q, &(md_match_t){ MD_ANY_SOURCE, MD_ANY_TAG, CTX }));
}
