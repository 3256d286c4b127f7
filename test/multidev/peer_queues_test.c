/*
 * peer_queues_test.c - the per-peer work lists that network subdevices
 * keep with libmultidev's help: md_peerset (the peers with work of one
 * kind, each once) and md_opq (one peer's operations waiting to be sent).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_opq.h"
#include "md_peerset.h"

/* --- md_peerset --- */

typedef struct sweep_log {
    int     visits[8];        /* work() calls per peer */
    int     keep[8];          /* how many more sweeps a peer stays */
    int32_t order[16];
    int     n;
    md_peerset_t *set;
    int32_t join_during;      /* a peer that joins when peer 0 is visited, -1: none */
} sweep_log_t;

static int sweep_work(void *arg, int32_t q, int *events)
{
    sweep_log_t *l = arg;

    l->visits[q]++;
    l->order[l->n++] = q;
    (*events) += 10 + q;
    if (q == 0 && l->join_during >= 0) {
        md_peerset_add(l->set, l->join_during);
        l->join_during = -1;
    }
    return l->keep[q]-- > 0;
}

Test(peerset, a_peer_joins_once_and_leaves_when_its_work_is_done)
{
    md_peerset_t s;
    sweep_log_t l = { .set = &s, .join_during = -1 };

    cr_assert_eq(md_peerset_init(&s, 8), MD_OK);
    md_peerset_add(&s, 5);
    md_peerset_add(&s, 2);
    md_peerset_add(&s, 5);
    cr_assert_eq(s.n, 2, "a member added twice is there once");
    l.keep[5] = 1;          /* 5 has work for two sweeps, 2 for one */
    cr_assert_eq(md_peerset_sweep(&s, sweep_work, &l), 15 + 12);
    cr_assert_eq(l.n, 2);
    cr_assert_eq(l.order[0], 5, "members are visited in the order they joined");
    cr_assert_eq(l.order[1], 2);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.peer[0], 5);
    md_peerset_add(&s, 2);  /* 2 left, so it may join again */
    cr_assert_eq(s.n, 2);
    md_peerset_sweep(&s, sweep_work, &l);
    cr_assert_eq(l.visits[5], 2);
    cr_assert_eq(l.visits[2], 2);
    cr_assert_eq(s.n, 0);
    md_peerset_fini(&s);
}

Test(peerset, a_peer_that_joins_during_a_sweep_is_visited_in_it)
{
    md_peerset_t s;
    sweep_log_t l = { .set = &s, .join_during = 7 };

    cr_assert_eq(md_peerset_init(&s, 8), MD_OK);
    md_peerset_add(&s, 0);
    md_peerset_add(&s, 3);
    l.keep[3] = 1;
    md_peerset_sweep(&s, sweep_work, &l);
    cr_assert_eq(l.n, 3);
    cr_assert_eq(l.order[2], 7, "the newcomer comes after the members of the sweep");
    cr_assert_eq(s.n, 1, "only 3 keeps work");
    cr_assert_eq(s.peer[0], 3);
    cr_assert_eq(s.in[0] + s.in[7], 0, "those that left are no members");
    md_peerset_clear(&s);
    cr_assert_eq(s.n, 0);
    cr_assert_eq(s.in[3], 0);
    md_peerset_fini(&s);
}

/* --- md_opq --- */

typedef struct emit_log {
    uint32_t kinds[8];
    int      n;
    int      budget;          /* operations that may leave; then answer `then` */
    int      then;
    int32_t  peer;
} emit_log_t;

static int emit(void *arg, int32_t peer, md_op_t *op)
{
    emit_log_t *l = arg;

    l->peer = peer;
    if (l->budget == 0)
        return l->then;
    l->budget--;
    l->kinds[l->n++] = op->kind;
    return 1;
}

static void push_kinds(md_opq_t *q, int n, md_request_t *req)
{
    for (int i = 0; i < n; i++) {
        md_op_t *op = md_op_new(100 + (uint32_t)i, i % 2 ? req : NULL);
        cr_assert_not_null(op);
        cr_assert_eq(op->args[0] + op->args[4], 0, "a new operation is zeroed");
        md_opq_push(q, op);
    }
}

Test(opq, operations_leave_in_order_until_one_must_wait)
{
    md_opq_t q = { 0 };
    emit_log_t l = { .budget = 2, .then = 0 };
    int events = 0;

    cr_assert(md_opq_empty(&q));
    push_kinds(&q, 4, NULL);
    cr_assert_eq(md_opq_drain(&q, emit, &l, 9, &events), 0, "the third must wait");
    cr_assert_eq(events, 2);
    cr_assert_eq(l.peer, 9);
    cr_assert_eq(l.kinds[0], 100);
    cr_assert_eq(l.kinds[1], 101);
    cr_assert_eq(q.head->kind, 102, "the one that waits stays first");
    l.budget = 10;
    cr_assert_eq(md_opq_drain(&q, emit, &l, 9, &events), 1, "the queue emptied");
    cr_assert_eq(events, 4);
    cr_assert_eq(l.kinds[3], 103);
    cr_assert(md_opq_empty(&q));
    cr_assert_null(q.tail);
    push_kinds(&q, 1, NULL);     /* usable again after it emptied */
    cr_assert_eq(q.head, q.tail);
    md_opq_flush(&q, NULL, NULL);
}

Test(opq, an_error_stops_the_drain_and_is_returned)
{
    md_opq_t q = { 0 };
    emit_log_t l = { .budget = 1, .then = MD_ERR_IO };
    int events = 0;

    push_kinds(&q, 3, NULL);
    cr_assert_eq(md_opq_drain(&q, emit, &l, 1, &events), MD_ERR_IO);
    cr_assert_eq(events, 1);
    cr_assert_eq(q.head->kind, 101, "the failed operation is not freed by the drain");
    md_opq_flush(&q, NULL, NULL);
    cr_assert(md_opq_empty(&q));
}

typedef struct fail_log {
    int           calls;
    md_request_t *last;
} fail_log_t;

static void count_failed(void *arg, md_request_t *req)
{
    fail_log_t *f = arg;
    f->calls++;
    f->last = req;
}

Test(opq, a_flush_fails_the_requests_the_operations_carry)
{
    md_opq_t q = { 0 };
    md_request_t req = { 0 };
    fail_log_t f = { 0 };

    push_kinds(&q, 5, &req);     /* operations 1 and 3 carry req */
    md_opq_flush(&q, count_failed, &f);
    cr_assert_eq(f.calls, 2, "only the operations with a request fail one");
    cr_assert_eq(f.last, &req);
    cr_assert(md_opq_empty(&q));
    cr_assert_null(q.tail);
}
