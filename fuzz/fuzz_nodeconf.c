/*
 * fuzz_nodeconf.c - libFuzzer target over md_nodeconf_parse_string.
 * Any input must parse or fail with a positioned message; what parses
 * must write, parse back and write again to the same bytes, and its
 * lookups must agree with its route and rails tables.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_nodeconf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_conf(const md_nodeconf_t *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    if (f == NULL || md_nodeconf_write(f, c) != 0)
        abort();
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[MD_NODECONF_ERR_MAX];
    md_nodeconf_t *c = NULL, *c2 = NULL;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (md_nodeconf_parse_string(text, "fuzz.conf", &c, err,
                                 sizeof(err)) != 0) {
        if (strncmp(err, "fuzz.conf:", 10) != 0)
            abort();
        free(text);
        return 0;
    }
    size_t l1, l2;
    char *w1 = write_conf(c, &l1);
    if (md_nodeconf_parse_string(w1, "again.conf", &c2, err,
                                 sizeof(err)) != 0)
        abort();                       /* our own output must parse */
    char *w2 = write_conf(c2, &l2);
    if (l1 != l2 || memcmp(w1, w2, l1) != 0)
        abort();                       /* and give the same bytes again */
    for (size_t i = 0; i < c->num_routes; i++) {
        const md_nodeconf_route_t *r = &c->routes[i];
        if (md_nodeconf_find_route(c, r->peer, r->min) != r ||
            md_nodeconf_find_route(c, r->peer, r->max) != r ||
            md_nodeconf_find_device(c, r->subdev) == NULL)
            abort();
    }
    for (size_t i = 0; i < c->num_rails; i++) {
        const md_nodeconf_rails_t *r = &c->rails[i];
        if (md_nodeconf_find_rails(c, r->peer) != r || r->num < 2 ||
            r->num > MD_NODECONF_RAILS_MAX ||
            strcmp(r->peer, c->node) == 0)
            abort();
        for (size_t k = 0; k < r->num; k++)
            if (md_nodeconf_find_device(c, r->subdevs[k]) == NULL ||
                r->weights[k] < 1)
                abort();
    }
    free(w1);
    free(w2);
    md_nodeconf_free(c);
    md_nodeconf_free(c2);
    free(text);
    return 0;
}
