/*
 * Decisions that must flip at an exact point: forwarding as its cost
 * crosses the break-even value, and size classes at their boundaries.
 */
#include <criterion/criterion.h>
#include <stdio.h>

#include "mdc_test_util.h"

/* a--b directly over a slow VIA link (100 us); a--c and c--b over fast
 * Myrinet links (10 us each).  Through c the route costs 20 us + c's
 * forwarding cost F: forwarded while F < 80 us, direct from F = 80 us on
 * (at exactly 80 us the two tie and the route with fewer relays wins). */
static int forwarded_at(const char *fwd)
{
    char text[512];

    snprintf(text, sizeof(text),
             "multidev-network 1\n"
             "node a b\nnode c forward=%s\n"
             "network slow type=via latency=100us\n"
             "network fast type=myri latency=10us\n"
             "link slow a b\nlink fast a c\nlink fast c b\n", fwd);
    mdc_graph_t *g = mdct_graph(text);
    mdc_routes_t r;
    mdct_routes(g, mdct_node(g, "a"), &r);
    const mdc_rseg_t *s = mdct_find(g, &r, "b", 1000);
    cr_assert_not_null(s);
    int via_c = s->dec.next_hop == (int)mdct_node(g, "c");
    if (via_c)
        cr_expect_eq(s->dec.first_net, 1, "forwarded routes start on fast");
    else
        cr_expect_eq(s->dec.first_net, 0, "direct routes use slow");
    /* the reverse route is the same, reversed */
    mdc_routes_t back;
    mdct_routes(g, mdct_node(g, "b"), &back);
    const mdc_rseg_t *bs = mdct_find(g, &back, "a", 1000);
    cr_expect_eq(bs->dec.pathkey, s->dec.pathkey);
    mdc_routes_fini(&back);
    mdc_routes_fini(&r);
    mdct_graph_free(g);
    return via_c;
}

Test(router_decisions, forwarding_flips_at_break_even)
{
    cr_expect(forwarded_at("0us"));
    cr_expect(forwarded_at("79us"));
    cr_expect(forwarded_at("79.999999us"));
    cr_expect(!forwarded_at("80us"), "a tie: fewer relays must win");
    cr_expect(!forwarded_at("80.000001us"));
    cr_expect(!forwarded_at("200us"));
    cr_expect(!forwarded_at("no"));
}

/* Size-dependent forwarding: the relay copies at 100 MB/s on top of 5 us.
 * Forwarded: 20 us + 5 us + s/100MB/s; direct: 100 us.  Break-even at
 * s = 75 us * 100 MB/s = 7500 bytes, where the tie goes to direct. */
Test(router_decisions, size_dependent_forwarding_splits_exactly)
{
    const char *text =
        "multidev-network 1\n"
        "profile copy latency=5us bandwidth=100MB/s\n"
        "forward copy\n"
        "node a b c\n"
        "network slow type=via latency=100us\n"
        "network fast type=myri latency=10us\n"
        "link slow a b\nlink fast a c\nlink fast c b\n";
    mdc_graph_t *g = mdct_graph(text);
    mdc_routes_t r;
    uint32_t c = mdct_node(g, "c");

    mdct_routes(g, mdct_node(g, "a"), &r);
    cr_expect_eq(mdct_find(g, &r, "b", 0)->dec.next_hop, (int)c);
    cr_expect_eq(mdct_find(g, &r, "b", 7499)->dec.next_hop, (int)c);
    cr_expect_eq(mdct_find(g, &r, "b", 7500)->dec.next_hop, -1);
    cr_expect_eq(mdct_find(g, &r, "b", SIZE_MAX)->dec.next_hop, -1);
    const mdc_rseg_t *s = mdct_find(g, &r, "b", 0);
    cr_expect_eq(s->lo, 0);
    cr_expect_eq(s->hi, 7499);
    mdc_routes_fini(&r);
    mdct_graph_free(g);
}

/* A profile row starting at 8k makes SCI slower than VIA from exactly
 * 8192 bytes: the split must fall on the class boundary. */
