/*
 * md_nodeconf_parse.c - the per-node file parser (doc/node-config.md).
 *
 * Works on a byte buffer with an explicit length (a file may hold NUL
 * bytes), one line at a time through md_lines.  Checks that need the whole
 * file (a route's subdevice declared by a later `device` line, the node
 * named later, every peer's ranges reaching inf) are recorded with their
 * position and settled at the end; the error reported is then the one
 * earliest in the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_lines.h"
#include "md_names.h"
#include "md_nodeconf_parser.h"

#define SIZE_RULE "bytes, k/m/g suffix"


int md_ncp_fail(parser_t *p, int line, int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    md_conf_verrorf(p->err, p->err_len, p->conf->source, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

const char *md_ncp_quote(const md_token_t *t, char *buf)
{
    return md_token_quote(t, buf, MD_TOKEN_QUOTE_MAX);
}

static int push(void **array, size_t *num, size_t *cap, size_t elem)
{
    if (*num == *cap) {
        size_t ncap = *cap != 0 ? 2 * *cap : 32;
        void *a = realloc(*array, ncap * elem);
        if (a == NULL)
            return -1;
        *array = a;
        *cap = ncap;
    }
    (*num)++;
    return 0;
}

int md_ncp_add_ref(parser_t *p, ref_kind_t kind, int line,
                   const md_token_t *t, const char *name)
{
    if (push((void **)&p->refs, &p->num_refs, &p->cap_refs,
             sizeof(*p->refs)) != 0)
        return md_ncp_fail(p, line, t->col, "out of memory");
    ref_t *r = &p->refs[p->num_refs - 1];
    r->kind = kind;
    r->line = line;
    r->col = t->col;
    strcpy(r->name, name);
    return 0;
}

/* tok[idx] must be a name; copied into out. */
int md_ncp_expect_name(parser_t *p, const md_line_t *l, size_t idx,
                       const char *what, char *out)
{
    char qb[MD_TOKEN_QUOTE_MAX];

    if (idx >= l->num_tok)
        return md_ncp_fail(p, l->lineno, l->end_col, "expected %s, got end of line",
                           what);
    const md_token_t *t = &l->tok[idx];
    if (!md_name_valid(t->text, t->len, MD_NODECONF_NAME_LEN))
        return md_ncp_fail(p, l->lineno, t->col, "expected %s (" NAME_RULE "), got '%s'",
                           what, md_ncp_quote(t, qb));
    md_token_copy(t, out, MD_NODECONF_NAME_MAX);
    return 0;
}

static int expect_end(parser_t *p, const md_line_t *l, size_t idx)
{
    char qb[MD_TOKEN_QUOTE_MAX];

    if (idx < l->num_tok)
        return md_ncp_fail(p, l->lineno, l->tok[idx].col,
                           "expected end of line, got '%s'",
                           md_ncp_quote(&l->tok[idx], qb));
    return 0;
}

static int parse_magic(parser_t *p, const md_line_t *l)
{
    char qb[MD_TOKEN_QUOTE_MAX], num[16];
    const md_token_t *t = &l->tok[0];

    if (!md_token_is(t, "multidev-node-config"))
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected 'multidev-node-config %d' as the first line, "
                           "got '%s'", MD_NODECONF_VERSION, md_ncp_quote(t, qb));
    if (l->num_tok < 2)
        return md_ncp_fail(p, l->lineno, l->end_col,
                           "expected the format version %d, got end of line",
                           MD_NODECONF_VERSION);
    t = &l->tok[1];
    snprintf(num, sizeof(num), "%d", MD_NODECONF_VERSION);
    if (!md_token_is(t, num))
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected the format version %d, got '%s'",
                           MD_NODECONF_VERSION, md_ncp_quote(t, qb));
    p->conf->version = MD_NODECONF_VERSION;
    return expect_end(p, l, 2);
}

static int parse_node(parser_t *p, const md_line_t *l)
{
    char name[MD_NODECONF_NAME_MAX];

    if (p->node_line != 0)
        return md_ncp_fail(p, l->lineno, l->tok[0].col,
                           "duplicate 'node' line (first at line %d)", p->node_line);
    if (md_ncp_expect_name(p, l, 1, "a node name", name) != 0 ||
        expect_end(p, l, 2) != 0)
        return -1;
    strcpy(p->conf->node, name);
    p->node_line = l->lineno;
    return 0;
}

/* One "key=value" token into kvs[idx] (strings allocated); the keys before
 * idx are already parsed. */
