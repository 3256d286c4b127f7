/* mdc_nodefile.c - build and write one node's file (mdc_nodefile.h). */
#include <stdlib.h>
#include <string.h>

#include "md_ipv4.h"
#include "md_names.h"
#include "md_nodeconf_out.h"
#include "mdc_nodefile.h"
#include "mdc_rails.h"

static const mdc_desc_t *g_sort_desc;  /* qsort has no context argument */

static int cmp_by_name(const void *x, const void *y)
{
    const mdc_desc_t *d = g_sort_desc;

    return strcmp(d->nodes[*(const uint32_t *)x].name,
                  d->nodes[*(const uint32_t *)y].name);
}

int mdc_peer_order_init(mdc_peer_order_t *o, const mdc_desc_t *desc)
{
    o->node = malloc((desc->num_nodes + 1) * sizeof(*o->node));
    o->follows = calloc(desc->num_nodes + 1, 1);
    o->stride = malloc((desc->num_nodes + 1) * sizeof(*o->stride));
    if (o->node == NULL || o->follows == NULL || o->stride == NULL) {
        mdc_peer_order_fini(o);
        return -1;
    }
    for (uint32_t i = 0; i < desc->num_nodes; i++)
        o->node[i] = i;
    g_sort_desc = desc;                /* called once, before any thread */
    qsort(o->node, desc->num_nodes, sizeof(*o->node), cmp_by_name);
    for (uint32_t i = 1; i < desc->num_nodes; i++)
        o->follows[i] = (uint8_t)md_names_follows(
            desc->nodes[o->node[i - 1]].name, desc->nodes[o->node[i]].name);
    for (uint32_t i = (uint32_t)desc->num_nodes; i-- > 0;)
        o->stride[i] = i + 1 < desc->num_nodes && o->follows[i + 1] &&
                       o->node[i + 1] == o->node[i] + 1
                       ? o->stride[i + 1] + 1 : 1;
    return 0;
}

void mdc_peer_order_fini(mdc_peer_order_t *o)
{
    free(o->node);
    free(o->follows);
    free(o->stride);
    o->node = NULL;
    o->follows = NULL;
    o->stride = NULL;
}

static const char *net_subdev(const mdc_desc_t *d, int net)
{
    return d->types[d->networks[net].type].subdev;
}

/* The device line of the subdevice serving network net at node: net=,
 * its place, where its NIC binds (subnet= or iface=, and addr=), then the
 * dev. parameters. */
static int add_net_device(md_nodeconf_t *conf, const mdc_desc_t *d,
                          uint32_t node, int net)
{
    static const char *const place[] = { "switch", "ring", "bus", NULL };
    static const char *const pos_key[] = { "port", "pos", NULL, NULL };
    const mdc_network_t *nw = &d->networks[net];
    const mdc_node_addr_t *own = mdc_desc_node_addr(d, (int)node, net);
    md_nodeconf_kv_t kv[6 + 64];
    char port[16], addr[MD_IPV4_TEXT_MAX];
    size_t n = 0;

    kv[n++] = (md_nodeconf_kv_t){ "net", (char *)nw->name };
    const mdc_attach_t *a = NULL;
    for (size_t i = 0; i < d->nodes[node].num_attach; i++) {
        const mdc_attach_t *x = &d->nodes[node].attach[i];
        if (x->network == net &&
            d->segments[x->segment].kind != MDC_SEG_LINK)
            a = x;
    }
    if (a != NULL) {
        const mdc_segment_t *s = &d->segments[a->segment];
        kv[n++] = (md_nodeconf_kv_t){ (char *)place[s->kind],
                                      (char *)s->name };
        if (pos_key[s->kind] != NULL) {
            snprintf(port, sizeof(port), "%d", a->port);
            kv[n++] = (md_nodeconf_kv_t){ (char *)pos_key[s->kind], port };
        }
    }
    if (nw->subnet[0] != '\0')
        kv[n++] = (md_nodeconf_kv_t){ "subnet", (char *)nw->subnet };
    if (nw->iface[0] != '\0')
        kv[n++] = (md_nodeconf_kv_t){ "iface", (char *)nw->iface };
    if (own != NULL)
        kv[n++] = (md_nodeconf_kv_t){ "addr", (char *)md_ipv4_format(own->addr, addr) };
    for (size_t i = 0; i < nw->num_dev_params && n < 6 + 64; i++) {
        int clash = 0;                 /* our own keys win */
        for (size_t k = 0; k < n; k++)
            clash |= strcmp(kv[k].key, nw->dev_params[i].key) == 0;
        if (!clash)
            kv[n++] = nw->dev_params[i];
    }
    return md_nodeconf_add_device(conf, net_subdev(d, net), kv, n);
}

