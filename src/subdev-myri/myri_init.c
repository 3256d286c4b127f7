/* myri_init.c - parameters, attaching to the node's NIC, the card,
 * connecting (fabric and routes), finalize, and the ops table. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "md_drain.h"
#include "md_firmware.h"
#include "myri/myri_timing.h"
#include "myri_impl.h"

/* Ranges, defaults and docs of the parameters: src/tunables/md_tun_table.c
 * (eager_limit up to MYRI_PAGE, one Myrinet packet; test/tunables checks
 * that the two agree). */
static int myri_params(myri_ctx_t *ctx, const md_subdev_init_args_t *args)
{
    size_t port = (size_t)args->my_node;    /* declared default: the node's index */
    int rc;

    if ((rc = md_param_value(args, "myri", "eager_limit", &ctx->eager_limit)) < 0 ||
        (rc = md_param_value(args, "myri", "credits", &ctx->credits)) < 0 ||
        (rc = md_param_value(args, "myri", "sq", &ctx->sq)) < 0 ||
        (rc = md_param_value(args, "myri", "flush_us", &ctx->flush_us)) < 0 ||
        (rc = md_param_value(args, "myri", "port", &port)) < 0 ||
        (rc = md_param_text(args, "myri", "switch", ctx->sw, sizeof(ctx->sw))) < 0 ||
        (rc = md_param_text(args, "myri", "links", ctx->links, sizeof(ctx->links))) < 0 ||
        (rc = md_param_text(args, "myri", "nic", ctx->nic_name, sizeof(ctx->nic_name))) < 0 ||
        (rc = md_param_text(args, "myri", "timing", ctx->timing, sizeof(ctx->timing))) < 0)
        return rc;
    ctx->port = port;
    if (ctx->port >= MYRI_SWITCH_PORTS) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "switch port %zu of node %s is beyond the %d ports of a "
                 "crossbar (set port= and switch= on the device line)", ctx->port,
                 args->node_name, MYRI_SWITCH_PORTS);
        return MD_ERR_CONFIG;
    }
    if ((ctx->fw_thread = md_param_firmware(args, "myri")) < 0)
        return ctx->fw_thread;
    return md_nic_addr_choose(ctx->base.sd, args, "myri", &ctx->addr);
}

int myri_init(md_subdev_t *sd, const md_subdev_init_args_t *args, void *card, size_t *card_len)
{
    myri_ctx_t *ctx = calloc(1, sizeof(*ctx));
    myri_gam_params_t gp;
    int rc;

    if (ctx == NULL)
        return MD_ERR_NO_MEMORY;
    sd->priv = ctx;
    if ((rc = md_sdbase_init(&ctx->base, sd, args)) != MD_OK ||
        (rc = myri_params(ctx, args)) != MD_OK ||
        (rc = md_firmware_job_key_check(sd, args)) != MD_OK)
        goto err;
    ctx->peers = calloc((size_t)args->world_size, sizeof(*ctx->peers));
    if (ctx->peers == NULL) {
        rc = MD_ERR_NO_MEMORY;
        goto err;
    }

    nic_attach_opts_t o = {
        .node = args->node_name, .nic = ctx->nic_name, .pers = "myri",
        .bind_ip = ctx->addr.text, .bind_ip_must_match = ctx->addr.must_match, .start = 1,
        .inproc = MD_FW_ATTACH_INPROC(ctx->fw_thread), .own_fw = MD_FW_ATTACH_OWN(ctx->fw_thread),
        .timeout_ms = 10000, .log = { md_firmware_log, sd },
    };
    if ((rc = nic_host_attach(&o, &ctx->nic)) != NIC_OK) {
        MYRI_LOG(ctx, MD_LOG_ERROR, "cannot reach the NIC firmware of node %s (%s): %s",
                 args->node_name, ctx->nic_name, md_status_string(rc));
        goto err;
    }
    memset(&gp, 0, sizeof(gp));
    if ((rc = nic_job_from_key(&gp.job, args->job_key, args->job_secret)) != NIC_OK)
        goto err;
    gp.my_vnn = args->world_rank;
    gp.num_vnn = args->world_size;
    gp.credits = (uint32_t)ctx->credits;
    gp.sq_entries = (uint32_t)ctx->sq;
    gp.flush_ns = (uint64_t)ctx->flush_us * 1000;
    if ((rc = myri_gam_open(ctx->nic, &gp, &ctx->gam)) != NIC_OK)
        goto err;
    myri_install_handlers(ctx);

    myri_card_t *c = &ctx->card;
    c->magic = MYRI_CARD_MAGIC;
    c->ep_id = myri_gam_ep(ctx->gam)->id;
    c->ip = ctx->nic->wire_ip;
    c->udp_port = ctx->nic->wire_port;
    c->port = (uint8_t)ctx->port;
    snprintf(c->sw, sizeof(c->sw), "%s", ctx->sw);
    memcpy(card, c, sizeof(*c));
    *card_len = sizeof(*c);

    sd->attr.eager_limit = ctx->eager_limit;
    return MD_OK;
err:
    myri_finalize(sd);
    return rc;
}

