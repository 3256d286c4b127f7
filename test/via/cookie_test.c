/* cookie_test.c - md_cookie, the request cookies subdev-via sends to its
 * peers (the receiver's one as 4 bytes of immediate data): live cookies
 * find their request, taken and stale or forged ones find nothing, a
 * reused slot gets a new cookie. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "md_cookie.h"

Test(cookie, live_taken_stale_and_forged)
{
    md_cookies_t t;
    md_request_t r[200];
    uint32_t c[200];

    md_cookies_init(&t);
    for (int i = 0; i < 200; i++) {
        c[i] = md_cookie_new(&t, &r[i]);
        cr_assert_neq(c[i], 0);
    }
    for (int i = 0; i < 200; i++)
        cr_assert_eq(md_cookie_peek(&t, c[i]), &r[i]);
    cr_assert_eq(md_cookie_take(&t, c[7]), &r[7]);
    cr_assert_null(md_cookie_take(&t, c[7]), "taken once");
    uint32_t again = md_cookie_new(&t, &r[7]);
    cr_assert_neq(again, c[7], "a reused slot has a new generation");
    cr_assert_null(md_cookie_peek(&t, c[7]), "the stale cookie finds nothing");
    cr_assert_eq(md_cookie_peek(&t, again), &r[7]);
    cr_assert_null(md_cookie_peek(&t, 0));
    cr_assert_null(md_cookie_peek(&t, 0xfffff));
    cr_assert_null(md_cookie_peek(&t, (uint64_t)c[3] | 1ull << 40), "more than 32 bits");
    md_cookies_fini(&t);
}

static void count(void *arg, md_request_t *req)
{
    (*(int *)arg)++;
    (void)req;
}

Test(cookie, foreach_sees_the_live_ones)
{
    md_cookies_t t;
    md_request_t r[10];
    uint32_t c[10];
    int n = 0;

    md_cookies_init(&t);
    for (int i = 0; i < 10; i++)
        c[i] = md_cookie_new(&t, &r[i]);
    for (int i = 0; i < 10; i += 2)
        md_cookie_take(&t, c[i]);
    md_cookie_foreach(&t, count, &n);
    cr_assert_eq(n, 5);
    md_cookies_fini(&t);
}

Test(cookie, completion_counters)
{
    md_subdev_counters_t c;
    md_request_t s, q, sys;

    memset(&c, 0, sizeof(c));
    memset(&s, 0, sizeof(s));
    memset(&q, 0, sizeof(q));
    memset(&sys, 0, sizeof(sys));
    s.kind = MD_REQ_SEND;
    s.len = 100;
    q.kind = MD_REQ_RECV;
    q.status.size = 40;
    q.status.error = MD_ERR_TRUNCATE;
    sys.kind = MD_REQ_SEND;
    sys.env.tag = -2;
    md_counters_complete(&c, &s);
    md_counters_complete(&c, &q);
    md_counters_complete(&c, &sys);
    s.status.error = MD_ERR_PEER_FAILED;
    md_counters_complete(&c, &s);
    cr_assert_eq(c.msgs_sent, 1);
    cr_assert_eq(c.bytes_sent, 100);
    cr_assert_eq(c.msgs_recvd, 1);
    cr_assert_eq(c.bytes_recvd, 40);
    cr_assert_eq(c.sysmsgs_sent, 1);
}