static int parse_param(parser_t *p, const md_line_t *l, const md_token_t *t,
                       md_nodeconf_kv_t *kvs, size_t idx)
{
    md_nodeconf_kv_t *kv = &kvs[idx];
    char qb[MD_TOKEN_QUOTE_MAX];
    const char *eq = memchr(t->text, '=', t->len);
    size_t klen = eq != NULL ? (size_t)(eq - t->text) : 0;

    if (eq == NULL)
        return md_ncp_fail(p, l->lineno, t->col, "expected key=value, got '%s'",
                           md_ncp_quote(t, qb));
    if (!md_name_valid(t->text, klen, MD_NODECONF_NAME_LEN))
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected a parameter key (" NAME_RULE ") before '=', "
                           "got '%s'", md_ncp_quote(t, qb));
    kv->key = strndup(t->text, klen);
    kv->value = strndup(eq + 1, t->len - klen - 1);
    if (kv->key == NULL || kv->value == NULL)
        return md_ncp_fail(p, l->lineno, t->col, "out of memory");
    if (!md_nodeconf_value_valid(kv->value)) {
        md_token_t v = { eq + 1, t->len - klen - 1, t->col + (int)klen + 1 };
        return md_ncp_fail(p, l->lineno, v.col,
                           "expected a parameter value of printable ASCII, got '%s'",
                           md_ncp_quote(&v, qb));
    }
    for (size_t j = 0; j < idx; j++)
        if (strcmp(kvs[j].key, kv->key) == 0)
            return md_ncp_fail(p, l->lineno, t->col,
                               "duplicate parameter '%s' (expected each key once)",
                               kv->key);
    return 0;
}

static int parse_device(parser_t *p, const md_line_t *l)
{
    char name[MD_NODECONF_NAME_MAX];
    md_nodeconf_kv_t *kv = NULL;
    size_t n = 0;
    int rc = -1;

    if (md_ncp_expect_name(p, l, 1, "a subdevice name", name) != 0)
        return -1;
    const md_nodeconf_device_t *old = md_nodeconf_find_device(p->conf, name);
    if (old != NULL)
        return md_ncp_fail(p, l->lineno, l->tok[1].col,
                           "duplicate device '%s' (first at line %d)", name,
                           old->line);
    if (strcmp(name, MD_NODECONF_FORWARDED) == 0)
        return md_ncp_fail(p, l->lineno, l->tok[1].col,
                           "'%s' is reserved for forwarded arrivals (expected a "
                           "subdevice name)", name);
    if (l->num_tok > 2) {
        kv = calloc(l->num_tok - 2, sizeof(*kv));
        if (kv == NULL)
            return md_ncp_fail(p, l->lineno, l->tok[0].col, "out of memory");
    }
    for (size_t i = 2; i < l->num_tok; i++, n++)
        if (parse_param(p, l, &l->tok[i], kv, n) != 0) {
            n++;                          /* free the partial pair too */
            goto out;
        }
    md_nodeconf_device_t *dev = md_nodeconf_insert_device(p->conf, name, kv, n);
    if (dev == NULL) {
        md_ncp_fail(p, l->lineno, l->tok[1].col, "out of memory");
        goto out;
    }
    dev->line = l->lineno;
    rc = 0;
out:
    md_nodeconf_free_params(kv, n);
    return rc;
}

int md_ncp_parse_size(parser_t *p, const md_line_t *l, size_t idx,
                            int allow_inf, size_t *value)
{
    char qb[MD_TOKEN_QUOTE_MAX], buf[32];
    const char *rule = allow_inf ? SIZE_RULE " or inf" : SIZE_RULE;

    if (idx >= l->num_tok)
        return md_ncp_fail(p, l->lineno, l->end_col,
                           "expected a size (%s), got end of line", rule);
    const md_token_t *t = &l->tok[idx];
    if (md_token_copy(t, buf, sizeof(buf)) != 0 ||
        md_parse_size_ex(buf, allow_inf, value) != 0)
        return md_ncp_fail(p, l->lineno, t->col, "expected a size (%s), got '%s'%s",
                           rule, md_ncp_quote(t, qb),
                           !allow_inf && md_token_is(t, "inf")
                        ? " (inf is only allowed as a maximum)" : "");
    return 0;
}

