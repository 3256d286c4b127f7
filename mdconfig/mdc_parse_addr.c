/*
 * mdc_parse_addr.c - where each network's NICs bind: a network's subnet=
 * or iface=, and a node's own address on a network (addr.NET=).
 *
 * Nodes usually come before the networks they are on, so an addr.NET= is
 * kept as written and checked at the end of the file: the network exists,
 * the node has a NIC on it, the address lies in its subnet, and no two
 * hosts share it.  The syntax of addresses is md_ipv4's, the one the
 * runtime reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_ipv4.h"
#include "mdc_parse_int.h"

const char *mdc_addr_key_instead(const char *key, size_t len)
{
    static const char *const keys[][2] = {
        { "subnet", "subnet=A.B.C.D/N (a network attribute)" },
        { "iface", "iface=NAME (a network attribute)" },
        { "addr", "addr.NET=A.B.C.D on the node lines" },
    };

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strlen(keys[i][0]) == len && memcmp(keys[i][0], key, len) == 0)
            return keys[i][1];
    return NULL;
}

int mdc_parse_network_place(mdc_parser_t *p, mdc_network_t *net,
                            const mdc_attr_t *subnet, const mdc_attr_t *iface)
{
    char why[200], qb[MDC_QUOTE_BUF], a[MD_IPV4_TEXT_MAX];

    if (subnet->tok != NULL && iface->tok != NULL)
        return mdc_perr(p, (subnet->tok->col > iface->tok->col ? subnet : iface)->tok->col,
                        "expected either subnet= or iface=, got both");
    if (subnet->tok != NULL) {
        if (md_ipv4_parse_subnet(subnet->val.text, subnet->val.len, &net->subnet_net,
                                 &net->subnet_prefix, why, sizeof(why)) != 0)
            return mdc_perr(p, subnet->val.col, "%s, got '%s'", why,
                            mdc_quote(&subnet->val, qb));
        snprintf(net->subnet, sizeof(net->subnet), "%s/%u",
                 md_ipv4_format(net->subnet_net, a), net->subnet_prefix);
    }
    if (iface->tok != NULL) {
        if (!md_ifname_valid(iface->val.text, iface->val.len))
            return mdc_perr(p, iface->val.col, "expected an interface name (1 to 15 "
                            "characters of [A-Za-z0-9_.:-]), got '%s'",
                            mdc_quote(&iface->val, qb));
        md_token_copy(&iface->val, net->iface, sizeof(net->iface));
    }
    return 0;
}

/* One address text of the addr.NET= list v (named in the message when
 * it was a range). */
static int parse_addr(mdc_parser_t *p, const md_token_t *v, const char *text,
                      uint32_t *addr)
{
    char why[200], qb[MDC_QUOTE_BUF], from[MDC_QUOTE_BUF + 16] = "";

    if (memchr(v->text, '[', v->len) != NULL)
        snprintf(from, sizeof(from), " (from '%s')", mdc_quote(v, qb));
    if (md_ipv4_parse(text, strlen(text), addr, why, sizeof(why)) != 0)
        return mdc_perr(p, v->col, "%s, got '%s'%s", why, text, from);
    if (!md_ipv4_is_unicast(*addr))
        return mdc_perr(p, v->col, "expected a unicast address (not 0.x.x.x, not 224.0.0.0 "
                        "or above), got '%s'%s", text, from);
    return 0;
}

/* One address for several nodes is one host's address: they must share
 * that host (emulated nodes); nodes of different hosts need one each. */
static int check_count(mdc_parser_t *p, const md_token_t *v, int first, size_t count,
                       size_t got)
{
    const mdc_desc_t *d = p->d;

    if (got != 1 && got != count) {
        if (count == 1)
            return mdc_perr(p, v->col, "expected 1 address, got %zu", got);
        return mdc_perr(p, v->col, "expected 1 or %zu addresses, got %zu", count, got);
    }
    for (size_t k = 1; got == 1 && k < count; k++)
        if (strcmp(d->nodes[first].host, d->nodes[first + (int)k].host) != 0)
            return mdc_perr(p, v->col, "expected %zu addresses, one per node (the nodes run "
                            "on different hosts: %s, %s), got 1", count,
                            d->nodes[first].host, d->nodes[first + (int)k].host);
    return 0;
}

static int add_ref(mdc_parser_t *p, int node, const md_token_t *v, int net_col,
                   const char *net, size_t net_len, uint32_t addr)
{
    struct mdc_addr_ref *r = mdc_grow((void **)&p->addrs, &p->num_addrs, sizeof(*r));

    if (r == NULL)
        return mdc_perr(p, 1, "out of memory");
    r->node = node;
    r->line = p->l->lineno;
    r->col = v->col;
    r->net_col = net_col;
    memcpy(r->net, net, net_len);
    r->net[net_len] = '\0';
    r->addr = addr;
    return 0;
}

