/* Rails lines (striping over several networks): read one per peer, looked
 * up by peer, built in memory, written back after the arrive lines with
 * runs of peers as ranges.  The error cases are in nodeconf_errors_test.c. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf.h"
#include "nodeconf_test_util.h"

#define HEAD "multidev-node-config 1\nnode n05\ndevice shm\ndevice myri\n" \
             "device sci\ndevice via\n"
#define ROUTES "route n[01-12] 0 inf myri -\narrive n[01-12] myri\n"

/* Canonical: after the arrive lines, by peer, following peers with the
 * same rails as one range, rails in the order given. */
static const char *compact = HEAD ROUTES
    "rails n[01-04] 65536 myri=120 via=94 sci=80\n"
    "rails n[06-07] 65536 myri=120 via=94 sci=80\n"
    "rails n08 65536 myri=120 sci=80 via=94\n"
    "rails n09 131072 myri=120 via=94 sci=80\n"
    "rails n10 65536 myri=120 via=93 sci=80\n"
    "rails n[11-12] 1048576 sci=80 myri=120\n";

Test(nodeconf_rails, a_range_reads_as_one_line_per_peer)
{
    md_nodeconf_t *c = nct_parse(compact);

    cr_expect_eq(c->num_rails, 11);
    const md_nodeconf_rails_t *r = md_nodeconf_find_rails(c, "n03");
    cr_assert_not_null(r);
    cr_expect_str_eq(r->peer, "n03");
    cr_expect_eq(r->from, 65536);
    cr_assert_eq(r->num, 3);
    cr_expect_str_eq(r->subdevs[0], "myri");
    cr_expect_str_eq(r->subdevs[1], "via");
    cr_expect_str_eq(r->subdevs[2], "sci");
    cr_expect_eq(r->weights[0], 120);
    cr_expect_eq(r->weights[1], 94);
    cr_expect_eq(r->weights[2], 80);
    cr_expect_eq(r->line, 9);
    r = md_nodeconf_find_rails(c, "n12");
    cr_assert_not_null(r);
    cr_expect_eq(r->from, 1 << 20);
    cr_expect_eq(r->num, 2);
    cr_expect_str_eq(r->subdevs[0], "sci");
    cr_expect_eq(r->line, 14);
    cr_expect_null(md_nodeconf_find_rails(c, "n05"));   /* the node itself */
    cr_expect_null(md_nodeconf_find_rails(c, "n13"));
    cr_expect_null(md_nodeconf_find_rails(c, "n1"));
    cr_expect_null(md_nodeconf_find_rails(c, NULL));
    cr_expect_null(md_nodeconf_find_rails(NULL, "n03"));
    md_nodeconf_free(c);
}

Test(nodeconf_rails, written_back_as_the_same_ranges)
{
    nct_expect_written_as(compact, compact);
}

/* One line per peer, in any order, sizes with suffixes: the same file. */
Test(nodeconf_rails, the_expanded_form_in_any_order_reads_the_same)
{
    static const char *expanded = "multidev-node-config 1\n"
        "rails n12 1m sci=80 myri=120\n"
        "rails n10 64k myri=120 via=93 sci=80\n"
        "node n05\n"
        "rails n01 64k   myri=120 via=94 sci=80  # comment\n"
        "rails n09 128k myri=120 via=94 sci=80\n"
        "rails n[03-04] 65536 myri=120 via=94 sci=80\n"
        "device shm\ndevice myri\n"
        "rails n07 64k myri=120 via=94 sci=80\n"
        "rails n02 64k myri=120 via=94 sci=80\n"
        "device sci\n"
        "rails n06 64k myri=120 via=94 sci=80\n"
        "rails n11 1024k sci=80 myri=120\n"
        "rails n08 64k myri=120 sci=80 via=94\n"
        ROUTES
        "device via\n";

    nct_expect_written_as(expanded, compact);
}

/* A range only joins names that follow each other (n9 -> n10 does not). */
Test(nodeconf_rails, ranges_only_over_following_names)
{
    nct_expect_written_as("multidev-node-config 1\nnode a\ndevice x\n"
                          "device y\n"
                          "rails n8 1k x=1 y=2\nrails n9 1k x=1 y=2\n"
                          "rails n10 1k x=1 y=2\n",
                          "multidev-node-config 1\nnode a\ndevice x\n"
                          "device y\n"
                          "rails n10 1024 x=1 y=2\nrails n[8-9] 1024 x=1 y=2\n");
}

