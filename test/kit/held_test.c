/*
 * held_test.c - md_held, arrivals held back by the ordering across
 * subdevices: a sender's messages wait in arrival order behind the first
 * that host->arrival_ok() refuses, go on in order once it allows them, and
 * a peer set retries only the peers that hold some.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "md_held.h"

/* The host: lets a message go once its seq is at most `allowed`. */
static uint64_t allowed;
static int      asked;

static int fake_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    (void)sd;
    asked++;
    return env->seq <= allowed;
}

static md_sdi_host_t host = { .arrival_ok = fake_arrival_ok };
static md_subdev_t sd = { .host = &host };

typedef struct test_msg {
    md_held_link_t link;
    md_envelope_t  env;
    int32_t        src;
} test_msg_t;

static test_msg_t *msg_new(int32_t src, uint64_t seq)
{
    test_msg_t *m = calloc(1, sizeof(*m));

    cr_assert_not_null(m);
    m->src = src;
    m->env.src_world = src;
    m->env.seq = seq;
    return m;
}

/* What accept saw, in order; it frees what it takes over. */
static uint64_t taken[16];
static int      ntaken;

static void take(void *arg, void *msg)
{
    test_msg_t *m = msg;

    cr_assert_eq(arg, &sd, "accept gets its argument back");
    taken[ntaken++] = (uint64_t)m->src * 100 + m->env.seq;
    free(m);
}

static int32_t drained[16];
static int     ndrained;

static void note_drained(void *arg, int32_t q)
{
    (void)arg;
    drained[ndrained++] = q;
}

static void reset(void)
{
    allowed = 0;
    asked = ntaken = ndrained = 0;
}

TestSuite(held, .init = reset);

Test(held, an_arrival_waits_when_the_host_says_so_or_an_earlier_one_waits)
{
    md_held_t h = { 0 };
    test_msg_t *m = msg_new(1, 2);

    allowed = 1;
    cr_assert_eq(md_held_must_wait(&h, &sd, &(md_envelope_t){ .seq = 1 }), 0);
    cr_assert_eq(md_held_must_wait(&h, &sd, &m->env), 1, "seq 2 is not allowed yet");
    md_held_push(&h, &m->link, m, &m->env);
    asked = 0;
    cr_assert_eq(md_held_must_wait(&h, &sd, &(md_envelope_t){ .seq = 1 }), 1,
                 "nothing overtakes a held message");
    cr_assert_eq(asked, 0, "the host is not asked while one is held");
    md_held_drop(&h);
    cr_assert(md_held_empty(&h));
}

Test(held, held_messages_go_in_arrival_order_as_far_as_the_host_allows)
{
    md_held_t h = { 0 };

    for (uint64_t s = 1; s <= 3; s++) {
        test_msg_t *m = msg_new(4, s);
        md_held_push(&h, &m->link, m, &m->env);
    }
    cr_assert_eq(md_held_release(&h, &sd, take, &sd), 0);
    allowed = 2;
    cr_assert_eq(md_held_release(&h, &sd, take, &sd), 2);
    cr_assert_eq(ntaken, 2);
    cr_assert_eq(taken[0], 401);
    cr_assert_eq(taken[1], 402);
    cr_assert_not(md_held_empty(&h));
    allowed = 3;
    cr_assert_eq(md_held_release(&h, &sd, take, &sd), 1);
    cr_assert_eq(taken[2], 403);
    cr_assert(md_held_empty(&h));
    /* the queue works again after it emptied */
    test_msg_t *m = msg_new(4, 9);
    md_held_push(&h, &m->link, m, &m->env);
    cr_assert_eq(md_held_release(&h, &sd, take, &sd), 0);
    md_held_drop(&h);
}

Test(held, a_set_retries_the_peers_that_hold_some_and_says_when_one_drained)
{
    md_held_set_t s;
    static const md_held_ops_t ops = { .accept = take, .drained = note_drained };

    cr_assert_eq(md_held_set_init(&s, 8), MD_OK);
    cr_assert_eq(md_held_set_retry(&s, &sd, &ops, &sd), 0);
    cr_assert_eq(ndrained, 0, "no peer held anything");
    test_msg_t *a = msg_new(5, 1), *b = msg_new(2, 1), *c = msg_new(2, 3);
    md_held_set_hold(&s, 5, &a->link, a, &a->env);
    md_held_set_hold(&s, 2, &b->link, b, &b->env);
    md_held_set_hold(&s, 2, &c->link, c, &c->env);
    cr_assert_eq(s.waiting.n, 2, "each peer once");
    allowed = 1;
    cr_assert_eq(md_held_set_retry(&s, &sd, &ops, &sd), 2);
    cr_assert_eq(taken[0], 501, "peers are visited in the order they began to hold");
    cr_assert_eq(taken[1], 201);
    cr_assert_eq(ndrained, 1);
    cr_assert_eq(drained[0], 5, "only peer 5's queue emptied");
    cr_assert_eq(s.waiting.n, 1);
    cr_assert_eq(s.waiting.peer[0], 2);
    md_held_set_fini(&s);     /* frees c, which still waits */
}

Test(held, dropping_all_empties_every_queue_and_the_set)
{
    md_held_set_t s;

    cr_assert_eq(md_held_set_init(&s, 4), MD_OK);
    for (int32_t q = 0; q < 4; q++) {
        test_msg_t *m = msg_new(q, 7);
        md_held_set_hold(&s, q, &m->link, m, &m->env);
    }
    md_held_set_drop_all(&s);
    cr_assert_eq(s.waiting.n, 0);
    for (int32_t q = 0; q < 4; q++)
        cr_assert(md_held_empty(&s.peer[q]));
    md_held_set_fini(&s);
}
