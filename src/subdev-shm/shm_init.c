/*
 * shm_init.c - life cycle of the shm subdevice and its ops table.
 *
 *   init     reads the tunables, picks the local peers (same node index,
 *            served, and always itself), creates and binds the segment,
 *            writes the card: pid, node, segment name and size, and the
 *            address and value of a word that peers read to test CMA.
 *   connect  maps every local peer's segment, opens a pidfd on it, and
 *            probes CMA per peer.
 *   ready    unlinks the own segment: mappings stay, names go.
 *   finalize marks the segment finalized (so peers do not mistake the exit
 *            for a crash), unmaps everything, frees the pools.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm_impl.h"


static int shm_read_tunables(shm_ctx_t *ctx, const md_subdev_init_args_t *args)
{
    static const struct {
        const char *key;
        size_t      offset;
    } fields[] = {
        { "eager_limit",   offsetof(shm_tunables_t, eager_limit) },
        { "ring_size",     offsetof(shm_tunables_t, ring_size) },
        { "frag_size",     offsetof(shm_tunables_t, frag_size) },
        { "cma",           offsetof(shm_tunables_t, cma) },
        { "peer_check_ms", offsetof(shm_tunables_t, peer_check_ms) },
        { "numa_bind",     offsetof(shm_tunables_t, numa_bind) },
        { "poll_budget",   offsetof(shm_tunables_t, poll_budget) },
        { "help_min",      offsetof(shm_tunables_t, help_min) },
    };
    shm_tunables_t *t = &ctx->tun;
    size_t max_rec, ring;
    int eager_auto, frag_given = 0, help_given = 0;

    /* declared without a default: computed below unless given */
    t->eager_limit = t->ring_size = SHM_AUTO;
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        size_t *slot = (size_t *)((uint8_t *)t + fields[i].offset);
        int rc = md_param_value(args, "shm", fields[i].key, slot);

        if (rc < 0)
            return rc;
        if (rc > 0 && strcmp(fields[i].key, "frag_size") == 0)
            frag_given = 1;
        if (rc > 0 && strcmp(fields[i].key, "help_min") == 0)
            help_given = 1;
    }

    if (t->ring_size == SHM_AUTO) {
        t->ring_size = SHM_RING_SIZE_MAX_AUTO;
        while (t->ring_size > SHM_RING_SIZE_MIN_AUTO &&
               t->ring_size * (size_t)ctx->nlocal > SHM_SEGMENT_BUDGET)
            t->ring_size /= 2;
    }
    eager_auto = t->eager_limit == SHM_AUTO;
    if (eager_auto)
        t->eager_limit = SHM_DEFAULT_EAGER_LIMIT;

    /* ring_size: a power of two (its declared range is 4k .. 1g) */
    for (ring = 4096; ring < t->ring_size; ring <<= 1)
        ;
    if (ring != t->ring_size)
        SHM_WARN(ctx, "ring_size %zu rounded up to %zu (a power of two)",
                 t->ring_size, ring);
    t->ring_size = ring;

    max_rec = shm_ring_max_record(t->ring_size);
    if (t->eager_limit > max_rec - sizeof(shm_msg_hdr_t)) {
        if (!eager_auto)
            SHM_WARN(ctx, "eager_limit %zu does not fit a ring of %zu bytes; "
                     "using %zu", t->eager_limit, t->ring_size,
                     max_rec - sizeof(shm_msg_hdr_t));
        t->eager_limit = max_rec - sizeof(shm_msg_hdr_t);
    }
    if (t->frag_size < SHM_LINE || t->frag_size > max_rec - SHM_DATA_OFFSET) {
        size_t fixed = t->frag_size < SHM_LINE ? SHM_LINE : max_rec - SHM_DATA_OFFSET;

        /* the default shrinks with the automatic ring size (many ranks on
         * a node) without a word; a frag_size somebody gave is worth one */
        if (frag_given)
            SHM_WARN(ctx, "frag_size %zu does not fit a ring of %zu bytes; "
                     "using %zu", t->frag_size, t->ring_size, fixed);
        t->frag_size = fixed;
    }
    if (!help_given && t->help_min > 0 && args->host_oversubscribed) {
        SHM_INFO(ctx, "more ranks on this host than processing units: a sender does not "
                 "help copy (it may lose its core in the middle of a chunk)");
        t->help_min = 0;
    }
    return MD_OK;
}

