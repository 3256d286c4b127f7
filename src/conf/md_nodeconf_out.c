/*
 * md_nodeconf_out.c - per-node file lines through one buffer
 * (md_nodeconf_out.h).  Single spaces, sizes as plain decimal byte counts
 * or "inf", "-" for a direct next hop, peer ranges as "prefix[lo-hi]",
 * rails as "subdev=weight".
 */
#include <stdlib.h>
#include <string.h>

#include "md_names.h"
#include "md_nodeconf_out.h"

/* Output is assembled in a buffer and handed to stdio in large pieces. */
struct md_nodeconf_out {
    FILE  *f;
    char   text[1 << 16];
    size_t len;
    int    failed;
};

md_nodeconf_out_t *md_nodeconf_out_new(FILE *f)
{
    md_nodeconf_out_t *o = malloc(sizeof(*o));

    if (o != NULL) {
        o->f = f;
        o->len = 0;
        o->failed = 0;
    }
    return o;
}

static void flush_buf(md_nodeconf_out_t *b)
{
    if (b->len > 0 && fwrite(b->text, 1, b->len, b->f) != b->len)
        b->failed = 1;
    b->len = 0;
}

int md_nodeconf_out_finish(md_nodeconf_out_t *o)
{
    flush_buf(o);
    int failed = o->failed || ferror(o->f);
    free(o);
    return failed ? -1 : 0;
}

/* Room for n more bytes (n < sizeof(text)). */
static char *room(md_nodeconf_out_t *b, size_t n)
{
    if (b->len + n > sizeof(b->text))
        flush_buf(b);
    return b->text + b->len;
}

static void put_mem(md_nodeconf_out_t *b, const char *s, size_t n)
{
    if (n >= sizeof(b->text) / 2) {    /* a long parameter value */
        flush_buf(b);
        if (fwrite(s, 1, n, b->f) != n)
            b->failed = 1;
        return;
    }
    memcpy(room(b, n), s, n);
    b->len += n;
}

static void put_str(md_nodeconf_out_t *b, const char *s)
{
    put_mem(b, s, strlen(s));
}

/* " name": names are short (< MD_NODECONF_NAME_MAX), copied bytewise
 * without a strlen and a memcpy call each. */
static void put_word(md_nodeconf_out_t *b, const char *s)
{
    char *p = room(b, MD_NODECONF_NAME_MAX + 1);

    *p++ = ' ';
    for (size_t i = 0; i < MD_NODECONF_NAME_MAX && s[i] != '\0'; i++)
        *p++ = s[i];
    b->len = (size_t)(p - b->text);
}

/* " peer" or " prefix[lo-hi]" */
static void put_peers(md_nodeconf_out_t *b, const char *first,
                      const char *last)
{
    char range[MD_NAMES_RANGE_MAX];

    if (last == first || strcmp(first, last) == 0) {
        put_word(b, first);
        return;
    }
    size_t n = md_names_range(first, last, range);
    put_mem(b, " ", 1);
    put_mem(b, range, n);
}

/* v in decimal after sep (' ', or '=' for a rail's weight) */
static void put_decimal(md_nodeconf_out_t *b, char sep, size_t v)
{
    char digits[24];
    size_t n = 0;

    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    char *p = room(b, n + 1);
    *p++ = sep;
    while (n > 0)
        *p++ = digits[--n];
    b->len = (size_t)(p - b->text);
}

static void put_size(md_nodeconf_out_t *b, size_t v)
{
    if (v == MD_SIZE_INF)
        put_mem(b, " inf", 4);
    else
        put_decimal(b, ' ', v);
}

static void write_device(md_nodeconf_out_t *b, const md_nodeconf_device_t *dev)
{
    put_str(b, "device");
    put_word(b, dev->name);
    for (size_t i = 0; i < dev->num_params; i++) {
        put_mem(b, " ", 1);
        put_str(b, dev->params[i].key);  /* keys and values may be long */
        put_mem(b, "=", 1);
        put_str(b, dev->params[i].value);
    }
    put_mem(b, "\n", 1);
}

void md_nodeconf_out_head(md_nodeconf_out_t *o, const md_nodeconf_t *conf)
{
    char version[16];

    snprintf(version, sizeof(version), "%d", MD_NODECONF_VERSION);
    put_str(o, "multidev-node-config ");
    put_str(o, version);
    put_str(o, "\nnode ");
    put_str(o, conf->node);
    put_mem(o, "\n", 1);
    for (size_t i = 0; i < conf->num_devices; i++)
        write_device(o, &conf->devices[i]);
}

void md_nodeconf_out_route(md_nodeconf_out_t *o, const char *first,
                           const char *last, size_t min, size_t max,
                           const char *subdev, const char *next_hop)
{
    put_mem(o, "route", 5);
    put_peers(o, first, last);
    put_size(o, min);
    put_size(o, max);
    put_word(o, subdev);
    put_word(o, next_hop != NULL && next_hop[0] != '\0' ? next_hop : "-");
    put_mem(o, "\n", 1);
}

void md_nodeconf_out_arrive(md_nodeconf_out_t *o, const char *first,
                            const char *last)
{
    put_mem(o, "arrive", 6);
    put_peers(o, first, last);
}

void md_nodeconf_out_rails(md_nodeconf_out_t *o, const char *first,
                           const char *last, size_t from)
{
    put_mem(o, "rails", 5);
    put_peers(o, first, last);
    put_size(o, from);
}

void md_nodeconf_out_rail(md_nodeconf_out_t *o, const char *subdev,
                          uint32_t weight)
{
    put_word(o, subdev);
    put_decimal(o, '=', weight);
}

void md_nodeconf_out_word(md_nodeconf_out_t *o, const char *word)
{
    put_word(o, word);
}

void md_nodeconf_out_end_line(md_nodeconf_out_t *o)
{
    put_mem(o, "\n", 1);
}
