/*
 * md_fwd_send.c - the origin of a forwarded message (P1 §3.4 steps 1, 2
 * and 6): chunks go out as the relay's credits allow.  A standard-mode
 * send completes when its last chunk has left this rank (each chunk holds
 * a copy of its bytes, so the user's buffer is free, as after any eager
 * send); an MPI_Ssend when, besides, the destination's acknowledgement has
 * come back (it says the message was matched).  The flow leaves the
 * IndirectQueue when both have happened.  P1 had every blocking send wait
 * for the acknowledgement; MPI's standard mode does not ask it, and it put
 * an acknowledgement on the critical path of every forwarded round trip.
 * MULTIDEV_FWD_SEND_DONE=acked restores P1's: every send then waits for
 * its acknowledgement, which its chunks ask to be sent at once.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_fwd_state.h"
#include "md_log.h"
#include "md_thread.h"

static md_fwd_out_t **md_fwd_out_find(md_fwd_state_t *st, int32_t dst,
                                      uint64_t seq)
{
    for (md_fwd_out_t **p = &st->out; *p != NULL; p = &(*p)->next)
        if ((*p)->env.dst_world == dst && (*p)->env.seq == seq)
            return p;
    return NULL;
}

/* Completes the user's send (see above) and, once nothing of the flow is
 * left in flight and the acknowledgement is in, forgets the flow. */
void md_fwd_out_maybe_finish(md_t *md, md_fwd_out_t *o, int error)
{
    md_fwd_state_t *st = md->fwd;
    /* a striped send completes at its acknowledgement: its chunks are
     * sent again from the user's buffer when a rail is lost */
    int waits = (o->env.flags & MD_ENV_F_SYNC) != 0 || st->params.send_waits_ack ||
                o->stripe != NULL, all_out;
    md_fwd_out_t **p;

    if (error != MD_OK && o->error == MD_OK)
        o->error = error;
    if (o->error != MD_OK && o->chunks_inflight > 0)
        return;         /* finish when the last chunk send returns */
    all_out = o->sent == o->env.size && o->started && o->chunks_inflight == 0;
    if (!o->user_done && (o->error != MD_OK ||
                          (all_out && (o->acked || !waits)))) {
        o->user_done = 1;
        o->user->status.error = o->error;
        md_request_done(md, o->user);
    }
    if (o->error == MD_OK && !(o->acked && all_out))
        return;
    p = md_fwd_out_find(st, o->env.dst_world, o->env.seq);
    if (p != NULL)
        *p = o->next;
    md_fwd_stripe_free(o->stripe);
    free(o);
}

void md_fwd_out_fail(md_t *md, md_fwd_out_t *o, int status)
{
    md_fwd_out_maybe_finish(md, o, status);
}

static void md_fwd_chunk_done(md_request_t *req)
{
    md_fwd_send_t *s = req->user;
    md_fwd_out_t *o = s->out;
    md_t *md = s->md;
    int error = req->status.error;

    o->chunks_inflight--;
    md_fwd_chunk_free(s);
    md_fwd_out_maybe_finish(md, o, error);
}

/* More chunks than the window holds: the relays must return credits. */
static int md_fwd_needs_credits(const md_fwd_state_t *st, uint64_t size)
{
    return (size + st->params.chunk - 1) / st->params.chunk > (uint64_t)st->params.window;
}

/* The bytes of the next chunk (md_fwd_eager_cut on the first hop). */
static size_t md_fwd_chunk_len(md_t *md, const md_fwd_out_t *o)
{
    size_t rest = o->env.size - o->sent;

    if (rest > md->fwd->params.chunk)
        return md->fwd->params.chunk;
    return md_fwd_eager_cut(md, o->subdev, o->sent, rest, o->env.size);
}

static int md_fwd_pump_pinned(md_t *md, md_fwd_out_t *o)
{
    md_fwd_state_t *st = md->fwd;

    while (o->error == MD_OK && o->credits > 0 && (o->sent < o->env.size || !o->started)) {
        size_t len = md_fwd_chunk_len(md, o);
        md_fwd_send_t *s;
        md_fwd_hdr_t hdr;
        int rc;

        hdr = (md_fwd_hdr_t){ .env = o->env, .offset = o->sent,
                              .len = (uint32_t)len, .hop_src = md->rank,
                              .flags = (md_fwd_needs_credits(st, o->env.size)
                                        ? 0 : MD_FWD_F_NO_CREDITS) |
                                       (st->params.send_waits_ack ? MD_FWD_F_ACK_NOW : 0) |
                                       (o->env.tag == MD_SYSTAG_FWD_PROBE ? MD_FWD_F_PROBE : 0) };
        s = md_fwd_chunk_new(md, &hdr, (const uint8_t *)o->user->buf + o->sent,
                             md_fwd_chunk_done);
        if (s == NULL)
            return MD_ERR_NO_MEMORY;
        s->out = o;
        o->chunks_inflight++;
        o->credits--;
        o->sent += len;
        o->started = 1;
        rc = md_fwd_chunk_send(md, s, o->subdev, o->next_hop, &hdr);
        if (rc != MD_OK) {
            o->chunks_inflight--;
            md_fwd_chunk_free(s);
            return rc;
        }
    }
    return MD_OK;
}

