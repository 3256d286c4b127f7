/*
 * shm_progress.c - taking records out of the inbound rings, flushing the
 * outboxes, handing completions to the host, and noticing dead peers.
 *
 * Each call does a bounded amount of work (poll_budget records per sender,
 * a few DATA fragments per stream) and returns; with more ranks than cores
 * the caller's loop must yield, not this subdevice.  An idle call reads one
 * stamp word per sender, all in this rank's own segment, and makes no
 * system call.
 *
 * A peer killed with SIGKILL never says goodbye.  While requests are
 * outstanding, progress looks at a coarse clock every SHM_CLOCK_EVERY
 * calls and, every peer_check_ms, asks whether each peer still runs
 * (poll on its pidfd, or kill(pid, 0)).  A peer that has gone without
 * setting SHM_SEG_FINALIZED in its segment is dead: what it left in our
 * ring is still taken, then every request that waits on it completes with
 * MD_ERR_PEER_FAILED and progress returns MD_ERR_PEER_FAILED once.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shm_impl.h"

#define SHM_CLOCK_EVERY 64u   /* progress calls between clock reads */

void shm_complete(shm_ctx_t *ctx, md_request_t *req)
{
    shm_rp(req)->state = SHM_RS_DONE;
    ctx->outstanding--;
    md_reqlist_append(&ctx->done, req);
}

/* A large system message has been received into its own buffer. */
static void shm_sysmsg_done(shm_ctx_t *ctx, md_request_t *req)
{
    if (req->status.error == MD_OK) {
        ctx->sd->counters.sysmsgs_recvd++;
        ctx->host->sysmsg(ctx->sd, &req->env, req->buf);
    } else {
        SHM_ERROR(ctx, "system message (tag %d) from rank %d lost: %s",
                  (int)req->env.tag, (int)req->peer_world,
                  md_status_string(req->status.error));
    }
    free(req->buf);
    free(req);
}

void shm_complete_flush_slow(shm_ctx_t *ctx)
{
    md_request_t *req;

    /* One at a time: the host may call back into us, which flushes too. */
    while ((req = md_reqlist_pop(&ctx->done)) != NULL) {
        if (shm_rp(req)->sysmsg)
            shm_sysmsg_done(ctx, req);
        else
            ctx->host->complete(ctx->sd, req);
    }
}

static void shm_env_of(const shm_msg_hdr_t *hdr, md_envelope_t *env)
{
    /* an RTS carries the size in its body; an eager record is the message */
    uint64_t size = hdr->rec.type == SHM_REC_RTS ? ((const shm_rts_rec_t *)hdr)->rts.size
                                                 : hdr->rec.len - sizeof(shm_msg_hdr_t);

    MD_ENVELOPE_FROM_WIRE(env, hdr, size);
}

static void shm_log_oom(shm_ctx_t *ctx, const shm_peer_t *peer)
{
    if (!ctx->oom_logged)
        SHM_ERROR(ctx, "out of memory storing a message from rank %d; "
                  "it stays in the ring until memory is available",
                  (int)peer->world);
    ctx->oom_logged = 1;
}

/* Takes up to budget records from one sender, in order.  Stops early at a
 * user message that host->arrival_ok() holds back. */
static int shm_poll_peer(shm_ctx_t *ctx, shm_peer_t *peer, size_t budget)
{
    int events = 0;

    while (budget-- > 0) {
        shm_ring_rec_t *rec = shm_ring_peek(&peer->in);
        const shm_msg_hdr_t *hdr = (const shm_msg_hdr_t *)rec;
        md_envelope_t env;

        if (rec == NULL)
            break;
        switch (rec->type) {
        case SHM_REC_EAGER:
        case SHM_REC_RTS:
            shm_env_of(hdr, &env);
            if (env.tag < 0) {
                if (shm_recv_sysmsg(ctx, peer, hdr, &env) != MD_OK) {
                    shm_log_oom(ctx, peer);
                    return events;
                }
                break;
            }
            if (!ctx->host->arrival_ok(ctx->sd, &env))
                return events;   /* this sender waits; others go on */
            if (shm_recv_incoming(ctx, peer, hdr, &env) != MD_OK) {
                shm_log_oom(ctx, peer);
                return events;
            }
            shm_ring_release(&peer->in, rec);
            ctx->host->arrived(ctx->sd, &env);
            events++;
            continue;
        case SHM_REC_CTS:
        case SHM_REC_FIN:
        case SHM_REC_ACK:
        case SHM_REC_HELP:
            shm_send_on_ctrl(ctx, peer, (const shm_ctrl_rec_t *)rec);
            break;
        case SHM_REC_DATA:
            shm_recv_on_data(ctx, peer, (const shm_ctrl_rec_t *)rec);
            break;
        default:
            SHM_ERROR(ctx, "record of unknown type %u from rank %d; "
                      "skipped", (unsigned)rec->type, (int)peer->world);
            break;
        }
        shm_ring_release(&peer->in, rec);
        events++;
    }
    return events;
}

