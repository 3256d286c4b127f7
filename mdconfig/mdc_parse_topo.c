/*
 * mdc_parse_topo.c - the statements that say who is wired to whom: switch,
 * ring, bus (segments with members), link (point to point) and trunk
 * (switch to switch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdc_parse_int.h"

static const char *const kind_names[] = { "switch", "ring", "bus", "link" };

static int find_network(mdc_parser_t *p, size_t idx)
{
    char name[MD_NAME_MAX], qb[MDC_QUOTE_BUF];

    if (mdc_expect_name(p, idx, "a network name", name) != 0)
        return -1;
    int net = mdc_strmap_get(&p->d->network_map, name);
    if (net < 0)
        return mdc_perr(p, p->l->tok[idx].col, "expected a declared network, "
                        "got '%s'", mdc_quote(&p->l->tok[idx], qb));
    return net;
}

/* Records that node sits on segment seg of network net. */
static int attach(mdc_parser_t *p, int node, int net, int seg, int port,
                  int col)
{
    mdc_desc_t *d = p->d;
    mdc_node_t *n = &d->nodes[node];
    int link = d->segments[seg].kind == MDC_SEG_LINK;

    for (size_t i = 0; i < n->num_attach; i++) {
        const mdc_attach_t *a = &n->attach[i];
        const mdc_segment_t *s = &d->segments[a->segment];
        if (a->network == net && !link && s->kind != MDC_SEG_LINK)
            return mdc_perr(p, col, "expected each node once per network, "
                            "got '%s' again (already on %s %s of network %s, "
                            "line %d)", n->name, kind_names[s->kind], s->name,
                            d->networks[net].name, s->line);
        if (a->network != net &&
            d->networks[a->network].type == d->networks[net].type)
            return mdc_perr(p, col, "expected one network of type %s per "
                            "node, got '%s' on %s and %s",
                            d->types[d->networks[net].type].name, n->name,
                            d->networks[a->network].name,
                            d->networks[net].name);
    }
    mdc_attach_t *a = mdc_grow((void **)&n->attach, &n->num_attach,
                               sizeof(*a));
    if (a == NULL)
        return mdc_perr(p, 1, "out of memory");
    *a = (mdc_attach_t){ net, seg, port };
    return 0;
}

static mdc_segment_t *new_segment(mdc_parser_t *p, mdc_seg_kind_t kind,
                                  int net, const char *name)
{
    mdc_desc_t *d = p->d;

    if (d->num_segments >= MDC_MAX_SEGMENTS) {
        mdc_perr(p, p->l->tok[0].col, "expected at most %d switches, rings, "
                 "buses and links in a description", MDC_MAX_SEGMENTS);
        return NULL;
    }
    mdc_segment_t *s = mdc_grow((void **)&d->segments, &d->num_segments,
                                sizeof(*s));
    if (s == NULL) {
        mdc_perr(p, 1, "out of memory");
        return NULL;
    }
    s->kind = kind;
    s->network = net;
    s->line = p->l->lineno;
    strcpy(s->name, name);
    return s;
}

static int add_member(mdc_parser_t *p, int seg, int node, int port, int col)
{
    mdc_segment_t *s = &p->d->segments[seg];
    mdc_member_t *m = mdc_grow((void **)&s->members, &s->num_members,
                               sizeof(*m));

    if (m == NULL)
        return mdc_perr(p, 1, "out of memory");
    m->node = node;
    m->port = port;
    return attach(p, node, s->network, seg, port, col);
}

/* "n3:5": a node on an explicit switch port. */
static int explicit_port(mdc_parser_t *p, const md_token_t *t,
                         const char *colon, int *node, unsigned long *port)
{
    char qb[MDC_QUOTE_BUF];
    md_token_t name = { t->text, (size_t)(colon - t->text), t->col };
    md_token_t num = { colon + 1, t->len - name.len - 1,
                       t->col + (int)name.len + 1 };
    mdc_attr_t a = { .key = "port", .tok = t, .val = num };

    *node = mdc_strmap_getn(&p->d->node_map, name.text, name.len);
    if (*node < 0)
        return mdc_perr(p, t->col, "expected a declared node before ':', got "
                        "'%s'", mdc_quote(&name, qb));
    return mdc_attr_uint(p, &a, 0, MDC_MAX_PORTS - 1, port);
}

typedef struct port_alloc {
    unsigned char *taken;        /* MDC_MAX_PORTS flags */
    unsigned long  next;         /* next port to try for automatic ones */
    unsigned long  limit;        /* ports=, or MDC_MAX_PORTS */
    long           highest;
} port_alloc_t;