static int add_devices(md_nodeconf_t *conf, const mdc_desc_t *d,
                       uint32_t src, const uint8_t *used)
{
    const char *local = d->types[d->nodes[src].local_type].subdev;
    int local_net = -1;

    for (size_t i = 0; i < d->num_networks; i++)
        if (d->networks[i].type == d->nodes[src].local_type &&
            mdc_desc_attach(d, (int)src, (int)i) != NULL)
            local_net = (int)i;
    if (local_net >= 0) {
        if (add_net_device(conf, d, src, local_net) != 0)
            return -1;
    } else if (md_nodeconf_add_device(conf, local, NULL, 0) != 0) {
        return -1;
    }
    for (size_t i = 0; i < d->num_networks; i++)
        if (used[i] && (int)i != local_net &&
            add_net_device(conf, d, src, (int)i) != 0)
            return -1;
    return 0;
}

/* One route line, (subdev only) one arrive subdevice, or one rail of a
 * rails line (lo: its weight, hi: the line's from). */
typedef struct line {
    size_t      lo, hi;
    const char *subdev;
    int32_t     hop;                  /* -1: direct */
} line_t;

typedef struct peer_lines {
    line_t *line;
    size_t  num, cap;
} peer_lines_t;

static inline int push_line(peer_lines_t *pl, line_t l)
{
    if (pl->num == pl->cap) {
        size_t cap = pl->cap ? 2 * pl->cap : 16;
        line_t *x = realloc(pl->line, cap * sizeof(*x));
        if (x == NULL)
            return -1;
        pl->line = x;
        pl->cap = cap;
    }
    pl->line[pl->num++] = l;
    return 0;
}

/* The route lines to the peers of run pr: adjacent segments with the same
 * subdevice and next hop become one line; to the node itself, its local
 * subdevice. */
static int route_lines(const mdc_graph_t *g, const mdc_routes_t *r,
                       const mdc_prun_t *pr, peer_lines_t *out)
{
    const mdc_desc_t *d = g->desc;
    const mdc_rseg_t *seg = mdc_rseg_at(r->rseg, pr->seg);

    out->num = 0;
    if (pr->lo == r->src)
        return push_line(out, (line_t){ 0, MD_SIZE_INF,
            d->types[d->nodes[r->src].local_type].subdev, -1 });
    for (uint32_t i = 0; i < pr->num;) {
        const mdc_decision_t *x = &seg[i].dec;
        uint32_t j = i + 1;
        while (j < pr->num && seg[j].dec.first_net == x->first_net &&
               seg[j].dec.next_hop == x->next_hop)
            j++;
        if (push_line(out, (line_t){ seg[i].lo, seg[j - 1].hi,
                                     net_subdev(d, x->first_net),
                                     x->next_hop }) != 0)
            return -1;
        i = j;
    }
    return 0;
}

/* What the peer's messages arrive on, from its route lines, in size order,
 * each once: by symmetry of the routes, the subdevice of a direct line, or
 * the forwarding receiver ("fwd") for a line through an intermediate node. */
static int arrive_list(const peer_lines_t *routes, peer_lines_t *out)
{
    out->num = 0;
    for (size_t i = 0; i < routes->num; i++) {
        const char *on = routes->line[i].hop < 0 ? routes->line[i].subdev
                                                 : MD_NODECONF_FORWARDED;
        size_t k = 0;
        while (k < out->num && strcmp(out->line[k].subdev, on) != 0)
            k++;
        if (k == out->num && push_line(out, (line_t){ 0, 0, on, -1 }) != 0)
            return -1;
    }
    return 0;
}

/* The rails line sets[set - 1] (none: no lines). */
static int rails_lines(const mdc_desc_t *d, const mdc_src_rails_t *sr,
                       uint32_t set, peer_lines_t *out)
{
    out->num = 0;
    if (sr == NULL || set == 0)
        return 0;
    const mdc_rail_set_t *rs = &sr->sets[set - 1];
    for (size_t i = 0; i < rs->num; i++)
        if (push_line(out, (line_t){ rs->weight[i], rs->from,
                                     net_subdev(d, rs->net[i]), -1 }) != 0)
            return -1;
    return 0;
}

static int same_lines(const peer_lines_t *x, const peer_lines_t *y)
{
    if (x->num != y->num)
        return 0;
    for (size_t i = 0; i < x->num; i++)
        if (x->line[i].lo != y->line[i].lo || x->line[i].hi != y->line[i].hi ||
            x->line[i].hop != y->line[i].hop ||
            (x->line[i].subdev != y->line[i].subdev &&
             strcmp(x->line[i].subdev, y->line[i].subdev) != 0))
            return 0;
    return 1;
}

