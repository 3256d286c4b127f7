/* via_pool.c - the memory subdev-via shares with the NIC: for every peer
 * its send descriptors and slots and its receive descriptors and slots,
 * in one region (vipl_alloc_mem, reached by the NIC without a system
 * call); and the credit words the peers RDMA-write into, in a second
 * region that enables RDMA write. */
#include "config.h"

#include <string.h>

#include "via_impl.h"

static size_t peer_bytes(const vsd_ctx_t *ctx)
{
    return (ctx->sdepth + ctx->credits) * (VIA_DESC_STRIDE + ctx->slot);
}

int vsd_pool_create(vsd_ctx_t *ctx)
{
    vipl_mem_attr_t plain = { .ptag = ctx->ptag };
    vipl_mem_attr_t remote = { .ptag = ctx->ptag, .enable_rdma_write = 1 };
    size_t npeers = 0;
    void *va;
    int r;

    for (int32_t q = 0; q < ctx->base.world_size; q++)
        npeers += ctx->base.serves[q] && q != ctx->base.me;
    ctx->pool_len = npeers * peer_bytes(ctx) + (size_t)ctx->base.world_size * 64 + 64;
    if ((r = vipl_alloc_mem(ctx->nic, ctx->pool_len, &plain, &va, &ctx->pool_h)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "cannot allocate %zu bytes of NIC-shared memory: %s",
                ctx->pool_len, vipl_result_str(r));
        return MD_ERR_NO_MEMORY;
    }
    ctx->pool = va;
    ctx->credit_src = ctx->pool + npeers * peer_bytes(ctx);
    ctx->credit_len = (size_t)ctx->base.world_size * 64;
    if ((r = vipl_alloc_mem(ctx->nic, ctx->credit_len, &remote, &va, &ctx->credit_h)) !=
        VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "cannot allocate the credit words: %s", vipl_result_str(r));
        return MD_ERR_NO_MEMORY;
    }
    ctx->credit = va;
    /* Until a peer says otherwise it has the initial credits posted. */
    for (int32_t q = 0; q < ctx->base.world_size; q++)
        memcpy(ctx->credit + (size_t)q * 64, &(uint64_t){ ctx->credits }, 8);
    size_t i = 0;
    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        if (!ctx->base.serves[q] || q == ctx->base.me)
            continue;
        vsd_peer_t *p = &ctx->peers[q];
        uint8_t *base = ctx->pool + i++ * peer_bytes(ctx);
        p->sdesc = base;
        p->rdesc = p->sdesc + ctx->sdepth * VIA_DESC_STRIDE;
        p->sslot = p->rdesc + ctx->credits * VIA_DESC_STRIDE;
        p->rslot = p->sslot + ctx->sdepth * ctx->slot;
    }
    return MD_OK;
}

via_desc_t *vsd_sdesc(vsd_peer_t *p, uint32_t i)
{
    return (via_desc_t *)(p->sdesc + (size_t)i * VIA_DESC_STRIDE);
}

via_desc_t *vsd_rdesc(vsd_peer_t *p, uint32_t i)
{
    return (via_desc_t *)(p->rdesc + (size_t)i * VIA_DESC_STRIDE);
}

uint8_t *vsd_sslot(vsd_ctx_t *ctx, vsd_peer_t *p, uint32_t i)
{
    return p->sslot + (size_t)i * ctx->slot;
}

uint8_t *vsd_rslot(vsd_ctx_t *ctx, vsd_peer_t *p, uint32_t i)
{
    return p->rslot + (size_t)i * ctx->slot;
}

uint32_t vsd_sctx_get(vsd_peer_t *p)
{
    uint32_t i = p->sfree;
    if (i != UINT32_MAX) {
        p->sfree = p->sctx[i].next_free;
        p->sbusy++;
    }
    return i;
}

void vsd_sctx_posted(vsd_ctx_t *ctx, int32_t q, uint32_t i, uint32_t kind, md_request_t *req)
{
    vsd_peer_t *p = &ctx->peers[q];

    p->sctx[i].kind = kind;
    p->sctx[i].req = req;
    p->sawaited += kind == VSD_CTX_WRITE_LAST;
    md_peerset_add(&ctx->sending, q);
}

void vsd_sctx_put(vsd_peer_t *p, uint32_t i)
{
    p->sawaited -= p->sctx[i].kind == VSD_CTX_WRITE_LAST;
    p->sctx[i].kind = VSD_CTX_FREE;
    p->sctx[i].req = NULL;
    p->sctx[i].next_free = p->sfree;
    p->sfree = i;
    p->sbusy--;
}

int vsd_post_recv(vsd_ctx_t *ctx, int32_t q, uint32_t i)
{
    vsd_peer_t *p = &ctx->peers[q];
    via_desc_t *d = vsd_rdesc(p, i);
    vipl_result_t r;

    vipl_desc_init(d, VIA_CONTROL_OP_SENDRECV);
    vipl_desc_add_data(d, vsd_rslot(ctx, p, i), ctx->pool_h, (uint32_t)ctx->slot);
    if ((r = vipl_post_recv(p->vi, d, ctx->pool_h)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR,
                "posting a receive for rank %d failed: %s", q, vipl_result_str(r));
        return MD_ERR_IO;
    }
    p->posted++;
    return MD_OK;
}

uint64_t vsd_credit_word(vsd_ctx_t *ctx, int32_t q)
{
    return __atomic_load_n((uint64_t *)(ctx->credit + (size_t)q * 64), __ATOMIC_ACQUIRE);
}
