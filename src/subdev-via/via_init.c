/* via_init.c - parameters, opening the node's VI NIC, the protection tag,
 * the completion queue and shared pool, the business card, finalize, and
 * the ops table (via_LoadDevicePtr). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_drain.h"
#include "md_firmware.h"
#include "via_impl.h"

static size_t pow2_ceil(size_t v)
{
    size_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

/* Ranges, defaults and docs of the parameters: src/tunables/md_tun_table.c
 * (eager_limit up to 64k, eight frames of VIA_PAYLOAD_MAX). */
static int vsd_params(vsd_ctx_t *ctx, const md_subdev_init_args_t *args)
{
    enum { POLL, BLOCK };                       /* the words of completion= */
    enum { RELIABLE_DELIVERY, RELIABLE_RECEPTION };   /* and of level= */
    size_t level, completion;
    int rc;

    if ((rc = md_param_value(args, "via", "eager_limit", &ctx->eager_limit)) < 0 ||
        (rc = md_param_value(args, "via", "credits", &ctx->credits)) < 0 ||
        (rc = md_param_value(args, "via", "reg_cache", &ctx->reg_cache)) < 0 ||
        (rc = md_param_value(args, "via", "connect_ms", &ctx->connect_ms)) < 0 ||
        (rc = md_param_value(args, "via", "level", &level)) < 0 ||
        (rc = md_param_value(args, "via", "completion", &completion)) < 0 ||
        (rc = md_param_text(args, "via", "nic", ctx->nic_name, sizeof(ctx->nic_name))) < 0 ||
        (rc = md_param_text(args, "via", "timing", ctx->timing, sizeof(ctx->timing))) < 0)
        return rc;
    ctx->credits = pow2_ceil(ctx->credits);
    ctx->sdepth = pow2_ceil(ctx->credits + 8);
    ctx->slot = (VIA_HDR_BYTES + ctx->eager_limit + 63) & ~(size_t)63;
    ctx->level = level == RELIABLE_RECEPTION ? VIA_RELIABLE_RECEPTION : VIA_RELIABLE_DELIVERY;
    ctx->block = completion == BLOCK;
    if ((ctx->fw_thread = md_param_firmware(args, "via")) < 0)
        return ctx->fw_thread;
    return md_nic_addr_choose(ctx->base.sd, args, "via", &ctx->addr);
}

static int rc_reg(void *arg, uint64_t va, uint64_t len, uint32_t flags, uint32_t *handle)
{
    vsd_ctx_t *ctx = arg;
    vipl_mem_attr_t a = { .ptag = ctx->ptag, .enable_rdma_write = (flags & VIA_MR_RDMA_WRITE) != 0,
                          .enable_rdma_read = (flags & VIA_MR_RDMA_READ) != 0 };
    return vipl_register_mem(ctx->nic, (void *)(uintptr_t)va, len, &a, handle) == VIPL_SUCCESS
               ? 0 : -1;
}

static void rc_dereg(void *arg, uint64_t va, uint32_t handle)
{
    vsd_ctx_t *ctx = arg;
    vipl_deregister_mem(ctx->nic, (void *)(uintptr_t)va, handle);
}

