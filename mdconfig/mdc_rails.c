/*
 * mdc_rails.c - which rail networks join each pair of nodes directly
 * (mdc_rails.h).
 *
 * Computed once: the components of every rail network (its switches,
 * rings and buses, joined by its trunks: union-find over segments), the
 * member nodes of each component, each node's (network, component)
 * attachments and its links.  A source then marks, for every peer, a bit
 * per rail network it shares with the peer: one pass over the members of
 * the source's own components and over its links, so a source costs O(N)
 * however many pairs there are.  Peers with the same bits share one rails
 * line, computed once per source (mdc_rails_model).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_parse_int.h"               /* mdc_grow */
#include "mdc_mem.h"
#include "mdc_rails.h"

/* A source's rail networks beyond this many are not considered (a node
 * has one network per type, so this takes 64 network types). */
#define NETS_MAX 64

/* A node on a switch, ring or bus of a rail network, or on a link of one. */
typedef struct att {
    int      net;
    uint32_t comp;               /* the segment's component */
} att_t;

typedef struct link {
    int      net;
    uint32_t peer;               /* the other end */
} link_t;

struct mdc_rails {
    const mdc_graph_t *g;
    uint32_t  n;                 /* nodes */
    uint32_t *att_first;         /* [node + 1]: index into att */
    att_t    *att;
    uint32_t *comp_first;        /* [comp + 1]: the component's ... */
    uint32_t *comp_node;         /* ... member nodes */
    uint32_t *link_first;        /* [node + 1]: index into link */
    link_t   *link;
    size_t    big_class;         /* the size class of 1 GiB */
};

static int is_rail(const mdc_desc_t *d, int net)
{
    return mdc_desc_network_routable(d, net) &&
           d->types[d->networks[net].type].sysmsg;
}

static uint32_t find_root(uint32_t *parent, uint32_t s)
{
    while (parent[s] != s) {
        parent[s] = parent[parent[s]];     /* path halving */
        s = parent[s];
    }
    return s;
}

/* comp[seg]: the component of each switch, ring or bus of a rail network,
 * numbered from 0 (UINT32_MAX for the other segments); returns how many
 * there are, or -1 on out of memory. */
static int64_t segment_components(const mdc_desc_t *d, uint32_t *comp)
{
    uint32_t *parent = malloc((d->num_segments + 1) * sizeof(*parent));
    uint32_t *number = malloc((d->num_segments + 1) * sizeof(*number));
    int64_t n = 0;

    if (parent == NULL || number == NULL) {
        free(parent);
        free(number);
        return -1;
    }
    for (uint32_t s = 0; s < d->num_segments; s++) {
        parent[s] = s;
        number[s] = UINT32_MAX;
    }
    for (size_t t = 0; t < d->num_trunks; t++) {
        const mdc_trunk_t *tr = &d->trunks[t];
        if (is_rail(d, tr->network))
            parent[find_root(parent, (uint32_t)tr->seg_a)] =
                find_root(parent, (uint32_t)tr->seg_b);
    }
    for (uint32_t s = 0; s < d->num_segments; s++) {
        const mdc_segment_t *seg = &d->segments[s];
        comp[s] = UINT32_MAX;
        if (seg->kind == MDC_SEG_LINK || !is_rail(d, seg->network))
            continue;
        uint32_t root = find_root(parent, s);
        if (number[root] == UINT32_MAX)
            number[root] = (uint32_t)n++;
        comp[s] = number[root];
    }
    free(parent);
    free(number);
    return n;
}

