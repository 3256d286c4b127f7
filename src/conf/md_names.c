/* md_names.c - expand compact name lists (see md_names.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_lines.h"
#include "md_names.h"

#define MAX_GROUPS 8
#define MAX_ITEMS  64

typedef struct item {
    unsigned long lo, hi;
    int           width;
} item_t;

typedef struct group {
    size_t lit_start, lit_len;   /* literal text before the bracket */
    item_t items[MAX_ITEMS];
    size_t num_items;
    size_t count;                /* numbers in this group */
} group_t;

typedef struct pattern {
    group_t groups[MAX_GROUPS];
    size_t  num_groups;
    size_t  tail_start, tail_len;
} pattern_t;

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int err_at(char *why, size_t why_len, size_t *err_off, size_t off,
                  const char *msg, char got)
{
    if (got == '\0')
        snprintf(why, why_len, "%s, got end of name", msg);
    else if (got > ' ' && got < 0x7f)
        snprintf(why, why_len, "%s, got '%c'", msg, got);
    else
        snprintf(why, why_len, "%s, got byte 0x%02x", msg,
                 (unsigned char)got);
    *err_off = off;
    return -1;
}

/* A decimal number of at most 9 digits at text[*i]. */
static int parse_number(const char *text, size_t len, size_t *i,
                        unsigned long *v, int *width)
{
    size_t start = *i;

    *v = 0;
    while (*i < len && is_digit(text[*i]) && *i - start < 9)
        *v = *v * 10 + (unsigned long)(text[(*i)++] - '0');
    *width = (int)(*i - start);
    return *width > 0 && !(*i < len && is_digit(text[*i])) ? 0 : -1;
}

static char at(const char *text, size_t len, size_t i)
{
    return i < len ? text[i] : '\0';
}

/* The bracket group starting after '[' at text[*i]. */
static int parse_group(const char *text, size_t len, size_t *i, group_t *g,
                       char *why, size_t why_len, size_t *err_off)
{
    g->num_items = 0;
    g->count = 0;
    for (;;) {
        item_t it;
        size_t num_start = *i;
        if (parse_number(text, len, i, &it.lo, &it.width) != 0)
            return err_at(why, why_len, err_off, *i,
                          "expected a number of at most 9 digits in the range",
                          at(text, len, *i));
        it.hi = it.lo;
        if (at(text, len, *i) == '-') {
            int w;
            (*i)++;
            size_t hi_start = *i;
            if (parse_number(text, len, i, &it.hi, &w) != 0)
                return err_at(why, why_len, err_off, *i,
                              "expected the upper bound (a number of at most "
                              "9 digits)", at(text, len, *i));
            if (it.hi < it.lo) {
                snprintf(why, why_len,
                         "expected an upper bound of at least %lu, got %lu",
                         it.lo, it.hi);
                *err_off = hi_start;
                return -1;
            }
        }
        if (g->num_items == MAX_ITEMS)
            return err_at(why, why_len, err_off, num_start,
                          "expected at most 64 items in one bracket",
                          at(text, len, num_start));
        g->items[g->num_items++] = it;
        g->count += it.hi - it.lo + 1;
        char c = at(text, len, *i);
        (*i)++;
        if (c == ']')
            return 0;
        if (c != ',')
            return err_at(why, why_len, err_off, *i - 1,
                          "expected ',', '-' or ']' in the range", c);
    }
}

static int parse_pattern(const char *text, size_t len, pattern_t *p,
                         char *why, size_t why_len, size_t *err_off)
{
    size_t i = 0, lit = 0;

    p->num_groups = 0;
    while (i < len) {
        char c = text[i];
        if (c == '[') {
            if (p->num_groups == MAX_GROUPS)
                return err_at(why, why_len, err_off, i,
                              "expected at most 8 bracket groups", c);
            group_t *g = &p->groups[p->num_groups++];
            g->lit_start = lit;
            g->lit_len = i - lit;
            i++;
            if (parse_group(text, len, &i, g, why, why_len, err_off) != 0)
                return -1;
            lit = i;
        } else if (is_name_char(c)) {
            i++;
        } else {
            return err_at(why, why_len, err_off, i,
                          "expected a name character ([A-Za-z0-9_.-]) or '['",
                          c);
        }
    }
    p->tail_start = lit;
    p->tail_len = len - lit;
    return 0;
}

