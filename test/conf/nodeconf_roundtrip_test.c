/* write -> parse -> write gives the same bytes; the canonical form does not
 * depend on the order the configuration was built in. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

    cr_assert_eq(md_nodeconf_parse_string(text, "rt.conf", &conf, err,
                                          sizeof(err)), 0, "%s", err);
    return conf;
}

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
    md_nodeconf_t *c = parse(messy);
    char *out = write_to_string(c);

    cr_expect_str_eq(out, canonical);
    free(out);
    md_nodeconf_free(c);
}

Test(nodeconf_roundtrip, write_parse_write_is_byte_identical)
{
    md_nodeconf_t *c1 = parse(messy);
    char *w1 = write_to_string(c1);
    md_nodeconf_t *c2 = parse(w1);
    char *w2 = write_to_string(c2);

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
    char *w = write_to_string(c);
    cr_expect_str_eq(w, canonical);
    md_nodeconf_t *back = parse(w);
    char *w2 = write_to_string(back);
    cr_expect_str_eq(w2, w);
    free(w);
    free(w2);
    md_nodeconf_free(back);
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
    md_nodeconf_t *c = parse(text);
    char *w = write_to_string(c);
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