/* Local peers: every served rank with my node index, and me. */
static int shm_pick_peers(shm_ctx_t *ctx, const md_subdev_init_args_t *args)
{
    int32_t n = 0;

    ctx->local_of_world = malloc((size_t)args->world_size * sizeof(int32_t));
    if (ctx->local_of_world == NULL)
        return MD_ERR_NO_MEMORY;
    for (int32_t r = 0; r < args->world_size; r++) {
        int local = r == args->world_rank ||
                    ((args->serves == NULL || args->serves[r]) &&
                     args->node_of_rank[r] == args->my_node);

        ctx->local_of_world[r] = local ? n++ : -1;
    }
    ctx->nlocal = n;
    ctx->peers = calloc((size_t)n, sizeof(shm_peer_t));
    if (ctx->peers == NULL)
        return MD_ERR_NO_MEMORY;
    for (int32_t r = 0; r < args->world_size; r++) {
        int32_t i = ctx->local_of_world[r];

        if (i < 0)
            continue;
        ctx->peers[i].world = r;
        ctx->peers[i].pidfd = -1;
        ctx->peers[i].is_self = r == args->world_rank;
        if (ctx->peers[i].is_self)
            ctx->self = i;
    }
    return MD_OK;
}

static void shm_release(md_subdev_t *sd);

static int shm_init(md_subdev_t *sd, const md_subdev_init_args_t *args,
                    void *card_out, size_t *card_len)
{
    shm_ctx_t *ctx;
    shm_card_t card;     /* card_out need not be aligned */
    int rc;

    if (args->node_of_rank == NULL || args->world_rank < 0 ||
        args->world_rank >= args->world_size)
        return MD_ERR_INVALID;
    ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL)
        return MD_ERR_NO_MEMORY;
    sd->priv = ctx;
    ctx->sd = sd;
    ctx->host = sd->host;
    ctx->wake_rx = ctx->wake_tx = -1;
    md_mq_init(&ctx->mq);
    ctx->world_rank = args->world_rank;
    ctx->world_size = args->world_size;
    ctx->my_node = args->my_node;
    ctx->job_id = strdup(args->job_id);
    ctx->node_name = strdup(args->node_name);

    rc = ctx->job_id != NULL && ctx->node_name != NULL ? MD_OK : MD_ERR_NO_MEMORY;
    if (rc == MD_OK)
        rc = shm_pick_peers(ctx, args);     /* the automatic ring size needs nlocal */
    if (rc == MD_OK)
        rc = shm_read_tunables(ctx, args);
    if (rc == MD_OK &&
        (shm_pool_init(&ctx->unexp_pool, sizeof(shm_unexp_t), 64, 64) != 0 ||
         shm_pool_init(&ctx->ctrl_pool, sizeof(shm_ctrl_item_t), 64, 64) != 0 ||
         /* peers may have a larger eager_limit: anything my rings carry */
         shm_bufpool_init(&ctx->bufs, shm_ring_max_record(ctx->tun.ring_size)) != 0))
        rc = MD_ERR_NO_MEMORY;
    if (rc == MD_OK)
        rc = shm_segment_create(ctx, args->job_id, args->node_name);
    if (rc == MD_OK) {
        shm_help_init(ctx);
        rc = shm_wake_open(ctx);
    }
    if (rc != MD_OK) {
        shm_release(sd);      /* only what is ours: a name taken may be another's */
        return rc;
    }

    ctx->cma_probe = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
                     (uint64_t)(uintptr_t)ctx ^ 0x5a5a5a5a5a5a5a5aull;
    memset(&card, 0, sizeof(card));
    card.magic = SHM_CARD_MAGIC;
    card.version = SHM_PROTO_VERSION;
    card.pid = (int32_t)getpid();
    card.node = args->my_node;
    card.seg_len = ctx->seg_len;
    card.cma_probe_addr = (uint64_t)(uintptr_t)&ctx->cma_probe;
    card.cma_probe_value = ctx->cma_probe;
    memcpy(card.seg_name, ctx->seg_name, sizeof(card.seg_name));
    memcpy(card_out, &card, sizeof(card));
    *card_len = sizeof(card);

    sd->attr.eager_limit = ctx->tun.eager_limit;
    SHM_INFO(ctx, "%d local rank(s) on node %s; segment %s (%zu bytes), "
             "ring %zu, eager_limit %zu, frag_size %zu, cma %s",
             (int)ctx->nlocal, args->node_name, ctx->seg_name, ctx->seg_len,
             ctx->tun.ring_size, ctx->tun.eager_limit, ctx->tun.frag_size,
             ctx->tun.cma ? "on" : "off (MULTIDEV_SHM_CMA=0)");
    return MD_OK;
}

