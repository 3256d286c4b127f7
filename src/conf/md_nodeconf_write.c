/*
 * md_nodeconf_write.c - the canonical text form of a per-node file.
 *
 * One line per item in the stored (canonical) order, single spaces, sizes
 * as plain decimal byte counts or "inf", "-" for a direct next hop.  Lines
 * are assembled in a buffer and written with one fwrite each: mdconfig
 * writes millions of route lines for a large cluster.
 */
#include <errno.h>
#include <string.h>

#include "md_nodeconf_internal.h"

typedef struct line_buf {
    char   text[4 * MD_NODECONF_NAME_MAX + 64];
    size_t len;
} line_buf_t;

static void put_str(line_buf_t *b, const char *s)
{
    size_t n = strlen(s);

    memcpy(b->text + b->len, s, n);
    b->len += n;
}

static void put_word(line_buf_t *b, const char *s)
{
    b->text[b->len++] = ' ';
    put_str(b, s);
}

static void put_size(line_buf_t *b, size_t v)
{
    char digits[24];
    size_t n = 0;

    b->text[b->len++] = ' ';
    if (v == MD_SIZE_INF) {
        put_str(b, "inf");
        return;
    }
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        b->text[b->len++] = digits[--n];
}

static int flush_line(FILE *f, line_buf_t *b)
{
    b->text[b->len++] = '\n';
    return fwrite(b->text, 1, b->len, f) == b->len ? 0 : -1;
}

/* Parameters may be long: written straight to the stream. */
static int write_device(FILE *f, const md_nodeconf_device_t *dev)
{
    if (fprintf(f, "device %s", dev->name) < 0)
        return -1;
    for (size_t i = 0; i < dev->num_params; i++)
        if (fprintf(f, " %s=%s", dev->params[i].key, dev->params[i].value) < 0)
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

static int write_route(FILE *f, const md_nodeconf_route_t *r)
{
    line_buf_t b = { .len = 0 };

    put_str(&b, "route");
    put_word(&b, r->peer);
    put_size(&b, r->min);
    put_size(&b, r->max);
    put_word(&b, r->subdev);
    put_word(&b, r->next_hop[0] != '\0' ? r->next_hop : "-");
    return flush_line(f, &b);
}

static int write_arrive(FILE *f, const md_nodeconf_arrive_t *a)
{
    line_buf_t b = { .len = 0 };

    put_str(&b, "arrive");
    put_word(&b, a->peer);
    if (fwrite(b.text, 1, b.len, f) != b.len)
        return -1;
    for (size_t i = 0; i < a->num_subdevs; i++) {
        b.len = 0;
        put_word(&b, a->subdevs[i]);
        if (fwrite(b.text, 1, b.len, f) != b.len)
            return -1;
    }
    return fputc('\n', f) == EOF ? -1 : 0;
}

int md_nodeconf_write(FILE *f, const md_nodeconf_t *conf)
{
    if (f == NULL || conf == NULL || conf->node[0] == '\0') {
        errno = EINVAL;
        return -1;
    }
    if (fprintf(f, "multidev-node-config %d\nnode %s\n", MD_NODECONF_VERSION,
                conf->node) < 0)
        return -1;
    for (size_t i = 0; i < conf->num_devices; i++)
        if (write_device(f, &conf->devices[i]) != 0)
            return -1;
    for (size_t i = 0; i < conf->num_routes; i++)
        if (write_route(f, &conf->routes[i]) != 0)
            return -1;
    for (size_t i = 0; i < conf->num_arrives; i++)
        if (write_arrive(f, &conf->arrives[i]) != 0)
            return -1;
    return ferror(f) ? -1 : 0;
}
