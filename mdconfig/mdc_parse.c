/*
 * mdc_parse.c - the network description parser: the driver (magic line,
 * statement dispatch, end-of-file checks) and the helpers every statement
 * uses.  Statements are in mdc_parse_stmt.c and mdc_parse_topo.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_size.h"
#include "mdc_parse_int.h"
#include "mdc_units.h"

int mdc_perr(mdc_parser_t *p, int col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    md_conf_verrorf(p->err, p->err_len, p->d->source,
                    p->l != NULL ? p->l->lineno : 1, col, fmt, ap);
    va_end(ap);
    return -1;
}

const char *mdc_quote(const md_token_t *t, char *buf)
{
    return md_token_quote(t, buf, MDC_QUOTE_BUF);
}

void *mdc_grow(void **array, size_t *count, size_t elem)
{
    size_t n = *count, cap = 0;

    if (n == 0)
        cap = 8;
    else if (n >= 8 && (n & (n - 1)) == 0)
        cap = 2 * n;
    if (cap != 0) {
        void *a = realloc(*array, cap * elem);
        if (a == NULL)
            return NULL;
        *array = a;
    }
    char *e = (char *)*array + n * elem;
    memset(e, 0, elem);
    (*count)++;
    return e;
}

int mdc_expect_name(mdc_parser_t *p, size_t idx, const char *what, char *out)
{
    char qb[MDC_QUOTE_BUF];
    const md_line_t *l = p->l;

    if (idx >= l->num_tok)
        return mdc_perr(p, l->end_col, "expected %s, got end of line", what);
    const md_token_t *t = &l->tok[idx];
    if (!md_name_valid(t->text, t->len, MD_NAME_MAX - 1))
        return mdc_perr(p, t->col, "expected %s ([A-Za-z0-9_.-], 1-63 "
                        "characters), got '%s'", what, mdc_quote(t, qb));
    md_token_copy(t, out, MD_NAME_MAX);
    return 0;
}

static int attr_expected(mdc_parser_t *p, const md_token_t *t,
                         const mdc_attr_t *attrs, size_t n)
{
    char list[256] = "", qb[MDC_QUOTE_BUF];
    size_t o = 0;

    for (size_t i = 0; i < n && o < sizeof(list) - 32; i++)
        o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s%s=",
                              i == 0 ? "" : i + 1 == n ? " or " : ", ",
                              attrs[i].key,
                              attrs[i].hint != NULL ? attrs[i].hint : "");
    if (n == 0)
        return mdc_perr(p, t->col, "expected no attributes, got '%s'",
                        mdc_quote(t, qb));
    return mdc_perr(p, t->col, "expected %s, got '%s'", list,
                    mdc_quote(t, qb));
}

static mdc_attr_t *match_attr(mdc_attr_t *attrs, size_t n, const char *key,
                              size_t klen)
{
    for (size_t i = 0; i < n; i++) {
        size_t al = strlen(attrs[i].key);
        if ((attrs[i].hint != NULL ? klen > al : klen == al) &&
            memcmp(key, attrs[i].key, al) == 0)
            return &attrs[i];
    }
    return NULL;
}

int mdc_parse_attrs(mdc_parser_t *p, size_t idx, mdc_attr_t *attrs,
                    size_t num_attrs, size_t *pos, size_t max_pos,
                    size_t *num_pos, const char *what_pos)
{
    char qb[MDC_QUOTE_BUF];
    const md_line_t *l = p->l;

    if (num_pos != NULL)
        *num_pos = 0;
    for (size_t i = idx; i < l->num_tok; i++) {
        const md_token_t *t = &l->tok[i];
        const char *eq = memchr(t->text, '=', t->len);
        if (eq == NULL) {
            if (num_pos == NULL || *num_pos == max_pos) {
                if (max_pos == 0)
                    return attr_expected(p, t, attrs, num_attrs);
                return mdc_perr(p, t->col, "expected end of line after %s, "
                                "got '%s'", what_pos, mdc_quote(t, qb));
            }
            pos[(*num_pos)++] = i;
            continue;
        }
        size_t klen = (size_t)(eq - t->text);
        mdc_attr_t *a = match_attr(attrs, num_attrs, t->text, klen);
        if (a == NULL)
            return attr_expected(p, t, attrs, num_attrs);
        if (a->tok != NULL && a->hint == NULL)
            return mdc_perr(p, t->col, "duplicate '%s=' (expected each "
                            "attribute once)", a->key);
        if (klen + 1 == t->len)
            return mdc_perr(p, t->col + (int)klen + 1,
                            "expected a value after '%.*s=', got end of token",
                            (int)klen, t->text);
        a->tok = t;
        a->val.text = eq + 1;
        a->val.len = t->len - klen - 1;
        a->val.col = t->col + (int)klen + 1;
    }
    return 0;
}

int mdc_expand_names(mdc_parser_t *p, const md_token_t *t, size_t max,
                     md_names_t *out)
{
    char why[200];
    size_t off = 0;

    if (md_names_expand(t->text, t->len, max, out, why, sizeof(why),
                         &off) != 0)
        return mdc_perr(p, t->col + (int)off, "%s", why);
    return 0;
}

int mdc_expand_nodes(mdc_parser_t *p, const md_token_t *t, int **nodes,
                     size_t *count)
{
    md_names_t names;
    char qb[MDC_QUOTE_BUF];

    if (mdc_expand_names(p, t, MDC_MAX_NODES, &names) != 0)
        return -1;
    *nodes = malloc(names.count * sizeof(**nodes));
    if (*nodes == NULL) {
        md_names_free(&names);
        return mdc_perr(p, t->col, "out of memory");
    }
    for (size_t i = 0; i < names.count; i++) {
        int n = mdc_strmap_get(&p->d->node_map, names.name[i]);
        if (n < 0) {
            int ranged = memchr(t->text, '[', t->len) != NULL;
            mdc_perr(p, t->col, "expected a declared node, got '%s'%s%s%s",
                     names.name[i], ranged ? " (from '" : "",
                     ranged ? mdc_quote(t, qb) : "", ranged ? "')" : "");
            free(*nodes);
            md_names_free(&names);
            return -1;
        }
        (*nodes)[i] = n;
    }
    *count = names.count;
    md_names_free(&names);
    return 0;
}

int mdc_attr_time(mdc_parser_t *p, const mdc_attr_t *a, uint64_t *fs)
{
    char why[200], qb[MDC_QUOTE_BUF];

    if (mdc_parse_time(a->val.text, a->val.len, fs, why, sizeof(why)) != 0)
        return mdc_perr(p, a->val.col, "%s, got '%s'", why,
                        mdc_quote(&a->val, qb));
    return 0;
}

int mdc_attr_bandwidth(mdc_parser_t *p, const mdc_attr_t *a, uint64_t *bfs)
{
    char why[300], qb[MDC_QUOTE_BUF];

    if (mdc_parse_bandwidth(a->val.text, a->val.len, bfs, why,
                            sizeof(why)) != 0)
        return mdc_perr(p, a->val.col, "%s, got '%s'", why,
                        mdc_quote(&a->val, qb));
    return 0;
}

int mdc_attr_uint(mdc_parser_t *p, const mdc_attr_t *a, unsigned long min,
                  unsigned long max, unsigned long *v)
{
    char qb[MDC_QUOTE_BUF];
    unsigned long x = 0;
    size_t i;

    for (i = 0; i < a->val.len && i < 10; i++) {
        char c = a->val.text[i];
        if (c < '0' || c > '9')
            break;
        x = x * 10 + (unsigned long)(c - '0');
    }
    if (i != a->val.len || i == 0 || x < min || x > max)
        return mdc_perr(p, a->val.col, "expected a whole number from %lu to "
                        "%lu, got '%s'", min, max, mdc_quote(&a->val, qb));
    *v = x;
    return 0;
}

int mdc_attr_size(mdc_parser_t *p, const mdc_attr_t *a, size_t *v)
{
    char buf[32], qb[MDC_QUOTE_BUF];

    if (md_token_copy(&a->val, buf, sizeof(buf)) != 0 ||
        md_parse_size(buf, v) != 0)
        return mdc_perr(p, a->val.col, "expected a size (bytes, k/m/g "
                        "suffix), got '%s'", mdc_quote(&a->val, qb));
    return 0;
}

int mdc_add_profile(mdc_parser_t *p, const char *name, uint64_t lat_fs,
                    uint64_t byte_fs)
{
    mdc_desc_t *d = p->d;
    mdc_profile_t *pr = mdc_grow((void **)&d->profiles, &d->num_profiles,
                                 sizeof(*pr));

    if (pr == NULL)
        return mdc_perr(p, 1, "out of memory");
    strcpy(pr->name, name);
    pr->line = p->l->lineno;
    mdc_row_t *row = mdc_grow((void **)&pr->rows, &pr->num_rows,
                              sizeof(*row));
    if (row == NULL)
        return mdc_perr(p, 1, "out of memory");
    *row = (mdc_row_t){ 0, lat_fs, byte_fs };
    int idx = (int)(d->num_profiles - 1);
    if (name[0] != '\0' && mdc_strmap_put(&d->profile_map, name, idx) != 0)
        return mdc_perr(p, 1, "out of memory");
    return idx;
}

int mdc_parse_forward_cost(mdc_parser_t *p, const md_token_t *t, int *fwd)
{
    char qb[MDC_QUOTE_BUF], why[200];
    uint64_t fs;

    if (md_token_is(t, "no")) {
        *fwd = MDC_FWD_NO;
        return 0;
    }
    if (t->len > 0 && t->text[0] >= '0' && t->text[0] <= '9') {
        if (mdc_parse_time(t->text, t->len, &fs, why, sizeof(why)) != 0)
            return mdc_perr(p, t->col, "%s, got '%s'", why, mdc_quote(t, qb));
        int idx = mdc_add_profile(p, "", fs, 0);
        if (idx < 0)
            return -1;
        *fwd = idx;
        return 0;
    }
    int idx = mdc_strmap_getn(&p->d->profile_map, t->text, t->len);
    if (idx < 0)
        return mdc_perr(p, t->col, "expected no, a time (e.g. 20us) or a "
                        "declared profile, got '%s'", mdc_quote(t, qb));
    *fwd = idx;
    return 0;
}

static int parse_magic(mdc_parser_t *p)
{
    char qb[MDC_QUOTE_BUF];
    const md_line_t *l = p->l;

    if (!md_token_is(&l->tok[0], "multidev-network"))
        return mdc_perr(p, l->tok[0].col, "expected 'multidev-network 1' as "
                        "the first line, got '%s'", mdc_quote(&l->tok[0], qb));
    if (l->num_tok < 2)
        return mdc_perr(p, l->end_col, "expected the format version 1, got "
                        "end of line");
    if (!md_token_is(&l->tok[1], "1"))
        return mdc_perr(p, l->tok[1].col, "expected the format version 1, "
                        "got '%s'", mdc_quote(&l->tok[1], qb));
    if (l->num_tok > 2)
        return mdc_perr(p, l->tok[2].col, "expected end of line, got '%s'",
                        mdc_quote(&l->tok[2], qb));
    return 0;
}

static int parse_statement(mdc_parser_t *p)
{
    char qb[MDC_QUOTE_BUF];
    const md_token_t *t = &p->l->tok[0];

    if (md_token_is(t, "type"))
        return mdc_parse_type(p);
    if (md_token_is(t, "profile"))
        return mdc_parse_profile(p);
    if (md_token_is(t, "forward"))
        return mdc_parse_forward(p);
    if (md_token_is(t, "node"))
        return mdc_parse_node(p);
    if (md_token_is(t, "network"))
        return mdc_parse_network(p);
    if (md_token_is(t, "switch"))
        return mdc_parse_segment(p, MDC_SEG_SWITCH);
    if (md_token_is(t, "ring"))
        return mdc_parse_segment(p, MDC_SEG_RING);
    if (md_token_is(t, "bus"))
        return mdc_parse_segment(p, MDC_SEG_BUS);
    if (md_token_is(t, "link"))
        return mdc_parse_link(p);
    if (md_token_is(t, "trunk"))
        return mdc_parse_trunk(p);
    return mdc_perr(p, t->col, "expected a statement (type, profile, forward, "
                    "node, network, switch, ring, bus, link, trunk), got '%s'",
                    mdc_quote(t, qb));
}

static int parse_all(mdc_parser_t *p)
{
    md_line_t l;
    int rc, first = 1, line, col;

    while ((rc = md_lines_next(&p->rd, &l, p->err, p->err_len)) == 1) {
        p->l = &l;
        if (first ? parse_magic(p) != 0 : parse_statement(p) != 0)
            return -1;
        first = 0;
    }
    if (rc < 0)
        return -1;
    p->l = NULL;
    md_lines_eof_pos(&p->rd, &line, &col);
    if (first || p->d->num_nodes == 0) {
        md_conf_errorf(p->err, p->err_len, p->d->source, line, col,
                       first ? "expected 'multidev-network 1', got end of file"
                             : "expected at least one 'node' line, got end of "
                               "file");
        return -1;
    }
    return mdc_check_locals(p) != 0 ? -1 : mdc_check_addrs(p);
}

int mdc_desc_parse_buffer(const char *buf, size_t len, const char *source,
                          mdc_desc_t **desc_p, char *err, size_t err_len)
{
    mdc_parser_t p;
    int rc;

    memset(&p, 0, sizeof(p));
    p.err = err;
    p.err_len = err_len;
    if (err != NULL && err_len > 0)
        err[0] = '\0';
    if (source == NULL)
        source = "<string>";
    p.d = calloc(1, sizeof(*p.d));
    if (p.d == NULL || mdc_desc_init_builtins(p.d) != 0) {
        md_conf_errorf(err, err_len, source, 0, 0, "out of memory");
        mdc_desc_free(p.d);
        return -1;
    }
    snprintf(p.d->source, sizeof(p.d->source), "%s", source);
    p.d->forward = MDC_FWD_NO;
    md_lines_init(&p.rd, buf, len, p.d->source);
    rc = parse_all(&p);
    md_lines_fini(&p.rd);
    mdc_strmap_fini(&p.links);
    free(p.locals);
    free(p.addrs);
    if (rc != 0) {
        mdc_desc_free(p.d);
        return -1;
    }
    *desc_p = p.d;
    return 0;
}

int mdc_desc_parse_file(const char *path, mdc_desc_t **desc_p, char *err,
                        size_t err_len)
{
    size_t len = 0;
    char *buf = md_read_file(path, &len);
    int rc;

    if (buf == NULL) {
        snprintf(err, err_len, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    rc = mdc_desc_parse_buffer(buf, len, path, desc_p, err, err_len);
    free(buf);
    return rc;
}
