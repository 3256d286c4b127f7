/*
 * peerfail_test.c - md_peerfail: what waits on a lost peer fails with the
 * loss's status, whether it holds a cookie or sits in an op queue; what
 * waits on another peer does not; a dead NIC (peer -1) fails everything
 * and loses every peer it carried, telling the host once per peer.
 * md_peerfail_posted/_waiting: the receives posted for the lost peer fail,
 * but only once what it sent before is no longer held back.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "md_cookie.h"
#include "md_opq.h"
#include "md_peerfail.h"

typedef struct fail_log {
    md_request_t *failed[8];
    int           status[8];
    int           n;
} fail_log_t;

static void log_fail(void *arg, md_request_t *req, int status)
{
    fail_log_t *l = arg;
    l->failed[l->n] = req;
    l->status[l->n++] = status;
}

static md_request_t req_to(int32_t peer, uint8_t kind)
{
    md_request_t r;

    memset(&r, 0, sizeof(r));
    r.peer_world = peer;
    r.kind = kind;
    return r;
}

Test(peerfail, the_requests_of_the_lost_peer_fail_and_no_other)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = 2, .status = MD_ERR_PEER_FAILED, .fail = log_fail, .arg = &l };
    md_cookies_t cookies;
    md_opq_t ops = { 0 };
    md_request_t rts = req_to(2, MD_REQ_SEND), other = req_to(3, MD_REQ_SEND);
    md_request_t queued = req_to(2, MD_REQ_SEND);

    md_cookies_init(&cookies);
    cr_assert_neq(md_cookie_new(&cookies, &rts), 0u);
    cr_assert_neq(md_cookie_new(&cookies, &other), 0u);
    md_opq_push(&ops, md_op_new(1, &queued));
    md_opq_push(&ops, md_op_new(2, NULL));     /* a control message: no request */
    md_cookie_foreach(&cookies, md_peerfail_req, &f);
    md_opq_flush(&ops, md_peerfail_req, &f);
    cr_assert_eq(l.n, 2);
    cr_assert_eq(l.failed[0], &rts);
    cr_assert_eq(l.failed[1], &queued);
    cr_assert_eq(l.status[0], MD_ERR_PEER_FAILED);
    cr_assert_eq(l.status[1], MD_ERR_PEER_FAILED);
    md_cookies_fini(&cookies);
}

/* A subdevice whose receives name their sender elsewhere than peer_world. */
static int32_t sender_in_tag(md_request_t *req)
{
    return req->kind == MD_REQ_SEND ? req->peer_world : req->env.tag;
}

Test(peerfail, the_subdevice_says_whom_a_request_waits_on)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = 4, .status = MD_ERR_NOT_FOUND, .peer_of = sender_in_tag,
                        .fail = log_fail, .arg = &l };
    md_request_t recv = req_to(-1, MD_REQ_RECV), send = req_to(4, MD_REQ_SEND);

    recv.env.tag = 4;
    md_peerfail_req(&f, &recv);
    md_peerfail_req(&f, &send);
    recv.env.tag = 5;
    md_peerfail_req(&f, &recv);
    cr_assert_eq(l.n, 2);
    cr_assert_eq(l.failed[0], &recv);
    cr_assert_eq(l.status[0], MD_ERR_NOT_FOUND);
    cr_assert_eq(l.failed[1], &send);
}

Test(peerfail, a_dead_nic_fails_everything)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = -1, .status = MD_ERR_IO, .fail = log_fail, .arg = &l };
    md_request_t a = req_to(0, MD_REQ_SEND), b = req_to(7, MD_REQ_SEND);
    md_request_t c = req_to(-1, MD_REQ_RECV);

    md_peerfail_req(&f, &a);
    md_peerfail_req(&f, &b);
    md_peerfail_req(&f, &c);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.status[2], MD_ERR_IO);
}

/* --- md_peerfail_served: a dead NIC loses every peer it carried --- */

static int     lost_status[5];
static int32_t told[5];
static int     ntold;

static int *status_word(void *arg, int32_t q)
{
    cr_assert_eq(arg, lost_status);
    return &((int *)arg)[q];
}

static void note_peer_failed(md_subdev_t *sd, int32_t q, int status)
{
    (void)sd;
    cr_assert_eq(status, MD_ERR_IO);
    told[ntold++] = q;
}

Test(peerfail, a_dead_nic_loses_every_served_peer_once)
{
    md_sdi_host_t host = { .peer_failed = note_peer_failed };
    md_subdev_t sd = { .host = &host };
    static const uint8_t serves[5] = { 0, 1, 1, 0, 1 };

    lost_status[2] = MD_ERR_PEER_FAILED;       /* lost before: the host knows */
    md_peerfail_served(&sd, serves, 5, status_word, lost_status, MD_ERR_IO);
    cr_assert_eq(ntold, 2);
    cr_assert_eq(told[0], 1);
    cr_assert_eq(told[1], 4);
    cr_assert_eq(lost_status[1], MD_ERR_IO);
    cr_assert_eq(lost_status[2], MD_ERR_PEER_FAILED, "an earlier loss keeps its status");
    cr_assert_eq(lost_status[3], 0, "a peer another subdevice carries is not touched");
    md_peerfail_served(&sd, serves, 5, status_word, lost_status, MD_ERR_IO);
    cr_assert_eq(ntold, 2, "the host hears of each peer once");
}

