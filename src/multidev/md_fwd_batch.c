/*
 * md_fwd_batch.c - small forwarded messages that queue behind each other
 * to the same neighbour leave together, as one FWD_BATCH system message.
 *
 * Each forwarded message is a flow of its own, and a small one is one
 * chunk: one system message per hop, which costs the same whatever it
 * carries (a descriptor, a NIC frame, a receive and a dispatch at the
 * next rank).  A stream of 8-byte messages from a to c through b ran at
 * 26 000 a second against 157 000 over the hop a-b alone (issue 21).
 *
 * The rule keeps a lone message as fast as before: the first chunk for a
 * neighbour (over one subdevice) since the last flush point goes at once,
 * as before; the ones that follow it before the next flush point are held
 * and leave together at that point.  The flush points are the end of
 * every progress pass (md_progress_locked), a chunk for the same neighbour
 * that may not join (a part of a larger message, a probe: the wire order
 * of one neighbour's chunks stays that of their sends), a batch that is
 * full, and finalize.  So at the origin the messages an application posts
 * back to back (MPI_Isend after MPI_Isend) leave at its next progress call,
 * or at the progress thread's next pass (within about a millisecond:
 * md_thread_pass_soon); at a relay the chunks that arrive in one pass, and
 * those of an arriving batch, go on at the end of that pass.  Only whole
 * messages join (one chunk each, no credits: MD_FWD_F_NO_CREDITS) whose
 * record is at most half of the batch (MULTIDEV_FWD_BATCH bytes, at most
 * the subdevice's eager limit, so that a batch goes eagerly: 1 KiB
 * messages go three to a myri batch); 0 turns batching off.
 *
 * A held chunk stays the md_fwd_send_t it would have been sent as; the
 * batch copies their wire forms, and when its send completes each of them
 * completes with its status (an origin's flow counts it left, a relay's
 * chunk is released), as if it had been sent alone.  On the wire a batch
 * is a sequence of records, each a 4-byte length and a FWD_DATA payload;
 * the receiver handles each record as the FWD_DATA message it stands for,
 * from the batch's sender over the batch's subdevice.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_fwd_state.h"
#include "md_log.h"
#include "md_pool.h"
#include "md_thread.h"

#define MD_FWD_BATCH_REC_HDR 4u

/* A batch on its way: the held chunks it carries complete with it. */
typedef struct md_fwd_batch_send {
    md_request_t   req;
    md_t          *md;
    int            n;
    md_fwd_send_t *member[MD_FWD_BATCH_MEMBERS];
    uint8_t        buf[];
} md_fwd_batch_send_t;

/* The bytes a batch carries over subdev (0: none). */
static size_t md_fwd_batch_cap(const md_t *md, int subdev)
{
    size_t cap = md->fwd->params.batch, eager = md->devs.subdevs[subdev].attr.eager_limit;

    return eager < cap ? eager : cap;
}

static void md_fwd_batch_members_done(md_fwd_send_t *const *member, int n, int status)
{
    for (int i = 0; i < n; i++) {
        md_request_t *req = &member[i]->req;
        req->status.error = status;
        req->on_complete(req);
    }
}

static void md_fwd_batch_done(md_request_t *req)
{
    md_fwd_batch_send_t *b = req->user;

    md_fwd_batch_members_done(b->member, b->n, req->status.error);
    md_pool_release(b);
}

/* Sends what slot holds, as one FWD_BATCH message (one chunk alone goes as
 * its FWD_DATA message); the slot is empty afterwards. */
static void md_fwd_batch_send(md_t *md, md_fwd_batch_t *slot)
{
    md_fwd_state_t *st = md->fwd;
    md_fwd_batch_send_t *b;
    size_t off = 0, bytes = slot->bytes;
    int n = slot->n, rc;

    if (n == 0)
        return;
    slot->n = 0;
    slot->bytes = 0;
    if (n == 1) {
        md_fwd_send_t *s = slot->member[0];
        rc = md_fwd_send_raw(md, &s->req, slot->subdev, slot->to, MD_SYSTAG_FWD_DATA,
                             s->buf, s->len);
        if (rc != MD_OK)
            md_fwd_batch_members_done(&s, 1, rc);
        return;
    }
    b = md_pool_alloc(sizeof(*b) + bytes);
    if (b == NULL) {
        md_log_error("forwarding: out of memory batching %d chunks for rank %d", n, slot->to);
        md_fwd_batch_members_done(slot->member, n, MD_ERR_NO_MEMORY);
        return;
    }
    memset(&b->req, 0, sizeof(b->req));
    b->md = md;
    b->n = n;
    for (int i = 0; i < n; i++) {
        const md_fwd_send_t *s = slot->member[i];
        uint32_t len = (uint32_t)s->len;
        b->member[i] = slot->member[i];
        memcpy(b->buf + off, &len, MD_FWD_BATCH_REC_HDR);
        memcpy(b->buf + off + MD_FWD_BATCH_REC_HDR, s->buf, s->len);
        off += MD_FWD_BATCH_REC_HDR + s->len;
    }
    b->req.on_complete = md_fwd_batch_done;
    b->req.user = b;
    st->batch_counters.msgs++;
    st->batch_counters.chunks += (uint64_t)n;
    rc = md_fwd_send_raw(md, &b->req, slot->subdev, slot->to, MD_SYSTAG_FWD_BATCH, b->buf, off);
    if (rc != MD_OK) {
        md_log_error("forwarding: a batch of %d chunks to rank %d failed: %s", n, slot->to,
                     md_status_string(rc));
        md_fwd_batch_members_done(b->member, n, rc);
        md_pool_release(b);
    }
}

