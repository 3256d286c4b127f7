/* sci_init.c - parameters, attaching to the node's bridge, exporting this
 * rank's segment, the card, importing the peers' blocks, finalize, and the
 * ops table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_drain.h"
#include "md_firmware.h"
#include "sci/sci_timing.h"
#include "sci_impl.h"

/* Ranges, defaults and docs of the parameters: src/tunables/md_tun_table.c;
 * what depends on two of them is checked here, for the sizes of the
 * segment in sci_params.c. */
static int sci_params(sci_ctx_t *ctx, const md_subdev_init_args_t *args, sci_params_t *pp)
{
    int rc;

    if ((rc = md_param_value(args, "sci", "transport", &ctx->tp_mode)) < 0 ||
        (rc = md_param_value(args, "sci", "sq", &ctx->sq_entries)) < 0 ||
        (rc = md_param_value(args, "sci", "cq", &ctx->cq_entries)) < 0 ||
        (rc = md_param_value(args, "sci", "peer_check_ms", &ctx->check_ms)) < 0 ||
        (rc = md_param_text(args, "sci", "nic", ctx->nic_name, sizeof(ctx->nic_name))) < 0 ||
        (rc = md_param_text(args, "sci", "timing", ctx->timing, sizeof(ctx->timing))) < 0 ||
        (rc = sci_sizes(ctx, args, pp)) != MD_OK)
        return rc;
    if ((ctx->sq_entries & (ctx->sq_entries - 1)) != 0 ||
        ctx->sq_entries < 2 + sci_sqe_slots(SCI_OP_STORE, (uint32_t)ctx->eager_limit) ||
        ctx->sq_entries > 65536) {
        SCI_LOG(ctx, MD_LOG_ERROR, "sq=%zu must be a power of two <= 65536 holding one eager "
                "message (%u entries)", ctx->sq_entries,
                2 + sci_sqe_slots(SCI_OP_STORE, (uint32_t)ctx->eager_limit));
        return MD_ERR_CONFIG;
    }
    if ((ctx->cq_entries & (ctx->cq_entries - 1)) != 0 ||
        ctx->cq_entries < 2 * (size_t)pp->nstage + 8 || ctx->cq_entries > 65536) {
        SCI_LOG(ctx, MD_LOG_ERROR, "cq=%zu must be a power of two, >= 2 x stage_chunks + 8",
                ctx->cq_entries);
        return MD_ERR_CONFIG;
    }
    if ((ctx->fw_thread = md_param_firmware(args, "sci")) < 0)
        return ctx->fw_thread;
    return md_nic_addr_choose(ctx->base.sd, args, "sci", &ctx->addr);
}

/* The bridge, this rank's exported segment and its tag. */
static int sci_open_bridge(sci_ctx_t *ctx, const md_subdev_init_args_t *args)
{
    int rc;
    nic_attach_opts_t o = {
        .node = args->node_name, .nic = ctx->nic_name, .pers = "sci",
        .bind_ip = ctx->addr.text, .bind_ip_must_match = ctx->addr.must_match, .start = 1,
        .inproc = MD_FW_ATTACH_INPROC(ctx->fw_thread), .own_fw = MD_FW_ATTACH_OWN(ctx->fw_thread),
        .timeout_ms = 10000, .log = { md_firmware_log, ctx->base.sd },
    };

    if ((rc = nic_host_attach(&o, &ctx->nic)) != NIC_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "cannot reach the bridge firmware of node %s (%s): %s",
                args->node_name, ctx->nic_name, md_status_string(rc));
        return rc;
    }
    nic_job_t job;
    if ((rc = nic_job_from_key(&job, args->job_key, args->job_secret)) != NIC_OK ||
        (rc = sci_open(ctx->nic, &job, (uint32_t)ctx->sq_entries,
                       (uint32_t)ctx->cq_entries, &ctx->dev)) != NIC_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "opening an endpoint on the bridge of node %s failed: %s",
                args->node_name, md_status_string(rc));
        return rc;
    }
    if ((rc = nic_mr_alloc(ctx->dev->ep, ctx->lay.size,
                           NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE | NIC_MR_REMOTE_READ |
                               NIC_MR_REMOTE_WRITE, &ctx->mr)) != NIC_OK)
        return rc;
    ctx->mr_ok = 1;
    if ((rc = sci_tag_alloc(ctx->dev, &ctx->tag)) != NIC_OK ||
        (rc = sci_set_dma_tag(ctx->dev, ctx->tag)) != NIC_OK ||
        (rc = sci_export_range(ctx->dev, &ctx->mr, 0, ctx->lay.size, ctx->tag,
                               SCI_EXP_REMOTE | SCI_EXP_DMA, &ctx->seg)) != NIC_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "exporting %llu bytes through the bridge of node %s failed: "
                "%s%s", (unsigned long long)ctx->lay.size, args->node_name, md_status_string(rc),
                rc == NIC_ERR_NO_RESOURCE ? " (its upstream ATT is full: MULTIDEV_SCI_UP_ATT of "
                "the bridge firmware is smaller than this rank's, or other segments use it)" : "");
        return rc;
    }
    return MD_OK;
}

