/* via_conn.c - connecting to every peer this subdevice serves: one reliable
 * VI per peer, its receives posted before the connection exists, then the
 * client/server set-up by discriminator (job, client rank, server rank):
 * the lower rank asks, the higher one waits and accepts.  Every rank first
 * sends all its requests (the server NICs hold them), then serves its own
 * waits in rank order, then waits for its requests: no ordering can
 * deadlock. */
#include "config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "via_impl.h"

static const via_card_t *card_of(const md_card_table_t *cards, int32_t r)
{
    return md_card_find(cards, r, sizeof(via_card_t), VIA_CARD_MAGIC);
}

static void discriminator(const vsd_ctx_t *ctx, int32_t client, int32_t server,
                          vipl_net_addr_t *a)
{
    uint8_t d[VIA_DISC_MAX];
    memcpy(d, &ctx->job.tag, 8);
    memcpy(d + 8, &client, 4);
    memcpy(d + 12, &server, 4);
    vipl_addr_set_disc(a, d, sizeof(d));
}

static int peer_setup(vsd_ctx_t *ctx, int32_t q, const via_card_t *c)
{
    vsd_peer_t *p = &ctx->peers[q];
    vipl_vi_attr_t a = {
        .reliability = ctx->level, .max_transfer = 64u << 20, .ptag = ctx->ptag,
        .enable_rdma_write = 1, .send_depth = (uint32_t)ctx->sdepth,
        .recv_depth = (uint32_t)ctx->credits,
    };
    vipl_result_t r;

    p->sctx = calloc(ctx->sdepth, sizeof(*p->sctx));
    if (p->sctx == NULL)
        return MD_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < ctx->sdepth; i++)
        p->sctx[i].next_free = i + 1 < ctx->sdepth ? i + 1 : UINT32_MAX;
    p->sfree = 0;
    /* Receives complete on the CQ the host waits on; sends on none: reaped
     * by polling (vsd_progress), they interrupt a waiting host only when a
     * request waits for them (vipl_send_wait_begin). */
    if ((r = vipl_create_vi(ctx->nic, &a, NULL, ctx->cq, &p->vi)) != VIPL_SUCCESS) {
        VSD_LOG(ctx, MD_LOG_ERROR, "creating the VI for rank %d failed: %s", q, vipl_result_str(r));
        return vsd_status_of_vipl(r);
    }
    vipl_vi_set_context(p->vi, (void *)(intptr_t)(q + 1));
    /* Receives first: a send may arrive as soon as the connection exists. */
    for (uint32_t i = 0; i < ctx->credits; i++)
        if (vsd_post_recv(ctx, q, i) != MD_OK)
            return MD_ERR_IO;
    p->remote_posted = ctx->credits;
    p->advertised = ctx->credits;
    p->remote_credit_va = c->credit_va;
    p->remote_credit_h = c->credit_handle;
    p->client = ctx->base.me < q;
    return MD_OK;
}

/* Connects to every peer served but those skip[] names. */
static int connect_peers(vsd_ctx_t *ctx, const md_card_table_t *cards, const uint8_t *skip)
{
    int timeout = (int)ctx->connect_ms;
    int rc = MD_OK;

    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        const via_card_t *c;
        if (!ctx->base.serves[q] || q == ctx->base.me || skip[q])
            continue;
        if ((c = card_of(cards, q)) == NULL) {
            VSD_LOG(ctx, MD_LOG_ERROR,
                    "rank %d is to be reached over via but published no via card", q);
            return MD_ERR_NO_ROUTE;
        }
        if ((rc = peer_setup(ctx, q, c)) != MD_OK)
            return rc;
        if (!ctx->peers[q].client)
            continue;
        vipl_net_addr_t remote;
        memset(&remote, 0, sizeof(remote));
        remote.host_len = VIA_ADDR_LEN;
        memcpy(remote.host, &c->ip, 4);
        memcpy(remote.host + 4, &c->port, 2);
        discriminator(ctx, ctx->base.me, q, &remote);
        vipl_result_t r = vipl_connect_start(ctx->peers[q].vi, &remote, timeout);
        if (r != VIPL_SUCCESS) {
            VSD_LOG(ctx, MD_LOG_ERROR,
                    "connection request to rank %d failed: %s", q, vipl_result_str(r));
            return MD_ERR_IO;
        }
    }
    /* Serve the lower ranks' requests, in rank order. */
    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        vsd_peer_t *p = &ctx->peers[q];
        vipl_net_addr_t local;
        vipl_conn_t conn;
        vipl_result_t r;
        if (!ctx->base.serves[q] || q == ctx->base.me || skip[q] || p->client)
            continue;
        memset(&local, 0, sizeof(local));
        discriminator(ctx, q, ctx->base.me, &local);
        if ((r = vipl_connect_wait(ctx->nic, &local, timeout, &conn)) != VIPL_SUCCESS ||
            (r = vipl_connect_accept(&conn, p->vi)) != VIPL_SUCCESS) {
            VSD_LOG(ctx, MD_LOG_ERROR, "no connection from rank %d within %d ms: %s", q, timeout,
                    vipl_result_str(r));
            return r == VIPL_TIMEOUT ? MD_ERR_TIMEOUT : MD_ERR_IO;
        }
        p->connected = 1;
    }
    /* And our own requests. */
    for (int32_t q = 0; q < ctx->base.world_size; q++) {
        vsd_peer_t *p = &ctx->peers[q];
        vipl_result_t r;
        if (!ctx->base.serves[q] || q == ctx->base.me || skip[q] || !p->client)
            continue;
        while ((r = vipl_connect_poll(p->vi)) == VIPL_NOT_DONE) {
            struct timespec ts = { 0, 20000 };
            nanosleep(&ts, NULL);
        }
        if (r != VIPL_SUCCESS) {
            VSD_LOG(ctx, MD_LOG_ERROR, "connecting to rank %d failed: %s", q, vipl_result_str(r));
            return r == VIPL_TIMEOUT ? MD_ERR_TIMEOUT : MD_ERR_PEER_FAILED;
        }
        p->connected = 1;
    }
    return MD_OK;
}

static md_nic_endpoint_t via_card_addr(const md_card_table_t *cards, int32_t r)
{
    const via_card_t *c = card_of(cards, r);
    return (md_nic_endpoint_t){ c != NULL ? c->ip : 0, c != NULL ? c->port : 0 };
}

int vsd_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    vsd_ctx_t *ctx = sd->priv;
    uint8_t *unreachable = malloc((size_t)ctx->base.world_size);
    int addr_rc, rc;

    if (unreachable == NULL)
        return MD_ERR_NO_MEMORY;
    addr_rc = md_nic_addr_check_cards(sd, &ctx->addr, cards, via_card_addr, ctx->base.serves,
                                      unreachable);
    /* The pairs that cannot talk are left out and the others connected as
     * usual: a peer waits for this rank's connection requests and answers,
     * and would otherwise wait out connect_ms before MPI_Init fails. */
    rc = addr_rc == MD_ERR_NO_MEMORY ? addr_rc : connect_peers(ctx, cards, unreachable);
    free(unreachable);
    return rc != MD_OK ? rc : addr_rc;
}