/* The peers of tok[1]: one name, or a name list ("n[0000-0095]"). */
int md_ncp_expect_peers(parser_t *p, const md_line_t *l, md_names_t *peers)
{
    char qb[MD_TOKEN_QUOTE_MAX], why[160];
    size_t off = 0;

    if (l->num_tok < 2)
        return md_ncp_fail(p, l->lineno, l->end_col,
                           "expected a peer node name, got end of line");
    const md_token_t *t = &l->tok[1];
    if (memchr(t->text, '[', t->len) == NULL) {
        peers->name = calloc(1, sizeof(*peers->name));
        if (peers->name == NULL)
            return md_ncp_fail(p, l->lineno, t->col, "out of memory");
        peers->count = 1;
        return md_ncp_expect_name(p, l, 1, "a peer node name", peers->name[0]);
    }
    if (t->len >= sizeof(p->pending.range))
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected a peer range of at most %zu characters, got "
                           "'%s'", sizeof(p->pending.range) - 1, md_ncp_quote(t, qb));
    if (md_names_expand(t->text, t->len, MD_NODECONF_RANGE_MAX, peers, why,
                        sizeof(why), &off) != 0)
        return md_ncp_fail(p, l->lineno, t->col + (int)off,
                           "%s (in the peer range '%s')", why, md_ncp_quote(t, qb));
    return 0;
}

/* Stores line for one peer. */
static int store_route(parser_t *p, const char *peer, const route_line_t *rl)
{
    if (rl->hop[0] != '\0' && strcmp(rl->hop, peer) == 0)
        return md_ncp_fail(p, rl->line, rl->hop_col,
                           "expected '-' for a direct route to '%s', got '%s'",
                           peer, rl->hop);
    if (rl->hop[0] != '\0') {
        md_token_t at = { rl->hop, 0, rl->hop_col };
        if (md_ncp_add_ref(p, REF_SELF_ROUTE, rl->line, &at, peer) != 0)
            return -1;
    }
    md_nodeconf_route_t *r = md_nodeconf_insert_route(p->conf, peer, rl->min,
                                                      rl->max, rl->subdev,
                                                      rl->hop);
    if (r == NULL && errno == EEXIST)
        return md_ncp_fail(p, rl->line, rl->min_col,
                           "duplicate route to '%s' starting at %zu (first at line "
                           "%d)", peer, rl->min,
                           md_nodeconf_find_route(p->conf, peer, rl->min)->line);
    if (r == NULL)
        return md_ncp_fail(p, rl->line, 1, "out of memory");
    r->line = rl->line;
    return 0;
}

static void pending_clear(pending_t *pd)
{
    md_names_free(&pd->peers);
    pd->range[0] = '\0';
    pd->num_lines = 0;
}

/* Stores the pending range's lines, peer by peer. */
static int flush_pending(parser_t *p)
{
    pending_t *pd = &p->pending;
    int rc = 0;

    for (size_t i = 0; i < pd->peers.count && rc == 0; i++)
        for (size_t k = 0; k < pd->num_lines && rc == 0; k++)
            rc = store_route(p, pd->peers.name[i], &pd->lines[k]);
    pending_clear(pd);
    return rc;
}

