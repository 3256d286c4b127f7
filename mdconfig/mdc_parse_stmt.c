/*
 * mdc_parse_stmt.c - the statements that declare things: type, profile,
 * forward, node, network.  (Topology statements: mdc_parse_topo.c.)
 */
#include <stdlib.h>
#include <string.h>

#include "mdc_parse_int.h"

/* type NAME [subdevice=MODULE|none] [sysmsg=yes|no] */
int mdc_parse_type(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    char name[MD_NAME_MAX], qb[MDC_QUOTE_BUF];
    mdc_attr_t attrs[] = { { .key = "subdevice" }, { .key = "sysmsg" } };

    if (mdc_expect_name(p, 1, "a type name", name) != 0)
        return -1;
    int old = mdc_strmap_get(&d->type_map, name);
    if (old >= 0 && d->types[old].line == 0)
        return mdc_perr(p, p->l->tok[1].col, "expected a new type name, got "
                        "'%s' (built in)", name);
    if (old >= 0)
        return mdc_perr(p, p->l->tok[1].col, "duplicate type '%s' (first at "
                        "line %d)", name, d->types[old].line);
    if (mdc_parse_attrs(p, 2, attrs, 2, NULL, 0, NULL, NULL) != 0)
        return -1;
    mdc_type_t *t = mdc_grow((void **)&d->types, &d->num_types, sizeof(*t));
    if (t == NULL || mdc_strmap_put(&d->type_map, name,
                                    (int)(d->num_types - 1)) != 0)
        return mdc_perr(p, 1, "out of memory");
    strcpy(t->name, name);
    strcpy(t->subdev, name);
    t->line = p->l->lineno;
    if (attrs[0].tok != NULL) {
        const md_token_t *v = &attrs[0].val;
        if (md_token_is(v, "none"))
            t->subdev[0] = '\0';
        else if (!md_name_valid(v->text, v->len, MD_NAME_MAX - 1))
            return mdc_perr(p, v->col, "expected a module name or none, got "
                            "'%s'", mdc_quote(v, qb));
        else
            md_token_copy(v, t->subdev, MD_NAME_MAX);
    }
    if (attrs[1].tok != NULL) {
        const md_token_t *v = &attrs[1].val;
        if (!md_token_is(v, "yes") && !md_token_is(v, "no"))
            return mdc_perr(p, v->col, "expected yes or no, got '%s'",
                            mdc_quote(v, qb));
        t->sysmsg = md_token_is(v, "yes");
    }
    return 0;
}

/* profile NAME [from=SIZE] latency=TIME [bandwidth=BW]: one row. */
int mdc_parse_profile(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    char name[MD_NAME_MAX];
    mdc_attr_t attrs[] = { { .key = "from" }, { .key = "latency" },
                           { .key = "bandwidth" } };
    size_t from = 0;
    uint64_t lat, bw = 0;

    if (mdc_expect_name(p, 1, "a profile name", name) != 0 ||
        mdc_parse_attrs(p, 2, attrs, 3, NULL, 0, NULL, NULL) != 0)
        return -1;
    if (attrs[1].tok == NULL)
        return mdc_perr(p, p->l->end_col, "expected latency=TIME, got end of "
                        "line");
    if ((attrs[0].tok != NULL && mdc_attr_size(p, &attrs[0], &from) != 0) ||
        mdc_attr_time(p, &attrs[1], &lat) != 0 ||
        (attrs[2].tok != NULL && mdc_attr_bandwidth(p, &attrs[2], &bw) != 0))
        return -1;
    int idx = mdc_strmap_get(&d->profile_map, name);
    if (idx < 0) {
        if (from != 0)
            return mdc_perr(p, attrs[0].val.col, "expected the first row of "
                            "profile '%s' to start at 0, got %zu", name, from);
        return mdc_add_profile(p, name, lat, bw) < 0 ? -1 : 0;
    }
    mdc_profile_t *pr = &d->profiles[idx];
    const mdc_row_t *last = &pr->rows[pr->num_rows - 1];
    if (attrs[0].tok == NULL)
        return mdc_perr(p, p->l->end_col, "expected from=SIZE for a further "
                        "row of profile '%s' (first at line %d), got end of "
                        "line", name, pr->line);
    if (from <= last->from)
        return mdc_perr(p, attrs[0].val.col, "expected from= above %zu (the "
                        "previous row of '%s'), got %zu", last->from, name,
                        from);
    mdc_row_t *row = mdc_grow((void **)&pr->rows, &pr->num_rows,
                              sizeof(*row));
    if (row == NULL)
        return mdc_perr(p, 1, "out of memory");
    *row = (mdc_row_t){ from, lat, bw };
    return 0;
}

