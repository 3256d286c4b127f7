/* via_util.c - the done list, receive status, string parameters. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "via_impl.h"

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