static int parse_route(parser_t *p, const md_line_t *l)
{
    route_line_t rl = { .line = l->lineno };
    md_names_t peers = { NULL, 0 };
    int rc = -1;

    if (md_ncp_expect_peers(p, l, &peers) != 0 ||
        md_ncp_parse_size(p, l, 2, 0, &rl.min) != 0 ||
        md_ncp_parse_size(p, l, 3, 1, &rl.max) != 0)
        goto out;
    if (rl.max < rl.min) {
        md_ncp_fail(p, l->lineno, l->tok[3].col,
                    "expected a maximum of at least the minimum %zu, got %zu",
                    rl.min, rl.max);
        goto out;
    }
    if (md_ncp_expect_name(p, l, 4, "a subdevice name", rl.subdev) != 0)
        goto out;
    if (l->num_tok <= 5) {
        md_ncp_fail(p, l->lineno, l->end_col,
                    "expected a next hop (a node name, or '-' for a direct "
                    "link), got end of line");
        goto out;
    }
    if (!md_token_is(&l->tok[5], "-") &&
        md_ncp_expect_name(p, l, 5, "a next hop (a node name, or '-' for a "
                           "direct link)", rl.hop) != 0)
        goto out;
    rl.min_col = l->tok[2].col;
    rl.hop_col = l->tok[5].col;
    if (expect_end(p, l, 6) != 0 ||
        md_ncp_add_ref(p, REF_SUBDEV, l->lineno, &l->tok[4], rl.subdev) != 0 ||
        (rl.hop[0] != '\0' &&
         md_ncp_add_ref(p, REF_NEXT_HOP, l->lineno, &l->tok[5], rl.hop) != 0))
        goto out;
    if (push((void **)&p->route_pos, &p->num_pos, &p->cap_pos,
             sizeof(*p->route_pos)) != 0) {
        md_ncp_fail(p, l->lineno, l->tok[0].col, "out of memory");
        goto out;
    }
    p->route_pos[p->num_pos - 1] =
        (route_pos_t){ l->lineno, l->tok[2].col, l->tok[3].col };

    const md_token_t *t = &l->tok[1];
    pending_t *pd = &p->pending;
    int is_range = peers.count != 1 || memchr(t->text, '[', t->len) != NULL;
    int same = is_range && strlen(pd->range) == t->len &&
               memcmp(pd->range, t->text, t->len) == 0;
    if (!same && pd->range[0] != '\0' && flush_pending(p) != 0)
        goto out;
    if (!is_range) {
        rc = store_route(p, peers.name[0], &rl);
        goto out;
    }
    if (!same) {
        md_token_copy(t, pd->range, sizeof(pd->range));
        pd->peers = peers;
        peers = (md_names_t){ NULL, 0 };
    }
    if (push((void **)&pd->lines, &pd->num_lines, &pd->cap_lines,
             sizeof(*pd->lines)) != 0) {
        md_ncp_fail(p, l->lineno, l->tok[0].col, "out of memory");
        goto out;
    }
    pd->lines[pd->num_lines - 1] = rl;
    rc = 0;
out:
    md_names_free(&peers);
    return rc;
}

int md_ncp_subdev_once(parser_t *p, const md_line_t *l, size_t idx,
                       char (*names)[MD_NODECONF_NAME_MAX], size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(names[i], names[j]) == 0)
            return md_ncp_fail(p, l->lineno, l->tok[idx].col,
                               "duplicate subdevice '%s' (expected each once)",
                               names[i]);
    if (strcmp(names[i], MD_NODECONF_FORWARDED) != 0 &&
        md_ncp_add_ref(p, REF_SUBDEV, l->lineno, &l->tok[idx], names[i]) != 0)
        return -1;
    return 0;
}

int md_ncp_duplicate_peer(parser_t *p, const md_line_t *l, const char *keyword,
                          const char *peer, int first_line)
{
    return md_ncp_fail(p, l->lineno, l->tok[1].col,
                       "duplicate '%s' for '%s' (first at line %d)", keyword,
                       peer, first_line);
}

int md_ncp_expect_new_peers(parser_t *p, const md_line_t *l,
                            const char *keyword, md_ncp_line_of_fn line_of,
                            md_names_t *peers)
{
    if (md_ncp_expect_peers(p, l, peers) != 0)
        return -1;
    for (size_t i = 0; i < peers->count; i++) {
        int first = line_of(p->conf, peers->name[i]);
        if (first != 0)
            return md_ncp_duplicate_peer(p, l, keyword, peers->name[i], first);
    }
    return 0;
}

/* The line of peer's arrive line, or 0. */
static int arrive_line(const md_nodeconf_t *conf, const char *peer)
{
    const md_nodeconf_arrive_t *a = md_nodeconf_find_arrive(conf, peer);

    return a != NULL ? a->line : 0;
}

/* The subdevices of an arrive line (tok[2..]) into names/ptrs. */
static int arrive_subdevs(parser_t *p, const md_line_t *l,
                          char (*names)[MD_NODECONF_NAME_MAX],
                          const char **ptrs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (md_ncp_expect_name(p, l, i + 2, "a subdevice name", names[i]) != 0 ||
            md_ncp_subdev_once(p, l, i + 2, names, i) != 0)
            return -1;
        ptrs[i] = names[i];
    }
    return 0;
}