/* forward no|TIME|PROFILE: the default at every node. */
int mdc_parse_forward(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    size_t pos[1], n;

    if (d->forward_line != 0)
        return mdc_perr(p, p->l->tok[0].col, "duplicate 'forward' line (first "
                        "at line %d)", d->forward_line);
    if (mdc_parse_attrs(p, 1, NULL, 0, pos, 1, &n, "the forwarding cost") != 0)
        return -1;
    if (n == 0)
        return mdc_perr(p, p->l->end_col, "expected no, a time (e.g. 20us) or "
                        "a declared profile, got end of line");
    if (mdc_parse_forward_cost(p, &p->l->tok[pos[0]], &d->forward) != 0)
        return -1;
    d->forward_line = p->l->lineno;
    return 0;
}

static int node_hosts(mdc_parser_t *p, const mdc_attr_t *a, size_t count,
                      md_names_t *hosts)
{
    if (a->tok == NULL)
        return 0;
    if (mdc_expand_names(p, &a->val, MDC_MAX_NODES, hosts) != 0)
        return -1;
    if (hosts->count != 1 && hosts->count != count) {
        if (count == 1)
            mdc_perr(p, a->val.col, "expected 1 host name, got %zu",
                     hosts->count);
        else
            mdc_perr(p, a->val.col, "expected 1 or %zu host names, got %zu",
                     count, hosts->count);
        md_names_free(hosts);
        return -1;
    }
    return 0;
}

static int node_local(mdc_parser_t *p, const mdc_attr_t *a, int *type)
{
    char qb[MDC_QUOTE_BUF];
    const mdc_desc_t *d = p->d;

    *type = 0;                                   /* shm */
    if (a->tok == NULL)
        return 0;
    *type = mdc_strmap_getn(&d->type_map, a->val.text, a->val.len);
    if (*type < 0)
        return mdc_perr(p, a->val.col, "expected a declared type, got '%s'",
                        mdc_quote(&a->val, qb));
    if (d->types[*type].subdev[0] == '\0')
        return mdc_perr(p, a->val.col, "expected a type with a subdevice, got "
                        "'%s' (subdevice=none)", d->types[*type].name);
    return 0;
}

static int add_nodes(mdc_parser_t *p, const md_names_t *names,
                     const md_names_t *hosts, int slots, int fwd, int local,
                     const mdc_attr_t *local_attr, size_t name_tok)
{
    mdc_desc_t *d = p->d;
    int col = p->l->tok[name_tok].col;

    if (names->count > MDC_MAX_NODES - d->num_nodes)
        return mdc_perr(p, col, "expected at most %d nodes in a description",
                        MDC_MAX_NODES);
    for (size_t i = 0; i < names->count; i++) {
        int old = mdc_strmap_get(&d->node_map, names->name[i]);
        if (old >= 0)
            return mdc_perr(p, col, "duplicate node '%s' (first at line %d)",
                            names->name[i], d->nodes[old].line);
        mdc_node_t *n = mdc_grow((void **)&d->nodes, &d->num_nodes,
                                 sizeof(*n));
        if (n == NULL || mdc_strmap_put(&d->node_map, names->name[i],
                                        (int)(d->num_nodes - 1)) != 0)
            return mdc_perr(p, 1, "out of memory");
        strcpy(n->name, names->name[i]);
        strcpy(n->host, hosts->count == 0 ? n->name
                        : hosts->name[hosts->count == 1 ? 0 : i]);
        n->slots = slots;
        n->forward = fwd;
        n->local_type = local;
        n->line = p->l->lineno;
        if (local_attr->tok != NULL) {
            struct mdc_local_ref *r = mdc_grow((void **)&p->locals,
                                               &p->num_locals, sizeof(*r));
            if (r == NULL)
                return mdc_perr(p, 1, "out of memory");
            *r = (struct mdc_local_ref){ (int)(d->num_nodes - 1),
                                         p->l->lineno, local_attr->val.col };
        }
    }
    return 0;
}

/* The node name lists of a node line (several allowed), concatenated. */
static int node_names(mdc_parser_t *p, const size_t *pos, size_t n,
                      md_names_t *names)
{
    for (size_t i = 0; i < n; i++) {
        md_names_t part;
        if (mdc_expand_names(p, &p->l->tok[pos[i]], MDC_MAX_NODES, &part) != 0)
            return -1;
        if (part.count > MDC_MAX_NODES - names->count) {
            md_names_free(&part);
            return mdc_perr(p, p->l->tok[pos[i]].col, "expected at most %d "
                            "nodes in a description", MDC_MAX_NODES);
        }
        void *grown = realloc(names->name, (names->count + part.count) *
                                               sizeof(*names->name));
        if (grown == NULL) {
            md_names_free(&part);
            return mdc_perr(p, 1, "out of memory");
        }
        names->name = grown;
        memcpy(names->name + names->count, part.name,
               part.count * sizeof(*part.name));
        names->count += part.count;
        md_names_free(&part);
    }
    return 0;
}

