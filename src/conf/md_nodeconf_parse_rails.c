/*
 * md_nodeconf_parse_rails.c - the `rails` line of a per-node file
 * (doc/node-config.md):
 *
 *   rails <peers> <from> <subdev>=<weight> <subdev>=<weight> [...]
 *
 * Messages of at least <from> bytes to those peers are striped over 2 to
 * MD_NODECONF_RAILS_MAX subdevices, each given a share in proportion to
 * its weight (its modelled bandwidth, MB/s).  Subdevices must be declared
 * by a device line (checked at the end, like a route's); the node itself
 * is no peer of a rails line (checked at the end, once the node is known).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf_parser.h"

#define RAIL_RULE "subdevice=weight"

/* "123" -> 123 if it is a weight: 1..MD_NODECONF_RAIL_WEIGHT_MAX, plain
 * decimal digits without a leading zero (the form the writer prints). */
static int weight_value(const char *text, size_t len, uint32_t *w)
{
    uint32_t v = 0;

    if (len == 0 || len > 7 || text[0] == '0')
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (uint32_t)(text[i] - '0');
    }
    if (v > MD_NODECONF_RAIL_WEIGHT_MAX)
        return -1;
    *w = v;
    return 0;
}

/* tok[idx] = "subdev=weight", the i-th rail of the line. */
static int parse_rail(parser_t *p, const md_line_t *l, size_t idx,
                      char (*names)[MD_NODECONF_NAME_MAX], uint32_t *weights,
                      size_t i)
{
    const md_token_t *t = &l->tok[idx];
    const char *eq = memchr(t->text, '=', t->len);
    size_t nlen = eq != NULL ? (size_t)(eq - t->text) : 0;
    char qb[MD_TOKEN_QUOTE_MAX];

    if (eq == NULL)
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected " RAIL_RULE ", got '%s'",
                           md_ncp_quote(t, qb));
    if (!md_name_valid(t->text, nlen, MD_NODECONF_NAME_LEN))
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected a subdevice name (" NAME_RULE ") before "
                           "'=', got '%s'", md_ncp_quote(t, qb));
    memcpy(names[i], t->text, nlen);
    names[i][nlen] = '\0';
    if (strcmp(names[i], MD_NODECONF_FORWARDED) == 0)
        return md_ncp_fail(p, l->lineno, t->col,
                           "expected a subdevice as a rail, got '%s' (the "
                           "forwarding receiver)", names[i]);
    md_token_t w = { eq + 1, t->len - nlen - 1, t->col + (int)nlen + 1 };
    if (weight_value(w.text, w.len, &weights[i]) != 0)
        return md_ncp_fail(p, l->lineno, w.col,
                           "expected a weight (an integer 1-%u, the rail's "
                           "MB/s) after '=', got '%s'",
                           MD_NODECONF_RAIL_WEIGHT_MAX, md_ncp_quote(&w, qb));
    return md_ncp_subdev_once(p, l, idx, names, i);
}

/* The rails of the line (tok[3..]) into names/weights; *n their count. */
static int parse_rail_list(parser_t *p, const md_line_t *l,
                           char (*names)[MD_NODECONF_NAME_MAX],
                           uint32_t *weights, size_t *n)
{
    char qb[MD_TOKEN_QUOTE_MAX];

    *n = 0;
    for (size_t idx = 3; idx < l->num_tok; idx++, (*n)++) {
        if (*n == MD_NODECONF_RAILS_MAX)
            return md_ncp_fail(p, l->lineno, l->tok[idx].col,
                               "expected at most %d rails, got '%s'",
                               MD_NODECONF_RAILS_MAX,
                               md_ncp_quote(&l->tok[idx], qb));
        if (parse_rail(p, l, idx, names, weights, *n) != 0)
            return -1;
    }
    if (*n < 2)
        return md_ncp_fail(p, l->lineno, l->end_col,
                           "expected " RAIL_RULE " (at least 2 rails), got "
                           "end of line");
    return 0;
}

static int store_rails(parser_t *p, const md_line_t *l,
                       const md_names_t *peers, size_t from,
                       char (*names)[MD_NODECONF_NAME_MAX],
                       const uint32_t *weights, size_t n)
{
    const char *ptrs[MD_NODECONF_RAILS_MAX];

    for (size_t i = 0; i < n; i++)
        ptrs[i] = names[i];
    for (size_t i = 0; i < peers->count; i++) {
        md_nodeconf_rails_t *r = md_nodeconf_insert_rails(
            p->conf, peers->name[i], from, ptrs, weights, n);
        if (r == NULL && errno == EEXIST)     /* twice in the peer list */
            return md_ncp_duplicate_peer(p, l, "rails", peers->name[i],
                                         l->lineno);
        if (r == NULL)
            return md_ncp_fail(p, l->lineno, 1, "out of memory");
        r->line = l->lineno;
    }
    return 0;
}

/* The line of peer's rails line, or 0. */
static int rails_line(const md_nodeconf_t *conf, const char *peer)
{
    const md_nodeconf_rails_t *r = md_nodeconf_find_rails(conf, peer);

    return r != NULL ? r->line : 0;
}

int md_ncp_parse_rails(parser_t *p, const md_line_t *l)
{
    md_names_t peers = { NULL, 0 };
    char names[MD_NODECONF_RAILS_MAX][MD_NODECONF_NAME_MAX];
    uint32_t weights[MD_NODECONF_RAILS_MAX];
    size_t from, n;
    int rc = -1;

    if (md_ncp_expect_new_peers(p, l, "rails", rails_line, &peers) != 0)
        goto out;
    if (md_ncp_parse_size(p, l, 2, 0, &from) != 0 ||
        parse_rail_list(p, l, names, weights, &n) != 0 ||
        /* one check per line: is this node among its peers (at the end) */
        md_ncp_add_ref(p, REF_SELF_RAILS, l->lineno, &l->tok[1], "") != 0)
        goto out;
    rc = store_rails(p, l, &peers, from, names, weights, n);
out:
    md_names_free(&peers);
    return rc;
}
