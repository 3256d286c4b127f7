/*
 * opq_drain_test.c - md_opq_drain_or_lose: a peer's queue drains as far as
 * emit lets it; an error loses the peer once, logged as the subdevices log
 * it, and the answer says whether operations still wait.
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