static int parse_arrive(parser_t *p, const md_line_t *l)
{
    md_names_t peers = { NULL, 0 };
    size_t n = l->num_tok > 2 ? l->num_tok - 2 : 0;
    char (*names)[MD_NODECONF_NAME_MAX] = NULL;
    const char **ptrs = NULL;
    int rc = -1;

    if (md_ncp_expect_new_peers(p, l, "arrive", arrive_line, &peers) != 0)
        goto out;
    if (n == 0) {
        md_ncp_fail(p, l->lineno, l->end_col,
                    "expected a subdevice name, got end of line");
        goto out;
    }
    names = calloc(n, sizeof(*names));
    ptrs = calloc(n, sizeof(*ptrs));
    if (names == NULL || ptrs == NULL) {
        md_ncp_fail(p, l->lineno, 1, "out of memory");
        goto out;
    }
    if (arrive_subdevs(p, l, names, ptrs, n) != 0)
        goto out;
    for (size_t i = 0; i < peers.count; i++) {
        md_nodeconf_arrive_t *a =
            md_nodeconf_insert_arrive(p->conf, peers.name[i], ptrs, n);
        if (a == NULL && errno == EEXIST) {   /* twice in the peer list */
            md_ncp_duplicate_peer(p, l, "arrive", peers.name[i], l->lineno);
            goto out;
        }
        if (a == NULL) {
            md_ncp_fail(p, l->lineno, 1, "out of memory");
            goto out;
        }
        a->line = l->lineno;
    }
    rc = 0;
out:
    md_names_free(&peers);
    free(names);
    free(ptrs);
    return rc;
}

