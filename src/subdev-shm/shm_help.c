/*
 * shm_help.c - a large message copied by its sender and its receiver at
 * once.
 *
 * The single copy (shm_cma.c) leaves one core to do all the work while the
 * sender, usually waiting in MPI_Send or MPI_Wait for that very message,
 * polls.  So for a rendezvous of at least help_min bytes the receiver, once
 * it has matched the RTS, hands out a help slot in its own segment and
 * sends the sender a HELP record (the receive buffer's address, the size,
 * the slot and its generation).  The message is cut into chunks of a
 * quarter of it, a power of two from 16 to 64 KiB; each side takes the next free chunk by advancing the slot's
 * claim word and copies it - the receiver with process_vm_readv from the
 * sender's buffer, the sender with process_vm_writev into the receive
 * buffer - and counts it in done.  The receiver starts at once and takes
 * every chunk itself if the sender is busy elsewhere, so nothing waits on
 * the sender: its help only shortens the copy (two cores instead of one).
 * When done reaches the number of chunks the receive completes and the
 * receiver sends FIN, as after a single copy; the send completes on FIN,
 * so the sender's buffer stays valid while anyone reads it.
 *
 * The claim word carries the slot's generation in its upper half: the
 * receiver starts a new generation each time it hands the slot out, so a
 * sender that reads a HELP record late (the receive finished without it)
 * fails its first claim and copies nothing into a buffer that is no longer
 * the message's.  A claim that succeeded keeps the receive from finishing
 * until its chunk is in.  A sender whose write fails (CMA denied in this
 * direction) sets abort and stops helping that peer; the receiver then
 * waits for the chunks already taken and copies the whole message again
 * itself.
 *
 * A helper that loses its core in the middle of a chunk holds the receive
 * up until it runs again (a time slice: milliseconds), so with more ranks
 * on the host than processing units nobody helps unless help_min is given
 * explicitly.
 */
#include "config.h"

#include <stdatomic.h>

#include "shm_impl.h"

/* A helped message's ticket, in the HELP record and the receive: the
 * slot's generation << 32 | log2 of the chunk size << 8 | the slot. */
static uint64_t shm_help_ticket(uint32_t gen, unsigned shift, uint32_t slot)
{
    return (uint64_t)gen << 32 | (uint64_t)shift << 8 | slot;
}

static uint32_t shm_help_gen(uint64_t ticket) { return (uint32_t)(ticket >> 32); }
static unsigned shm_help_shift(uint64_t ticket) { return (unsigned)(ticket >> 8) & 0xffu; }
static uint32_t shm_help_slot_idx(uint64_t ticket) { return (uint32_t)ticket & 0xffu; }

/* Chunks of a quarter of the message, 16 to 64 KiB: the larger the chunk,
 * the fewer system calls; the smaller, the better two cores share it. */
static unsigned shm_help_chunk_shift(uint64_t n)
{
    unsigned shift = SHM_HELP_CHUNK_SHIFT_MAX;

    while (shift > SHM_HELP_CHUNK_SHIFT_MIN && (n >> shift) < 4)
        shift--;
    return shift;
}

static uint64_t shm_help_chunks(uint64_t n, unsigned shift)
{
    return (n + (1ull << shift) - 1) >> shift;
}

/* Where chunk k of an n-byte message lies. */
static void shm_help_span(uint64_t n, unsigned shift, int64_t k, uint64_t *off, uint64_t *len)
{
    *off = (uint64_t)k << shift;
    *len = n - *off < (1ull << shift) ? n - *off : 1ull << shift;
}

/* Advances the claim word of generation gen by one chunk (to_end 0) or
 * past the last one (to_end 1); returns the first chunk it took, or -1
 * when none was left (or the slot has moved on to another message). */
static int64_t shm_help_advance(shm_help_slot_t *slot, uint32_t gen, uint64_t nchunks,
                                int to_end)
{
    uint64_t cur = atomic_load_explicit(&slot->claim, memory_order_acquire);

    for (;;) {
        uint64_t next = cur & 0xffffffffu;

        if ((cur >> 32) != gen || next >= nchunks)
            return -1;
        if (atomic_compare_exchange_weak_explicit(&slot->claim, &cur,
                                                  to_end ? (uint64_t)gen << 32 | nchunks
                                                         : cur + 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire))
            return (int64_t)next;
    }
}

