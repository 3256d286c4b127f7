/* Valid per-node files parse to what they say. */
#include <criterion/criterion.h>
#include <string.h>

#include "md_nodeconf.h"

static md_nodeconf_t *parse_ok(const char *text)
{
    md_nodeconf_t *conf = NULL;
    char err[MD_NODECONF_ERR_MAX];

    int rc = md_nodeconf_parse_string(text, "t.conf", &conf, err, sizeof(err));
    cr_assert_eq(rc, 0, "unexpected error: %s", err);
    cr_assert_not_null(conf);
    return conf;
}

/* The example of doc/node-config.md. */
static const char *doc_example =
    "multidev-node-config 1\n"
    "# written by mdconfig from examples/oscar.net for node n1\n"
    "node n1\n"
    "device shm\n"
    "device sci  ring=0\n"
    "device myri switch=sw0 port=1\n"
    "route n1 0 inf shm -\n"
    "route n2 0 16383 sci -\n"
    "route n2 16384 inf myri -\n"
    "route n5 0 inf myri n3\n"
    "arrive n2 sci myri\n"
    "arrive n5 myri\n";

Test(nodeconf_valid, doc_example)
{
    md_nodeconf_t *c = parse_ok(doc_example);

    cr_expect_eq(c->version, 1);
    cr_expect_str_eq(c->node, "n1");
    cr_expect_str_eq(c->source, "t.conf");
    cr_assert_eq(c->num_devices, 3);
    cr_expect_str_eq(c->devices[0].name, "shm");
    cr_expect_eq(c->devices[0].num_params, 0);
    cr_expect_eq(c->devices[0].line, 4);
    cr_expect_str_eq(c->devices[1].name, "sci");
    cr_assert_eq(c->devices[1].num_params, 1);
    cr_expect_str_eq(c->devices[1].params[0].key, "ring");
    cr_expect_str_eq(c->devices[1].params[0].value, "0");
    cr_assert_eq(c->devices[2].num_params, 2);
    cr_expect_str_eq(c->devices[2].params[1].key, "port");
    cr_expect_str_eq(c->devices[2].params[1].value, "1");

    cr_assert_eq(c->num_routes, 4);
    cr_expect_str_eq(c->routes[1].peer, "n2");
    cr_expect_eq(c->routes[1].min, 0);
    cr_expect_eq(c->routes[1].max, 16383);
    cr_expect_str_eq(c->routes[1].subdev, "sci");
    cr_expect_str_eq(c->routes[1].next_hop, "");
    cr_expect_eq(c->routes[1].line, 8);
    cr_expect_eq(c->routes[2].max, MD_SIZE_INF);
    cr_expect_str_eq(c->routes[3].next_hop, "n3");

    cr_assert_eq(c->num_arrives, 2);
    cr_expect_str_eq(c->arrives[0].peer, "n2");
    cr_assert_eq(c->arrives[0].num_subdevs, 2);
    cr_expect_str_eq(c->arrives[0].subdevs[0], "sci");
    cr_expect_str_eq(c->arrives[0].subdevs[1], "myri");
    cr_expect_eq(c->arrives[1].line, 12);
    md_nodeconf_free(c);
}

Test(nodeconf_valid, minimal_file_has_no_routes)
{
    md_nodeconf_t *c = parse_ok("multidev-node-config 1\nnode a\n");

    cr_expect_eq(c->num_devices, 0);
    cr_expect_eq(c->num_routes, 0);
    cr_expect_eq(c->num_arrives, 0);
    md_nodeconf_free(c);
}

Test(nodeconf_valid, size_suffixes_tabs_crlf_and_comments)
{
    md_nodeconf_t *c = parse_ok(
        "# leading comment\r\n"
        "\n"
        "multidev-node-config 1   # magic\r\n"
        "\tnode\tn1\r\n"
        "device sci\n"
        "route n2 0 8k sci -   # 0..8192\n"
        "route n2 8193 1M sci -\n"
        "route n2 1048577 inf sci -\n");

    cr_assert_eq(c->num_routes, 3);
    cr_expect_eq(c->routes[0].max, 8192);
    cr_expect_eq(c->routes[1].max, 1048576);
    cr_expect_eq(c->routes[2].max, MD_SIZE_INF);
    md_nodeconf_free(c);
}

Test(nodeconf_valid, devices_may_follow_their_use_and_routes_interleave)
{
    md_nodeconf_t *c = parse_ok(
        "multidev-node-config 1\n"
        "route b 0 99 via -\n"
        "route a 0 inf via -\n"
        "route b 100 inf via -\n"
        "arrive b via\n"
        "node n\n"
        "device via\n");

    /* stored grouped by peer, ascending min */
    cr_assert_eq(c->num_routes, 3);
    cr_expect_str_eq(c->routes[0].peer, "a");
    cr_expect_str_eq(c->routes[1].peer, "b");
    cr_expect_eq(c->routes[1].min, 0);
    cr_expect_eq(c->routes[2].min, 100);
    cr_expect_eq(c->routes[2].line, 4);
    md_nodeconf_free(c);
}

Test(nodeconf_valid, route_to_the_node_itself_and_forwarding)
{
    md_nodeconf_t *c = parse_ok(
        "multidev-node-config 1\nnode n1\ndevice shm\ndevice myri\n"
        "route n1 0 inf shm -\nroute n9 0 inf myri n3\n");

    cr_expect_str_eq(c->routes[0].peer, "n1");
    cr_expect_str_eq(c->routes[1].next_hop, "n3");
    md_nodeconf_free(c);
}

Test(nodeconf_valid, parameter_values_may_be_empty_or_hold_punctuation)
{
    md_nodeconf_t *c = parse_ok(
        "multidev-node-config 1\nnode n1\n"
        "device myri addr=10.0.0.1:7000 empty= path=/dev/myri0,x=y\n");

    cr_assert_eq(c->devices[0].num_params, 3);
    cr_expect_str_eq(c->devices[0].params[0].value, "10.0.0.1:7000");
    cr_expect_str_eq(c->devices[0].params[1].value, "");
    cr_expect_str_eq(c->devices[0].params[2].key, "path");
    cr_expect_str_eq(c->devices[0].params[2].value, "/dev/myri0,x=y");
    md_nodeconf_free(c);
}

Test(nodeconf_valid, names_of_63_characters)
{
    char text[512], name[64];

    memset(name, 'x', 63);
    name[63] = '\0';
    snprintf(text, sizeof(text), "multidev-node-config 1\nnode %s\n", name);
    md_nodeconf_t *c = parse_ok(text);
    cr_expect_str_eq(c->node, name);
    md_nodeconf_free(c);
}