/* node NAMES... [host=HOSTS] [slots=N] [forward=COST] [local=TYPE]
 *      [addr.NET=ADDRS]... */
int mdc_parse_node(mdc_parser_t *p)
{
    mdc_attr_t attrs[] = { { .key = "host" }, { .key = "slots" },
                           { .key = "forward" }, { .key = "local" },
                           { .key = "addr.", .hint = "NET" } };
    md_names_t names = { 0 }, hosts = { 0 };
    unsigned long slots = 1;
    int fwd = MDC_FWD_UNSET, local, rc = -1;
    size_t *pos = calloc(p->l->num_tok, sizeof(*pos)), num_pos;

    if (pos == NULL)
        return mdc_perr(p, 1, "out of memory");
    if (mdc_parse_attrs(p, 1, attrs, 5, pos, p->l->num_tok, &num_pos,
                        "the node names") != 0)
        goto out;
    if (num_pos == 0) {
        mdc_perr(p, p->l->end_col, "expected node names (e.g. n1 or "
                 "n[001-128]), got end of line");
        goto out;
    }
    if (node_names(p, pos, num_pos, &names) != 0 ||
        node_hosts(p, &attrs[0], names.count, &hosts) != 0 ||
        (attrs[1].tok != NULL &&
         mdc_attr_uint(p, &attrs[1], 1, 65536, &slots) != 0) ||
        (attrs[2].tok != NULL &&
         mdc_parse_forward_cost(p, &attrs[2].val, &fwd) != 0) ||
        node_local(p, &attrs[3], &local) != 0)
        goto out;
    rc = add_nodes(p, &names, &hosts, (int)slots, fwd, local, &attrs[3],
                   pos[0]);
    if (rc == 0)
        rc = mdc_parse_node_addrs(p, (int)(p->d->num_nodes - names.count),
                                  names.count);
out:
    free(pos);
    md_names_free(&names);
    md_names_free(&hosts);
    return rc;
}

int mdc_check_locals(mdc_parser_t *p)
{
    const mdc_desc_t *d = p->d;

    for (size_t i = 0; i < p->num_locals; i++) {
        const struct mdc_local_ref *r = &p->locals[i];
        const mdc_node_t *n = &d->nodes[r->node];
        int found = n->local_type == 0;          /* shm: every node has it */
        for (size_t k = 0; k < n->num_attach && !found; k++)
            found = d->networks[n->attach[k].network].type == n->local_type;
        if (!found) {
            md_conf_errorf(p->err, p->err_len, d->source, r->line, r->col,
                           "expected a type node '%s' has a NIC for, got "
                           "'%s' (no network of that type reaches it)",
                           n->name, d->types[n->local_type].name);
            return -1;
        }
    }
    return 0;
}

static int network_dev_params(mdc_parser_t *p, mdc_network_t *net)
{
    char qb[MDC_QUOTE_BUF];
    const md_line_t *l = p->l;

    for (size_t i = 2; i < l->num_tok; i++) {
        const md_token_t *t = &l->tok[i];
        const char *eq = memchr(t->text, '=', t->len);
        if (t->len < 4 || memcmp(t->text, "dev.", 4) != 0 || eq == NULL)
            continue;
        size_t klen = (size_t)(eq - t->text) - 4;
        if (!md_name_valid(t->text + 4, klen, MD_NAME_MAX - 1))
            return mdc_perr(p, t->col + 4, "expected a parameter key "
                            "([A-Za-z0-9_.-]) after 'dev.', got '%s'",
                            mdc_quote(t, qb));
        const char *own = mdc_addr_key_instead(t->text + 4, klen);
        if (own != NULL)
            return mdc_perr(p, t->col, "expected %s, not dev.%.*s=", own,
                            (int)klen, t->text + 4);
        for (size_t k = 0; k < net->num_dev_params; k++)
            if (strlen(net->dev_params[k].key) == klen &&
                memcmp(net->dev_params[k].key, t->text + 4, klen) == 0)
                return mdc_perr(p, t->col, "duplicate '%.*s=' (expected each "
                                "attribute once)", (int)klen + 4, t->text);
        for (const char *c = eq + 1; c < t->text + t->len; c++)
            if (*c <= ' ' || *c >= 0x7f)
                return mdc_perr(p, (int)(t->col + (c - t->text)), "expected "
                                "a parameter value of printable ASCII, got "
                                "'%s'", mdc_quote(t, qb));
        md_nodeconf_kv_t *kv = mdc_grow((void **)&net->dev_params,
                                        &net->num_dev_params, sizeof(*kv));
        if (kv == NULL ||
            (kv->key = strndup(t->text + 4, klen)) == NULL ||
            (kv->value = strndup(eq + 1, (size_t)(t->text + t->len - eq - 1)))
                == NULL)
            return mdc_perr(p, 1, "out of memory");
    }
    return 0;
}

