/* mdc_test_util.c - helpers shared by the mdconfig tests. */
#include <criterion/criterion.h>
#include <string.h>

#include "mdc_test_util.h"

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
