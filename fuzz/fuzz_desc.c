/*
 * fuzz_desc.c - libFuzzer target over the network description parser.
 * Any input must parse or fail with a positioned message, never crash;
 * small descriptions that parse are also built into a graph and routed
 * (every node, every size), so the router sees odd inputs too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_desc.h"
#include "mdc_graph.h"
#include "mdc_route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        mdc_graph_free(g);
    }
    mdc_desc_free(d);
    return 0;
}