int vsd_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len)
{
    vsd_ctx_t *ctx = calloc(1, sizeof(*ctx));
    vipl_result_t r;
    int rc;

    if (ctx == NULL)
        return MD_ERR_NO_MEMORY;
    sd->priv = ctx;
    if ((rc = md_sdbase_init(&ctx->base, sd, args)) != MD_OK ||
        (rc = vsd_params(ctx, args)) != MD_OK ||
        (rc = md_firmware_job_key_check(sd, args)) != MD_OK)
        goto err;
    if ((rc = nic_job_from_key(&ctx->job, args->job_key, args->job_secret)) != 0)
        goto err;
    ctx->peers = calloc((size_t)args->world_size, sizeof(*ctx->peers));
    if (ctx->peers == NULL || md_peerset_init(&ctx->sending, args->world_size) != MD_OK) {
        rc = MD_ERR_NO_MEMORY;
        goto err;
    }

    vipl_nic_opts_t o = { .node = args->node_name, .nic = ctx->nic_name,
                          .bind_ip = ctx->addr.text,
                          .bind_ip_must_match = ctx->addr.must_match, .job = &ctx->job,
                          .start = 1, .inproc = MD_FW_ATTACH_INPROC(ctx->fw_thread),
                          .own_fw = MD_FW_ATTACH_OWN(ctx->fw_thread),
                          .log = { md_firmware_log, sd } };
    if ((r = vipl_open_nic(&o, &ctx->nic)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "cannot open the VI NIC of node %s (%s): %s", args->node_name,
                ctx->nic_name, vipl_result_str(r));
        rc = MD_ERR_NO_ROUTE;
        goto err;
    }
    if (strcmp(ctx->timing, "off") != 0 && vipl_set_timing(ctx->nic, ctx->timing) != VIPL_SUCCESS) {
        rc = MD_ERR_CONFIG;
        goto err;
    }
    if ((r = vipl_create_ptag(ctx->nic, &ctx->ptag)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "no protection tag: %s", vipl_result_str(r));
        rc = vsd_status_of_vipl(r);
        goto err;
    }
    size_t npeers = 0;
    for (int32_t q = 0; q < ctx->base.world_size; q++)
        npeers += ctx->base.serves[q] && q != ctx->base.me;
    size_t cq_entries = pow2_ceil((npeers + 1) * (ctx->credits + ctx->sdepth) + 16);
    if ((r = vipl_create_cq(ctx->nic, (uint32_t)cq_entries, &ctx->cq)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "no completion queue of %zu entries: %s", cq_entries,
                vipl_result_str(r));
        rc = vsd_status_of_vipl(r);
        goto err;
    }
    if ((rc = vsd_pool_create(ctx)) != MD_OK)
        goto err;
    via_rc_backend_t be = { rc_reg, rc_dereg, ctx };
    via_rc_init(&ctx->rc, &be, ctx->reg_cache);

    via_nic_attr_t na;
    vipl_query_nic(ctx->nic, &na);
    via_card_t *c = &ctx->card;
    c->magic = VIA_CARD_MAGIC;
    c->ip = na.ip;
    c->port = na.port;
    c->credit_handle = ctx->credit_h;
    c->credit_va = (uint64_t)(uintptr_t)ctx->credit;
    memcpy(card, c, sizeof(*c));
    *card_len = sizeof(*c);

    sd->attr.eager_limit = ctx->eager_limit;
    return MD_OK;
err:
    vsd_finalize(sd);
    return rc;
}

/* The drain at finalize: the NIC finishes what is posted, so that the
 * last eager messages leave before the VIs close. */
static int sends_pending(void *arg)
{
    vsd_ctx_t *ctx = arg;
    uint32_t busy = 0;

    for (int32_t q = 0; q < ctx->base.world_size; q++)
        busy += ctx->peers[q].vi != NULL && !ctx->peers[q].failed ? ctx->peers[q].sbusy : 0;
    return busy != 0 && !ctx->dead;
}

static int sends_progress(void *arg)
{
    return vsd_progress(((vsd_ctx_t *)arg)->base.sd);
}

/* From here a finalize is the job's end, not a failed start-up. */
static int vsd_ready(md_subdev_t *sd)
{
    ((vsd_ctx_t *)sd->priv)->ready = 1;
    return MD_OK;
}

int vsd_finalize(md_subdev_t *sd)
{
    vsd_ctx_t *ctx = sd->priv;

    if (ctx == NULL)
        return MD_OK;
    if (ctx->nic != NULL && ctx->peers != NULL)
        md_drain(sends_pending, sends_progress, ctx, MD_DRAIN_MS);
    for (int32_t q = 0; ctx->peers != NULL && q < ctx->base.world_size; q++) {
        vsd_peer_t *p = &ctx->peers[q];
        if (p->vi != NULL)
            vipl_destroy_vi(p->vi);
        md_opq_flush(&p->ops, NULL, NULL);
        free(p->sctx);
    }
    if (ctx->nic != NULL) {
        via_rc_fini(&ctx->rc);
        if (ctx->cq != NULL)
            vipl_destroy_cq(ctx->cq);
        if (!ctx->ready)
            vipl_nic_start_failed(ctx->nic);    /* a nicd started for it goes too */
        vipl_close_nic(ctx->nic);
    }
    free(ctx->peers);
    md_peerset_fini(&ctx->sending);
    md_sdbase_fini(&ctx->base);
    free(ctx);
    sd->priv = NULL;
    return MD_OK;
}

/* The function table: <name>_LoadDevicePtr hands out a copy. */
static const md_subdev_ops_t via_ops = {
    MD_SUBDEV_OPS_HEADER("via"),
    .init = vsd_init,
    .connect = vsd_connect,
    .ready = vsd_ready,
    .finalize = vsd_finalize,
    .isend = vsd_isend,
    .irecv = vsd_irecv,
    .recv_cancel = vsd_recv_cancel,
    .iprobe = vsd_iprobe,
    .improbe = vsd_improbe,
    .imrecv = vsd_imrecv,
    .progress = vsd_progress,
    .wait_fd = vsd_wait_fd,
};

MD_LOAD_DEVICE_PTR(via);
MD_LOAD_DEVICE_PTR(via)
{
    *ops = via_ops;
    return MD_OK;
}