/* A run of peers (consecutive in name order, names following each other)
 * with the same lines, written as one range. */
typedef struct run {
    const char  *first, *last;
    size_t       count;
    peer_lines_t lines;
} run_t;

typedef enum kind { ROUTES, ARRIVES, RAILS } kind_t;

static void emit(md_nodeconf_out_t *o, const mdc_desc_t *d, const run_t *run,
                 kind_t kind)
{
    const peer_lines_t *pl = &run->lines;

    if (run->count == 0)
        return;
    if (kind == RAILS) {
        md_nodeconf_out_rails(o, run->first, run->last, pl->line[0].hi);
        for (size_t i = 0; i < pl->num; i++)
            md_nodeconf_out_rail(o, pl->line[i].subdev,
                                 (uint32_t)pl->line[i].lo);
        md_nodeconf_out_end_line(o);
        return;
    }
    if (kind == ARRIVES) {
        md_nodeconf_out_arrive(o, run->first, run->last);
        for (size_t i = 0; i < pl->num; i++)
            md_nodeconf_out_word(o, pl->line[i].subdev);
        md_nodeconf_out_end_line(o);
        return;
    }
    for (size_t i = 0; i < pl->num; i++)
        md_nodeconf_out_route(o, run->first, run->last, pl->line[i].lo,
                              pl->line[i].hi, pl->line[i].subdev,
                              pl->line[i].hop < 0 ? NULL
                              : d->nodes[pl->line[i].hop].name);
}

/* The lines of one kind to the peers of run pr (routes) or with rails
 * line set, into out (scratch: room for work). */
static int lines_of(kind_t kind, const mdc_graph_t *g, const mdc_routes_t *r,
                    const mdc_src_rails_t *sr, uint32_t set,
                    const mdc_prun_t *pr, peer_lines_t *scratch,
                    peer_lines_t *out)
{
    switch (kind) {
    case ROUTES:
        return route_lines(g, r, pr, out);
    case ARRIVES:
        return route_lines(g, r, pr, scratch) != 0 ||
               arrive_list(scratch, out) != 0 ? -1 : 0;
    case RAILS:
        return rails_lines(g->desc, sr, set, out);
    }
    return -1;
}

/* Every peer's lines of one kind, in name order, runs of peers with the
 * same lines as ranges: the same compaction as md_nodeconf_write's.  A
 * peer without lines (no rails) is left out, so a run may go on past it
 * when the names still follow each other.  Route and arrive lines are the
 * same for all nodes of a run of alike nodes (mdc_prun_t), so those go a
 * stretch at a time: the peers that are next to each other both by name
 * and by index, within one run of alike nodes. */
static int write_peers(md_nodeconf_out_t *o, const mdc_graph_t *g,
                       const mdc_routes_t *r, const mdc_peer_order_t *order,
                       const mdc_src_rails_t *sr, kind_t kind)
{
    const mdc_desc_t *d = g->desc;
    peer_lines_t routes = { 0 }, cur = { 0 };
    run_t run = { 0 };
    uint32_t run_end = 0;             /* order index after the run's last */
    uint32_t set = 0, run_set = 0;    /* rails: the peer's line, the run's */
    const mdc_prun_t *run_pr = NULL;  /* the alike nodes run.lines are of */
    int rc = 0;

    for (uint32_t i = 0, len; i < d->num_nodes && rc == 0; i += len) {
        uint32_t p = order->node[i];
        const char *name = d->nodes[p].name;
        const mdc_prun_t *pr = NULL;
        uint32_t alike_end;            /* the last index alike to p */
        if (kind == RAILS) {
            const mdc_rail_run_t *rr = mdc_src_rails_run_of(sr, p);
            set = rr->set;
            alike_end = rr->hi;
        } else {
            pr = mdc_routes_run_of(r, p);
            alike_end = pr->hi;
        }
        len = order->stride[i] < alike_end - p + 1 ? order->stride[i]
                                                   : alike_end - p + 1;
        if (kind == RAILS && set == 0)
            continue;                  /* no rails to these peers */
        int joins = run.count > 0 && run.count < MD_NODECONF_RANGE_MAX &&
                    (run_end == i ? order->follows[i]
                                  : md_names_follows(run.last, name));
        /* a peer with the run's lines: known the same unbuilt */
        int same = joins && (kind == RAILS ? set == run_set : pr == run_pr);
        if (!same) {
            if (lines_of(kind, g, r, sr, set, pr, &routes, &cur) != 0) {
                rc = -1;
                break;
            }
            if (cur.num == 0)
                continue;
            same = joins && same_lines(&run.lines, &cur);
        }
        if (same) {
            if (len > MD_NODECONF_RANGE_MAX - run.count)
                len = (uint32_t)(MD_NODECONF_RANGE_MAX - run.count);
            run.last = d->nodes[order->node[i + len - 1]].name;
            run.count += len;
            run_end = i + len;
            run_pr = pr;
            continue;
        }
        emit(o, d, &run, kind);
        peer_lines_t t = run.lines;    /* cur becomes the run's lines */
        run.lines = cur;
        cur = t;
        if (len > MD_NODECONF_RANGE_MAX)
            len = MD_NODECONF_RANGE_MAX;
        run.first = name;
        run.last = d->nodes[order->node[i + len - 1]].name;
        run.count = len;
        run_end = i + len;
        run_set = set;
        run_pr = pr;
    }
    if (rc == 0)
        emit(o, d, &run, kind);
    free(routes.line);
    free(cur.line);
    free(run.lines.line);
    return rc;
}