/* One addr.NET=LIST token of a node line declaring count nodes from first. */
static int node_addr_token(mdc_parser_t *p, size_t tok, int first, size_t count)
{
    const md_token_t *t = &p->l->tok[tok];
    const char *eq = memchr(t->text, '=', t->len);
    const char *net = t->text + 5;
    size_t net_len = (size_t)(eq - net);
    char qb[MDC_QUOTE_BUF];
    md_names_t list;
    size_t key_len = (size_t)(eq + 1 - t->text);
    md_token_t v = { eq + 1, t->len - key_len, t->col + (int)key_len };
    int rc = 0;

    if (!md_name_valid(net, net_len, MD_NAME_MAX - 1))
        return mdc_perr(p, t->col + 5, "expected a network name ([A-Za-z0-9_.-]) after "
                        "'addr.', got '%s'", mdc_quote(t, qb));
    for (size_t i = 1; i < tok; i++) {
        const md_token_t *o = &p->l->tok[i];
        if (o->len > net_len + 5 && memcmp(o->text, t->text, net_len + 6) == 0)
            return mdc_perr(p, t->col, "duplicate 'addr.%.*s=' (expected each attribute "
                            "once)", (int)net_len, net);
    }
    if (mdc_expand_names(p, &v, MDC_MAX_NODES, &list) != 0)
        return -1;
    rc = check_count(p, &v, first, count, list.count);
    for (size_t k = 0; rc == 0 && k < count; k++) {
        uint32_t addr;
        rc = parse_addr(p, &v, list.name[list.count == 1 ? 0 : k], &addr);
        if (rc == 0)
            rc = add_ref(p, first + (int)k, &v, t->col + 5, net, net_len, addr);
    }
    md_names_free(&list);
    return rc;
}

int mdc_parse_node_addrs(mdc_parser_t *p, int first, size_t count)
{
    for (size_t i = 1; i < p->l->num_tok; i++) {
        const md_token_t *t = &p->l->tok[i];
        /* mdc_parse_attrs let through only addr.NET=VALUE with both parts */
        if (t->len > 5 && memcmp(t->text, "addr.", 5) == 0 &&
            memchr(t->text, '=', t->len) != NULL && node_addr_token(p, i, first, count) != 0)
            return -1;
    }
    return 0;
}

/* The checks that need the whole file, for one addr.NET= of one node. */
static int check_ref(mdc_parser_t *p, const struct mdc_addr_ref *r, mdc_strmap_t *owner)
{
    mdc_desc_t *d = p->d;
    mdc_node_t *n = &d->nodes[r->node];
    char a[MD_IPV4_TEXT_MAX], key[MD_NAME_MAX + MD_IPV4_TEXT_MAX + 1];
    int net = mdc_strmap_get(&d->network_map, r->net);

    md_ipv4_format(r->addr, a);
    if (net < 0) {
        md_conf_errorf(p->err, p->err_len, d->source, r->line, r->net_col, "expected a "
                       "declared network after 'addr.', got '%s'", r->net);
        return -1;
    }
    if (mdc_desc_attach(d, r->node, net) == NULL) {
        md_conf_errorf(p->err, p->err_len, d->source, r->line, r->net_col, "expected a "
                       "network node '%s' has a NIC on, got '%s' (no segment of it holds "
                       "'%s')", n->name, r->net, n->name);
        return -1;
    }
    const mdc_network_t *nw = &d->networks[net];
    if (nw->subnet[0] != '\0' &&
        !md_ipv4_in_subnet(r->addr, nw->subnet_net, nw->subnet_prefix)) {
        md_conf_errorf(p->err, p->err_len, d->source, r->line, r->col, "expected an address "
                       "in subnet %s of network %s (line %d), got '%s' for node '%s'",
                       nw->subnet, nw->name, nw->line, a, n->name);
        return -1;
    }
    snprintf(key, sizeof(key), "%s/%s", r->net, a);
    int other = mdc_strmap_get(owner, key);
    if (other >= 0 && strcmp(d->nodes[other].host, n->host) != 0) {
        md_conf_errorf(p->err, p->err_len, d->source, r->line, r->col, "expected an address "
                       "of host %s alone, got '%s' for node '%s', which node '%s' of host %s "
                       "has on network %s (line %d)", n->host, a, n->name,
                       d->nodes[other].name, d->nodes[other].host, r->net,
                       d->nodes[other].line);
        return -1;
    }
    mdc_node_addr_t *na = mdc_grow((void **)&n->addrs, &n->num_addrs, sizeof(*na));
    if (na == NULL || (other < 0 && mdc_strmap_put(owner, key, r->node) != 0)) {
        md_conf_errorf(p->err, p->err_len, d->source, r->line, 1, "out of memory");
        return -1;
    }
    na->network = net;
    na->addr = r->addr;
    return 0;
}

int mdc_check_addrs(mdc_parser_t *p)
{
    mdc_strmap_t owner;                  /* "net/addr" -> the first node */
    int rc = 0;

    mdc_strmap_init(&owner);
    for (size_t i = 0; i < p->num_addrs && rc == 0; i++)
        rc = check_ref(p, &p->addrs[i], &owner);
    mdc_strmap_fini(&owner);
    return rc;
}