static int take_port(mdc_parser_t *p, port_alloc_t *pa, int seg,
                     const md_token_t *t, long want, int node)
{
    const mdc_segment_t *s = &p->d->segments[seg];
    unsigned long port;

    if (want >= 0) {
        port = (unsigned long)want;
        if (port >= pa->limit)
            return mdc_perr(p, t->col, "expected a port below %lu (ports=), "
                            "got %lu", pa->limit, port);
    } else {
        while (pa->next < pa->limit && pa->taken[pa->next])
            pa->next++;
        if (pa->next >= pa->limit)
            return mdc_perr(p, t->col, "expected at most %lu members on %s "
                            "%s, got more", pa->limit, kind_names[s->kind],
                            s->name);
        port = pa->next;
    }
    if (pa->taken[port]) {
        for (size_t i = 0; i < s->num_members; i++)
            if (s->members[i].port == (int)port)
                return mdc_perr(p, t->col, "expected a free port, got %lu "
                                "(taken by %s)", port,
                                p->d->nodes[s->members[i].node].name);
    }
    pa->taken[port] = 1;
    if ((long)port > pa->highest)
        pa->highest = (long)port;
    return add_member(p, seg, node, (int)port, t->col);
}

static int add_members(mdc_parser_t *p, int seg, const size_t *pos,
                       size_t num_pos, port_alloc_t *pa)
{
    int is_switch = p->d->segments[seg].kind == MDC_SEG_SWITCH;

    for (size_t i = 0; i < num_pos; i++) {
        const md_token_t *t = &p->l->tok[pos[i]];
        const char *colon = memchr(t->text, ':', t->len);
        if (colon != NULL && is_switch) {
            int node;
            unsigned long port;
            if (explicit_port(p, t, colon, &node, &port) != 0 ||
                take_port(p, pa, seg, t, (long)port, node) != 0)
                return -1;
            continue;
        }
        int *nodes;
        size_t count;
        if (mdc_expand_nodes(p, t, &nodes, &count) != 0)
            return -1;
        for (size_t k = 0; k < count; k++)
            if (take_port(p, pa, seg, t, -1, nodes[k]) != 0) {
                free(nodes);
                return -1;
            }
        free(nodes);
    }
    return 0;
}

static int segment_name(mdc_parser_t *p, int net, char *name, char *key)
{
    if (mdc_expect_name(p, 2, "a segment name", name) != 0)
        return -1;
    snprintf(key, 2 * MD_NAME_MAX + 2, "%s/%s", p->d->networks[net].name,
             name);
    int old = mdc_strmap_get(&p->d->segment_map, key);
    if (old >= 0)
        return mdc_perr(p, p->l->tok[2].col, "duplicate segment '%s' in "
                        "network %s (first at line %d)", name,
                        p->d->networks[net].name, p->d->segments[old].line);
    return 0;
}

/* switch NET NAME [ports=N] MEMBER... | ring NET NAME MEMBER... | bus ... */
int mdc_parse_segment(mdc_parser_t *p, mdc_seg_kind_t kind)
{
    char name[MD_NAME_MAX], key[2 * MD_NAME_MAX + 2];
    mdc_attr_t attrs[] = { { .key = "ports" } };
    size_t num_attrs = kind == MDC_SEG_SWITCH ? 1 : 0, num_pos;
    port_alloc_t pa = { .limit = MDC_MAX_PORTS, .highest = -1 };
    int net, rc = -1;

    if ((net = find_network(p, 1)) < 0 || segment_name(p, net, name, key) != 0)
        return -1;
    size_t *pos = calloc(p->l->num_tok, sizeof(*pos));
    pa.taken = calloc(MDC_MAX_PORTS, 1);
    if (pos == NULL || pa.taken == NULL) {
        mdc_perr(p, 1, "out of memory");
        goto out;
    }
    if (mdc_parse_attrs(p, 3, attrs, num_attrs, pos, p->l->num_tok, &num_pos,
                        "the members") != 0)
        goto out;
    /* a switch may hold no node (a core switch, reached by trunks) */
    if (kind != MDC_SEG_SWITCH && num_pos < 1) {
        mdc_perr(p, p->l->end_col, "expected at least 2 member node names "
                 "(e.g. n[01-16]), got end of line");
        goto out;
    }
    unsigned long ports;
    if (attrs[0].tok != NULL) {
        if (mdc_attr_uint(p, &attrs[0], 1, MDC_MAX_PORTS, &ports) != 0)
            goto out;
        pa.limit = ports;
    }
    if (new_segment(p, kind, net, name) == NULL)
        goto out;
    if (mdc_strmap_put(&p->d->segment_map, key,
                       (int)(p->d->num_segments - 1)) != 0) {
        mdc_perr(p, 1, "out of memory");
        goto out;
    }
    int seg = (int)(p->d->num_segments - 1);
    if (add_members(p, seg, pos, num_pos, &pa) != 0)
        goto out;
    mdc_segment_t *s = &p->d->segments[seg];
    if (kind != MDC_SEG_SWITCH && s->num_members < 2) {
        mdc_perr(p, p->l->tok[pos[0]].col, "expected at least 2 members in "
                 "a %s, got 1", kind_names[kind]);
        goto out;
    }
    s->ports = attrs[0].tok != NULL ? (int)pa.limit : (int)(pa.highest + 1);
    rc = 0;
out:
    free(pos);
    free(pa.taken);
    return rc;
}