int sci_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len)
{
    sci_ctx_t *ctx = calloc(1, sizeof(*ctx));
    sci_params_t pp;
    int rc;

    if (ctx == NULL)
        return MD_ERR_NO_MEMORY;
    sd->priv = ctx;
    memset(&pp, 0, sizeof(pp));
    if ((rc = md_sdbase_init(&ctx->base, sd, args)) != MD_OK ||
        (rc = sci_params(ctx, args, &pp)) != MD_OK ||
        (rc = md_firmware_job_key_check(sd, args)) != MD_OK ||
        (rc = sci_segment(ctx, args, &pp)) != MD_OK)
        goto err;
    ctx->served = malloc(sizeof(int32_t) * (size_t)args->world_size);
    ctx->peers = calloc((size_t)args->world_size, sizeof(*ctx->peers));
    if (ctx->served == NULL || ctx->peers == NULL) {
        rc = MD_ERR_NO_MEMORY;
        goto err;
    }
    if ((rc = sci_open_bridge(ctx, args)) != MD_OK)
        goto err;

    sci_card_t *c = &ctx->card;
    c->magic = SCI_CARD_MAGIC;
    c->ip = ctx->nic->wire_ip;
    c->port = ctx->nic->wire_port;
    c->seg_off = ctx->seg.offset;
    c->seg_size = ctx->seg.size;
    c->p = pp;
    memcpy(card, c, sizeof(*c));
    memcpy((uint8_t *)card + sizeof(*c), ctx->map, c->map_len);
    *card_len = sizeof(*c) + c->map_len;

    sd->attr.eager_limit = ctx->eager_limit;
    return MD_OK;
err:
    sci_finalize(sd);
    return rc;
}

/* A card (len bytes, any alignment) into *c if it is one of ours; where
 * rank me's block is in that rank's segment into *slot (-1: none). */
static int sci_card_read(const uint8_t *card, size_t len, int32_t world, int32_t me,
                         sci_card_t *c, int32_t *slot)
{
    if (card == NULL || len < sizeof(*c))
        return 0;
    memcpy(c, card, sizeof(*c));
    if (c->magic != SCI_CARD_MAGIC || (c->map_len != 0 && c->map_len != sci_slots_map_len(world)) ||
        len != sizeof(*c) + c->map_len)
        return 0;
    *slot = c->map_len == 0 ? me : sci_slot_of(card + sizeof(*c), me);
    return 1;
}

static int sci_connect_peer(sci_ctx_t *ctx, int32_t q, const sci_card_t *c, int32_t slot)
{
    sci_peer_t *p = &ctx->peers[q];
    const sci_layout_t *l = &ctx->lay;
    sci_node_t node = { c->ip, c->port };
    int rc;

    if (memcmp(&c->p, &ctx->card.p, sizeof(c->p)) != 0) {
        SCI_LOG(ctx, MD_LOG_ERROR, "rank %d runs other SCI parameters (inline_max, eager_limit, "
                "ring_size, nmsg, nrdv, dma_chunk, dma_chunks, stage_chunks must agree, and "
                "MULTIDEV_SCI_UP_ATT, which sizes those not given)", q);
        return MD_ERR_CONFIG;
    }
    if (slot < 0) {
        SCI_LOG(ctx, MD_LOG_ERROR, "rank %d keeps no SCI block for rank %d (its routes do not "
                "serve it)", q, ctx->base.me);
        return MD_ERR_CONFIG;
    }
    p->node = sci_node_pack(node);
    p->ring_end = calloc(l->p.nmsg, sizeof(*p->ring_end));
    p->rdv_req = calloc(l->p.nrdv, sizeof(*p->rdv_req));
    if (p->ring_end == NULL || p->rdv_req == NULL)
        return MD_ERR_NO_MEMORY;
    /* one window on my block there: its rx and tx parts */
    if ((rc = sci_import(ctx->dev, node, c->seg_off + sci_rx_block(l, slot), l->block, ctx->tag,
                         &p->rx_win)) != NIC_OK) {
        SCI_LOG(ctx, MD_LOG_ERROR, "importing the segment of rank %d failed: %s", q,
                md_status_string(rc));
        return rc;
    }
    p->tx_win = (sci_win_t){ p->rx_win.addr + l->tx_part, l->tx_len };
    p->next_id = p->oldest_id = p->rx_next = 1;
    p->connected = 1;
    return MD_OK;
}

static md_nic_endpoint_t sci_card_addr(const md_card_table_t *cards, int32_t r)
{
    sci_card_t card;
    int32_t slot;
    const sci_card_t *c = r >= 0 && r < cards->world_size &&
                          sci_card_read(cards->card[r], cards->len[r], cards->world_size, 0,
                                        &card, &slot) ? &card : NULL;
    return (md_nic_endpoint_t){ c != NULL ? c->ip : 0, c != NULL ? c->port : 0 };
}

/* How the transport moves its chunks (MULTIDEV_SCI_TRANSPORT): auto takes
 * PIO when the timing model's PIO writes are faster than its DMA engine.
 * PIO stores a whole chunk at once, so the transmit window must hold one. */