/* Sends as many chunks as the credits allow.  A chunk's send may complete
 * inside the call (and fail the flow, if its peer is known dead), so the
 * flow is pinned meanwhile, as by one more chunk in flight: it is neither
 * finished nor freed here; the caller then calls md_fwd_out_maybe_finish,
 * after which o may be gone. */
static int md_fwd_pump(md_t *md, md_fwd_out_t *o)
{
    int rc;

    o->chunks_inflight++;            /* the pin */
    rc = md_fwd_pump_pinned(md, o);
    o->chunks_inflight--;
    return rc;
}

md_fwd_out_t *md_fwd_out_new(md_t *md, md_request_t *req, int32_t next_hop, int subdev)
{
    md_fwd_state_t *st = md->fwd;
    md_fwd_out_t *o = calloc(1, sizeof(*o));

    if (o == NULL)
        return NULL;
    o->user = req;
    o->env = req->env;
    o->next_hop = next_hop;
    o->subdev = subdev;
    o->credits = st->params.window;
    o->acked = o->env.tag == MD_SYSTAG_FWD_PROBE;   /* no acknowledgement comes */
    req->subdev = -1;       /* owned by the multidevice, not a subdevice */
    o->next = st->out;
    st->out = o;
    if (o->env.tag != MD_SYSTAG_FWD_PROBE) {
        st->counters.originated_msgs++;
        st->counters.originated_bytes += o->env.size;
        if (md->fwd_index >= 0) {
            md_sd(md, md->fwd_index)->counters.msgs_sent++;
            md_sd(md, md->fwd_index)->counters.bytes_sent += o->env.size;
        }
    }
    return o;
}

int md_fwd_isend(md_t *md, md_request_t *req, const md_route_class_t *c)
{
    md_fwd_state_t *st = md->fwd;
    md_fwd_out_t *o = md_fwd_out_new(md, req, req->peer_world, c->subdev);
    int rc;

    if (o == NULL)
        return MD_ERR_NO_MEMORY;
    md_log_debug("forwarding %llu bytes to rank %d through rank %d over %s",
                 (unsigned long long)o->env.size, o->env.dst_world, o->next_hop,
                 md_sd(md, o->subdev)->name);
    rc = md_fwd_pump(md, o);
    if (rc != MD_OK && o->chunks_inflight == 0 && !o->user_done && o->error == MD_OK) {
        /* nothing of it went out: the caller hears of it, not the request */
        md_log_error("forwarding to rank %d through rank %d failed: %s",
                     o->env.dst_world, o->next_hop, md_status_string(rc));
        st->out = o->next;
        free(o);
        req->subdev = c->subdev;
        return rc;
    }
    md_fwd_out_maybe_finish(md, o, rc);      /* may complete (and forget) the flow now */
    return MD_OK;
}

void md_fwd_on_credit(md_t *md, const md_fwd_ctl_t *ctl)
{
    md_fwd_out_t **p;
    int rc;

    if (ctl->origin != md->rank) {
        md_fwd_relay_credit(md, ctl);
        return;
    }
    p = md_fwd_out_find(md->fwd, ctl->dst, ctl->seq);
    if (p == NULL) {
        /* Expected: a relay returns a credit when its send of a chunk
         * completes, which may be after the destination's acknowledgement
         * passed through it and finished the flow here. */
        md_log_debug("forwarding: credit for a finished flow to rank %d "
                    "(seq %llu) from rank %d", ctl->dst,
                    (unsigned long long)ctl->seq, ctl->hop_src);
        return;
    }
    md_fwd_out_t *o = *p;
    o->credits += ctl->credits;
    rc = md_fwd_pump(md, o);
    if (rc != MD_OK)
        md_log_error("forwarding to rank %d: sending a chunk failed: %s",
                     ctl->dst, md_status_string(rc));
    md_fwd_out_maybe_finish(md, o, rc);      /* o may be gone after this */
}

void md_fwd_on_ack(md_t *md, const md_fwd_ctl_t *ctl)
{
    md_fwd_out_t **p;

    p = md_fwd_out_find(md->fwd, ctl->dst, ctl->seq);
    if (p == NULL) {
        md_log_warn("forwarding: acknowledgement for an unknown flow to rank "
                    "%d (seq %llu)", ctl->dst, (unsigned long long)ctl->seq);
        return;
    }
    (*p)->acked = 1;
    md_fwd_stripe_acked(*p);
    md_fwd_out_maybe_finish(md, *p, MD_OK);
}
