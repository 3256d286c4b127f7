/* myri_util.c - cookies (request handles that travel to the peer and
 * back), request and message lists, envelope packing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "myri_impl.h"

/* A cookie is slot | generation << 32: a stale or forged cookie from the
 * wire finds nothing. */
uint32_t myri_cookie_new(myri_ctx_t *ctx, md_request_t *req)
{
    uint32_t slot = ctx->cookie_free;

    if (slot == 0) {
        uint32_t n = ctx->ncookies ? ctx->ncookies * 2 : 64;
        md_request_t **c = realloc(ctx->cookies, n * sizeof(*c));
        uint32_t *f = realloc(ctx->cookie_next_free, n * sizeof(*f));
        if (c == NULL || f == NULL) {
            if (c != NULL)
                ctx->cookies = c;
            if (f != NULL)
                ctx->cookie_next_free = f;
            return 0;
        }
        ctx->cookies = c;
        ctx->cookie_next_free = f;
        for (uint32_t i = ctx->ncookies ? ctx->ncookies : 1; i < n; i++) {
            c[i] = NULL;
            f[i] = i + 1 < n ? i + 1 : 0;
        }
        slot = ctx->ncookies ? ctx->ncookies : 1;
        ctx->ncookies = n;
    }
    ctx->cookie_free = ctx->cookie_next_free[slot];
    ctx->cookies[slot] = req;
    return slot;
}

md_request_t *myri_cookie_peek(myri_ctx_t *ctx, uint64_t cookie)
{
    uint32_t slot = (uint32_t)cookie;
    if (slot == 0 || slot >= ctx->ncookies || ctx->cookies[slot] == NULL)
        return NULL;
    md_request_t *r = ctx->cookies[slot];
    return myri_rp(r)->cookie == slot ? r : NULL;
}

md_request_t *myri_cookie_take(myri_ctx_t *ctx, uint64_t cookie)
{
    md_request_t *r = myri_cookie_peek(ctx, cookie);
    if (r != NULL) {
        uint32_t slot = (uint32_t)cookie;
        ctx->cookies[slot] = NULL;
        ctx->cookie_next_free[slot] = ctx->cookie_free;
        ctx->cookie_free = slot;
        myri_rp(r)->cookie = 0;
    }
    return r;
}

void myri_reqlist_append(myri_reqlist_t *l, md_request_t *r)
{
    myri_rp(r)->next = NULL;
    myri_rp(r)->prev = l->tail;
    if (l->tail != NULL)
        myri_rp(l->tail)->next = r;
    else
        l->head = r;
    l->tail = r;
}

void myri_reqlist_remove(myri_reqlist_t *l, md_request_t *r)
{
    myri_rpriv_t *p = myri_rp(r);
    if (p->prev != NULL)
        myri_rp(p->prev)->next = p->next;
    else
        l->head = p->next;
    if (p->next != NULL)
        myri_rp(p->next)->prev = p->prev;
    else
        l->tail = p->prev;
    p->next = p->prev = NULL;
}

md_request_t *myri_reqlist_pop(myri_reqlist_t *l)
{
    md_request_t *r = l->head;
    if (r != NULL)
        myri_reqlist_remove(l, r);
    return r;
}

void myri_msgq_append(myri_msgq_t *q, myri_msg_t *m)
{
    m->next = NULL;
    m->prev = q->tail;
    if (q->tail != NULL)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
}

void myri_msgq_remove(myri_msgq_t *q, myri_msg_t *m)
{
    if (m->prev != NULL)
        m->prev->next = m->next;
    else
        q->head = m->next;
    if (m->next != NULL)
        m->next->prev = m->prev;
    else
        q->tail = m->prev;
    m->next = m->prev = NULL;
}

_Static_assert(sizeof(md_envelope_t) == 5 * sizeof(uint64_t), "envelope fits the GAM arguments");

void myri_env_pack(const md_envelope_t *env, uint64_t args[5])
{
    memcpy(args, env, sizeof(*env));
}

void myri_env_unpack(const uint64_t args[5], md_envelope_t *env)
{
    memcpy(env, args, sizeof(*env));
}
