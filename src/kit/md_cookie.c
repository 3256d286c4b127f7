/* md_cookie.c - request cookies (slot and generation), helpers for
 * subdevices (see md_cookie.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_cookie.h"

#define MD_COOKIE_SLOT_BITS 20u
#define MD_COOKIE_SLOTS     (1u << MD_COOKIE_SLOT_BITS)
#define MD_COOKIE_GEN_MASK  0xfffu

void md_cookies_init(md_cookies_t *t)
{
    memset(t, 0, sizeof(*t));
}

void md_cookies_fini(md_cookies_t *t)
{
    free(t->req);
    free(t->next_free);
    free(t->gen);
    memset(t, 0, sizeof(*t));
}

static int md_cookies_grow(md_cookies_t *t)
{
    uint32_t n = t->cap ? t->cap * 2 : 64;
    md_request_t **r;
    uint32_t *f;
    uint16_t *g;

    if (n > MD_COOKIE_SLOTS)
        return -1;
    if ((r = realloc(t->req, n * sizeof(*r))) == NULL)
        return -1;
    t->req = r;
    if ((f = realloc(t->next_free, n * sizeof(*f))) == NULL)
        return -1;
    t->next_free = f;
    if ((g = realloc(t->gen, n * sizeof(*g))) == NULL)
        return -1;
    t->gen = g;
    for (uint32_t i = t->cap ? t->cap : 1; i < n; i++) {
        r[i] = NULL;
        g[i] = 0;
        f[i] = i + 1 < n ? i + 1 : 0;
    }
    t->free = t->cap ? t->cap : 1;
    t->cap = n;
    return 0;
}

uint32_t md_cookie_new(md_cookies_t *t, md_request_t *req)
{
    uint32_t slot;

    if (t->free == 0 && md_cookies_grow(t) != 0)
        return 0;
    slot = t->free;
    t->free = t->next_free[slot];
    t->req[slot] = req;
    t->gen[slot] = (uint16_t)((t->gen[slot] + 1) & MD_COOKIE_GEN_MASK);
    return slot | (uint32_t)t->gen[slot] << MD_COOKIE_SLOT_BITS;
}

md_request_t *md_cookie_peek(const md_cookies_t *t, uint64_t cookie)
{
    uint32_t slot = (uint32_t)cookie & (MD_COOKIE_SLOTS - 1);
    uint32_t gen = (uint32_t)(cookie >> MD_COOKIE_SLOT_BITS);

    if (cookie > UINT32_MAX || slot == 0 || slot >= t->cap || t->req[slot] == NULL ||
        t->gen[slot] != gen)
        return NULL;
    return t->req[slot];
}

md_request_t *md_cookie_take(md_cookies_t *t, uint64_t cookie)
{
    md_request_t *r = md_cookie_peek(t, cookie);
    if (r != NULL) {
        uint32_t slot = (uint32_t)cookie & (MD_COOKIE_SLOTS - 1);
        t->req[slot] = NULL;
        t->next_free[slot] = t->free;
        t->free = slot;
    }
    return r;
}

void md_cookie_foreach(const md_cookies_t *t, void (*fn)(void *, md_request_t *), void *arg)
{
    for (uint32_t i = 1; i < t->cap; i++)
        if (t->req[i] != NULL)
            fn(arg, t->req[i]);
}
