/*
 * liveness_test.c - md_liveness: a round of probes goes, at most once per
 * interval, to every peer that a live cookie's request or a posted receive
 * waits on, that the subdevice serves and that is not the rank itself.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "md_liveness.h"

#define WORLD 6
#define ME    0

typedef struct probe_log {
    md_request_t *posted[4];
    int           nposted;
    int32_t       probed[WORLD * 2];
    int           nprobed;
} probe_log_t;

static void log_mark_posted(void *arg, md_liveness_t *l)
{
    probe_log_t *p = arg;
    for (int i = 0; i < p->nposted; i++)
        md_liveness_mark(l, p->posted[i]);
}

static void log_probe(void *arg, int32_t q)
{
    probe_log_t *p = arg;
    p->probed[p->nprobed++] = q;
}

static const md_liveness_ops_t ops = { .mark_posted = log_mark_posted, .probe = log_probe };

static md_request_t req_for(int32_t peer)
{
    md_request_t r;

    memset(&r, 0, sizeof(r));
    r.peer_world = peer;
    return r;
}

Test(liveness, probes_the_awaited_served_peers_other_than_itself_in_rank_order)
{
    /* peer 4 is carried by another subdevice */
    static const uint8_t serves[WORLD] = { 1, 1, 1, 1, 0, 1 };
    md_liveness_t l;
    md_cookies_t cookies;
    probe_log_t p = { .nposted = 0 };
    md_request_t rts = req_for(3), ack = req_for(4), to_me = req_for(ME);
    md_request_t recv_from_1 = req_for(1), any_source = req_for(-1);

    md_cookies_init(&cookies);
    cr_assert_neq(md_cookie_new(&cookies, &rts), 0u);
    cr_assert_neq(md_cookie_new(&cookies, &ack), 0u);
    cr_assert_neq(md_cookie_new(&cookies, &to_me), 0u);
    p.posted[p.nposted++] = &recv_from_1;
    p.posted[p.nposted++] = &any_source;
    /* an interval the clock passed long ago since boot: the first round is
     * due, the one right after it is not */
    cr_assert_eq(md_liveness_init(&l, WORLD, ME, serves, 10000), MD_OK);
    cr_assert_eq(md_liveness_round(&l, &cookies, &ops, &p), 1);
    cr_assert_eq(p.nprobed, 2, "probed %d peers", p.nprobed);
    cr_assert_eq(p.probed[0], 1, "the posted receive's sender");
    cr_assert_eq(p.probed[1], 3, "the rendezvous's peer");
    cr_assert_eq(md_liveness_round(&l, &cookies, &ops, &p), 0, "not due again yet");
    cr_assert_eq(p.nprobed, 2);
    md_liveness_fini(&l);
    md_cookies_fini(&cookies);
}

Test(liveness, a_check_is_due_once_per_interval)
{
    uint64_t last = 0;

    cr_assert_eq(md_liveness_due(&last, 10000), 1, "never checked: due");
    uint64_t first = last;
    cr_assert_geq(first, md_liveness_now_ms() - 1000, "the check's time is now");
    cr_assert_eq(md_liveness_due(&last, 10000), 0, "not again within the interval");
    cr_assert_eq(last, first, "a check not due leaves the time alone");
    cr_assert_eq(md_liveness_due(&last, 0), 1, "interval 0: every time");
    last -= 50;               /* as if the last check were 50 ms ago */
    cr_assert_eq(md_liveness_due(&last, 40), 1);
}

/* A subdevice that serves every peer and has no cookie out. */
static const uint8_t serves_all[WORLD] = { 1, 1, 1, 1, 1, 1 };
static md_liveness_t live;
static md_cookies_t  no_cookies;

static void serves_all_init(void)
{
    md_cookies_init(&no_cookies);
    /* interval 0: every call is a round */
    cr_assert_eq(md_liveness_init(&live, WORLD, ME, serves_all, 0), MD_OK);
}

static void serves_all_fini(void)
{
    md_liveness_fini(&live);
    md_cookies_fini(&no_cookies);
}

Test(liveness, nothing_awaited_probes_nobody, .init = serves_all_init, .fini = serves_all_fini)
{
    probe_log_t p = { .nposted = 0 };

    cr_assert_eq(md_liveness_round(&live, &no_cookies, &ops, &p), 1);
    cr_assert_eq(p.nprobed, 0);
}

Test(liveness, the_marks_of_one_round_do_not_carry_into_the_next, .init = serves_all_init,
     .fini = serves_all_fini)
{
    probe_log_t p = { .nposted = 0 };
    md_request_t recv_from_2 = req_for(2);

    p.posted[p.nposted++] = &recv_from_2;
    cr_assert_eq(md_liveness_round(&live, &no_cookies, &ops, &p), 1);
    cr_assert_eq(p.nprobed, 1);
    cr_assert_eq(p.probed[0], 2);
    p.nposted = 0;            /* the receive matched meanwhile */
    cr_assert_eq(md_liveness_round(&live, &no_cookies, &ops, &p), 1);
    cr_assert_eq(p.nprobed, 1, "peer 2 is no longer awaited");
}
