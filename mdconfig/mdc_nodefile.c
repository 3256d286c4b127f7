/* mdc_nodefile.c - build and write one node's file (mdc_nodefile.h). */
#include <stdlib.h>
#include <string.h>

#include "md_ipv4.h"
#include "mdc_nodefile.h"

static const mdc_desc_t *g_sort_desc;  /* qsort has no context argument */

static int cmp_by_name(const void *x, const void *y)
{
    const mdc_desc_t *d = g_sort_desc;

    return strcmp(d->nodes[*(const uint32_t *)x].name,
                  d->nodes[*(const uint32_t *)y].name);
}

uint32_t *mdc_nodes_by_name(const mdc_desc_t *desc)
{
    uint32_t *order = malloc((desc->num_nodes + 1) * sizeof(*order));

    if (order == NULL)
        return NULL;
    for (uint32_t i = 0; i < desc->num_nodes; i++)
        order[i] = i;
    g_sort_desc = desc;                /* called once, before any thread */
    qsort(order, desc->num_nodes, sizeof(*order), cmp_by_name);
    return order;
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

/* Route lines to one peer: adjacent segments with the same subdevice and
 * next hop become one line.  What the peer's messages arrive on goes to
 * nets[] in size order, each once: by symmetry of the routes, the network
 * of a direct segment, or -1 (the forwarding receiver, "fwd") for a
 * segment through an intermediate node. */
static int add_peer_routes(md_nodeconf_t *conf, const mdc_graph_t *g,
                           const mdc_routes_t *r, uint32_t peer, int *nets,
                           size_t *num_nets, uint8_t *used)
{
    const mdc_desc_t *d = g->desc;
    const char *name = d->nodes[peer].name;
    uint32_t end = r->first[peer + 1];

    *num_nets = 0;
    for (uint32_t i = r->first[peer]; i < end;) {
        const mdc_decision_t *x = &r->seg[i].dec;
        uint32_t j = i + 1;
        while (j < end && r->seg[j].dec.first_net == x->first_net &&
               r->seg[j].dec.next_hop == x->next_hop)
            j++;
        if (md_nodeconf_add_route(conf, name, r->seg[i].lo, r->seg[j - 1].hi,
                                  net_subdev(d, x->first_net),
                                  x->next_hop < 0 ? NULL
                                  : d->nodes[x->next_hop].name) != 0)
            return -1;
        int arrival = x->next_hop < 0 ? x->first_net : -1;
        size_t k = 0;
        while (k < *num_nets && nets[k] != arrival)
            k++;
        if (k == *num_nets)
            nets[(*num_nets)++] = arrival;
        used[x->first_net] = 1;
        i = j;
    }
    return 0;
}

static int add_arrive(md_nodeconf_t *conf, const mdc_desc_t *d,
                      const char *peer, const int *nets, size_t n)
{
    const char *names[64];

    if (n == 0)
        return 0;
    for (size_t i = 0; i < n && i < 64; i++)
        names[i] = nets[i] < 0 ? MD_NODECONF_FORWARDED : net_subdev(d, nets[i]);
    return md_nodeconf_add_arrive(conf, peer, names, n < 64 ? n : 64);
}

md_nodeconf_t *mdc_nodefile_build(const mdc_graph_t *g,
                                  const mdc_routes_t *r,
                                  const uint32_t *by_name)
{
    const mdc_desc_t *d = g->desc;
    uint32_t src = r->src;
    const char *local = d->types[d->nodes[src].local_type].subdev;
    md_nodeconf_t *conf = md_nodeconf_new(d->nodes[src].name);
    uint8_t *used = calloc(d->num_networks + 1, 1);
    int *nets = malloc((d->num_networks + 2) * sizeof(*nets));
    size_t n;

    if (conf == NULL || used == NULL || nets == NULL)
        goto fail;
    for (uint32_t i = 0; i < d->num_nodes; i++) {
        uint32_t p = by_name[i];
        if (p == src) {
            if (md_nodeconf_add_route(conf, d->nodes[p].name, 0, MD_SIZE_INF,
                                      local, NULL) != 0 ||
                md_nodeconf_add_arrive(conf, d->nodes[p].name, &local, 1) != 0)
                goto fail;
            continue;
        }
        if (add_peer_routes(conf, g, r, p, nets, &n, used) != 0 ||
            add_arrive(conf, d, d->nodes[p].name, nets, n) != 0)
            goto fail;
    }
    if (add_devices(conf, d, src, used) != 0)
        goto fail;
    free(used);
    free(nets);
    return conf;
fail:
    md_nodeconf_free(conf);
    free(used);
    free(nets);
    return NULL;
}

int mdc_nodefile_write(FILE *f, const mdc_desc_t *d, uint32_t node,
                       const md_nodeconf_t *conf)
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
    if (fprintf(f, "# written by mdconfig from %s for node %s (host %s, "
                "%d slot%s)\n", src, n->name, n->host, n->slots,
                n->slots == 1 ? "" : "s") < 0)
        return -1;
    return md_nodeconf_write(f, conf);
}
