/*
 * shm_wake.c - the wait_fd slot: lets the multidevice's progress thread
 * sleep while nothing arrives over shm.
 *
 * Every rank binds a datagram socket in the abstract namespace (nothing to
 * clean up), named after its segment.  wait_fd(), called by an idle
 * progress thread just before it sleeps, sets "sleeping" in the own
 * segment header and returns that socket.  A sender, after writing a
 * record, looks at the receiver's flag (a line the receiver rarely
 * writes, so normally a cache hit) and, only if it is set, clears it and
 * sends one byte.  The next progress call clears the flag and drains the
 * socket.  So the fast path makes no system call while the receiver
 * polls, and one per sleep otherwise.
 *
 * Dekker's pattern keeps wake-ups from being lost: the sender publishes
 * its record, fences, then reads the flag; wait_fd sets the flag, fences,
 * then looks at its rings (and kicks itself if something is there).  One
 * of the two always sees the other.  The fence costs nothing measurable
 * next to the record's release store (8-byte latency unchanged).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shm_impl.h"

/* Abstract address "\0mdshm-wake-<hash of the segment name>". */
static void shm_wake_addr(const char *seg_name, struct sockaddr_un *addr,
                          socklen_t *len)
{
    uint64_t h = 1469598103934665603ull;
    int n;

    for (const char *c = seg_name; *c != '\0'; c++) {
        h ^= (uint8_t)*c;
        h *= 1099511628211ull;
    }
    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
                 "mdshm-wake-%016llx", (unsigned long long)h);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int shm_wake_open(shm_ctx_t *ctx)
{
    struct sockaddr_un addr;
    socklen_t len;

    ctx->wake_rx = ctx->wake_tx = -1;
    ctx->wake_rx = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ctx->wake_tx = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    shm_wake_addr(ctx->seg_name, &addr, &len);
    if (ctx->wake_rx < 0 || ctx->wake_tx < 0 ||
        bind(ctx->wake_rx, (struct sockaddr *)&addr, len) != 0) {
        SHM_INFO(ctx, "no wake socket (%s); a progress thread will poll",
                 strerror(errno));
        shm_wake_close(ctx);
    }
    return MD_OK;
}

void shm_wake_close(shm_ctx_t *ctx)
{
    if (ctx->wake_rx >= 0)
        close(ctx->wake_rx);
    if (ctx->wake_tx >= 0)
        close(ctx->wake_tx);
    ctx->wake_rx = ctx->wake_tx = -1;
}

void shm_wake_peer(shm_peer_t *peer, const char *seg_name)
{
    shm_wake_addr(seg_name, &peer->wake_addr, &peer->wake_len);
}

void shm_wake_send(shm_ctx_t *ctx, shm_peer_t *peer)
{
    char byte = 1;

    if (!atomic_exchange_explicit(&peer->seg_hdr->sleeping, 0,
                                  memory_order_acq_rel))
        return;     /* somebody else woke it */
    if (ctx->wake_tx < 0 ||
        sendto(ctx->wake_tx, &byte, 1, MSG_DONTWAIT,
               (const struct sockaddr *)&peer->wake_addr, peer->wake_len) < 0)
        SHM_DEBUG(ctx, "cannot wake rank %d: %s", (int)peer->world,
                  ctx->wake_tx < 0 ? "no socket" : strerror(errno));
}

int shm_wait_fd(md_subdev_t *sd, unsigned flags)
{
    shm_ctx_t *ctx = shm_ctx(sd);

    (void)flags;        /* the doorbell socket is ours alone either way */
    /* queued sends need polling: nobody wakes us when ring space frees */
    /* ... nor when a sender's chunks of a helped copy come in */
    if (ctx->wake_rx < 0 || ctx->out_pending > 0 || ctx->help_waiting > 0 ||
        ctx->seg_hdr == NULL)
        return -1;
    atomic_store_explicit(&ctx->seg_hdr->sleeping, 1, memory_order_seq_cst);
    ctx->wake_armed = 1;
    atomic_thread_fence(memory_order_seq_cst);
    for (int32_t i = 0; i < ctx->nlocal; i++) {
        if (!shm_ring_empty(&ctx->peers[i].in)) {
            /* it came while we decided to sleep: do not */
            shm_wake_send(ctx, &ctx->peers[ctx->self]);
            break;
        }
    }
    return ctx->wake_rx;
}

void shm_wake_disarm(shm_ctx_t *ctx)
{
    char buf[64];

    ctx->wake_armed = 0;
    atomic_store_explicit(&ctx->seg_hdr->sleeping, 0, memory_order_relaxed);
    while (recv(ctx->wake_rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
        ;
}