static int link_end(mdc_parser_t *p, size_t idx)
{
    char name[MD_NAME_MAX], qb[MDC_QUOTE_BUF];

    if (mdc_expect_name(p, idx, "a node name", name) != 0)
        return -1;
    int n = mdc_strmap_get(&p->d->node_map, name);
    if (n < 0)
        return mdc_perr(p, p->l->tok[idx].col, "expected a declared node, got "
                        "'%s'", mdc_quote(&p->l->tok[idx], qb));
    return n;
}

/* link NET NODE NODE */
int mdc_parse_link(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    char key[3 * MD_NAME_MAX + 3];
    int net, a, b;

    if ((net = find_network(p, 1)) < 0 || (a = link_end(p, 2)) < 0 ||
        (b = link_end(p, 3)) < 0 ||
        mdc_parse_attrs(p, 4, NULL, 0, NULL, 0, NULL, NULL) != 0)
        return -1;
    if (a == b)
        return mdc_perr(p, p->l->tok[3].col, "expected a node other than "
                        "'%s' at the other end", d->nodes[a].name);
    int lo = a < b ? a : b, hi = a < b ? b : a;
    snprintf(key, sizeof(key), "%s/%s/%s", d->networks[net].name,
             d->nodes[lo].name, d->nodes[hi].name);
    int old = mdc_strmap_get(&p->links, key);
    if (old > 0)
        return mdc_perr(p, p->l->tok[2].col, "duplicate link between %s and "
                        "%s in network %s (first at line %d)", d->nodes[a].name,
                        d->nodes[b].name, d->networks[net].name, old);
    if (mdc_strmap_put(&p->links, key, p->l->lineno) != 0)
        return mdc_perr(p, 1, "out of memory");
    if (new_segment(p, MDC_SEG_LINK, net, "") == NULL)
        return -1;
    int seg = (int)(d->num_segments - 1);
    if (add_member(p, seg, a, 0, p->l->tok[2].col) != 0 ||
        add_member(p, seg, b, 1, p->l->tok[3].col) != 0)
        return -1;
    d->segments[seg].ports = 2;
    return 0;
}

static int trunk_end(mdc_parser_t *p, int net, size_t idx)
{
    char name[MD_NAME_MAX], key[2 * MD_NAME_MAX + 2];

    if (mdc_expect_name(p, idx, "a switch name", name) != 0)
        return -1;
    snprintf(key, sizeof(key), "%s/%s", p->d->networks[net].name, name);
    int s = mdc_strmap_get(&p->d->segment_map, key);
    if (s < 0 || p->d->segments[s].kind != MDC_SEG_SWITCH)
        return mdc_perr(p, p->l->tok[idx].col, "expected a switch of network "
                        "%s, got '%s'", p->d->networks[net].name, name);
    return s;
}

/* trunk NET SWITCH SWITCH [latency=TIME] */
int mdc_parse_trunk(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    mdc_attr_t attrs[] = { { .key = "latency" } };
    uint64_t lat = 0;
    int net, a, b;

    if ((net = find_network(p, 1)) < 0 || (a = trunk_end(p, net, 2)) < 0 ||
        (b = trunk_end(p, net, 3)) < 0 ||
        mdc_parse_attrs(p, 4, attrs, 1, NULL, 0, NULL, NULL) != 0 ||
        (attrs[0].tok != NULL && mdc_attr_time(p, &attrs[0], &lat) != 0))
        return -1;
    if (a == b)
        return mdc_perr(p, p->l->tok[3].col, "expected a switch other than "
                        "'%s' at the other end", d->segments[a].name);
    if (d->num_trunks >= MDC_MAX_TRUNKS)
        return mdc_perr(p, p->l->tok[0].col, "expected at most %d trunks in "
                        "a description", MDC_MAX_TRUNKS);
    mdc_trunk_t *t = mdc_grow((void **)&d->trunks, &d->num_trunks,
                              sizeof(*t));
    if (t == NULL)
        return mdc_perr(p, 1, "out of memory");
    *t = (mdc_trunk_t){ net, a, b, lat, p->l->lineno };
    return 0;
}