static int network_type(mdc_parser_t *p, const mdc_attr_t *a)
{
    char qb[MDC_QUOTE_BUF];

    if (a->tok == NULL)
        return mdc_perr(p, p->l->end_col, "expected type=TYPE, got end of "
                        "line");
    int t = mdc_strmap_getn(&p->d->type_map, a->val.text, a->val.len);
    if (t < 0)
        return mdc_perr(p, a->val.col, "expected a declared type (shm, sci, "
                        "via, myri or one of a 'type' line), got '%s'",
                        mdc_quote(&a->val, qb));
    if (t == 0)
        return mdc_perr(p, a->val.col, "expected a network type other than "
                        "shm (shared memory is inside a node; every node has "
                        "it)");
    return t;
}

static int network_cost(mdc_parser_t *p, const mdc_attr_t *attrs)
{
    char qb[MDC_QUOTE_BUF];
    uint64_t lat, bw = 0;

    if (attrs[0].tok != NULL && attrs[2].tok != NULL)
        return mdc_perr(p, attrs[2].tok->col, "expected either latency= "
                        "(and bandwidth=) or profile=, got both");
    if (attrs[2].tok != NULL) {
        int pr = mdc_strmap_getn(&p->d->profile_map, attrs[2].val.text,
                                 attrs[2].val.len);
        if (pr < 0)
            return mdc_perr(p, attrs[2].val.col, "expected a declared "
                            "profile, got '%s'", mdc_quote(&attrs[2].val, qb));
        if (attrs[1].tok != NULL)
            return mdc_perr(p, attrs[1].tok->col, "expected bandwidth= only "
                            "with latency=, not with profile=");
        return pr;
    }
    if (attrs[0].tok == NULL)
        return mdc_perr(p, p->l->end_col, "expected latency=TIME or "
                        "profile=NAME, got end of line");
    if (mdc_attr_time(p, &attrs[0], &lat) != 0 ||
        (attrs[1].tok != NULL && mdc_attr_bandwidth(p, &attrs[1], &bw) != 0))
        return -1;
    return mdc_add_profile(p, "", lat, bw);
}

/* network NAME type=TYPE (latency=T [bandwidth=BW] | profile=P)
 *         [subnet=A.B.C.D/N | iface=NAME] [dev.K=V]... */
int mdc_parse_network(mdc_parser_t *p)
{
    mdc_desc_t *d = p->d;
    char name[MD_NAME_MAX];
    mdc_attr_t attrs[] = { { .key = "latency" }, { .key = "bandwidth" },
                           { .key = "profile" }, { .key = "type" },
                           { .key = "subnet" }, { .key = "iface" },
                           { .key = "dev.", .hint = "KEY" } };
    int type, prof;

    if (mdc_expect_name(p, 1, "a network name", name) != 0)
        return -1;
    int old = mdc_strmap_get(&d->network_map, name);
    if (old >= 0)
        return mdc_perr(p, p->l->tok[1].col, "duplicate network '%s' (first "
                        "at line %d)", name, d->networks[old].line);
    if (mdc_parse_attrs(p, 2, attrs, 7, NULL, 0, NULL, NULL) != 0 ||
        (type = network_type(p, &attrs[3])) < 0 ||
        (prof = network_cost(p, attrs)) < 0)
        return -1;
    mdc_network_t *net = mdc_grow((void **)&d->networks, &d->num_networks,
                                  sizeof(*net));
    if (net == NULL || mdc_strmap_put(&d->network_map, name,
                                      (int)(d->num_networks - 1)) != 0)
        return mdc_perr(p, 1, "out of memory");
    strcpy(net->name, name);
    net->type = type;
    net->profile = prof;
    net->line = p->l->lineno;
    if (mdc_parse_network_place(p, net, &attrs[4], &attrs[5]) != 0)
        return -1;
    return network_dev_params(p, net);
}
