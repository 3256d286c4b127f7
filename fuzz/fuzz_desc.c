/*
 * fuzz_desc.c - libFuzzer target over the network description parser.
 * Any input must parse or fail with a positioned message, never crash;
 * small descriptions that parse are also built into a graph and routed
 * (every node, every size), so the router sees odd inputs too, and their
 * rails are computed: lines of 2 to 8 rails that pay from a power of two,
 * the same both ways between two nodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_desc.h"
#include "mdc_graph.h"
#include "mdc_rails.h"
#include "mdc_route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The rails line from src to peer, or NULL. */
static const mdc_rail_set_t *rails_to(const mdc_src_rails_t *sr, uint32_t peer)
{
    return mdc_src_rails_set_of(sr, peer);
}

static void check_rails(const mdc_graph_t *g)
{
    mdc_rails_t *rails = mdc_rails_new(g);
    mdc_src_rails_t from_s = { 0 }, from_x = { 0 };

    for (uint32_t s = 0; rails != NULL && s < g->num_hosts; s++) {
        if (mdc_rails_of_source(rails, s, &from_s) != 0)
            break;
        for (uint32_t x = 0; x < g->num_hosts; x++) {
            const mdc_rail_set_t *a = rails_to(&from_s, x), *b;
            if (a == NULL)
                continue;
            if (x == s || a->num < 2 || a->num > MD_NODECONF_RAILS_MAX ||
                a->from < MDC_RAILS_FROM_MIN || a->from > MDC_RAILS_FROM_MAX ||
                (a->from & (a->from - 1)) != 0 || a->weight[a->num - 1] < 1)
                abort();
            if (mdc_rails_of_source(rails, x, &from_x) != 0)
                break;
            b = rails_to(&from_x, s);
            if (b == NULL || memcmp(a, b, sizeof(*a)) != 0)
                abort();               /* the same rails both ways */
        }
    }
    mdc_src_rails_fini(&from_s);
    mdc_src_rails_fini(&from_x);
    mdc_rails_free(rails);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mdc_desc_t *d = NULL;
    char err[MDC_ERR_MAX];

    if (mdc_desc_parse_buffer((const char *)data, size, "fuzz.net", &d, err,
                              sizeof(err)) != 0) {
        if (strncmp(err, "fuzz.net:", 9) != 0 || memchr(err, '\0',
                                                        sizeof(err)) == NULL)
            abort();                   /* every error names its position */
        return 0;
    }
    if (d->num_nodes <= 12 && d->num_segments <= 64) {
        mdc_graph_t *g = mdc_graph_build(d);
        mdc_router_t *r = g != NULL ? mdc_router_new(g) : NULL;
        mdc_routes_t routes;
        memset(&routes, 0, sizeof(routes));
        for (uint32_t s = 0; r != NULL && s < g->num_hosts; s++) {
            if (mdc_route_source(r, s, &routes) != 0)
                break;
            /* every destination's segments cover all sizes, in order */
            for (uint32_t x = 0; x < g->num_hosts; x++) {
                uint32_t a = routes.first[x], b = routes.first[x + 1];
                if (a == b)
                    continue;
                if (routes.seg[a].lo != 0 || routes.seg[b - 1].hi != SIZE_MAX)
                    abort();
                for (uint32_t i = a + 1; i < b; i++)
                    if (routes.seg[i].lo != routes.seg[i - 1].hi + 1)
                        abort();
            }
        }
        mdc_routes_fini(&routes);
        mdc_router_free(r);
        if (g != NULL)
            check_rails(g);
        mdc_graph_free(g);
    }
    mdc_desc_free(d);
    return 0;
}