/* The k-th number of group g (0 <= k < g->count), with its width. */
static void group_number(const group_t *g, size_t k, unsigned long *v,
                         int *width)
{
    *v = 0;
    *width = 0;
    for (size_t j = 0; j < g->num_items; j++) {
        size_t n = g->items[j].hi - g->items[j].lo + 1;
        if (k < n) {
            *v = g->items[j].lo + k;
            *width = g->items[j].width;
            return;
        }
        k -= n;
    }
}

static int build_name(const char *text, const pattern_t *p, const size_t *idx,
                      char *out)
{
    char buf[512];
    size_t o = 0;

    for (size_t gi = 0; gi < p->num_groups; gi++) {
        const group_t *g = &p->groups[gi];
        unsigned long v;
        int w;
        if (o + g->lit_len + 16 >= sizeof(buf))
            return -1;
        memcpy(buf + o, text + g->lit_start, g->lit_len);
        o += g->lit_len;
        group_number(g, idx[gi], &v, &w);
        o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%0*lu", w, v);
    }
    if (o + p->tail_len >= sizeof(buf))
        return -1;
    memcpy(buf + o, text + p->tail_start, p->tail_len);
    o += p->tail_len;
    if (!md_name_valid(buf, o, MD_NAME_MAX - 1))
        return -1;
    memcpy(out, buf, o);
    out[o] = '\0';
    return 0;
}

int md_names_expand(const char *text, size_t len, size_t max_count,
                     md_names_t *out, char *why, size_t why_len,
                     size_t *err_off)
{
    pattern_t p = { .num_groups = 0 };
    size_t total = 1, idx[MAX_GROUPS] = { 0 };

    out->name = NULL;
    out->count = 0;
    if (len == 0)
        return err_at(why, why_len, err_off, 0, "expected a name", '\0');
    if (parse_pattern(text, len, &p, why, why_len, err_off) != 0)
        return -1;
    for (size_t gi = 0; gi < p.num_groups; gi++) {
        if (p.groups[gi].count > max_count / total) {
            snprintf(why, why_len, "expected at most %zu names in one list",
                     max_count);
            *err_off = 0;
            return -1;
        }
        total *= p.groups[gi].count;
    }
    out->name = calloc(total, sizeof(*out->name));
    if (out->name == NULL) {
        snprintf(why, why_len, "out of memory");
        *err_off = 0;
        return -1;
    }
    for (size_t k = 0; k < total; k++) {
        if (build_name(text, &p, idx, out->name[k]) != 0) {
            snprintf(why, why_len,
                     "expected names of 1-63 characters ([A-Za-z0-9_.-], not "
                     "'-' alone)");
            *err_off = 0;
            md_names_free(out);
            return -1;
        }
        /* odometer: the last group turns fastest */
        for (size_t gi = p.num_groups; gi-- > 0;) {
            if (++idx[gi] < p.groups[gi].count)
                break;
            idx[gi] = 0;
        }
    }
    out->count = total;
    return 0;
}

void md_names_free(md_names_t *names)
{
    free(names->name);
    names->name = NULL;
    names->count = 0;
}

/* Length of the trailing run of digits of s (of length n). */
static size_t trailing_digits(const char *s, size_t n)
{
    size_t d = 0;

    while (d < n && is_digit(s[n - 1 - d]))
        d++;
    return d;
}

int md_names_follows(const char *prev, const char *next)
{
    size_t n = strlen(prev), d = trailing_digits(prev, n);

    if (d == 0 || d > 9 || strlen(next) != n ||
        trailing_digits(next, n) < d || memcmp(prev, next, n - d) != 0)
        return 0;
    /* next's digits are prev's plus one, with no carry out of the width */
    size_t i = n;
    while (i > n - d && prev[i - 1] == '9') {
        if (next[i - 1] != '0')
            return 0;
        i--;
    }
    if (i == n - d)
        return 0;                      /* 999 -> 1000 changes the width */
    return next[i - 1] == prev[i - 1] + 1 &&
           memcmp(prev + n - d, next + n - d, i - 1 - (n - d)) == 0;
}

size_t md_names_range(const char *first, const char *last, char *out)
{
    size_t n = strlen(first), d = trailing_digits(first, n);

    if (strcmp(first, last) == 0 || d == 0 || n >= MD_NAME_MAX ||
        strlen(last) != n) {
        snprintf(out, MD_NAMES_RANGE_MAX, "%s", first);
        return strlen(out);
    }
    return (size_t)snprintf(out, MD_NAMES_RANGE_MAX, "%.*s[%s-%s]",
                            (int)(n - d), first, first + n - d,
                            last + n - d);
}
