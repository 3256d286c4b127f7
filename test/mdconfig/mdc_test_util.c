/* mdc_test_util.c - helpers shared by the mdconfig tests. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_lines.h"

#include "mdc_test_util.h"

const char *const mdct_switches_and_rings =
    "multidev-network 1\n"
    "forward 20us\n"
    "node n[00-31]\n"
    "network myri0 type=myri latency=9us bandwidth=120MB/s\n"
    "network sci0 type=sci latency=8us bandwidth=76MB/s\n"
    "switch myri0 a n[00-15]\n"
    "switch myri0 b n[16-31]\n"
    "trunk myri0 a b latency=0.5us\n"
    "ring sci0 r0 n[00-07]\n"
    "ring sci0 r1 n[08-15]\n"
    "ring sci0 r2 n[16-23]\n"
    "ring sci0 r3 n[24-31]\n";

mdc_graph_t *mdct_graph(const char *text)
{
    mdc_desc_t *d = NULL;
    char err[MDC_ERR_MAX];

    cr_assert_eq(mdc_desc_parse_buffer(text, strlen(text), "t.net", &d, err,
                                       sizeof(err)), 0, "%s\n%s", err, text);
    mdc_graph_t *g = mdc_graph_build(d);
    cr_assert_not_null(g);
    return g;
}

void mdct_graph_free(mdc_graph_t *g)
{
    mdc_desc_t *d = (mdc_desc_t *)g->desc;

    mdc_graph_free(g);
    mdc_desc_free(d);
}

void mdct_routes(const mdc_graph_t *g, uint32_t src, mdc_routes_t *out)
{
    mdc_router_t *r = mdc_router_new(g);

    cr_assert_not_null(r);
    memset(out, 0, sizeof(*out));
    cr_assert_eq(mdc_route_source(r, src, out), 0);
    mdc_router_free(r);
}

uint32_t mdct_node(const mdc_graph_t *g, const char *name)
{
    int n = mdc_desc_find_node(g->desc, name);

    cr_assert_geq(n, 0, "no node %s", name);
    return (uint32_t)n;
}

const mdc_rseg_t *mdct_find(const mdc_graph_t *g, const mdc_routes_t *r,
                            const char *dst, size_t size)
{
    return mdc_routes_find(r, mdct_node(g, dst), size);
}

void mdct_tmpdir(char *buf, size_t len, const char *tag)
{
    snprintf(buf, len, "/tmp/mdc_test_%s_XXXXXX", tag);
    cr_assert_not_null(mkdtemp(buf));
}

void mdct_rm_dir(const char *dir)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

char *mdct_slurp(const char *path, size_t *len)
{
    char *buf = md_read_file(path, len);

    cr_assert_not_null(buf, "%s", path);
    return buf;
}

md_nodeconf_t *mdct_load(const char *dir, const char *node)
{
    char path[512], err[MD_NODECONF_ERR_MAX];
    md_nodeconf_t *c = NULL;

    snprintf(path, sizeof(path), "%s/%s.conf", dir, node);
    cr_assert_eq(md_nodeconf_parse_file(path, &c, err, sizeof(err)), 0, "%s",
                 err);
    return c;
}