static int shm_poll_all(shm_ctx_t *ctx)
{
    int events = 0;

    for (int32_t i = 0; i < ctx->nlocal; i++)
        if (!shm_ring_empty(&ctx->peers[i].in))     /* the idle poll: one load */
            events += shm_poll_peer(ctx, &ctx->peers[i], ctx->tun.poll_budget);
    return events;
}

int shm_poll_inbound(shm_ctx_t *ctx)
{
    int events;

    if (ctx->busy)
        return 0;
    ctx->busy = 1;
    events = shm_poll_all(ctx);
    ctx->busy = 0;
    return events;
}

static int shm_pidfd_gone(int pidfd)
{
    struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

    return poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP)) != 0;
}

int shm_pid_gone(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);

    if (fd >= 0) {
        int gone = shm_pidfd_gone(fd);

        close(fd);
        return gone;
    }
    if (errno == ESRCH)
        return 1;
#endif
    return kill(pid, 0) != 0 && errno == ESRCH;
}

int shm_peer_gone(const shm_peer_t *peer)
{
    if (peer->pidfd >= 0)
        return shm_pidfd_gone(peer->pidfd);
    return kill(peer->pid, 0) != 0 && errno == ESRCH;
}

static void shm_peer_declare_dead(shm_ctx_t *ctx, shm_peer_t *peer)
{
    /* Complete records it wrote before dying are still good. */
    while (shm_poll_peer(ctx, peer, ctx->tun.poll_budget) > 0)
        ;
    peer->dead = 1;
    SHM_ERROR(ctx, "rank %d (pid %d) on this node died without "
              "finalizing; its requests fail with '%s'", (int)peer->world,
              (int)peer->pid, md_status_string(MD_ERR_PEER_FAILED));
    shm_send_fail_peer(ctx, peer);
    shm_recv_fail_peer(ctx, peer);
    ctx->failures++;
    ctx->host->peer_failed(ctx->sd, peer->world, MD_ERR_PEER_FAILED);
}

int shm_peer_check(shm_ctx_t *ctx)
{
    int found = 0;

    for (int32_t i = 0; i < ctx->nlocal; i++) {
        shm_peer_t *peer = &ctx->peers[i];

        if (peer->is_self || peer->dead || peer->exited || !shm_peer_gone(peer))
            continue;
        if (atomic_load_explicit(&peer->seg_hdr->state, memory_order_acquire) ==
            SHM_SEG_FINALIZED) {
            peer->exited = 1;
            continue;
        }
        shm_peer_declare_dead(ctx, peer);
        found++;
    }
    return found;
}

int shm_progress(md_subdev_t *sd)
{
    shm_ctx_t *ctx = shm_ctx(sd);
    int events;

    if (ctx->busy)
        return 0;
    ctx->busy = 1;
    if (ctx->wake_armed)
        shm_wake_disarm(ctx);
    events = shm_poll_all(ctx);
    if (ctx->out_pending > 0)
        for (int32_t i = 0; i < ctx->nlocal; i++)
            events += shm_flush_peer(ctx, &ctx->peers[i]);
    if (ctx->help_waiting > 0)
        events += shm_help_progress(ctx);

    if (ctx->outstanding > 0 || ctx->out_pending > 0 || md_mq_num_posted(&ctx->mq) > 0) {
        if (++ctx->idle_polls >= SHM_CLOCK_EVERY) {
            ctx->idle_polls = 0;
            if (md_liveness_due(&ctx->last_check_ms, (unsigned)ctx->tun.peer_check_ms))
                shm_peer_check(ctx);
        }
    }
    ctx->busy = 0;
    shm_complete_flush(ctx);

    if (ctx->failures > 0) {
        ctx->failures = 0;
        return MD_ERR_PEER_FAILED;
    }
    return events;
}
