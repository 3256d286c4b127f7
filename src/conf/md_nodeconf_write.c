/*
 * md_nodeconf_write.c - the canonical text form of a per-node file.
 *
 * One line per item in the stored (canonical) order, single spaces, sizes
 * as plain decimal byte counts or "inf", "-" for a direct next hop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf_internal.h"

/* Output is assembled in a buffer and handed to stdio in large pieces:
 * a 4096-node cluster means 16 million lines. */
typedef struct out_buf {
    FILE  *f;
    char   text[1 << 16];
    size_t len;
    int    failed;
} out_buf_t;

static void flush_buf(out_buf_t *b)
{
    if (b->len > 0 && fwrite(b->text, 1, b->len, b->f) != b->len)
        b->failed = 1;
    b->len = 0;
}

/* Room for n more bytes (n < sizeof(text)). */
static char *room(out_buf_t *b, size_t n)
{
    if (b->len + n > sizeof(b->text))
        flush_buf(b);
    return b->text + b->len;
}

static void put_mem(out_buf_t *b, const char *s, size_t n)
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

static void put_str(out_buf_t *b, const char *s)
{
    put_mem(b, s, strlen(s));
}

/* " name": names are short (< MD_NODECONF_NAME_MAX), copied bytewise
 * without a strlen and a memcpy call each. */
static void put_word(out_buf_t *b, const char *s)
{
    char *p = room(b, MD_NODECONF_NAME_MAX + 1);

    *p++ = ' ';
    for (size_t i = 0; i < MD_NODECONF_NAME_MAX && s[i] != '\0'; i++)
        *p++ = s[i];
    b->len = (size_t)(p - b->text);
}

static void put_size(out_buf_t *b, size_t v)
{
    char digits[24];
    size_t n = 0;

    if (v == MD_SIZE_INF) {
        put_mem(b, " inf", 4);
        return;
    }
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    char *p = room(b, n + 1);
    *p++ = ' ';
    while (n > 0)
        *p++ = digits[--n];
    b->len = (size_t)(p - b->text);
}

static void write_device(out_buf_t *b, const md_nodeconf_device_t *dev)
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

static void write_route(out_buf_t *b, const md_nodeconf_route_t *r)
{
    put_mem(b, "route", 5);
    put_word(b, r->peer);
    put_size(b, r->min);
    put_size(b, r->max);
    put_word(b, r->subdev);
    put_word(b, r->next_hop[0] != '\0' ? r->next_hop : "-");
    put_mem(b, "\n", 1);
}

static void write_arrive(out_buf_t *b, const md_nodeconf_arrive_t *a)
{
    put_mem(b, "arrive", 6);
    put_word(b, a->peer);
    for (size_t i = 0; i < a->num_subdevs; i++)
        put_word(b, a->subdevs[i]);
    put_mem(b, "\n", 1);
}

int md_nodeconf_write(FILE *f, const md_nodeconf_t *conf)
{
    out_buf_t *b;
    char version[16];

    if (f == NULL || conf == NULL || conf->node[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    b = malloc(sizeof(*b));
    if (b == NULL)
        return -1;
    b->f = f;
    b->len = 0;
    b->failed = 0;
    snprintf(version, sizeof(version), "%d", MD_NODECONF_VERSION);
    put_str(b, "multidev-node-config ");
    put_str(b, version);
    put_str(b, "\nnode ");
    put_str(b, conf->node);
    put_mem(b, "\n", 1);
    for (size_t i = 0; i < conf->num_devices; i++)
        write_device(b, &conf->devices[i]);
    for (size_t i = 0; i < conf->num_routes; i++)
        write_route(b, &conf->routes[i]);
    for (size_t i = 0; i < conf->num_arrives; i++)
        write_arrive(b, &conf->arrives[i]);
    flush_buf(b);
    int failed = b->failed || ferror(f);
    free(b);
    return failed ? -1 : 0;
}
