/* write -> parse -> write gives the same bytes; the canonical form does not
 * depend on the order the configuration was built in. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_names.h"
#include "md_nodeconf.h"
#include "nodeconf_test_util.h"

static const char *messy =
    "# a hand-written file: comments, suffixes, odd spacing, any order\n"
    "multidev-node-config 1\n"
    "route n2 16k inf   myri -\n"
    "device shm\n"
    "\tdevice myri switch=sw0 port=1\n"
    "node n1\n"
    "route n10 0 inf myri n2   # forwarded\n"
    "route n2 0 16383 sci -\n"
    "device sci ring=0 \n"
    "arrive n2 sci myri\n"
    "route n1 0 inf shm -\n"
    "arrive n10 myri\n";

static const char *canonical =
    "multidev-node-config 1\n"
    "node n1\n"
    "device shm\n"
    "device myri switch=sw0 port=1\n"
    "device sci ring=0\n"
    "route n1 0 inf shm -\n"
    "route n10 0 inf myri n2\n"
    "route n2 0 16383 sci -\n"
    "route n2 16384 inf myri -\n"
    "arrive n10 myri\n"
    "arrive n2 sci myri\n";

Test(nodeconf_roundtrip, messy_input_gives_the_canonical_form)
{
    md_nodeconf_t *c = nct_parse(messy);
    char *out = nct_write(c);

    cr_expect_str_eq(out, canonical);
    free(out);
    md_nodeconf_free(c);
}

Test(nodeconf_roundtrip, write_parse_write_is_byte_identical)
{
    md_nodeconf_t *c1 = nct_parse(messy);
    char *w1 = nct_write(c1);
    md_nodeconf_t *c2 = nct_parse(w1);
    char *w2 = nct_write(c2);

    cr_expect_str_eq(w1, w2);
    cr_expect_eq(c1->num_routes, c2->num_routes);
    cr_expect_eq(c1->num_devices, c2->num_devices);
    cr_expect_eq(c1->num_arrives, c2->num_arrives);
    free(w1);
    free(w2);
    md_nodeconf_free(c1);
    md_nodeconf_free(c2);
}

/* Built in memory, routes added in reverse: same bytes as the canonical
 * text, which parses back to the same bytes again. */
Test(nodeconf_roundtrip, built_in_memory_in_any_order)
{
    md_nodeconf_t *c = md_nodeconf_new("n1");
    md_nodeconf_kv_t myri_p[] = { { "switch", "sw0" }, { "port", "1" } };
    md_nodeconf_kv_t sci_p[] = { { "ring", "0" } };
    const char *a2[] = { "sci", "myri" }, *a10[] = { "myri" };

    cr_assert_not_null(c);
    cr_assert_eq(md_nodeconf_add_device(c, "shm", NULL, 0), 0);
    cr_assert_eq(md_nodeconf_add_device(c, "myri", myri_p, 2), 0);
    cr_assert_eq(md_nodeconf_add_device(c, "sci", sci_p, 1), 0);
    cr_assert_eq(md_nodeconf_add_arrive(c, "n2", a2, 2), 0);
    cr_assert_eq(md_nodeconf_add_arrive(c, "n10", a10, 1), 0);
    cr_assert_eq(md_nodeconf_add_route(c, "n2", 16384, MD_SIZE_INF, "myri",
                                       NULL), 0);
    cr_assert_eq(md_nodeconf_add_route(c, "n2", 0, 16383, "sci", ""), 0);
    cr_assert_eq(md_nodeconf_add_route(c, "n10", 0, MD_SIZE_INF, "myri",
                                       "n2"), 0);
    cr_assert_eq(md_nodeconf_add_route(c, "n1", 0, MD_SIZE_INF, "shm", "-"),
                 0);
    nct_expect_built_as(c, canonical);
    md_nodeconf_free(c);
}

/* Extreme sizes survive the trip. */
Test(nodeconf_roundtrip, extreme_sizes)
{
    char text[512];

    snprintf(text, sizeof(text),
             "multidev-node-config 1\nnode a\ndevice via\n"
             "route b 0 0 via -\nroute b 1 %zu via -\nroute b %zu inf via -\n",
             (size_t)-3, (size_t)-2);
    md_nodeconf_t *c = nct_parse(text);
    char *w = nct_write(c);
    cr_expect_str_eq(w, text);
    cr_expect_eq(c->routes[2].min, (size_t)-2);
    free(w);
    md_nodeconf_free(c);
}

Test(nodeconf_roundtrip, writing_without_a_node_fails)
{
    md_nodeconf_t *c = md_nodeconf_new(NULL);
    FILE *f = fopen("/dev/null", "w");

    cr_assert_not_null(c);
    cr_expect_eq(md_nodeconf_write(f, c), -1);
    fclose(f);
    md_nodeconf_free(c);
}

/* Peer ranges in route and arrive lines ("route n[0104-4095] 0 inf myri
 * -"): read as one line per peer, written back as ranges; files without
 * ranges read as before (the error cases are in nodeconf_errors_test.c). */