static md_nic_endpoint_t myri_card_addr(const md_card_table_t *cards, int32_t r)
{
    const myri_card_t *c = md_card_find(cards, r, sizeof(myri_card_t), MYRI_CARD_MAGIC);
    return (md_nic_endpoint_t){ c != NULL ? c->ip : 0, c != NULL ? c->udp_port : 0 };
}

int myri_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    myri_ctx_t *ctx = sd->priv;
    int rc;

    /* Nothing here waits for a peer, so the first unreachable one ends it. */
    if ((rc = md_nic_addr_check_cards(sd, &ctx->addr, cards, myri_card_addr, ctx->base.serves,
                                      NULL)) != MD_OK ||
        (rc = myri_fabric_setup(ctx, cards)) != MD_OK)
        return rc;
    if (strcmp(ctx->timing, "off") != 0) {
        myri_timing_t t;
        myri_host_timing_t ht;
        myri_timing_profile(ctx->timing, &t, &ht);
        if ((rc = myri_gam_timing(ctx->gam, &t)) != NIC_OK)
            return rc;
        myri_gam_set_host_timing(ctx->gam, &ht);
    }
    return MD_OK;
}

/* From here a finalize is the job's end, not a failed start-up. */
static int myri_ready(md_subdev_t *sd)
{
    ((myri_ctx_t *)sd->priv)->ready = 1;
    return MD_OK;
}

/* The drain at finalize: the NIC takes what is still in the out-queue. */
static int sq_pending(void *arg)
{
    myri_ctx_t *ctx = arg;
    nic_ep_t *ep = myri_gam_ep(ctx->gam);
    return !ctx->dead && nic_ring_space(&ep->sq) <= ep->sq.mask && nic_ep_check(ep) == NIC_OK;
}

static int sq_poll(void *arg)
{
    myri_gam_poll(((myri_ctx_t *)arg)->gam, 64);
    return 0;    /* a dead firmware ends the drain through sq_pending */
}

int myri_finalize(md_subdev_t *sd)
{
    myri_ctx_t *ctx = sd->priv;

    if (ctx == NULL)
        return MD_OK;
    if (ctx->gam != NULL) {
        md_drain(sq_pending, sq_poll, ctx, MD_DRAIN_MS);
        myri_gam_close(ctx->gam);
    }
    if (ctx->nic != NULL && !ctx->ready)
        nic_host_start_failed(ctx->nic);    /* a nicd started for it goes too */
    if (ctx->nic != NULL)
        nic_host_detach(ctx->nic);
    for (int32_t q = 0; ctx->peers != NULL && q < ctx->base.world_size; q++)
        md_opq_flush(&ctx->peers[q].ops, NULL, NULL);
    free(ctx->peers);
    md_sdbase_fini(&ctx->base);
    free(ctx);
    sd->priv = NULL;
    return MD_OK;
}

/* The function table: <name>_LoadDevicePtr hands out a copy. */
static const md_subdev_ops_t myri_ops = {
    MD_SUBDEV_OPS_HEADER("myri"),
    .init = myri_init,
    .connect = myri_connect,
    .ready = myri_ready,
    .finalize = myri_finalize,
    .isend = myri_isend,
    .irecv = myri_irecv,
    .recv_cancel = myri_recv_cancel,
    .iprobe = myri_iprobe,
    .improbe = myri_improbe,
    .imrecv = myri_imrecv,
    .progress = myri_progress,
    .wait_fd = myri_wait_fd,
};

MD_LOAD_DEVICE_PTR(myri);
MD_LOAD_DEVICE_PTR(myri)
{
    *ops = myri_ops;
    return MD_OK;
}
