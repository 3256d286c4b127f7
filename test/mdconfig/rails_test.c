/*
 * Rails lines (doc/mdconfig.md, "Rails"): a pair joined directly by two or
 * more networks that carry system messages gets one, from the size where
 * striping pays, weights by modelled bandwidth, fastest first; a pair
 * reached through forwarding, by one network only, or over a network
 * without system messages gets none; --rails=off writes none; --node
 * writes the same file as the full run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_rails.h"
#include "mdc_test_util.h"
#include "mdc_write.h"

/* Writes text's files into a new directory (dir: 64 bytes). */
static void write_files(const char *text, char *dir, const char *tag,
                        int rails)
{
    mdc_graph_t *g = mdct_graph(text);
    mdc_problems_t p;

    mdct_tmpdir(dir, 64, tag);
    cr_assert_eq(mdc_write_all(g, dir, 2, rails, &p), 0);
    mdct_graph_free(g);
}

static void expect_rail(const md_nodeconf_rails_t *r, size_t i,
                        const char *subdev, uint32_t weight)
{
    cr_assert_lt(i, r->num);
    cr_expect_str_eq(r->subdevs[i], subdev, "rail %zu to %s", i, r->peer);
    cr_expect_eq(r->weights[i], weight, "rail %zu (%s) to %s: %u", i, subdev,
                 r->peer, r->weights[i]);
}

Test(rails, the_two_node_example_stripes_over_myri_via_and_sci, .timeout = 60)
{
    char path[512], err[MDC_ERR_MAX], dir[64];
    mdc_desc_t *desc = NULL;

    snprintf(path, sizeof(path), "%s/rails-2node.net", MDC_EXAMPLES_DIR);
    cr_assert_eq(mdc_desc_parse_file(path, &desc, err, sizeof(err)), 0, "%s",
                 err);
    mdc_graph_t *g = mdc_graph_build(desc);
    mdc_problems_t p;
    mdct_tmpdir(dir, sizeof(dir), "r2");
    cr_assert_eq(mdc_write_all(g, dir, 2, 1, &p), 0);
    for (int i = 0; i < 2; i++) {
        md_nodeconf_t *c = mdct_load(dir, i == 0 ? "a" : "b");
        const md_nodeconf_rails_t *r = md_nodeconf_find_rails(c, i == 0 ? "b" : "a");
        cr_assert_not_null(r, "no rails line in %s's file", c->node);
        cr_expect_eq(r->from, 65536);
        cr_expect_eq(r->num, 3);
        expect_rail(r, 0, "myri", 120);
        expect_rail(r, 1, "via", 94);       /* 93.5 MB/s, rounded */
        expect_rail(r, 2, "sci", 70);       /* scampi's eager row at 64 KiB */
        cr_expect_null(md_nodeconf_find_rails(c, c->node));
        /* no route uses via (SCI is faster up to 414 B, Myrinet then), yet
         * it is loaded: it is a rail */
        cr_expect_not_null(md_nodeconf_find_device(c, "via"));
        cr_expect_str_eq(md_nodeconf_find_route(c, r->peer, 1 << 20)->subdev,
                         "myri");
        md_nodeconf_free(c);
    }
    mdct_rm_dir(dir);
    mdc_graph_free(g);
    mdc_desc_free(desc);
}

/* a, b: one Myrinet switch and one SCI ring.  c: on a second switch
 * trunked to the first, and on b's ring.  d: on the first switch only.
 * e: on a switch of its own (not trunked), and b's ring: reached from a
 * only through b (the one node that forwards).  f: a VIA link to a, and
 * the first switch.  g: the first switch and a link of a network without
 * system messages to a (which the route to g takes). */
static const char *topology =
    "multidev-network 1\n"
    "forward no\n"
    "type gmx subdevice=gmx sysmsg=no\n"
    "node a c d e f g\n"
    "node b forward=10us\n"
    "network myri0 type=myri latency=10us bandwidth=120MB/s\n"
    "network sci0 type=sci latency=8us bandwidth=76MB/s\n"
    "network via0 type=via latency=65us bandwidth=93.5MB/s\n"
    "network gmx0 type=gmx latency=5us bandwidth=200MB/s\n"
    "switch myri0 sw0 a b d f g\n"
    "switch myri0 sw1 c\n"
    "switch myri0 sw2 e\n"
    "trunk myri0 sw0 sw1 latency=1us\n"
    "ring sci0 r0 a b c e\n"
    "link via0 a f\n"
    "link gmx0 a g\n";