/* The slot of (subdev, to), or a free one taken for it; NULL if none. */
static md_fwd_batch_t *md_fwd_batch_slot(md_fwd_state_t *st, int subdev, int32_t to)
{
    md_fwd_batch_t *free_slot = NULL;

    for (int i = 0; i < MD_FWD_BATCH_SLOTS; i++) {
        md_fwd_batch_t *b = &st->batch[i];
        if (b->used && b->subdev == subdev && b->to == to)
            return b;
        if (!b->used && free_slot == NULL)
            free_slot = b;
    }
    if (free_slot != NULL) {
        *free_slot = (md_fwd_batch_t){ .used = 1, .subdev = subdev, .to = to };
        st->batch_slots_used++;
    }
    return free_slot;
}

/* A progress thread asleep would keep a chunk held outside a pass until
 * its poll ends (up to 50 ms): md_thread_pass_soon bounds that to about a
 * millisecond, waking it only if it sleeps longer (an application posting
 * a stream calls progress itself, sooner).  Woken at once, every time, the
 * thread passed in the middle of the stream, beside the caller, and
 * 8-byte messages a to c streamed 25% slower than with no wake-up at all;
 * a timer (a timerfd set and cleared for each burst) cost about as much. */
static void md_fwd_batch_wake(md_t *md)
{
    if (!md->fwd->in_pass && md->thr.enabled)
        md_thread_pass_soon(md);
}

int md_fwd_chunk_send(md_t *md, md_fwd_send_t *s, int subdev, int32_t to,
                      const md_fwd_hdr_t *hdr)
{
    md_fwd_state_t *st = md->fwd;
    size_t cap = md_fwd_batch_cap(md, subdev), rec = MD_FWD_BATCH_REC_HDR + s->len;
    int joins = cap > 0 && rec <= cap / 2 && (hdr->flags & MD_FWD_F_NO_CREDITS) &&
                !(hdr->flags & (MD_FWD_F_PROBE | MD_FWD_F_STRIPED)) &&
                hdr->offset == 0 && hdr->len == hdr->env.size &&
                (st->in_pass || md->thr.enabled);
    md_fwd_batch_t *slot = md_fwd_batch_slot(st, subdev, to);

    /* (loops: the chunks a batch carries complete as it leaves, and their
     * completion may send, and hold, again) */
    if (slot != NULL && !joins) {
        while (slot->n > 0)
            md_fwd_batch_send(md, slot);    /* keeps this neighbour's order */
    } else if (slot != NULL && (slot->n > 0 || slot->hot || st->batch_arriving)) {
        while (slot->n == MD_FWD_BATCH_MEMBERS || slot->bytes + rec > cap)
            md_fwd_batch_send(md, slot);
        slot->member[slot->n++] = s;
        slot->bytes += rec;
        st->batch_counters.held++;
        if (slot->n == 1)
            md_fwd_batch_wake(md);
        return MD_OK;
    }
    if (slot != NULL)
        slot->hot = 1;
    return md_fwd_send_raw(md, &s->req, subdev, to, MD_SYSTAG_FWD_DATA, s->buf, s->len);
}

void md_fwd_batch_pass_begin(md_t *md)
{
    if (md->fwd != NULL)
        md->fwd->in_pass = 1;
}

void md_fwd_batch_flush(md_t *md)
{
    md_fwd_state_t *st = md->fwd;

    if (st == NULL)
        return;
    if (st->batch_slots_used == 0) {    /* the common pass: nothing went out */
        st->in_pass = 0;
        return;
    }
    /* A chunk's completion may send, and hold, again (still in the pass):
     * from the first slot again until none holds anything. */
    for (int i = 0; i < MD_FWD_BATCH_SLOTS; i++) {
        if (st->batch[i].n > 0) {
            md_fwd_batch_send(md, &st->batch[i]);
            i = -1;
        }
    }
    for (int i = 0; i < MD_FWD_BATCH_SLOTS; i++)
        st->batch[i].used = 0;
    st->batch_slots_used = 0;
    st->in_pass = 0;
}

void md_fwd_batch_discard(md_t *md)
{
    md_fwd_state_t *st = md->fwd;

    for (int i = 0; i < MD_FWD_BATCH_SLOTS; i++) {
        md_fwd_batch_t *b = &st->batch[i];
        for (int k = 0; b->used && k < b->n; k++)
            md_fwd_chunk_free(b->member[k]);
        b->used = 0;
        b->n = 0;
    }
    st->batch_slots_used = 0;
}

void md_fwd_batch_arrived(md_t *md, md_subdev_t *sd, const md_envelope_t *env,
                          const void *payload)
{
    const uint8_t *p = payload;
    size_t left = env->size;
    int was = md->fwd->batch_arriving;

    md->fwd->batch_arriving = 1;        /* its chunks go on together */
    while (left > 0) {
        md_envelope_t one = *env;
        uint32_t len;
        if (left < MD_FWD_BATCH_REC_HDR ||
            (memcpy(&len, p, MD_FWD_BATCH_REC_HDR), len > left - MD_FWD_BATCH_REC_HDR)) {
            md_log_error("forwarding: batch from rank %d has a record that overruns its "
                         "%llu bytes; the rest is dropped", env->src_world,
                         (unsigned long long)env->size);
            break;
        }
        one.tag = MD_SYSTAG_FWD_DATA;
        one.size = len;
        md_fwd_data_arrived(md, sd, &one, p + MD_FWD_BATCH_REC_HDR);
        p += MD_FWD_BATCH_REC_HDR + len;
        left -= MD_FWD_BATCH_REC_HDR + len;
    }
    md->fwd->batch_arriving = was;
}

void md_fwd_get_batch_counters(const md_t *md, md_fwd_batch_counters_t *out)
{
    *out = md->fwd != NULL ? md->fwd->batch_counters : (md_fwd_batch_counters_t){ 0 };
}
