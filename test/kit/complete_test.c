/*
 * complete_test.c - md_complete_flush: the finished requests on a done
 * list reach the host oldest first; a subdevice's own system-message
 * receive goes to host->sysmsg (or, lost, to the log as from the rank the
 * subdevice names) and is freed.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_complete.h"
#include "log_capture.h"

static md_request_t *completed[4];
static int           ncompleted, nsysmsgs;


static void note_complete(md_subdev_t *sd, md_request_t *req)
{
    (void)sd;
    completed[ncompleted++] = req;
}

static void note_sysmsg(md_subdev_t *sd, const md_envelope_t *env, const void *payload)
{
    (void)sd, (void)env, (void)payload;
    nsysmsgs++;
}

/* The test's subdevice marks its system-message receives with tag < 0 and
 * keeps their sender in status.src_world. */
static int sysmsg_in_tag(md_request_t *req, int32_t *src)
{
    if (req->env.tag >= 0)
        return 0;
    *src = req->status.src_world;
    return 1;
}

Test(complete, a_flush_hands_the_done_list_to_the_host_in_order)
{
    md_sdi_host_t host = { .complete = note_complete, .sysmsg = note_sysmsg, .log = capture_log };
    md_subdev_t sd = { .host = &host };
    md_request_t a, b;
    md_envelope_t env = { .tag = -3, .size = 8 };
    md_request_t *ok = md_sysmsg_recv_new(&env, 5), *lost = md_sysmsg_recv_new(&env, 6);

    cr_assert_not_null(ok);
    cr_assert_not_null(lost);
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.kind = b.kind = MD_REQ_RECV;
    ok->status.src_world = 5;
    lost->status.src_world = 7;     /* the subdevice names another sender */
    lost->status.error = MD_ERR_PEER_FAILED;
    md_reqlist_t done;

    md_reqlist_init(&done);
    md_reqlist_append(&done, &a);
    md_reqlist_append(&done, ok);
    md_reqlist_append(&done, lost);
    md_reqlist_append(&done, &b);
    md_complete_flush(&sd, &done, sysmsg_in_tag);
    cr_assert_eq(ncompleted, 2);
    cr_assert_eq(completed[0], &a);
    cr_assert_eq(completed[1], &b);
    cr_assert_eq(nsysmsgs, 1);
    cr_assert_eq(sd.counters.sysmsgs_recvd, 1u);
    cr_assert_eq(sd.counters.msgs_recvd, 2u);
    cr_assert(strstr(captured_log, "from rank 7") != NULL, "logged: %s", captured_log);
    cr_assert_null(done.head);
}