Test(rails, only_networks_that_join_a_pair_directly_and_carry_sysmsgs,
     .timeout = 60)
{
    char dir[64];

    write_files(topology, dir, "rt", 1);
    md_nodeconf_t *a = mdct_load(dir, "a");
    const md_nodeconf_rails_t *r;

    cr_assert_not_null(r = md_nodeconf_find_rails(a, "b"), "same switch, ring");
    expect_rail(r, 0, "myri", 120);
    expect_rail(r, 1, "sci", 76);
    cr_assert_not_null(r = md_nodeconf_find_rails(a, "c"), "trunked switches");
    cr_expect_eq(r->num, 2);
    cr_assert_not_null(r = md_nodeconf_find_rails(a, "f"), "switch and link");
    expect_rail(r, 0, "myri", 120);
    expect_rail(r, 1, "via", 94);
    cr_expect_null(md_nodeconf_find_rails(a, "d"), "one network only");
    cr_expect_null(md_nodeconf_find_rails(a, "e"), "sci only; myri forwarded");
    cr_expect_null(md_nodeconf_find_rails(a, "g"), "gmx carries no sysmsgs");
    cr_expect_str_eq(md_nodeconf_find_route(a, "g", 1 << 20)->subdev, "gmx");
    cr_expect_eq(a->num_rails, 3);
    md_nodeconf_free(a);
    /* the other ends see the same */
    md_nodeconf_t *f = mdct_load(dir, "f");
    cr_assert_not_null(r = md_nodeconf_find_rails(f, "a"));
    expect_rail(r, 1, "via", 94);
    cr_expect_null(md_nodeconf_find_rails(f, "b"), "f-b: myri only");
    md_nodeconf_free(f);
    md_nodeconf_t *e = mdct_load(dir, "e");
    cr_expect_eq(e->num_rails, 0);
    md_nodeconf_free(e);
    mdct_rm_dir(dir);
}

Test(rails, rails_off_writes_none, .timeout = 60)
{
    char dir[64];
    static const char *const nodes[] = { "a", "b", "c", "d", "e", "f", "g" };

    write_files(topology, dir, "off", 0);
    for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
        md_nodeconf_t *c = mdct_load(dir, nodes[i]);
        cr_expect_eq(c->num_rails, 0, "%s has rails", nodes[i]);
        md_nodeconf_free(c);
    }
    mdct_rm_dir(dir);
    /* the example's via is loaded only as a rail */
    write_files("multidev-network 1\nnode a b\n"
                "network myri0 type=myri latency=10us bandwidth=120MB/s\n"
                "network via0 type=via latency=65us bandwidth=93.5MB/s\n"
                "switch myri0 sw0 a b\nlink via0 a b\n", dir, "off2", 0);
    md_nodeconf_t *c = mdct_load(dir, "a");
    cr_expect_null(md_nodeconf_find_device(c, "via"));
    cr_expect_not_null(md_nodeconf_find_device(c, "myri"));
    md_nodeconf_free(c);
    mdct_rm_dir(dir);
}

/* Many nodes: rails lines in ranges, the canonical form (what
 * md_nodeconf_write prints for what the file says), and --node's file the
 * same as the full run's. */