_Static_assert(sizeof(shm_card_t) <= MD_CARD_MAX, "shm card too large");

/* A local peer's card, copied out (cards need not be aligned); NULL if
 * the rank has none or it is not an shm card of this version. */
static const shm_card_t *shm_card_of(shm_ctx_t *ctx, const md_card_table_t *cards,
                                     int32_t world, shm_card_t *copy)
{
    if (world >= cards->world_size || cards->len[world] < sizeof(shm_card_t)) {
        SHM_ERROR(ctx, "rank %d on this node has no shm card", (int)world);
        return NULL;
    }
    memcpy(copy, cards->card[world], sizeof(*copy));
    copy->seg_name[sizeof(copy->seg_name) - 1] = '\0';
    if (copy->magic != SHM_CARD_MAGIC || copy->version != SHM_PROTO_VERSION) {
        SHM_ERROR(ctx, "card of rank %d is not an shm card of version %u",
                  (int)world, SHM_PROTO_VERSION);
        return NULL;
    }
    if (copy->node != ctx->my_node) {
        SHM_ERROR(ctx, "rank %d says it is on node %d, not %d",
                  (int)world, (int)copy->node, (int)ctx->my_node);
        return NULL;
    }
    return copy;
}

static int shm_connect_peer(shm_ctx_t *ctx, shm_peer_t *peer,
                            const shm_card_t *card, int *cma_denied)
{
    int rc;

    peer->pid = card->pid;
    shm_wake_peer(peer, card->seg_name);
    rc = shm_segment_map_peer(ctx, peer, card);
    if (rc != MD_OK)
        return rc;
#ifdef SYS_pidfd_open
    peer->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)peer->pid, 0);
#endif
    if (shm_peer_gone(peer)) {
        SHM_ERROR(ctx, "rank %d (pid %d) on this node died during "
                  "start-up", (int)peer->world, (int)peer->pid);
        return MD_ERR_PEER_FAILED;
    }
    if (ctx->tun.cma) {
        rc = shm_cma_probe(peer->pid, card->cma_probe_addr, card->cma_probe_value);
        peer->cma_ok = rc == MD_OK;
        if (rc != MD_OK)
            (*cma_denied)++;
        else
            peer->cma_write_ok = shm_cma_probe_write(peer->pid, card->cma_probe_addr,
                                                     card->cma_probe_value) == MD_OK;
    }
    return MD_OK;
}

/* Start-up failed: a peer that died cannot remove its segment, so whoever
 * notices does. */
static void shm_connect_reap_dead(shm_ctx_t *ctx, const md_card_table_t *cards)
{
    for (int32_t i = 0; i < ctx->nlocal; i++) {
        const shm_card_t *card;
        shm_card_t copy;

        if (ctx->peers[i].is_self)
            continue;
        card = shm_card_of(ctx, cards, ctx->peers[i].world, &copy);
        if (card != NULL && shm_pid_gone(card->pid) &&
            shm_unlink(card->seg_name) == 0)
            SHM_INFO(ctx, "removed segment %s of dead rank %d",
                     card->seg_name, (int)ctx->peers[i].world);
    }
}