static int sci_transport_choose(sci_ctx_t *ctx)
{
    enum { AUTO, PIO, DMA };                    /* the words of transport= */
    uint32_t need = 2 + sci_sqe_slots(SCI_OP_STORE, ctx->lay.p.chunk);

    ctx->tp_pio = ctx->tp_mode == PIO || (ctx->tp_mode == AUTO && sci_pio_beats_dma(ctx->dev));
    if (ctx->tp_pio && ctx->sq_entries < need) {
        SCI_LOG(ctx, MD_LOG_ERROR, "transport by PIO: sq=%zu must hold one dma_chunk "
                "(%u entries)", ctx->sq_entries, need);
        return MD_ERR_CONFIG;
    }
    SCI_LOG(ctx, MD_LOG_INFO, "transport protocol moves its chunks by %s",
            ctx->tp_pio ? "PIO stores" : "the DMA engine");
    return MD_OK;
}

int sci_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    sci_ctx_t *ctx = sd->priv;
    int rc;

    /* Importing waits for no peer, so the first unreachable one ends it. */
    if ((rc = md_nic_addr_check_cards(sd, &ctx->addr, cards, sci_card_addr, ctx->base.serves,
                                      NULL)) != MD_OK)
        return rc;

    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        sci_card_t c;
        int32_t slot;

        if (q == ctx->base.me || !ctx->base.serves[q])
            continue;
        if (q >= cards->world_size || cards->world_size != ctx->base.world_size ||
            !sci_card_read(cards->card[q], cards->len[q], cards->world_size, ctx->base.me, &c,
                           &slot)) {
            SCI_LOG(ctx, MD_LOG_ERROR, "rank %d published no SCI card", q);
            return MD_ERR_CONFIG;
        }
        if ((rc = sci_connect_peer(ctx, q, &c, slot)) != MD_OK)
            return rc;
        ctx->served[ctx->nserved++] = q;
    }
    if (strcmp(ctx->timing, "off") != 0) {
        sci_timing_t t;
        sci_timing_profile(ctx->timing, &t);
        if ((rc = sci_set_timing(ctx->dev, &t)) != NIC_OK)
            return rc;
    }
    return sci_transport_choose(ctx);
}

/* The drain at finalize: the bridge takes what is still queued, so that
 * the last ready and done flags reach the peers. */
static int stores_pending(void *arg)
{
    sci_ctx_t *ctx = arg;
    return !ctx->dead && (ctx->ctl_head != NULL ||
                          sci_window_space(ctx->dev) <= ctx->dev->ep->sq.mask);
}

static int stores_progress(void *arg)
{
    return sci_progress_inner(arg);
}

/* From here a finalize is the job's end, not a failed start-up. */
static int sci_ready(md_subdev_t *sd)
{
    ((sci_ctx_t *)sd->priv)->ready = 1;
    return MD_OK;
}

int sci_finalize(md_subdev_t *sd)
{
    sci_ctx_t *ctx = sd->priv;

    if (ctx == NULL)
        return MD_OK;
    if (ctx->dev != NULL) {
        md_drain(stores_pending, stores_progress, ctx, MD_DRAIN_MS);
        sci_flush_done(ctx);
        if (ctx->mr_ok)
            nic_mr_free(ctx->dev->ep, &ctx->mr);
        sci_close(ctx->dev);
    }
    if (ctx->nic != NULL && !ctx->ready)
        nic_host_start_failed(ctx->nic);    /* a nicd started for it goes too */
    if (ctx->nic != NULL)
        nic_host_detach(ctx->nic);
    sci_ctl_drop_all(ctx);
    for (int32_t q = 0; ctx->peers != NULL && q < ctx->base.world_size; q++) {
        sci_peer_t *p = &ctx->peers[q];
        md_held_drop(&p->held);
        while (p->tp_head != NULL) {
            sci_tp_recv_t *t = p->tp_head;
            p->tp_head = t->next;
            free(t);
        }
        free(p->ring_end);
        free(p->rdv_req);
    }
    free(ctx->served);
    free(ctx->peers);
    free(ctx->map);
    free(ctx->slot);
    md_sdbase_fini(&ctx->base);
    free(ctx);
    sd->priv = NULL;
    return MD_OK;
}

/* The function table: <name>_LoadDevicePtr hands out a copy. */
static const md_subdev_ops_t sci_ops = {
    MD_SUBDEV_OPS_HEADER("sci"),
    .init = sci_init,
    .connect = sci_connect,
    .ready = sci_ready,
    .finalize = sci_finalize,
    .isend = sci_isend,
    .irecv = sci_irecv,
    .recv_cancel = sci_recv_cancel,
    .iprobe = sci_iprobe,
    .improbe = sci_improbe,
    .imrecv = sci_imrecv,
    .progress = sci_progress,
    .wait_fd = sci_wait_fd,
};

MD_LOAD_DEVICE_PTR(sci);
MD_LOAD_DEVICE_PTR(sci)
{
    *ops = sci_ops;
    return MD_OK;
}