Test(rails, ranges_canonical_and_one_node_alone, .timeout = 60)
{
    char all[64], one[64];
    mdc_graph_t *g = mdct_graph(mdct_switches_and_rings);
    mdc_problems_t p;

    write_files(mdct_switches_and_rings, all, "rall", 1);
    mdct_tmpdir(one, sizeof(one), "rone");
    cr_assert_eq(mdc_write_node(g, one, mdct_node(g, "n10"), 1, &p), 0);
    char a[512], b[512];
    size_t la, lb;
    snprintf(a, sizeof(a), "%s/n10.conf", all);
    snprintf(b, sizeof(b), "%s/n10.conf", one);
    char *x = mdct_slurp(a, &la), *y = mdct_slurp(b, &lb);
    cr_expect(la == lb && memcmp(x, y, la) == 0, "%s and %s differ", a, b);
    /* n10's ring r1 is n08..n15: two ranges around n10 itself */
    char *text = strndup(x, la);
    cr_assert_not_null(text);
    cr_expect(strstr(text, "\nrails n[08-09] 65536 myri=120 sci=76\n"
                           "rails n[11-15] 65536 myri=120 sci=76\n") != NULL,
              "%s", text);
    cr_expect_null(strstr(text, "rails n[00"), "%s", text);
    md_nodeconf_t *c = mdct_load(all, "n10");
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    cr_assert_eq(md_nodeconf_write(f, c), 0);
    fclose(f);
    cr_expect_str_eq(strchr(text, '\n') + 1, out);   /* after the comment */
    free(out);
    free(text);
    free(x);
    free(y);
    md_nodeconf_free(c);
    mdct_graph_free(g);
    mdct_rm_dir(all);
    mdct_rm_dir(one);
}

/* Only peers with rails are in the file; a range goes on past a peer
 * without them (the node itself, or n1a between n1 and n2 in name order)
 * when the names still follow each other, as md_nodeconf_write's does. */
Test(rails, a_range_skips_peers_without_rails, .timeout = 60)
{
    char dir[64];

    write_files("multidev-network 1\nnode n0 n1 n1a n2 n3\n"
                "network myri0 type=myri latency=9us bandwidth=120MB/s\n"
                "network via0 type=via latency=9us bandwidth=120MB/s\n"
                "switch myri0 sw0 n0 n1 n1a n2 n3\n"
                "switch via0 sw1 n0 n1 n2 n3\n", dir, "skip", 1);
    for (int pass = 0; pass < 2; pass++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof(path), "%s/%s.conf", dir, pass ? "n0" : "n1a");
        char *raw = mdct_slurp(path, &len), *text = strndup(raw, len);
        cr_assert_not_null(text);
        if (pass == 0)
            cr_expect_null(strstr(text, "rails"), "%s", text);
        else
            cr_expect(strstr(text, "\nrails n[1-3] 65536 myri=120 via=120\n")
                      != NULL, "%s", text);
        free(raw);
        free(text);
    }
    md_nodeconf_t *c = mdct_load(dir, "n2");
    cr_expect_eq(c->num_rails, 3);
    cr_expect_null(md_nodeconf_find_rails(c, "n1a"));
    md_nodeconf_free(c);
    mdct_rm_dir(dir);
}

/* The model itself: from where striping pays, weights, order.  nets: the
 * network lines of a description of nodes a and b; the model is asked
 * about the first n networks. */
static int model(const char *nets, size_t n, mdc_rail_set_t *s)
{
    char text[2048];
    int idx[MD_NODECONF_RAILS_MAX];

    snprintf(text, sizeof(text), "multidev-network 1\nnode a b\n%s", nets);
    mdc_graph_t *g = mdct_graph(text);
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    int rc = mdc_rails_model(g, idx, n, s);
    mdct_graph_free(g);
    return rc;
}

Test(rails, model_from_is_the_first_power_of_two_where_striping_pays)
{
    static const char *nets =
        "network x type=myri latency=1ms bandwidth=100MB/s\n"
        "network y type=sci latency=1ms bandwidth=100MB/s\n"
        "link x a b\nlink y a b\n";
    mdc_rail_set_t s;

    /* 64 KiB: 1 ms + 0.33 ms striped against 1 ms + 0.66 ms alone: 80.2%;
     * 128 KiB: 71.6% */
    cr_assert_eq(model(nets, 2, &s), 1);
    cr_expect_eq(s.from, 131072);
    cr_expect_eq(s.num, 2);
    cr_expect_eq(s.net[0], 0, "ties keep the description's order");
    cr_expect_eq(s.weight[0], 100);
    cr_expect_eq(s.weight[1], 100);
    cr_expect_eq(model(nets, 1, &s), 0, "one rail is none");
}

Test(rails, model_none_when_one_network_is_far_faster)
{
    mdc_rail_set_t s;

    cr_expect_eq(model("network x type=myri latency=5us bandwidth=1000MB/s\n"
                       "network y type=sci latency=5us bandwidth=1MB/s\n"
                       "link x a b\nlink y a b\n", 2, &s), 0);
}

