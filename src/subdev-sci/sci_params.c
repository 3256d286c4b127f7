/* sci_params.c - the sizes of the SCI subdevice's segment: read, the ones
 * not given sized for the job (sci_size.h), checked against each other,
 * and the segment laid out with a block per served peer (sci_slots.h) and
 * checked against the bridge's upstream ATT. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/nic_env.h"
#include "md_firmware.h"
#include "sci_impl.h"
#include "sci_size.h"

/* The sizes of the segment (sci_params_t, and eager_limit): device-line
 * key and variable. */
enum { K_INLINE, K_EAGER, K_RING, K_NMSG, K_NRDV, K_CHUNK, K_NCHUNK, K_NSTAGE, K_COUNT };
static const struct { const char *key, *var; } sci_size_keys[K_COUNT] = {
    { "inline_max", "MULTIDEV_SCI_INLINE_MAX" },   { "eager_limit", "MULTIDEV_SCI_EAGER_LIMIT" },
    { "ring_size", "MULTIDEV_SCI_RING_SIZE" },     { "nmsg", "MULTIDEV_SCI_NMSG" },
    { "nrdv", "MULTIDEV_SCI_NRDV" },               { "dma_chunk", "MULTIDEV_SCI_DMA_CHUNK" },
    { "dma_chunks", "MULTIDEV_SCI_DMA_CHUNKS" },   { "stage_chunks", "MULTIDEV_SCI_STAGE_CHUNKS" },
};

static uint32_t auto_or(size_t v)
{
    return v == SIZE_MAX ? SCI_AUTO : (uint32_t)v;
}

/* Ranks on my node, and on the fullest node. */
static int node_counts(const md_subdev_init_args_t *args, uint32_t *mine, uint32_t *most)
{
    int32_t nodes = 0;
    uint32_t *n;

    for (int32_t r = 0; r < args->world_size; r++)
        nodes = args->node_of_rank[r] >= nodes ? args->node_of_rank[r] + 1 : nodes;
    if ((n = calloc((size_t)nodes + 1, sizeof(*n))) == NULL)
        return MD_ERR_NO_MEMORY;
    *most = 0;
    for (int32_t r = 0; r < args->world_size; r++) {
        int32_t k = args->node_of_rank[r] < 0 ? nodes : args->node_of_rank[r];
        *most = ++n[k] > *most ? n[k] : *most;
    }
    *mine = n[args->my_node < 0 || args->my_node >= nodes ? nodes : args->my_node];
    free(n);
    return MD_OK;
}

int sci_sizes(sci_ctx_t *ctx, const md_subdev_init_args_t *args, sci_params_t *pp)
{
    size_t v[K_COUNT];
    long long att;
    uint32_t eager;
    int rc;
    nic_log_sink_t sink = { md_firmware_log, ctx->base.sd };

    for (int k = 0; k < K_COUNT; k++) {
        v[k] = SIZE_MAX;       /* those without a declared default: sized below */
        if ((rc = md_param_value(args, "sci", sci_size_keys[k].key, &v[k])) < 0)
            return rc;
        ctx->given[k] = rc > 0 ? v[k] : 0;
    }
    if (nic_env_num(&sink, "MULTIDEV_SCI_UP_ATT", &att) != NIC_OK ||
        (rc = node_counts(args, &ctx->node_ranks, &ctx->job.node_max)) != MD_OK)
        return rc != MD_OK ? rc : MD_ERR_CONFIG;
    ctx->job.world = (uint32_t)args->world_size;
    ctx->job.att_bytes = (uint64_t)att * SCI_UP_PAGE;
    *pp = (sci_params_t){
        .inline_max = auto_or(v[K_INLINE]), .ring_size = auto_or(v[K_RING]),
        .nmsg = auto_or(v[K_NMSG]), .nrdv = auto_or(v[K_NRDV]), .chunk = auto_or(v[K_CHUNK]),
        .nchunk = auto_or(v[K_NCHUNK]), .nstage = auto_or(v[K_NSTAGE]),
        .world_size = (uint32_t)args->world_size,
    };
    eager = auto_or(v[K_EAGER]);
    sci_size_auto(&ctx->job, pp, &eager);
    if (pp->inline_max > eager || eager > pp->ring_size) {
        SCI_LOG(ctx, MD_LOG_ERROR, "need inline_max (%u) <= eager_limit (%u) <= ring_size (%u)",
                pp->inline_max, eager, pp->ring_size);
        return MD_ERR_CONFIG;
    }
    ctx->eager_limit = eager;
    return MD_OK;
}

