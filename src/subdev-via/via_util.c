/* via_util.c - cookies (request handles that travel to the peer and back),
 * the done list, receive status, string parameters. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "via_impl.h"

/* A cookie is a slot number; the request remembers its slot, so a stale
 * or forged cookie from the wire finds nothing. */
uint32_t vsd_cookie_new(vsd_ctx_t *ctx, md_request_t *req)
{
    uint32_t slot = ctx->cookie_free;

    if (slot == 0) {
        uint32_t n = ctx->ncookies ? ctx->ncookies * 2 : 64;
        md_request_t **c = realloc(ctx->cookies, n * sizeof(*c));
        if (c == NULL)
            return 0;
        ctx->cookies = c;
        uint32_t *f = realloc(ctx->cookie_next_free, n * sizeof(*f));
        if (f == NULL)
            return 0;
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

md_request_t *vsd_cookie_peek(vsd_ctx_t *ctx, uint64_t cookie)
{
    uint32_t slot = (uint32_t)cookie;
    if (slot == 0 || slot >= ctx->ncookies || ctx->cookies[slot] == NULL)
        return NULL;
    md_request_t *r = ctx->cookies[slot];
    return vsd_rp(r)->cookie == slot ? r : NULL;
}

md_request_t *vsd_cookie_take(vsd_ctx_t *ctx, uint64_t cookie)
{
    md_request_t *r = vsd_cookie_peek(ctx, cookie);
    if (r != NULL) {
        uint32_t slot = (uint32_t)cookie;
        ctx->cookies[slot] = NULL;
        ctx->cookie_next_free[slot] = ctx->cookie_free;
        ctx->cookie_free = slot;
        vsd_rp(r)->cookie = 0;
    }
    return r;
}

void vsd_reqlist_append(vsd_reqlist_t *l, md_request_t *r)
{
    vsd_rp(r)->next = NULL;
    vsd_rp(r)->prev = l->tail;
    if (l->tail != NULL)
        vsd_rp(l->tail)->next = r;
    else
        l->head = r;
    l->tail = r;
}

md_request_t *vsd_reqlist_pop(vsd_reqlist_t *l)
{
    md_request_t *r = l->head;
    if (r == NULL)
        return NULL;
    l->head = vsd_rp(r)->next;
    if (l->head == NULL)
        l->tail = NULL;
    else
        vsd_rp(l->head)->prev = NULL;
    vsd_rp(r)->next = vsd_rp(r)->prev = NULL;
    return r;
}

void vsd_recv_status(vsd_ctx_t *ctx, md_request_t *req, const md_envelope_t *env,
                     uint64_t delivered)
{
    req->status.src_rank = env->src_rank;
    req->status.src_world = env->src_world;
    req->status.tag = env->tag;
    req->status.msg_size = env->size;
    req->status.size = delivered;
    req->status.error = delivered < env->size ? MD_ERR_TRUNCATE : MD_OK;
    req->status.cancelled = 0;
    req->status.subdev = ctx->sd->index;
    req->status.seq = env->seq;
}

/* MULTIDEV_VIA_<KEY>, then the device line, then def; 1 if given. */
int vsd_param_str(const md_subdev_init_args_t *args, const char *key, const char *def, char *out,
                  size_t len)
{
    char env[64];
    const char *v;

    snprintf(env, sizeof(env), "MULTIDEV_VIA_%s", key);
    for (char *c = env; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    v = getenv(env);
    if (v == NULL && args != NULL)
        v = md_param_get(args, key);
    snprintf(out, len, "%s", v != NULL ? v : def);
    return v != NULL;
}