/* Is a network driven by net's subdevice marked used already? */
static int subdev_used(const mdc_desc_t *d, const uint8_t *used, int net)
{
    for (size_t i = 0; i < d->num_networks; i++)
        if (used[i] && strcmp(net_subdev(d, (int)i), net_subdev(d, net)) == 0)
            return 1;
    return 0;
}

/* The networks some route to a peer starts on, and the rails' networks
 * whose subdevice no other one brings (a subdevice has one device line). */
static void used_networks(const mdc_desc_t *d, const mdc_routes_t *r,
                          const mdc_src_rails_t *sr, uint8_t *used)
{
    for (uint32_t i = 0; i < r->num_rseg; i++)
        used[r->rseg[i].dec.first_net] = 1;
    /* the lines in the order of their first peer: which of two networks of
     * one subdevice gets the device line depends on it */
    for (size_t i = 0; sr != NULL && i < sr->num_runs; i++) {
        if (sr->run[i].set == 0)
            continue;
        const mdc_rail_set_t *set = &sr->sets[sr->run[i].set - 1];
        for (size_t k = 0; k < set->num; k++)
            if (!used[set->net[k]] && !subdev_used(d, used, set->net[k]))
                used[set->net[k]] = 1;
    }
}

/* The comment line naming the description and the node. */
static int write_comment(FILE *f, const mdc_desc_t *d, uint32_t node)
{
    const mdc_node_t *n = &d->nodes[node];
    char src[sizeof(d->source)];

    /* the file name may hold anything; the comment must stay one line */
    for (size_t i = 0; i < sizeof(src); i++) {
        unsigned char c = (unsigned char)d->source[i];
        src[i] = c == '\0' ? '\0' : c < 0x20 || c == 0x7f ? '?' : (char)c;
        if (c == '\0')
            break;
    }
    return fprintf(f, "# written by mdconfig from %s for node %s (host %s, "
                   "%d slot%s)\n", src, n->name, n->host, n->slots,
                   n->slots == 1 ? "" : "s") < 0 ? -1 : 0;
}

int mdc_nodefile_write(FILE *f, const mdc_graph_t *g, const mdc_routes_t *r,
                       const mdc_peer_order_t *order, const mdc_rails_t *rails,
                       mdc_src_rails_t *sr)
{
    const mdc_desc_t *d = g->desc;
    md_nodeconf_t *conf = md_nodeconf_new(d->nodes[r->src].name);
    uint8_t *used = calloc(d->num_networks + 1, 1);
    md_nodeconf_out_t *o = NULL;
    int rc = -1;

    if (conf == NULL || used == NULL ||
        (rails != NULL && mdc_rails_of_source(rails, r->src, sr) != 0))
        goto out;
    used_networks(d, r, rails != NULL ? sr : NULL, used);
    if (add_devices(conf, d, r->src, used) != 0 || write_comment(f, d, r->src) != 0 ||
        (o = md_nodeconf_out_new(f)) == NULL)
        goto out;
    md_nodeconf_out_head(o, conf);
    rc = write_peers(o, g, r, order, NULL, ROUTES) != 0 ||
         write_peers(o, g, r, order, NULL, ARRIVES) != 0 ||
         (rails != NULL && write_peers(o, g, r, order, sr, RAILS) != 0)
         ? -1 : 0;
out:
    if (o != NULL && md_nodeconf_out_finish(o) != 0)
        rc = -1;
    md_nodeconf_free(conf);
    free(used);
    return rc;
}