/* Takes chunks of an n-byte message one by one and copies each between
 * local and the peer's remote (process_vm_writev when write, else
 * process_vm_readv), counting it done; stops at the first failed copy,
 * which sets abort before it counts (whoever sees the count sees the
 * abort).  Returns MD_OK or that copy's error; *copied: chunks copied. */
static int shm_help_copy_chunks(shm_help_slot_t *slot, uint64_t ticket, uint64_t n,
                                pid_t pid, uint8_t *local, uint64_t remote, int write,
                                uint64_t *copied)
{
    uint32_t gen = shm_help_gen(ticket);
    unsigned shift = shm_help_shift(ticket);
    uint64_t nchunks = shm_help_chunks(n, shift), off, len;
    int64_t k;
    int rc = MD_OK;

    while (rc == MD_OK && (k = shm_help_advance(slot, gen, nchunks, 0)) >= 0) {
        shm_help_span(n, shift, k, &off, &len);
        rc = write ? shm_cma_write(pid, local + off, remote + off, len)
                   : shm_cma_read(pid, local + off, remote + off, len);
        if (rc == MD_OK)
            (*copied)++;
        else
            atomic_store_explicit(&slot->abort, 1, memory_order_release);
        atomic_fetch_add_explicit(&slot->done, 1, memory_order_release);
    }
    return rc;
}

void shm_help_init(shm_ctx_t *ctx)
{
    ctx->help_slots = (shm_help_slot_t *)(void *)((uint8_t *)ctx->seg +
                                                  ctx->seg_hdr->help_offset);
    _Static_assert(SHM_HELP_SLOTS < 32, "help_free has a bit per slot");
    ctx->help_free = (1u << SHM_HELP_SLOTS) - 1;
}

/* ---------------------------------------------------------------- receiver */

static shm_help_slot_t *shm_help_slot_of(shm_ctx_t *ctx, const shm_req_priv_t *rp,
                                         uint32_t *gen)
{
    *gen = shm_help_gen(rp->help);
    return &ctx->help_slots[shm_help_slot_idx(rp->help)];
}

/* The receive is over (error: MD_OK or why not): the sender may go, the
 * slot is free again. */
static void shm_help_finish(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req, int error)
{
    shm_req_priv_t *rp = shm_rp(req);

    ctx->help_free |= 1u << shm_help_slot_idx(rp->help);
    shm_send_ctrl(ctx, peer, SHM_REC_FIN, rp->sreq, 0, 0, 0);
    if (error != MD_OK) {
        req->status.error = error;
        SHM_ERROR(ctx, "copying %llu bytes from rank %d failed: %s",
                  (unsigned long long)rp->total, (int)peer->world, md_status_string(error));
    }
    shm_complete(ctx, req);
}

/* 1 when every chunk taken is in and the receive finished (taken off
 * parked first, if it waits there: completion links it elsewhere).  After a failed
 * copy on either side (own_error, or the abort flag) the claims are closed
 * first (rp->done, otherwise unused here, then holds how many were taken:
 * at least 1) and the receive waits for those still being copied, so that
 * no write lands in the buffer after it completed; then the receiver
 * copies the whole message again itself, or fails with its own error.
 * The done count is read before the abort flag: a failed chunk sets abort
 * before it counts. */
static int shm_help_try_finish(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req,
                               int own_error, md_reqlist_t *parked)
{
    shm_req_priv_t *rp = shm_rp(req);
    uint32_t gen;
    shm_help_slot_t *slot = shm_help_slot_of(ctx, rp, &gen);
    uint64_t nchunks = shm_help_chunks(rp->total, shm_help_shift(rp->help));
    uint64_t done = atomic_load_explicit(&slot->done, memory_order_acquire);

    if (rp->done == 0 && (own_error != MD_OK ||
                          atomic_load_explicit(&slot->abort, memory_order_acquire))) {
        int64_t next = shm_help_advance(slot, gen, nchunks, 1);

        rp->done = next < 0 ? nchunks : (uint64_t)next;
    }
    if (own_error != MD_OK)
        rp->help_error = own_error;         /* kept until the end */
    if (done < (rp->done ? rp->done : nchunks))
        return 0;
    if (parked != NULL) {
        md_reqlist_remove(parked, req);
        ctx->help_waiting--;
    }
    if (rp->done == 0)
        shm_help_finish(ctx, peer, req, MD_OK);
    else if (rp->help_error != MD_OK)
        shm_help_finish(ctx, peer, req, rp->help_error);
    else
        shm_help_finish(ctx, peer, req, shm_cma_read(peer->pid, req->buf, rp->remote, rp->total));
    return 1;
}

