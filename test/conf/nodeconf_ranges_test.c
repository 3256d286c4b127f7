/* Peer ranges in route and arrive lines ("route n[0104-4095] 0 inf myri
 * -"): read as one line per peer, written back as ranges; files without
 * ranges read as before; errors inside a range keep file:line:col. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_names.h"
#include "md_nodeconf.h"

static char *write_to_string(const md_nodeconf_t *conf)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    cr_assert_not_null(f);
    cr_assert_eq(md_nodeconf_write(f, conf), 0);
    fclose(f);
    return buf;
}

static md_nodeconf_t *parse(const char *text)
{
    md_nodeconf_t *conf = NULL;
    char err[MD_NODECONF_ERR_MAX];

    cr_assert_eq(md_nodeconf_parse_string(text, "r.conf", &conf, err,
                                          sizeof(err)), 0, "%s", err);
    return conf;
}

static void expect_error(const char *text, const char *error)
{
    md_nodeconf_t *conf = NULL;
    char err[MD_NODECONF_ERR_MAX];

    cr_expect_eq(md_nodeconf_parse_string(text, "r.conf", &conf, err,
                                          sizeof(err)), -1, "%s", text);
    cr_expect_null(conf);
    cr_expect_str_eq(err, error, "for %s: %s", text, err);
}

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

Test(nodeconf_ranges, a_range_reads_as_one_line_per_peer)
{
    md_nodeconf_t *c = parse(compact);

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

Test(nodeconf_ranges, written_back_as_the_same_ranges)
{
    md_nodeconf_t *c = parse(compact);
    char *text = write_to_string(c);

    cr_expect_str_eq(text, compact);
    free(text);
    md_nodeconf_free(c);
}

/* The old form, one line per peer, still reads, and means the same as the
 * compact one: both write the same bytes. */
Test(nodeconf_ranges, the_expanded_form_reads_the_same)
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
    md_nodeconf_t *c = parse(text);
    char *out = write_to_string(c);
    cr_expect_str_eq(out, compact);
    free(out);
    md_nodeconf_free(c);
}

/* A range breaks where names stop following each other or lines differ. */
Test(nodeconf_ranges, ranges_only_over_following_names)
{
    md_nodeconf_t *c = parse("multidev-node-config 1\nnode a\ndevice shm\n"
                             "route n8 0 inf shm -\n"
                             "route n9 0 inf shm -\n"
                             "route n10 0 inf shm -\n"
                             "route x099 0 inf shm -\n"
                             "route x100 0 inf shm -\n"
                             "route x101 0 inf shm n8\n");
    char *out = write_to_string(c);

    cr_expect_str_eq(out, "multidev-node-config 1\nnode a\ndevice shm\n"
                          "route n10 0 inf shm -\n"
                          "route n[8-9] 0 inf shm -\n"
                          "route x[099-100] 0 inf shm -\n"
                          "route x101 0 inf shm n8\n");
    free(out);
    md_nodeconf_free(c);
}

Test(nodeconf_ranges, names_follow)
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

Test(nodeconf_ranges, errors_inside_a_range_name_the_line_and_column)
{
    expect_error(HEAD "route n[09-03] 0 inf sci -\n",
                 "r.conf:6:12: expected an upper bound of at least 9, got 3 "
                 "(in the peer range 'n[09-03]')");
    expect_error(HEAD "route n[01-x] 0 inf sci -\n",
                 "r.conf:6:12: expected the upper bound (a number of at most "
                 "9 digits), got 'x' (in the peer range 'n[01-x]')");
    expect_error(HEAD "route n[01-09] 0 inf sci n03\n",
                 "r.conf:6:26: expected '-' for a direct route to 'n03', got "
                 "'n03'");
    expect_error(HEAD "route n02 0 inf sci -\nroute n[01-03] 0 inf sci -\n",
                 "r.conf:7:16: duplicate route to 'n02' starting at 0 (first "
                 "at line 6)");
    expect_error(HEAD "route n[01-03] 0 99 sci -\nroute n[01-03] 200 inf sci -\n",
                 "r.conf:7:16: expected the route to 'n01' to start at 100 "
                 "(line 6 ends at 99), got 200");
    expect_error(HEAD "arrive n[01-03] sci\narrive n02 sci\n",
                 "r.conf:7:8: duplicate 'arrive' for 'n02' (first at line 6)");
    expect_error(HEAD "route n[0-9999999] 0 inf sci -\n",
                 "r.conf:6:7: expected at most 1048576 names in one list (in "
                 "the peer range 'n[0-9999999]')");
    expect_error(HEAD "route n[01-03] 0 inf bus -\n",
                 "r.conf:6:22: expected a subdevice declared by a 'device' "
                 "line, got 'bus'");
}
