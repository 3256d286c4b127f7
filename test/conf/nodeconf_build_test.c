/* Building a configuration in memory rejects what could not be written
 * back: bad names, bad values, duplicates, reversed ranges. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "md_nodeconf.h"

Test(nodeconf_build, new_rejects_bad_node_names)
{
    errno = 0;
    cr_expect_null(md_nodeconf_new("bad name"));
    cr_expect_eq(errno, EINVAL);
    cr_expect_null(md_nodeconf_new("-"));
    md_nodeconf_t *c = md_nodeconf_new("n-1.a_b");
    cr_expect_not_null(c);
    md_nodeconf_free(c);
    md_nodeconf_free(NULL);
}

Test(nodeconf_build, devices)
{
    md_nodeconf_t *c = md_nodeconf_new("n1");
    md_nodeconf_kv_t space[] = { { "k", "a b" } };
    md_nodeconf_kv_t hash[] = { { "k", "a#b" } };
    md_nodeconf_kv_t dup[] = { { "k", "1" }, { "k", "2" } };
    md_nodeconf_kv_t badkey[] = { { "k=", "1" } };

    cr_expect_eq(md_nodeconf_add_device(c, "sci", NULL, 0), 0);
    errno = 0;
    cr_expect_eq(md_nodeconf_add_device(c, "sci", NULL, 0), -1);
    cr_expect_eq(errno, EEXIST);
    cr_expect_eq(md_nodeconf_add_device(c, "s ci", NULL, 0), -1);
    cr_expect_eq(md_nodeconf_add_device(c, "via", space, 1), -1);
    cr_expect_eq(md_nodeconf_add_device(c, "via", hash, 1), -1);
    cr_expect_eq(md_nodeconf_add_device(c, "via", dup, 2), -1);
    cr_expect_eq(md_nodeconf_add_device(c, "via", badkey, 1), -1);
    cr_expect_eq(md_nodeconf_add_device(c, "via", NULL, 1), -1);
    cr_expect_eq(c->num_devices, 1);
    md_nodeconf_free(c);
}

Test(nodeconf_build, routes)
{
    md_nodeconf_t *c = md_nodeconf_new("n1");

    cr_expect_eq(md_nodeconf_add_route(c, "n2", 10, 5, "sci", NULL), -1);
    cr_expect_eq(errno, EINVAL);
    cr_expect_eq(md_nodeconf_add_route(c, "n2", MD_SIZE_INF, MD_SIZE_INF,
                                       "sci", NULL), -1);
    cr_expect_eq(md_nodeconf_add_route(c, "n 2", 0, 5, "sci", NULL), -1);
    cr_expect_eq(md_nodeconf_add_route(c, "n2", 0, 5, "", NULL), -1);
    cr_expect_eq(md_nodeconf_add_route(c, "n2", 0, 5, "sci", "n/3"), -1);
    cr_expect_eq(md_nodeconf_add_route(c, "n2", 0, 5, "sci", NULL), 0);
    cr_expect_eq(md_nodeconf_add_route(c, "n2", 0, 9, "via", NULL), -1);
    cr_expect_eq(errno, EEXIST);
    cr_expect_eq(c->num_routes, 1);
    md_nodeconf_free(c);
}

Test(nodeconf_build, arrives)
{
    md_nodeconf_t *c = md_nodeconf_new("n1");
    const char *ok[] = { "sci", "myri" }, *dup[] = { "sci", "sci" };
    const char *bad[] = { "s ci" };

    cr_expect_eq(md_nodeconf_add_arrive(c, "n2", ok, 0), -1);
    cr_expect_eq(md_nodeconf_add_arrive(c, "n2", dup, 2), -1);
    cr_expect_eq(md_nodeconf_add_arrive(c, "n2", bad, 1), -1);
    cr_expect_eq(md_nodeconf_add_arrive(c, "n2", ok, 2), 0);
    cr_expect_eq(md_nodeconf_add_arrive(c, "n2", ok, 1), -1);
    cr_expect_eq(errno, EEXIST);
    md_nodeconf_free(c);
}