Test(router_decisions, split_at_a_class_boundary)
{
    const char *text =
        "multidev-network 1\n"
        "profile s latency=5us bandwidth=100MB/s\n"
        "profile s from=8k latency=500us bandwidth=100MB/s\n"
        "node a b\n"
        "network sci0 type=sci profile=s\n"
        "network via0 type=via latency=50us bandwidth=100MB/s\n"
        "link sci0 a b\nlink via0 a b\n";
    mdc_graph_t *g = mdct_graph(text);
    mdc_routes_t r;

    mdct_routes(g, mdct_node(g, "a"), &r);
    const mdc_rseg_t *lo = mdct_find(g, &r, "b", 8191);
    const mdc_rseg_t *hi = mdct_find(g, &r, "b", 8192);
    cr_expect_eq(lo->dec.first_net, 0);
    cr_expect_eq(lo->lo, 0);
    cr_expect_eq(lo->hi, 8191);
    cr_expect_eq(hi->dec.first_net, 1);
    cr_expect_eq(hi->lo, 8192);
    cr_expect_eq(hi->hi, SIZE_MAX);
    mdc_routes_fini(&r);
    mdct_graph_free(g);
}

/* Inside one class two lines cross: SCI 8 us + s/76MB/s against VIA
 * 65 us + s/93.5MB/s.  The split must be the last size at which SCI is
 * still no slower, computed here from the same integer costs. */
Test(router_decisions, split_at_a_crossing_inside_a_class)
{
    const char *text =
        "multidev-network 1\n"
        "node a b\n"
        "network sci0 type=sci latency=8us bandwidth=76MB/s\n"
        "network via0 type=via latency=65us bandwidth=93.5MB/s\n"
        "link sci0 a b\nlink via0 a b\n";
    mdc_graph_t *g = mdct_graph(text);
    mdc_routes_t r;

    /* 1e15/76e6 and 1e15/93.5e6 fs per byte, rounded as the parser does */
    const unsigned __int128 sa = 8000000000ULL, sb = 13157895;
    const unsigned __int128 va = 65000000000ULL, vb = 10695187;
    size_t cross = (size_t)((va - sa) / (sb - vb));   /* SCI <= VIA up to */
    cr_assert(sa + sb * cross <= va + vb * cross);
    cr_assert(sa + sb * (cross + 1) > va + vb * (cross + 1));
    mdct_routes(g, mdct_node(g, "a"), &r);
    const mdc_rseg_t *s = mdct_find(g, &r, "b", 0);
    cr_expect_eq(s->dec.first_net, 0);
    cr_expect_eq(s->hi, cross, "split at %zu, expected %zu", s->hi, cross);
    cr_expect_eq(mdct_find(g, &r, "b", cross + 1)->dec.first_net, 1);
    cr_expect_eq(cross, 23145);     /* about 22.6 KB: P6's peak figures */
    mdc_routes_fini(&r);
    mdct_graph_free(g);
}

/* Without a forwarding value no indirect route is produced (T-CFG-5), and
 * a node that cannot be reached otherwise is unreachable (T-CFG-4). */
Test(router_decisions, no_forwarding_without_a_forwarding_value)
{
    mdc_graph_t *g = mdct_graph("multidev-network 1\nnode a b c\n"
                                "network v type=via latency=1us\n"
                                "link v a b\nlink v b c\n");
    mdc_routes_t r;

    mdct_routes(g, mdct_node(g, "a"), &r);
    cr_expect_not_null(mdct_find(g, &r, "b", 0));
    cr_expect_null(mdct_find(g, &r, "c", 0));
    mdc_routes_fini(&r);
    mdct_graph_free(g);
}

/* A type without a subdevice never carries a route. */
Test(router_decisions, networks_without_subdevice_carry_nothing)
{
    mdc_graph_t *g = mdct_graph("multidev-network 1\ntype fe subdevice=none\n"
                                "node a b\n"
                                "network fe0 type=fe latency=1ns\n"
                                "network v type=via latency=100us\n"
                                "switch fe0 s a b\nlink v a b\n");
    mdc_routes_t r;

    mdct_routes(g, mdct_node(g, "a"), &r);
    cr_expect_eq(mdct_find(g, &r, "b", 0)->dec.first_net, 1);
    mdc_routes_fini(&r);
    mdct_graph_free(g);
}

/* Nodes on the same hubs at the same cost copy the previous node's routes
 * (mdc_route_copy.c); what they get must be exactly what computing afresh
 * gives, segment for segment, path keys included.  Two rings per switch,
 * equal-cost networks so that ties between hubs occur, and (with_link) a
 * point-to-point link, which makes one node use its own trees and the
 * others combine the hubs' trees; without it every node is routed on the
 * hub graph (mdc_hubgraph.h). */