/* --- md_peerfail_posted and md_peerfail_waiting --- */

/* A receive posted for src (MD_ANY_SOURCE: from anyone). */
static md_request_t recv_from(int32_t src)
{
    md_request_t r = req_to(src, MD_REQ_RECV);

    r.match.src_rank = src;
    return r;
}

Test(peerfail, the_receives_posted_for_the_lost_peer_fail_and_no_other)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = 3, .status = MD_ERR_PEER_FAILED, .fail = log_fail, .arg = &l };
    md_mq_t mq;
    md_request_t a = recv_from(3), any = recv_from(MD_ANY_SOURCE), b = recv_from(4);

    md_mq_init(&mq);
    md_mq_post(&mq, &a);
    md_mq_post(&mq, &any);
    md_mq_post(&mq, &b);
    md_peerfail_posted(&mq, 0, &f);
    cr_assert_eq(l.n, 1, "an MD_ANY_SOURCE receive may still match another peer");
    cr_assert_eq(l.failed[0], &a);
    cr_assert_eq(l.status[0], MD_ERR_PEER_FAILED);
    f.peer = -1;
    md_peerfail_posted(&mq, 0, &f);
    cr_assert_eq(l.n, 3, "with every peer lost, every receive fails");
    cr_assert_eq(l.failed[1], &any, "in posting order");
    cr_assert_eq(l.failed[2], &b);
}

typedef struct held_msg {
    md_held_link_t link;
    md_envelope_t  env;
} held_msg_t;

static held_msg_t *held_msg_new(int32_t src)
{
    held_msg_t *m = calloc(1, sizeof(*m));

    cr_assert_not_null(m);
    m->env.src_world = src;
    return m;
}

/* What md_peerfail_waiting looks at: a subdevice's cookies, held-back
 * arrivals (4 peers) and matching queue. */
typedef struct kit_state {
    md_cookies_t  cookies;
    md_held_set_t held;
    md_mq_t       mq;
} kit_state_t;

static void kit_state_init(kit_state_t *k)
{
    md_cookies_init(&k->cookies);
    md_mq_init(&k->mq);
    cr_assert_eq(md_held_set_init(&k->held, 4), MD_OK);
}

static void kit_state_fini(kit_state_t *k)
{
    md_held_set_fini(&k->held);
    md_cookies_fini(&k->cookies);
}

Test(peerfail, a_lost_peers_receives_wait_until_its_held_arrivals_drained)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = 2, .status = MD_ERR_NOT_FOUND, .fail = log_fail, .arg = &l };
    kit_state_t k;
    md_request_t posted = recv_from(2), rts = req_to(2, MD_REQ_SEND);
    held_msg_t *m = held_msg_new(2);

    kit_state_init(&k);
    cr_assert_neq(md_cookie_new(&k.cookies, &rts), 0u);
    md_mq_post(&k.mq, &posted);
    md_held_set_hold(&k.held, 2, &m->link, m, &m->env);

    md_peerfail_waiting(&f, &k.cookies, &k.held, &k.mq, 0);
    cr_assert_eq(l.n, 1, "the posted receive waits: rank 2 sent something before");
    cr_assert_eq(l.failed[0], &rts);
    cr_assert_not(md_held_empty(&k.held.peer[2]), "what it sent is kept to be received");

    f.peer = -1;                    /* then the NIC dies: nothing waits any more */
    f.status = MD_ERR_IO;
    md_peerfail_waiting(&f, &k.cookies, &k.held, &k.mq, 0);
    cr_assert(md_held_empty(&k.held.peer[2]), "held arrivals are dropped");
    cr_assert_eq(l.n, 3, "the cookie's request is failed again (the subdevice ignores it) "
                 "and the receive fails");
    cr_assert_eq(l.failed[2], &posted);
    cr_assert_eq(l.status[2], MD_ERR_IO);
    kit_state_fini(&k);
}

Test(peerfail, with_nothing_held_the_posted_receives_fail_at_once)
{
    fail_log_t l = { .n = 0 };
    md_peerfail_t f = { .peer = 1, .status = MD_ERR_PEER_FAILED, .fail = log_fail, .arg = &l };
    kit_state_t k;
    md_request_t posted = recv_from(1);

    kit_state_init(&k);
    md_mq_post(&k.mq, &posted);
    md_peerfail_waiting(&f, &k.cookies, &k.held, &k.mq, 0);
    cr_assert_eq(l.n, 1);
    cr_assert_eq(l.failed[0], &posted);
    kit_state_fini(&k);
}
