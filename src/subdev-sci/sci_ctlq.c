/* sci_ctlq.c - control stores (ready, done, tp_ctl, tp_grant).  They are
 * small and must never be lost: one that finds the transmit window full
 * waits here, and every later one queues behind it, so they reach each
 * peer in the order they were made. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sci_impl.h"

int sci_ctl_write(sci_ctx_t *ctx, uint64_t addr, const void *data, uint32_t len)
{
    sci_ctl_store_t *c;
    int rc;

    if (ctx->ctl_head == NULL) {
        rc = sci_store(ctx->dev, addr, data, len, 0, 0);
        if (rc != NIC_ERR_NO_RESOURCE)
            return rc;
    }
    if (len > sizeof(c->data) || (c = malloc(sizeof(*c))) == NULL)
        return MD_ERR_NO_MEMORY;
    c->next = NULL;
    c->addr = addr;
    c->len = len;
    memcpy(c->data, data, len);
    if (ctx->ctl_tail != NULL)
        ctx->ctl_tail->next = c;
    else
        ctx->ctl_head = c;
    ctx->ctl_tail = c;
    return MD_OK;
}

int sci_ctl_flush(sci_ctx_t *ctx)
{
    int n = 0;

    while (ctx->ctl_head != NULL) {
        sci_ctl_store_t *c = ctx->ctl_head;
        int rc = sci_store(ctx->dev, c->addr, c->data, c->len, 0, 0);
        if (rc == NIC_ERR_NO_RESOURCE)
            break;
        ctx->ctl_head = c->next;
        if (ctx->ctl_head == NULL)
            ctx->ctl_tail = NULL;
        free(c);
        n++;
    }
    return n;
}

void sci_ctl_drop_all(sci_ctx_t *ctx)
{
    while (ctx->ctl_head != NULL) {
        sci_ctl_store_t *c = ctx->ctl_head;
        ctx->ctl_head = c->next;
        free(c);
    }
    ctx->ctl_tail = NULL;
}
