/* Lookups at the range boundaries, for peers whose names share prefixes. */
#include <criterion/criterion.h>
#include <string.h>

#include "md_nodeconf.h"

static md_nodeconf_t *conf;

static void setup(void)
{
    char err[MD_NODECONF_ERR_MAX];
    const char *text =
        "multidev-node-config 1\nnode n1\n"
        "device shm\ndevice sci ring=0\ndevice myri\n"
        "route n1 0 inf shm -\n"
        "route n10 0 0 sci -\n"
        "route n10 1 inf myri n3\n"
        "route n2 0 16383 sci -\n"
        "route n2 16384 1m myri -\n"
        "route n2 1048577 inf sci -\n"
        "arrive n2 sci myri\n"
        "arrive n10 myri\n";

    cr_assert_eq(md_nodeconf_parse_string(text, "l.conf", &conf, err,
                                          sizeof(err)), 0, "%s", err);
}

static void teardown(void)
{
    md_nodeconf_free(conf);
}

TestSuite(nodeconf_lookup, .init = setup, .fini = teardown);

static void expect_route(const char *peer, size_t size, const char *subdev,
                         const char *hop)
{
    const md_nodeconf_route_t *r = md_nodeconf_find_route(conf, peer, size);

    cr_assert_not_null(r, "no route to %s for %zu", peer, size);
    cr_expect_str_eq(r->peer, peer);
    cr_expect_str_eq(r->subdev, subdev, "%s at %zu", peer, size);
    cr_expect_str_eq(r->next_hop, hop, "%s at %zu", peer, size);
    cr_expect(r->min <= size && size <= r->max);
}

Test(nodeconf_lookup, boundaries_of_every_range)
{
    expect_route("n2", 0, "sci", "");
    expect_route("n2", 16383, "sci", "");
    expect_route("n2", 16384, "myri", "");
    expect_route("n2", 1048576, "myri", "");
    expect_route("n2", 1048577, "sci", "");
    expect_route("n2", MD_SIZE_INF, "sci", "");
    expect_route("n2", MD_SIZE_INF - 1, "sci", "");
    expect_route("n10", 0, "sci", "");
    expect_route("n10", 1, "myri", "n3");
    expect_route("n10", MD_SIZE_INF, "myri", "n3");
    expect_route("n1", 0, "shm", "");
    expect_route("n1", 12345, "shm", "");
}

Test(nodeconf_lookup, unknown_peers)
{
    cr_expect_null(md_nodeconf_find_route(conf, "n", 0));
    cr_expect_null(md_nodeconf_find_route(conf, "n0", 5));
    cr_expect_null(md_nodeconf_find_route(conf, "n100", 5));
    cr_expect_null(md_nodeconf_find_route(conf, "n3", MD_SIZE_INF));
    cr_expect_null(md_nodeconf_find_route(conf, "zz", 0));
    cr_expect_null(md_nodeconf_find_route(conf, "", 0));
    cr_expect_null(md_nodeconf_find_route(conf, NULL, 0));
    cr_expect_null(md_nodeconf_find_route(NULL, "n2", 0));
    cr_expect_null(md_nodeconf_find_arrive(conf, "n1"));
    cr_expect_null(md_nodeconf_find_arrive(conf, "n3"));
    cr_expect_null(md_nodeconf_find_device(conf, "via"));
    cr_expect_null(md_nodeconf_find_device(conf, "sc"));
}

Test(nodeconf_lookup, arrive_and_device)
{
    const md_nodeconf_arrive_t *a = md_nodeconf_find_arrive(conf, "n2");

    cr_assert_not_null(a);
    cr_assert_eq(a->num_subdevs, 2);
    cr_expect_str_eq(a->subdevs[1], "myri");
    a = md_nodeconf_find_arrive(conf, "n10");
    cr_assert_not_null(a);
    cr_expect_str_eq(a->subdevs[0], "myri");
    const md_nodeconf_device_t *d = md_nodeconf_find_device(conf, "sci");
    cr_assert_not_null(d);
    cr_expect_str_eq(d->params[0].value, "0");
}

/* A configuration built in memory may have holes; lookups must not invent
 * a route for a size in one. */
Test(nodeconf_lookup, holes_in_memory_built_tables)
{
    md_nodeconf_t *c = md_nodeconf_new("a");

    cr_assert_eq(md_nodeconf_add_route(c, "b", 0, 10, "via", NULL), 0);
    cr_assert_eq(md_nodeconf_add_route(c, "b", 20, MD_SIZE_INF, "via", NULL),
                 0);
    cr_expect_not_null(md_nodeconf_find_route(c, "b", 10));
    cr_expect_null(md_nodeconf_find_route(c, "b", 11));
    cr_expect_null(md_nodeconf_find_route(c, "b", 19));
    cr_expect_not_null(md_nodeconf_find_route(c, "b", 20));
    md_nodeconf_free(c);
}

/* Many peers: lookups stay right when the table is large. */
Test(nodeconf_lookup, many_peers)
{
    md_nodeconf_t *c = md_nodeconf_new("self");
    char peer[32];

    for (int i = 4095; i >= 0; i--) {
        snprintf(peer, sizeof(peer), "n%04d", i);
        cr_assert_eq(md_nodeconf_add_route(c, peer, 0, (size_t)i, "sci",
                                           NULL), 0);
        cr_assert_eq(md_nodeconf_add_route(c, peer, (size_t)i + 1,
                                           MD_SIZE_INF, "myri", NULL), 0);
    }
    for (int i = 0; i < 4096; i++) {
        snprintf(peer, sizeof(peer), "n%04d", i);
        const md_nodeconf_route_t *r =
            md_nodeconf_find_route(c, peer, (size_t)i);
        cr_assert_not_null(r);
        cr_assert_str_eq(r->subdev, "sci");
        r = md_nodeconf_find_route(c, peer, (size_t)i + 1);
        cr_assert_str_eq(r->subdev, "myri");
    }
    md_nodeconf_free(c);
}