static const char *copies_text(int with_link)
{
    static char text[1024];

    snprintf(text, sizeof(text),
             "multidev-network 1\n"
             "forward 20us\n"
             "node n[00-23]\n"
             "network myri0 type=myri latency=9us bandwidth=120MB/s\n"
             "network sci0 type=sci latency=8us bandwidth=76MB/s\n"
             "network via0 type=via latency=9us bandwidth=120MB/s\n"
             "switch myri0 a n[00-11]\n"
             "switch myri0 b n[12-23]\n"
             "trunk myri0 a b latency=0.5us\n"
             "ring sci0 r0 n[00-05]\n"
             "ring sci0 r1 n[06-11]\n"
             "ring sci0 r2 n[12-17]\n"
             "ring sci0 r3 n[18-23]\n"
             "switch via0 v0 n[00-23]\n%s",
             with_link ? "link via0 n03 n20\n" : "");
    return text;
}

static void copies_equal_fresh(int with_link)
{
    mdc_graph_t *g = mdct_graph(copies_text(with_link));
    mdc_router_t *shared = mdc_router_new(g);
    mdc_routes_t a = { 0 }, b = { 0 };
    uint32_t copied = 0;

    cr_assert_not_null(shared);
    cr_assert_eq(g->hubs == NULL, with_link, "the hub graph is for hubs only");
    for (uint32_t s = 0; s < g->num_hosts; s++) {
        cr_assert_eq(mdc_route_source(shared, s, &a), 0);
        copied += (uint32_t)a.copied;
        mdct_routes(g, s, &b);                 /* a new router: afresh */
        cr_assert_eq(a.num_seg, b.num_seg, "source %u", s);
        for (uint32_t d = 0; d <= g->num_hosts; d++)
            cr_assert_eq(a.first[d], b.first[d], "source %u peer %u", s, d);
        for (size_t k = 0; k < a.num_seg; k++) {
            const mdc_rseg_t *x = &a.seg[k], *y = &b.seg[k];
            cr_assert(x->lo == y->lo && x->hi == y->hi &&
                      x->dec.first_net == y->dec.first_net &&
                      x->dec.next_hop == y->dec.next_hop &&
                      x->dec.pathkey == y->dec.pathkey &&
                      x->dec.relays == y->dec.relays &&
                      x->dec.nosys == y->dec.nosys,
                      "source %u segment %zu", s, k);
        }
        mdc_routes_fini(&b);
    }
    cr_expect_gt(copied, 8, "few routes were copied");
    mdc_routes_fini(&a);
    mdc_router_free(shared);
    mdct_graph_free(g);
}

Test(router_decisions, copied_routes_equal_fresh_ones)
{
    copies_equal_fresh(1);
    copies_equal_fresh(0);
}

/* Writing files, the router keeps only runs of alike peers for copied
 * routes and computes one route per block of nodes on the same hubs
 * (compact mode); the runs must be those of the full routes: the same
 * peers, the same segments (path keys aside). */
static void runs_equal_full(const char *text)
{
    mdc_graph_t *g = mdct_graph(text);
    mdc_router_t *compact = mdc_router_new(g);
    mdc_routes_t a = { 0 }, b = { 0 };
    uint32_t copied = 0;

    cr_assert_not_null(compact);
    compact->compact = 1;
    for (uint32_t s = 0; s < g->num_hosts; s++) {
        cr_assert_eq(mdc_route_source(compact, s, &a), 0);
        copied += (uint32_t)a.copied;
        mdct_routes(g, s, &b);
        cr_assert_eq(a.num_runs, b.num_runs, "source %u", s);
        for (size_t k = 0; k < a.num_runs; k++) {
            const mdc_prun_t *x = &a.run[k], *y = &b.run[k];
            cr_assert(x->lo == y->lo && x->hi == y->hi && x->num == y->num,
                      "source %u run %zu", s, k);
            for (uint32_t i = 0; i < x->num; i++) {
                const mdc_rseg_t *p = &a.rseg[x->seg + i];
                const mdc_rseg_t *q = &b.rseg[y->seg + i];
                cr_assert(p->lo == q->lo && p->hi == q->hi &&
                          p->dec.first_net == q->dec.first_net &&
                          p->dec.next_hop == q->dec.next_hop &&
                          p->dec.relays == q->dec.relays &&
                          p->dec.nosys == q->dec.nosys,
                          "source %u run %zu segment %u", s, k, i);
            }
        }
        mdc_routes_fini(&b);
    }
    cr_expect_gt(copied, 8, "few routes were copied");
    mdc_routes_fini(&a);
    mdc_router_free(compact);
    mdct_graph_free(g);
}

Test(router_decisions, compact_runs_equal_full_ones)
{
    runs_equal_full(copies_text(0));
    runs_equal_full(copies_text(1));
    runs_equal_full(mdct_switches_and_rings);
}