/* first[] of a CSR from the counts in first[1..n]. */
static void prefix_sums(uint32_t *first, uint32_t n)
{
    first[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        first[i + 1] += first[i];
}

static int build_attachments(mdc_rails_t *r, const uint32_t *comp,
                             uint32_t num_comps)
{
    const mdc_desc_t *d = r->g->desc;
    size_t total = 0;

    r->att_first = calloc(r->n + 1, sizeof(uint32_t));
    r->comp_first = calloc((size_t)num_comps + 2, sizeof(uint32_t));
    if (r->att_first == NULL || r->comp_first == NULL)
        return -1;
    for (uint32_t v = 0; v < r->n; v++)
        for (size_t i = 0; i < d->nodes[v].num_attach; i++) {
            uint32_t c = comp[d->nodes[v].attach[i].segment];
            if (c != UINT32_MAX) {
                r->att_first[v + 1]++;
                r->comp_first[c + 1]++;
                total++;
            }
        }
    prefix_sums(r->att_first, r->n);
    prefix_sums(r->comp_first, num_comps);
    r->att = malloc((total + 1) * sizeof(*r->att));
    r->comp_node = malloc((total + 1) * sizeof(uint32_t));
    uint32_t *fill = calloc((size_t)num_comps + 1, sizeof(uint32_t));
    if (r->att == NULL || r->comp_node == NULL || fill == NULL) {
        free(fill);
        return -1;
    }
    for (uint32_t v = 0, at = 0; v < r->n; v++)
        for (size_t i = 0; i < d->nodes[v].num_attach; i++) {
            const mdc_attach_t *a = &d->nodes[v].attach[i];
            uint32_t c = comp[a->segment];
            if (c == UINT32_MAX)
                continue;
            r->att[at++] = (att_t){ a->network, c };
            r->comp_node[r->comp_first[c] + fill[c]++] = v;
        }
    free(fill);
    return 0;
}

static int build_links(mdc_rails_t *r)
{
    const mdc_desc_t *d = r->g->desc;
    uint32_t *fill = NULL;

    r->link_first = calloc(r->n + 1, sizeof(uint32_t));
    if (r->link_first == NULL)
        return -1;
    for (size_t s = 0; s < d->num_segments; s++) {
        const mdc_segment_t *seg = &d->segments[s];
        if (seg->kind == MDC_SEG_LINK && is_rail(d, seg->network)) {
            r->link_first[seg->members[0].node + 1]++;
            r->link_first[seg->members[1].node + 1]++;
        }
    }
    prefix_sums(r->link_first, r->n);
    r->link = malloc((r->link_first[r->n] + 1) * sizeof(*r->link));
    fill = malloc((r->n + 1) * sizeof(uint32_t));
    if (r->link == NULL || fill == NULL) {
        free(fill);
        return -1;
    }
    memcpy(fill, r->link_first, r->n * sizeof(uint32_t));
    for (size_t s = 0; s < d->num_segments; s++) {
        const mdc_segment_t *seg = &d->segments[s];
        if (seg->kind != MDC_SEG_LINK || !is_rail(d, seg->network))
            continue;
        for (int end = 0; end < 2; end++) {
            uint32_t at = fill[seg->members[end].node]++;
            r->link[at] = (link_t){ seg->network,
                                    (uint32_t)seg->members[1 - end].node };
        }
    }
    free(fill);
    return 0;
}

mdc_rails_t *mdc_rails_new(const mdc_graph_t *g)
{
    const mdc_desc_t *d = g->desc;
    mdc_rails_t *r = calloc(1, sizeof(*r));
    uint32_t *comp = malloc((d->num_segments + 1) * sizeof(*comp));
    int64_t num_comps = comp != NULL ? segment_components(d, comp) : -1;

    if (r != NULL) {
        r->g = g;
        r->n = (uint32_t)d->num_nodes;
        r->big_class = mdc_graph_class_of(g, MDC_RAILS_FROM_MAX);
    }
    int ok = r != NULL && num_comps >= 0 &&
             build_attachments(r, comp, (uint32_t)num_comps) == 0 &&
             build_links(r) == 0;
    free(comp);
    if (!ok) {
        mdc_rails_free(r);
        r = NULL;
    }
    return r;
}

void mdc_rails_free(mdc_rails_t *r)
{
    if (r == NULL)
        return;
    free(r->att_first);
    free(r->att);
    free(r->comp_first);
    free(r->comp_node);
    free(r->link_first);
    free(r->link);
    free(r);
}

/* The source's rail networks, ascending (a peer's bit i stands for
 * nets[i]); returns how many. */
static size_t source_nets(const mdc_rails_t *r, uint32_t src, int *nets)
{
    size_t n = 0;

    for (int pass = 0; pass < 2; pass++) {
        uint32_t lo = pass == 0 ? r->att_first[src] : r->link_first[src];
        uint32_t hi = pass == 0 ? r->att_first[src + 1] : r->link_first[src + 1];
        for (uint32_t i = lo; i < hi; i++) {
            int net = pass == 0 ? r->att[i].net : r->link[i].net;
            size_t at = n;
            while (at > 0 && nets[at - 1] > net)
                at--;
            if ((at > 0 && nets[at - 1] == net) || (at == n && n == NETS_MAX))
                continue;
            if (n == NETS_MAX)
                n--;                        /* the greatest goes */
            memmove(nets + at + 1, nets + at, (n - at) * sizeof(*nets));
            nets[at] = net;
            n++;
        }
    }
    return n;
}

static uint64_t bit_of(const int *nets, size_t n, int net)
{
    for (size_t i = 0; i < n; i++)
        if (nets[i] == net)
            return (uint64_t)1 << i;
    return 0;                               /* beyond NETS_MAX */
}

/* Is rail network x slower than y at 1 GiB (ties: the later one)? */
static int slower(const mdc_rails_t *r, int x, int y)
{
    const mdc_graph_t *g = r->g;
    size_t nn = g->desc->num_networks;
    uint64_t bx = g->net_line[r->big_class * nn + (size_t)x].b;
    uint64_t by = g->net_line[r->big_class * nn + (size_t)y].b;

    return bx > by || (bx == by && x > y);
}

static const char *subdev_of(const mdc_desc_t *d, int net)
{
    return d->types[d->networks[net].type].subdev;
}

/* The rails of a peer sharing the networks of mask, in the description's
 * order: all of them, or the fastest 8 at 1 GiB if there are more.  Of
 * two networks driven by the same subdevice (two types, one module), a
 * node loads one: the faster at 1 GiB is the rail. */
static size_t rails_of_mask(const mdc_rails_t *r, const int *nets,
                            uint64_t mask, int *out)
{
    const mdc_desc_t *d = r->g->desc;
    size_t n = 0;

    for (size_t i = 0; mask != 0; i++, mask >>= 1) {
        if (!(mask & 1))
            continue;
        size_t k = 0;
        while (k < n && strcmp(subdev_of(d, out[k]), subdev_of(d, nets[i])) != 0)
            k++;
        if (k < n && slower(r, nets[i], out[k]))
            continue;
        if (k < n)                          /* nets[i] replaces out[k] */
            memmove(out + k, out + k + 1, (--n - k) * sizeof(*out));
        out[n++] = nets[i];                 /* nets ascend: order kept */
    }
    while (n > MD_NODECONF_RAILS_MAX) {     /* drop the slowest */
        size_t worst = 0;
        for (size_t i = 1; i < n; i++)
            if (slower(r, out[i], out[worst]))
                worst = i;
        memmove(out + worst, out + worst + 1, (n - worst - 1) * sizeof(*out));
        n--;
    }
    return n;
}

/* Per source: the distinct masks seen and what each became. */
typedef struct mask_entry {
    uint64_t mask;
    uint32_t set;                           /* 0: no rails */
} mask_entry_t;

typedef struct mask_cache {
    mask_entry_t *e;
    size_t        num;
} mask_cache_t;

static int set_of_mask(const mdc_rails_t *r, const int *nets, uint64_t mask,
                       mask_cache_t *mc, mdc_src_rails_t *out, uint32_t *set)
{
    for (size_t i = mc->num; i-- > 0;)
        if (mc->e[i].mask == mask) {
            *set = mc->e[i].set;
            return 0;
        }
    mask_entry_t *e = mdc_grow((void **)&mc->e, &mc->num, sizeof(*e));
    int rails[NETS_MAX];
    mdc_rail_set_t line;
    if (e == NULL)
        return -1;
    e->mask = mask;
    if (mdc_rails_model(r->g, rails, rails_of_mask(r, nets, mask, rails),
                        &line)) {
        mdc_rail_set_t *x = mdc_grow((void **)&out->sets, &out->num_sets,
                                     sizeof(*x));
        if (x == NULL)
            return -1;
        *x = line;
        e->set = (uint32_t)out->num_sets;
    }
    *set = e->set;
    return 0;
}

/* Appends the run lo..hi of set to runs (merged with the last when the
 * set is the same). */
static int push_run(mdc_rail_run_t **runs, size_t *num, size_t *cap,
                    uint32_t lo, uint32_t hi, uint32_t set)
{
    if (*num > 0 && (*runs)[*num - 1].set == set &&
        (*runs)[*num - 1].hi + 1 == lo) {
        (*runs)[*num - 1].hi = hi;
        return 0;
    }
    if (mdc_reserve((void **)runs, cap, *num + 1, sizeof(**runs)) != 0)
        return -1;
    (*runs)[(*num)++] = (mdc_rail_run_t){ lo, hi, set };
    return 0;
}

/* Are src's rails the base's but for src itself: the same (network,
 * component) attachments, and no link on either side? */
static int base_fits(const mdc_rails_t *r, uint32_t src,
                     const mdc_src_rails_t *out)
{
    uint32_t b = out->base_src;

    if (!out->base_valid || r->link_first[src] != r->link_first[src + 1] ||
        r->link_first[b] != r->link_first[b + 1] ||
        r->att_first[src + 1] - r->att_first[src] !=
            r->att_first[b + 1] - r->att_first[b])
        return 0;
    for (uint32_t i = 0; i < r->att_first[src + 1] - r->att_first[src]; i++) {
        const att_t *x = &r->att[r->att_first[src] + i];
        const att_t *y = &r->att[r->att_first[b] + i];
        if (x->net != y->net || x->comp != y->comp)
            return 0;
    }
    return 1;
}

/* The base: src's rails to every node, itself included as if a peer. */
static int make_base(const mdc_rails_t *r, uint32_t src, mdc_src_rails_t *out)
{
    int nets[NETS_MAX];
    size_t n = source_nets(r, src, nets);
    uint64_t *mask = calloc(r->n + 1, sizeof(*mask));
    mask_cache_t mc = { 0 };
    int rc = 0;

    out->num_sets = 0;
    out->num_base = 0;
    out->base_valid = 0;
    if (mask == NULL)
        return -1;
    for (uint32_t i = r->att_first[src]; i < r->att_first[src + 1]; i++) {
        uint64_t b = bit_of(nets, n, r->att[i].net);
        uint32_t c = r->att[i].comp;
        for (uint32_t k = r->comp_first[c]; k < r->comp_first[c + 1]; k++)
            mask[r->comp_node[k]] |= b;
    }
    for (uint32_t i = r->link_first[src]; i < r->link_first[src + 1]; i++)
        mask[r->link[i].peer] |= bit_of(nets, n, r->link[i].net);
    uint64_t last_mask = 0;
    uint32_t last_set = 0;
    for (uint32_t p = 0; p < r->n && rc == 0; p++) {
        uint64_t m = mask[p];
        uint32_t set = 0;
        if ((m & (m - 1)) != 0) {           /* two rails or more */
            if (m != last_mask) {
                rc = set_of_mask(r, nets, m, &mc, out, &last_set);
                last_mask = m;
            }
            set = last_set;
        }
        if (rc == 0)
            rc = push_run(&out->base, &out->num_base, &out->cap_base, p, p,
                          set);
    }
    free(mask);
    free(mc.e);
    out->base_src = src;
    out->base_valid = rc == 0;
    return rc;
}

int mdc_rails_of_source(const mdc_rails_t *r, uint32_t src,
                        mdc_src_rails_t *out)
{
    if (!base_fits(r, src, out) && make_base(r, src, out) != 0)
        return -1;
    out->num_runs = 0;
    for (size_t k = 0; k < out->num_base; k++) {
        const mdc_rail_run_t *x = &out->base[k];
        int rc = 0;
        if (src < x->lo || src > x->hi) {
            rc = push_run(&out->run, &out->num_runs, &out->cap_runs, x->lo,
                          x->hi, x->set);
        } else {                            /* no rails to src itself */
            rc = (src > x->lo &&
                  push_run(&out->run, &out->num_runs, &out->cap_runs, x->lo,
                           src - 1, x->set)) ||
                 push_run(&out->run, &out->num_runs, &out->cap_runs, src, src,
                          0) != 0 ||
                 (src < x->hi &&
                  push_run(&out->run, &out->num_runs, &out->cap_runs,
                           src + 1, x->hi, x->set));
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

const mdc_rail_run_t *mdc_src_rails_run_of(const mdc_src_rails_t *sr,
                                           uint32_t peer)
{
    _Static_assert(offsetof(mdc_rail_run_t, lo) == 0, "mdc_run_index reads lo first");
    return &sr->run[mdc_run_index(sr->run, sr->num_runs, sizeof(*sr->run), peer)];
}

const mdc_rail_set_t *mdc_src_rails_set_of(const mdc_src_rails_t *sr,
                                           uint32_t peer)
{
    uint32_t set = mdc_src_rails_run_of(sr, peer)->set;

    return set != 0 ? &sr->sets[set - 1] : NULL;
}

void mdc_src_rails_fini(mdc_src_rails_t *out)
{
    free(out->run);
    free(out->sets);
    free(out->base);
    memset(out, 0, sizeof(*out));
}