Test(rails, model_weights_at_from_fastest_first)
{
    mdc_rail_set_t s;

    /* below 1 MiB y and z add little to x (2.6%); from 1 MiB on y is the
     * fastest, and x adds 80% to it */
    cr_assert_eq(model("profile p latency=1us bandwidth=10MB/s\n"
                       "profile p from=1m latency=1us bandwidth=500MB/s\n"
                       "network x type=myri latency=10us bandwidth=400MB/s\n"
                       "network y type=sci profile=p\n"
                       "network z type=via latency=10us bandwidth=0.4MB/s\n"
                       "link x a b\nlink y a b\nlink z a b\n", 3, &s), 1);
    cr_expect_eq(s.from, 1 << 20);
    cr_expect_eq(s.net[0], 1);
    cr_expect_eq(s.weight[0], 500);
    cr_expect_eq(s.net[1], 0);
    cr_expect_eq(s.weight[1], 400);
    cr_expect_eq(s.net[2], 2);
    cr_expect_eq(s.weight[2], 1, "0.4 MB/s rounds to 0: at least 1");
}

/* More than 8 networks join a pair: the 8 fastest are the rails. */
Test(rails, at_most_eight_rails_the_fastest, .timeout = 60)
{
    char text[4096], dir[64];
    size_t n = 0;

    n += (size_t)snprintf(text + n, sizeof(text) - n,
                          "multidev-network 1\nnode a b\n");
    for (int i = 1; i <= 9; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n,
                              "type t%d subdevice=s%d sysmsg=yes\n"
                              "network x%d type=t%d latency=10us "
                              "bandwidth=%dMB/s\nlink x%d a b\n",
                              i, i, i, i, i == 5 ? 5 : 100 + i, i);
    write_files(text, dir, "nine", 1);
    md_nodeconf_t *c = mdct_load(dir, "a");
    const md_nodeconf_rails_t *r = md_nodeconf_find_rails(c, "b");
    cr_assert_not_null(r);
    cr_assert_eq(r->num, MD_NODECONF_RAILS_MAX);
    expect_rail(r, 0, "s9", 109);
    expect_rail(r, 7, "s1", 101);
    for (size_t i = 0; i < r->num; i++)
        cr_expect_str_neq(r->subdevs[i], "s5", "the slowest is a rail");
    md_nodeconf_free(c);
    mdct_rm_dir(dir);
}

/* Two types driven by one module: a node loads it once, so their
 * networks are one rail, the faster one, which the routes take too.  c
 * shares only the slower one (and a faster VIA link) with a: its rail is
 * still the module a loads once, for m1. */
Test(rails, one_subdevice_is_one_rail, .timeout = 60)
{
    char dir[64];

    write_files("multidev-network 1\n"
                "type fm subdevice=myri sysmsg=yes\n"
                "node a b c\n"
                "network m0 type=myri latency=10us bandwidth=120MB/s\n"
                "network m1 type=fm latency=9us bandwidth=130MB/s\n"
                "network s0 type=sci latency=10us bandwidth=100MB/s\n"
                "network v0 type=via latency=5us bandwidth=200MB/s\n"
                "link m0 a b\nlink m1 a b\nlink s0 a b\n"
                "link m0 a c\nlink v0 a c\nlink v0 b c\n", dir, "dup", 1);
    md_nodeconf_t *c = mdct_load(dir, "a");
    const md_nodeconf_rails_t *r = md_nodeconf_find_rails(c, "b");
    cr_assert_not_null(r);
    cr_assert_eq(r->num, 2);
    expect_rail(r, 0, "myri", 130);
    expect_rail(r, 1, "sci", 100);
    const md_nodeconf_device_t *dev = md_nodeconf_find_device(c, "myri");
    cr_assert_not_null(dev);
    cr_expect_str_eq(dev->params[0].value, "m1");
    cr_expect_not_null(md_nodeconf_find_device(c, "sci"), "a rail only");
    cr_assert_not_null(r = md_nodeconf_find_rails(c, "c"));
    expect_rail(r, 0, "via", 200);
    expect_rail(r, 1, "myri", 120);
    md_nodeconf_free(c);
    mdct_rm_dir(dir);
}