/* Keeps the deferred error that comes first in the file. */
static void consider(parser_t *p, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void consider(parser_t *p, int line, int col, const char *fmt, ...)
{
    va_list ap;

    if (p->best.line != 0 &&
        (line > p->best.line || (line == p->best.line && col >= p->best.col)))
        return;
    p->best = (pos_t){ line, col };
    va_start(ap, fmt);
    md_conf_verrorf(p->err, p->err_len, p->conf->source, line, col, fmt, ap);
    va_end(ap);
}

static const route_pos_t *pos_of_line(const parser_t *p, int line)
{
    size_t lo = 0, hi = p->num_pos;

    while (lo < hi) {                  /* route_pos is in line order */
        size_t mid = lo + (hi - lo) / 2;
        if (p->route_pos[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &p->route_pos[lo];          /* every route line has its entry */
}

/* For each peer, in size order: from 0, contiguous, up to inf. */
static void check_ranges(parser_t *p)
{
    const md_nodeconf_t *c = p->conf;

    for (size_t i = 0; i < c->num_routes; i++) {
        const md_nodeconf_route_t *r = &c->routes[i];
        const md_nodeconf_route_t *prev = i > 0 ? &c->routes[i - 1] : NULL;
        int first = prev == NULL || strcmp(prev->peer, r->peer) != 0;
        int last = i + 1 == c->num_routes ||
                   strcmp(c->routes[i + 1].peer, r->peer) != 0;
        const route_pos_t *pos = pos_of_line(p, r->line);

        if (first && r->min != 0)
            consider(p, r->line, pos->min_col,
                     "expected the first route to '%s' to start at 0, got "
                     "%zu", r->peer, r->min);
        else if (!first && prev->max == MD_SIZE_INF)
            consider(p, r->line, pos->min_col,
                     "expected no further route to '%s' (line %d already "
                     "reaches inf)", r->peer, prev->line);
        else if (!first && r->min != prev->max + 1)
            consider(p, r->line, pos->min_col,
                     "expected the route to '%s' to start at %zu (line %d "
                     "ends at %zu), got %zu", r->peer, prev->max + 1,
                     prev->line, prev->max, r->min);
        if (last && r->max != MD_SIZE_INF)
            consider(p, r->line, pos->max_col,
                     "expected the routes to '%s' to end with inf, the last "
                     "one ends at %zu", r->peer, r->max);
    }
}

static void check_refs(parser_t *p)
{
    const char *node = p->conf->node;
    const md_nodeconf_rails_t *self_rails;

    for (size_t i = 0; i < p->num_refs; i++) {
        const ref_t *r = &p->refs[i];
        switch (r->kind) {
        case REF_SUBDEV:
            if (md_nodeconf_find_device(p->conf, r->name) == NULL)
                consider(p, r->line, r->col,
                         "expected a subdevice declared by a 'device' line, "
                         "got '%s'", r->name);
            break;
        case REF_NEXT_HOP:
            if (strcmp(r->name, node) == 0)
                consider(p, r->line, r->col,
                         "expected a next hop other than this node '%s'",
                         node);
            break;
        case REF_SELF_ROUTE:
            if (strcmp(r->name, node) == 0)
                consider(p, r->line, r->col,
                         "expected '-' as the next hop of a route to this "
                         "node itself");
            break;
        case REF_SELF_RAILS:           /* one per line: is the node a peer */
            if ((self_rails = md_nodeconf_find_rails(p->conf, node)) != NULL &&
                self_rails->line == r->line)
                consider(p, r->line, r->col,
                         "expected a peer other than this node '%s' (rails "
                         "stripe messages to other nodes)", node);
            break;
        }
    }
}

static int finish(parser_t *p)
{
    int line, col;

    check_refs(p);
    check_ranges(p);
    if (p->node_line == 0) {
        md_lines_eof_pos(&p->rd, &line, &col);
        consider(p, line, col, "expected a 'node' line, got end of file");
    }
    return p->best.line != 0 ? -1 : 0;
}

static int parse_line(parser_t *p, const md_line_t *l)
{
    char qb[MD_TOKEN_QUOTE_MAX];
    const md_token_t *t = &l->tok[0];

    if (!md_token_is(t, "route") && p->pending.range[0] != '\0' &&
        flush_pending(p) != 0)
        return -1;                     /* the range's lines have ended */
    if (md_token_is(t, "node"))
        return parse_node(p, l);
    if (md_token_is(t, "device"))
        return parse_device(p, l);
    if (md_token_is(t, "route"))
        return parse_route(p, l);
    if (md_token_is(t, "arrive"))
        return parse_arrive(p, l);
    if (md_token_is(t, "rails"))
        return md_ncp_parse_rails(p, l);
    return md_ncp_fail(p, l->lineno, t->col,
                       "expected a keyword (node, device, route, arrive, rails), "
                       "got '%s'",
                       md_ncp_quote(t, qb));
}

static int parse_buffer(parser_t *p)
{
    md_line_t l;
    int rc, line, col, first = 1;

    while ((rc = md_lines_next(&p->rd, &l, p->err, p->err_len)) == 1) {
        if (first ? parse_magic(p, &l) != 0 : parse_line(p, &l) != 0)
            return -1;
        first = 0;
    }
    if (rc < 0 || (p->pending.range[0] != '\0' && flush_pending(p) != 0))
        return -1;
    if (first) {
        md_lines_eof_pos(&p->rd, &line, &col);
        return md_ncp_fail(p, line, col,
                           "expected 'multidev-node-config %d', got end of file",
                           MD_NODECONF_VERSION);
    }
    return finish(p);
}

static int parse_bytes(const char *buf, size_t len, const char *source,
                       md_nodeconf_t **conf_p, char *err, size_t err_len)
{
    parser_t p;
    int rc;

    memset(&p, 0, sizeof(p));
    if (err != NULL && err_len > 0)
        err[0] = '\0';
    p.err = err;
    p.err_len = err_len;
    p.conf = md_nodeconf_new(NULL);
    if (p.conf == NULL) {
        md_conf_errorf(err, err_len, source, 0, 0, "out of memory");
        return -1;
    }
    p.conf->version = 0;
    snprintf(p.conf->source, sizeof(p.conf->source), "%s", source);
    md_lines_init(&p.rd, buf, len, p.conf->source);
    rc = parse_buffer(&p);
    md_lines_fini(&p.rd);
    free(p.refs);
    free(p.route_pos);
    pending_clear(&p.pending);
    free(p.pending.lines);
    if (rc != 0) {
        md_nodeconf_free(p.conf);
        return -1;
    }
    *conf_p = p.conf;
    return 0;
}

int md_nodeconf_parse_string(const char *text, const char *source,
                             md_nodeconf_t **conf_p, char *err, size_t err_len)
{
    if (source == NULL)
        source = "<string>";
    if (text == NULL || conf_p == NULL) {
        md_conf_errorf(err, err_len, source, 0, 0, "no text to parse");
        return -1;
    }
    return parse_bytes(text, strlen(text), source, conf_p, err, err_len);
}

int md_nodeconf_parse_file(const char *path, md_nodeconf_t **conf_p,
                           char *err, size_t err_len)
{
    size_t len = 0;
    char *buf;
    int rc;

    if (path == NULL || conf_p == NULL) {
        md_conf_errorf(err, err_len, "<none>", 0, 0, "no file to parse");
        return -1;
    }
    buf = md_read_file(path, &len);
    if (buf == NULL) {
        if (err != NULL && err_len > 0)
            snprintf(err, err_len, "%s: cannot read: %s", path,
                     strerror(errno));
        return -1;
    }
    rc = parse_bytes(buf, len, path, conf_p, err, err_len);
    free(buf);
    return rc;
}