int shm_help_recv(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req, uint64_t sreq,
                  uint64_t addr, uint64_t n)
{
    shm_req_priv_t *rp = shm_rp(req);
    unsigned shift = shm_help_chunk_shift(n);
    uint32_t slot_idx, gen;
    shm_help_slot_t *slot;
    int rc;

    if (ctx->tun.help_min == 0 || n < ctx->tun.help_min || shm_help_chunks(n, shift) < 2 ||
        ctx->help_free == 0 || peer->is_self)
        return 0;
    slot_idx = (uint32_t)__builtin_ctz(ctx->help_free);
    ctx->help_free &= ~(1u << slot_idx);
    gen = ++ctx->help_gen[slot_idx];
    slot = &ctx->help_slots[slot_idx];
    atomic_store_explicit(&slot->done, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->abort, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->claim, (uint64_t)gen << 32, memory_order_release);
    rp->state = SHM_RS_RECV_HELP;
    rp->peer = (int32_t)(peer - ctx->peers);
    rp->total = n;
    rp->remote = addr;
    rp->sreq = sreq;
    rp->help = shm_help_ticket(gen, shift, slot_idx);

    shm_send_ctrl(ctx, peer, SHM_REC_HELP, sreq, (uint64_t)(uintptr_t)req->buf, n,
                  rp->help);
    rp->done = 0;
    rp->help_error = MD_OK;
    rc = shm_help_copy_chunks(slot, rp->help, n, peer->pid, req->buf, addr, 0,
                              &ctx->help_chunks_taken);
    if (!shm_help_try_finish(ctx, peer, req, rc, NULL)) {
        md_reqlist_append(&peer->helped, req);
        ctx->help_waiting++;
    }
    return 1;
}

int shm_help_progress(shm_ctx_t *ctx)
{
    int events = 0;

    for (int32_t i = 0; i < ctx->nlocal && ctx->help_waiting > 0; i++) {
        shm_peer_t *peer = &ctx->peers[i];
        md_request_t *req = peer->helped.head;

        while (req != NULL) {
            md_request_t *next = md_reqlist_next(req);

            events += shm_help_try_finish(ctx, peer, req, MD_OK, &peer->helped);
            req = next;
        }
    }
    return events;
}

void shm_help_fail_peer(shm_ctx_t *ctx, shm_peer_t *peer)
{
    md_request_t *req;

    while ((req = md_reqlist_pop(&peer->helped)) != NULL) {
        shm_req_priv_t *rp = shm_rp(req);

        ctx->help_waiting--;
        ctx->help_free |= 1u << shm_help_slot_idx(rp->help);
        req->status.error = MD_ERR_PEER_FAILED;
        shm_complete(ctx, req);
    }
}

/* ---------------------------------------------------------------- sender */

void shm_help_send(shm_ctx_t *ctx, shm_peer_t *peer, md_request_t *req,
                   const shm_ctrl_rec_t *rec)
{
    uint32_t slot_idx = shm_help_slot_idx(rec->offset);
    unsigned shift = shm_help_shift(rec->offset);
    const shm_seg_hdr_t *hdr = peer->seg_hdr;
    uint64_t n = rec->len < req->len ? rec->len : req->len, given = ctx->help_chunks_given;
    shm_help_slot_t *slot;
    int rc;

    if (!peer->cma_write_ok || slot_idx >= hdr->help_slots ||
        shift < SHM_HELP_CHUNK_SHIFT_MIN || shift > SHM_HELP_CHUNK_SHIFT_MAX ||
        hdr->help_offset + (uint64_t)(slot_idx + 1) * sizeof(*slot) > peer->seg_len)
        return;         /* the receiver copies it all */
    slot = (shm_help_slot_t *)(void *)((uint8_t *)peer->seg + hdr->help_offset) + slot_idx;
    rc = shm_help_copy_chunks(slot, rec->offset, n, peer->pid, req->buf, rec->rreq, 1,
                              &ctx->help_chunks_given);
    if (rc != MD_OK) {
        SHM_WARN(ctx, "process_vm_writev into rank %d failed (%s); it copies large "
                 "messages from us alone", (int)peer->world, md_status_string(rc));
        peer->cma_write_ok = 0;
    }
    if (rc != MD_OK || ctx->help_chunks_given != given)
        shm_wake_kick(ctx, peer);   /* it may sleep, waiting for our chunks */
}
