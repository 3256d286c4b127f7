/* mdc_path.c - hops of a tree path (mdc_path.h). */
#include "mdc_path.h"

size_t mdc_path_hops(const mdc_tree_t *t, uint32_t d, mdc_hop_t *hops,
                     size_t max)
{
    const mdc_graph_t *g = t->g;
    size_t n = 0;

    /* walk back from d; a hop ends at every node */
    for (uint32_t v = d; v != t->src && n < max;) {
        mdc_hop_t h = { .to = v, .num_trunks = 0, .trunk_fs = 0 };
        uint32_t u = v;
        do {
            const mdc_edge_t *e = &g->edges[t->pred_edge[u]];
            if (e->kind == MDC_EDGE_TRUNK) {
                h.num_trunks++;
                h.trunk_fs += e->trunk_fs;
            }
            h.network = e->network;
            h.first_edge = (uint32_t)t->pred_edge[u];
            u = t->pred[u];
        } while (u >= g->num_hosts);
        h.from = u;
        hops[n++] = h;
        v = u;
    }
    for (size_t i = 0; i < n / 2; i++) {
        mdc_hop_t x = hops[i];
        hops[i] = hops[n - 1 - i];
        hops[n - 1 - i] = x;
    }
    return n;
}