#define HEAD "multidev-node-config 1\nnode n05\ndevice shm\ndevice sci\ndevice myri\n"

/* What mdconfig writes for node n05 of a ring n01..n08 inside a switch. */
static const char *compact = HEAD
    "route n[01-04] 0 207 sci -\n"
    "route n[01-04] 208 inf myri -\n"
    "route n05 0 inf shm -\n"
    "route n[06-08] 0 207 sci -\n"
    "route n[06-08] 208 inf myri -\n"
    "route n[09-12] 0 inf myri n08\n"
    "arrive n[01-04] sci myri\n"
    "arrive n05 shm\n"
    "arrive n[06-08] sci myri\n"
    "arrive n[09-12] fwd\n";

Test(nodeconf_roundtrip, ranges_a_range_reads_as_one_line_per_peer)
{
    md_nodeconf_t *c = nct_parse(compact);

    cr_expect_eq(c->num_routes, 4 * 2 + 1 + 3 * 2 + 4);
    cr_expect_eq(c->num_arrives, 12);
    const md_nodeconf_route_t *r = md_nodeconf_find_route(c, "n03", 100);
    cr_assert_not_null(r);
    cr_expect_str_eq(r->subdev, "sci");
    r = md_nodeconf_find_route(c, "n03", 1 << 20);
    cr_assert_not_null(r);
    cr_expect_str_eq(r->subdev, "myri");
    r = md_nodeconf_find_route(c, "n11", 5);
    cr_assert_not_null(r);
    cr_expect_str_eq(r->next_hop, "n08");
    cr_expect_null(md_nodeconf_find_route(c, "n13", 5));
    const md_nodeconf_arrive_t *a = md_nodeconf_find_arrive(c, "n07");
    cr_assert_not_null(a);
    cr_expect_eq(a->num_subdevs, 2);
    md_nodeconf_free(c);
}

Test(nodeconf_roundtrip, ranges_written_back_as_the_same_ranges)
{
    md_nodeconf_t *c = nct_parse(compact);
    char *text = nct_write(c);

    cr_expect_str_eq(text, compact);
    free(text);
    md_nodeconf_free(c);
}

/* The old form, one line per peer, still reads, and means the same as the
 * compact one: both write the same bytes. */
Test(nodeconf_roundtrip, ranges_the_expanded_form_reads_the_same)
{
    char text[8192];
    size_t n = 0;

    n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", HEAD);
    for (int i = 1; i <= 12; i++) {
        char peer[8];
        snprintf(peer, sizeof(peer), "n%02d", i);
        if (i == 5)
            n += (size_t)snprintf(text + n, sizeof(text) - n,
                                  "route n05 0 inf shm -\narrive n05 shm\n");
        else if (i <= 8)
            n += (size_t)snprintf(text + n, sizeof(text) - n,
                                  "route %s 208 inf myri -\n"
                                  "arrive %s sci myri\n"
                                  "route %s 0 207 sci -\n", peer, peer, peer);
        else
            n += (size_t)snprintf(text + n, sizeof(text) - n,
                                  "arrive %s fwd\nroute %s 0 inf myri n08\n",
                                  peer, peer);
    }
    md_nodeconf_t *c = nct_parse(text);
    char *out = nct_write(c);
    cr_expect_str_eq(out, compact);
    free(out);
    md_nodeconf_free(c);
}

/* A range breaks where names stop following each other or lines differ. */
Test(nodeconf_roundtrip, ranges_only_over_following_names)
{
    md_nodeconf_t *c = nct_parse("multidev-node-config 1\nnode a\ndevice shm\n"
                             "route n8 0 inf shm -\n"
                             "route n9 0 inf shm -\n"
                             "route n10 0 inf shm -\n"
                             "route x099 0 inf shm -\n"
                             "route x100 0 inf shm -\n"
                             "route x101 0 inf shm n8\n");
    char *out = nct_write(c);

    cr_expect_str_eq(out, "multidev-node-config 1\nnode a\ndevice shm\n"
                          "route n10 0 inf shm -\n"
                          "route n[8-9] 0 inf shm -\n"
                          "route x[099-100] 0 inf shm -\n"
                          "route x101 0 inf shm n8\n");
    free(out);
    md_nodeconf_free(c);
}

Test(nodeconf_roundtrip, ranges_names_follow)
{
    cr_expect(md_names_follows("n0099", "n0100"));
    cr_expect(md_names_follows("r1n07", "r1n08"));
    cr_expect(md_names_follows("41", "42"));
    cr_expect(!md_names_follows("n9", "n10"));
    cr_expect(!md_names_follows("n99", "n00"));
    cr_expect(!md_names_follows("n01", "m02"));
    cr_expect(!md_names_follows("n01", "n03"));
    cr_expect(!md_names_follows("gw", "gx"));
    cr_expect(!md_names_follows("n1234567890", "n1234567891"));
    char out[MD_NAMES_RANGE_MAX];
    md_names_range("r1n07", "r1n12", out);
    cr_expect_str_eq(out, "r1n[07-12]");
    md_names_range("n5", "n5", out);
    cr_expect_str_eq(out, "n5");
}