/* What the segments of this node need and the ATT holds, and the sizes
 * given that make them, in one error line. */
static void too_large(sci_ctx_t *ctx, const md_subdev_init_args_t *args, uint64_t node_bytes)
{
    char given[512] = "";
    size_t at = 0;

    for (int k = 0; k < K_COUNT; k++)
        if (ctx->given[k] != 0 && at < sizeof(given))
            at += (size_t)snprintf(given + at, sizeof(given) - at, "%s%s (%s) = %zu",
                                   at > 0 ? ", " : "", sci_size_keys[k].var,
                                   sci_size_keys[k].key, ctx->given[k]);
    SCI_LOG(ctx, MD_LOG_ERROR,
            "the SCI segments of the %u ranks of node %s need %llu bytes (%u x %llu: %u peer "
            "blocks of %llu bytes each), more than the bridge's upstream ATT maps "
            "(MULTIDEV_SCI_UP_ATT = %llu pages of 4 KiB, %llu bytes); %s%s; %s",
            ctx->node_ranks, args->node_name, (unsigned long long)node_bytes, ctx->node_ranks,
            (unsigned long long)ctx->lay.size, ctx->lay.nblocks,
            (unsigned long long)ctx->lay.block,
            (unsigned long long)(ctx->job.att_bytes / SCI_UP_PAGE),
            (unsigned long long)ctx->job.att_bytes,
            at > 0 ? "given: " : "the smallest defaults do not fit", given,
            at > 0 ? "lower them or raise MULTIDEV_SCI_UP_ATT"
                   : "raise MULTIDEV_SCI_UP_ATT or put fewer ranks on a node");
}

int sci_segment(sci_ctx_t *ctx, const md_subdev_init_args_t *args, const sci_params_t *pp)
{
    int32_t w = args->world_size;
    int all = sizeof(sci_card_t) + sci_slots_map_len(w) > MD_CARD_MAX;
    uint32_t nblocks;
    uint64_t node_bytes;

    ctx->map = malloc(sci_slots_map_len(w));
    ctx->slot = malloc(sizeof(int32_t) * (size_t)w);
    if (ctx->map == NULL || ctx->slot == NULL)
        return MD_ERR_NO_MEMORY;
    nblocks = sci_slots_map(ctx->map, args->serves, w, args->world_rank, all);
    ctx->card.map_len = all ? 0 : (uint32_t)sci_slots_map_len(w);
    for (int32_t r = 0; r < w; r++)
        ctx->slot[r] = sci_slot_of(ctx->map, r);
    if (sci_layout_make(pp, nblocks, &ctx->lay) != MD_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "ring_size, nmsg, nrdv, inline_max, dma_chunk, dma_chunks or "
                "stage_chunks out of range");
        return MD_ERR_CONFIG;
    }
    node_bytes = sci_size_node(ctx->node_ranks, ctx->lay.size);
    if (node_bytes > ctx->job.att_bytes) {
        too_large(ctx, args, node_bytes);
        return MD_ERR_CONFIG;
    }
    SCI_LOG(ctx, MD_LOG_INFO, "segment of %llu bytes: %u peer blocks of %llu (ring_size %u, "
            "eager_limit %llu, dma_chunk %u, nmsg %u); node %s: %u ranks, %llu of %llu ATT bytes",
            (unsigned long long)ctx->lay.size, nblocks, (unsigned long long)ctx->lay.block,
            pp->ring_size, (unsigned long long)ctx->eager_limit, pp->chunk, pp->nmsg,
            args->node_name, ctx->node_ranks, (unsigned long long)node_bytes,
            (unsigned long long)ctx->job.att_bytes);
    return MD_OK;
}