static int shm_connect(md_subdev_t *sd, const md_card_table_t *cards)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    int cma_denied = 0, rc = MD_OK;

    for (int32_t i = 0; i < ctx->nlocal && rc == MD_OK; i++) {
        shm_peer_t *peer = &ctx->peers[i];
        const shm_card_t *card;
        shm_card_t copy;

        if (peer->is_self) {
            peer->pid = (int32_t)getpid();
            shm_wake_peer(peer, ctx->seg_name);
            rc = shm_segment_map_peer(ctx, peer, NULL);
            continue;
        }
        card = shm_card_of(ctx, cards, peer->world, &copy);
        rc = card != NULL ? shm_connect_peer(ctx, peer, card, &cma_denied)
                          : MD_ERR_CONFIG;
    }
    if (rc != MD_OK) {
        shm_connect_reap_dead(ctx, cards);
        return rc;
    }
    if (ctx->nlocal == 1)
        shm_segment_unlink(ctx);    /* nobody else will map it */
    if (cma_denied > 0)
        SHM_WARN(ctx, "process_vm_readv is not permitted for %d local "
                 "peer(s) (see /proc/sys/kernel/yama/ptrace_scope); large "
                 "messages from them use the pipelined copy", cma_denied);
    ctx->last_check_ms = md_liveness_now_ms();
    return MD_OK;
}

static int shm_ready(md_subdev_t *sd)
{
    shm_ctx_t *ctx = shm_ctx(sd);

    shm_segment_unlink(ctx);
    ctx->ready = 1;
    return MD_OK;
}

/* Everything this rank holds: its segment (marked finalized, its name
 * removed if still there), the peers' mappings, pools, sockets. */
static void shm_release(md_subdev_t *sd)
{
    shm_ctx_t *ctx = shm_ctx(sd);

    if (ctx == NULL)
        return;
    /* Abandoned internal receives of large system messages are ours. */
    for (int32_t i = 0; ctx->peers != NULL && i < ctx->nlocal; i++) {
        md_request_t *req = ctx->peers[i].rndv_recvs.head;

        while (req != NULL) {
            md_request_t *next = md_reqlist_next(req);

            if (shm_rp(req)->sysmsg) {
                free(req->buf);
                free(req);
            }
            req = next;
        }
        if (ctx->peers[i].pidfd >= 0)
            close(ctx->peers[i].pidfd);
    }
    shm_segment_destroy(ctx);
    shm_wake_close(ctx);
    shm_bufpool_fini(&ctx->bufs);   /* unexpected payloads live here */
    shm_pool_fini(&ctx->unexp_pool);
    shm_pool_fini(&ctx->ctrl_pool);
    free(ctx->peers);
    free(ctx->local_of_world);
    free(ctx->job_id);
    free(ctx->node_name);
    free(ctx);
    sd->priv = NULL;
}

/* Finalize before ready: the job's start-up failed, on every rank (the
 * multidevice finalizes after an agreement; job ids are unique, so every
 * local name is this job's). */
static int shm_finalize(md_subdev_t *sd)
{
    shm_ctx_t *ctx = shm_ctx(sd);

    if (ctx != NULL && !ctx->ready)
        shm_segment_unlink_local(ctx);
    shm_release(sd);
    return MD_OK;
}

/* The function table: <name>_LoadDevicePtr hands out a copy. */
static const md_subdev_ops_t shm_ops = {
    MD_SUBDEV_OPS_HEADER("shm"),
    .caps = MD_CAP_LOCAL_ONLY,
    .init = shm_init,
    .connect = shm_connect,
    .ready = shm_ready,
    .finalize = shm_finalize,
    .isend = shm_isend,
    .irecv = shm_irecv,
    .recv_cancel = shm_recv_cancel,
    .send_cancel = NULL,           /* a send cannot be taken back */
    .iprobe = shm_iprobe,
    .improbe = shm_improbe,
    .imrecv = shm_imrecv,
    .progress = shm_progress,
    .wait_fd = shm_wait_fd,
    .inject = shm_inject,
};

MD_LOAD_DEVICE_PTR(shm)
{
    *ops = shm_ops;
    return MD_OK;
}
