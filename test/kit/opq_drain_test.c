/*
 * opq_drain_test.c - md_opq_drain_or_lose: a peer's queue drains as far as
 * emit lets it; an error loses the peer once, logged as the subdevices log
 * it, and the answer says whether operations still wait.  md_opq_post
 * (_ctl) queues an operation and marks its peer busy.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "md_log.h"
#include "md_opq.h"
#include "log_capture.h"

static int     emit_rc[4];           /* what emit answers for kind 0..3 */
static int32_t lost_peer = -1;
static int     lost_status, nlost;

static int emit(void *arg, int32_t peer, md_op_t *op)
{
    (void)arg, (void)peer;
    return emit_rc[op->kind];
}

static void lose(void *arg, int32_t peer, int status)
{
    cr_assert_eq(arg, emit_rc);
    lost_peer = peer;
    lost_status = status;
    nlost++;
}

static void push(md_opq_t *q, uint32_t kind)
{
    md_op_t *op = md_op_new(kind, NULL);

    cr_assert_not_null(op);
    md_opq_push(q, op);
}

Test(opq_drain, drains_until_an_operation_must_wait)
{
    md_sdi_host_t host = { .log = capture_log };
    md_subdev_t sd = { .host = &host };
    md_opq_t q = { 0 };
    int events = 0;

    emit_rc[0] = 1;
    emit_rc[1] = 0;
    push(&q, 0);
    push(&q, 1);
    cr_assert_eq(md_opq_drain_or_lose(&q, &sd, emit, lose, emit_rc, 3, &events), 1,
                 "the second waits");
    cr_assert_eq(events, 1);
    cr_assert_eq(nlost, 0);
    emit_rc[1] = 1;
    cr_assert_eq(md_opq_drain_or_lose(&q, &sd, emit, lose, emit_rc, 3, &events), 0);
    cr_assert_eq(events, 2);
    cr_assert_eq(captured_log[0], '\0', "nothing logged");
}

Test(opq_drain, an_error_loses_the_peer_and_says_so)
{
    md_sdi_host_t host = { .log = capture_log };
    md_subdev_t sd = { .host = &host };
    md_opq_t q = { 0 };
    int events = 0;

    emit_rc[2] = MD_ERR_IO;
    push(&q, 2);
    cr_assert_eq(md_opq_drain_or_lose(&q, &sd, emit, lose, emit_rc, 5, &events), 1,
                 "the failed operation stays for lose to flush");
    cr_assert_eq(nlost, 1);
    cr_assert_eq(lost_peer, 5);
    cr_assert_eq(lost_status, MD_ERR_IO);
    cr_assert_eq(events, 0);
    char want[128];
    snprintf(want, sizeof(want), "sending to rank 5 failed: %s", md_status_string(MD_ERR_IO));
    cr_assert_str_eq(captured_log, want);
    cr_assert_eq(captured_level, MD_LOG_ERROR);
    md_opq_flush(&q, NULL, NULL);
}

/* --- md_opq_post, md_opq_post_ctl: queue, and mark the peer busy --- */

Test(opq_drain, posting_queues_the_operation_and_marks_its_peer_busy)
{
    md_opq_t q = { 0 };
    md_peerset_t busy;
    const uint64_t args[] = { 11, 22, 33 };
    md_request_t req;

    cr_assert_eq(md_peerset_init(&busy, 8), MD_OK);
    md_opq_post(&q, &busy, 6, md_op_new(0, &req));
    cr_assert_eq(md_opq_post_ctl(&q, &busy, 6, 3, args, 3), MD_OK);
    cr_assert_eq(busy.n, 1, "each peer once");
    cr_assert_eq(busy.peer[0], 6);
    cr_assert_eq(q.head->req, &req);
    cr_assert_eq(q.tail->kind, 3u);
    cr_assert_null(q.tail->req, "a control message carries no request");
    cr_assert_eq(q.tail->args[0], 11u);
    cr_assert_eq(q.tail->args[2], 33u);
    cr_assert_eq(q.tail->args[3], 0u, "arguments not given are 0");
    md_opq_flush(&q, NULL, NULL);
    md_peerset_fini(&busy);
}