Test(nodeconf_rails, extreme_values_survive_the_trip)
{
    char text[512];

    snprintf(text, sizeof(text),
             "multidev-node-config 1\nnode a\ndevice x\ndevice y\n"
             "rails b %zu x=1 y=1000000\nrails c 0 x=1000000 y=1\n",
             (size_t)-2);
    nct_expect_written_as(text, text);
    md_nodeconf_t *c = nct_parse(text);
    cr_expect_eq(md_nodeconf_find_rails(c, "b")->from, (size_t)-2);
    cr_expect_eq(md_nodeconf_find_rails(c, "b")->weights[1], 1000000);
    md_nodeconf_free(c);
}

Test(nodeconf_rails, eight_rails_are_allowed)
{
    md_nodeconf_t *c = nct_parse("multidev-node-config 1\nnode a\n"
                             "device s1\ndevice s2\ndevice s3\ndevice s4\n"
                             "device s5\ndevice s6\ndevice s7\ndevice s8\n"
                             "rails b 1m s8=8 s7=7 s6=6 s5=5 s4=4 s3=3 s2=2 "
                             "s1=1\n");
    const md_nodeconf_rails_t *r = md_nodeconf_find_rails(c, "b");

    cr_assert_not_null(r);
    cr_assert_eq(r->num, MD_NODECONF_RAILS_MAX);
    cr_expect_str_eq(r->subdevs[7], "s1");
    cr_expect_eq(r->weights[0], 8);
    md_nodeconf_free(c);
}

Test(nodeconf_rails, build_rejects_what_could_not_be_written_back)
{
    md_nodeconf_t *c = md_nodeconf_new("n1");
    const char *two[] = { "myri", "sci" }, *dup[] = { "myri", "myri" };
    const char *fwd[] = { "myri", "fwd" }, *bad[] = { "myri", "s ci" };
    const char *nine[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
    const uint32_t w[] = { 120, 80, 1, 1, 1, 1, 1, 1, 1 };
    const uint32_t zero[] = { 120, 0 }, big[] = { 1000001, 5 };

    cr_assert_not_null(c);
    errno = 0;
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, two, w, 1), -1);
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, nine, w, 9), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, dup, w, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, fwd, w, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, bad, w, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, two, zero, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, two, big, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, two, NULL, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, NULL, w, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n 2", 1024, two, w, 2), -1);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", MD_SIZE_INF, two, w, 2), -1);
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(c->num_rails, 0);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 1024, two, w, 2), 0);
    cr_expect_eq(md_nodeconf_add_rails(c, "n2", 2048, two, w, 2), -1);
    cr_expect_eq(errno, EEXIST);
    cr_expect_eq(md_nodeconf_add_rails(c, "n3", 0, nine, w, 8), 0);
    cr_expect_eq(c->num_rails, 2);
    md_nodeconf_free(c);
}

/* Built in memory in reverse peer order: the canonical text, which
 * parses back to the same bytes; the stored copies are the builder's own. */
Test(nodeconf_rails, built_in_memory_then_written)
{
    md_nodeconf_t *c = md_nodeconf_new("n05");
    char myri[8] = "myri";
    const char *fast[] = { myri, "via", "sci" }, *two[] = { "sci", "myri" };
    uint32_t w[] = { 120, 94, 80 };
    const uint32_t w2[] = { 80, 120 };

    cr_assert_not_null(c);
    cr_assert_eq(md_nodeconf_add_device(c, "shm", NULL, 0), 0);
    cr_assert_eq(md_nodeconf_add_device(c, "myri", NULL, 0), 0);
    cr_assert_eq(md_nodeconf_add_device(c, "sci", NULL, 0), 0);
    cr_assert_eq(md_nodeconf_add_device(c, "via", NULL, 0), 0);
    for (int i = 12; i >= 1; i--) {
        char peer[8];
        const char *on[] = { "myri" };
        snprintf(peer, sizeof(peer), "n%02d", i);
        cr_assert_eq(md_nodeconf_add_route(c, peer, 0, MD_SIZE_INF, "myri",
                                           NULL), 0);
        cr_assert_eq(md_nodeconf_add_arrive(c, peer, on, 1), 0);
        if (i == 5)
            continue;
        /* n08: the same rails in another order; n10: another weight */
        fast[1] = i == 8 ? "sci" : "via";
        fast[2] = i == 8 ? "via" : "sci";
        w[1] = i == 8 ? 80 : i == 10 ? 93 : 94;
        w[2] = i == 8 ? 94 : 80;
        if (i >= 11)
            cr_assert_eq(md_nodeconf_add_rails(c, peer, 1 << 20, two, w2, 2), 0);
        else
            cr_assert_eq(md_nodeconf_add_rails(c, peer, i == 9 ? 131072 : 65536,
                                               fast, w, 3), 0);
    }
    strcpy(myri, "xxxx");                /* the configuration holds a copy */
    w[0] = 7;
    nct_expect_built_as(c, compact);
    md_nodeconf_free(c);
}
