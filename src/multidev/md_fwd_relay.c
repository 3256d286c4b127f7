/*
 * md_fwd_relay.c - an intermediate node (P1 §3.4 steps 3 and 5).  Each
 * chunk is copied out of the subdevice's buffer and sent on by this node's
 * own connection table.  A credit goes back upstream when the chunk has
 * left for the destination (last relay) or when the next relay has passed
 * its credit back, so every relay holds at most window x chunk bytes of a
 * flow (none when the origin's header says the message fits in its
 * window).  The destination's acknowledgement is passed upstream (the
 * entries of one FWD_ACK in one message per neighbour) and the flow
 * forgotten.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "md_fwd_state.h"
#include "md_log.h"

static void md_fwd_relay_credit_up(md_t *md, const md_fwd_relay_t *r)
{
    md_fwd_ctl_t ctl = { .origin = r->origin, .dst = r->dst, .seq = r->seq,
                         .hop_src = md->rank, .credits = 1 };

    md_fwd_send_ctl(md, r->up_subdev, r->upstream, MD_SYSTAG_FWD_CREDIT, &ctl, 1);
    md->fwd->counters.credits_returned++;
}

/* The relay's memory: its chunks in flight (a flow's at most window of
 * them), counted so that the bound can be shown. */
static void md_fwd_relay_hold(md_fwd_state_t *st, const md_fwd_send_t *s)
{
    md_fwd_counters_t *c = &st->counters;

    c->relay_held_bytes += s->len;
    if (c->relay_held_bytes > c->relay_peak_bytes)
        c->relay_peak_bytes = c->relay_held_bytes;
}

static void md_fwd_relay_release(md_fwd_state_t *st, const md_fwd_send_t *s)
{
    st->counters.relay_held_bytes -= s->len;
}

static void md_fwd_relay_chunk_done(md_request_t *req)
{
    md_fwd_send_t *s = req->user;
    md_t *md = s->md;
    md_fwd_relay_t *r;

    if (req->status.error != MD_OK)
        md_log_error("forwarding: relaying a chunk from rank %d to rank %d "
                     "failed: %s", s->ctl.origin, s->ctl.dst,
                     md_status_string(req->status.error));
    else if (s->relay_chunk &&
             (r = md_fwd_relay_find(md->fwd, s->ctl.origin, s->ctl.dst, s->ctl.seq)) != NULL)
        md_fwd_relay_credit_up(md, r);
    md_fwd_relay_release(md->fwd, s);
    md_fwd_chunk_free(s);
}

/* Sends len bytes of the flow at offset on to the next hop, as a chunk of
 * its own (P1 footnote 5: a copy, so the subdevice's receive path is free
 * again). */
static void md_fwd_relay_send(md_t *md, const md_fwd_relay_t *r, int subdev, int32_t next,
                              const md_fwd_hdr_t *hdr, uint64_t offset, const void *data,
                              size_t len)
{
    md_fwd_hdr_t out = *hdr;
    md_fwd_send_t *s;
    int rc;

    out.hop_src = md->rank;
    out.offset = offset;
    out.len = (uint32_t)len;
    s = md_fwd_chunk_new(md, &out, data, md_fwd_relay_chunk_done);
    if (s == NULL) {
        md_log_error("forwarding: out of memory relaying for rank %d",
                     hdr->env.src_world);
        return;
    }
    s->relay_chunk = r->last_hop && !r->no_credits;
    s->ctl = (md_fwd_ctl_t){ .origin = r->origin, .dst = r->dst, .seq = r->seq };
    md_fwd_relay_hold(md->fwd, s);
    rc = md_fwd_chunk_send(md, s, subdev, next, &out);
    if (rc != MD_OK) {
        md_log_error("forwarding: relaying to rank %d failed: %s", next,
                     md_status_string(rc));
        md_fwd_relay_release(md->fwd, s);
        md_fwd_chunk_free(s);
    }
}

void md_fwd_relay_data(md_t *md, md_subdev_t *sd, const md_fwd_hdr_t *hdr,
                       const void *data)
{
    md_fwd_state_t *st = md->fwd;
    /* a chunk that is its whole message begins its flow: no need to look
     * through the flows relayed now (a stream of small messages looked
     * through all those not yet acknowledged, for every one) */
    int whole = hdr->offset == 0 && hdr->len == hdr->env.size;
    md_fwd_relay_t *r = whole ? NULL : md_fwd_relay_find(st, hdr->env.src_world,
                                                         hdr->env.dst_world, hdr->env.seq);
    const md_route_class_t *c;
    int32_t next;

    if (hdr->env.dst_world >= 0 && hdr->env.dst_world < md->size &&
        md_fwd_relay_refuse(md, sd, hdr))
        return;
    if (hdr->env.dst_world < 0 || hdr->env.dst_world >= md->size ||
        (c = md_conntab_lookup(md, hdr->env.dst_world, hdr->env.size)) == NULL) {
        md_log_error("forwarding: no route on to rank %d for a message from "
                     "rank %d; dropped", hdr->env.dst_world, hdr->env.src_world);
        return;
    }
    next = c->next_hop_node < 0 ? hdr->env.dst_world
                                : md->node_relay_rank[c->next_hop_node];
    if (hdr->flags & MD_FWD_F_PROBE) {
        /* passed on, no state kept, nothing counted */
        md_fwd_relay_t tmp = { .origin = hdr->env.src_world, .dst = hdr->env.dst_world,
                               .seq = hdr->env.seq, .no_credits = 1 };
        md_fwd_relay_send(md, &tmp, c->subdev, next, hdr, hdr->offset, data, hdr->len);
        return;
    }
    if (r == NULL) {
        r = calloc(1, sizeof(*r));
        if (r == NULL) {
            md_log_error("forwarding: out of memory relaying for rank %d",
                         hdr->env.src_world);
            return;
        }
        *r = (md_fwd_relay_t){ .origin = hdr->env.src_world,
                               .dst = hdr->env.dst_world, .seq = hdr->env.seq,
                               .upstream = hdr->hop_src, .up_subdev = sd->index,
                               .last_hop = next == hdr->env.dst_world,
                               .no_credits = !!(hdr->flags & MD_FWD_F_NO_CREDITS),
                               .next = st->relays };
        st->relays = r;
        st->counters.relayed_msgs++;
    }
    st->counters.relayed_chunks++;
    st->counters.relayed_bytes += hdr->len;
    /* A chunk of a small flow that this hop would not take eagerly with its
     * header goes on in two parts (md_fwd_eager_cut); the credits of larger
     * flows count whole chunks, so theirs go on as they came. */
    size_t first = hdr->len;
    if (r->no_credits)
        first = md_fwd_eager_cut(md, c->subdev, hdr->offset, hdr->len, hdr->env.size);
    md_fwd_relay_send(md, r, c->subdev, next, hdr, hdr->offset, data, first);
    if (first < hdr->len)
        md_fwd_relay_send(md, r, c->subdev, next, hdr, hdr->offset + first,
                          (const uint8_t *)data + first, hdr->len - first);
}

void md_fwd_relay_credit(md_t *md, const md_fwd_ctl_t *ctl)
{
    md_fwd_relay_t *r = md_fwd_relay_find(md->fwd, ctl->origin, ctl->dst,
                                          ctl->seq);

    if (r == NULL) {
        md_log_warn("forwarding: credit for an unknown relayed flow from rank "
                    "%d to rank %d", ctl->origin, ctl->dst);
        return;
    }
    for (int i = 0; i < ctl->credits; i++)
        md_fwd_relay_credit_up(md, r);
}

int md_fwd_relay_ack(md_t *md, const md_fwd_ctl_t *ctl, md_fwd_ack_pending_t *up)
{
    md_fwd_state_t *st = md->fwd;

    for (md_fwd_relay_t **p = &st->relays; *p != NULL; p = &(*p)->next) {
        md_fwd_relay_t *r = *p;
        if (r->origin != ctl->origin || r->dst != ctl->dst || r->seq != ctl->seq)
            continue;
        *up = (md_fwd_ack_pending_t){ .upstream = r->upstream, .up_subdev = r->up_subdev,
                                      .ctl = *ctl };
        up->ctl.hop_src = md->rank;
        *p = r->next;
        free(r);
        return 1;
    }
    md_log_warn("forwarding: acknowledgement for an unknown relayed flow from "
                "rank %d to rank %d", ctl->origin, ctl->dst);
    return 0;
}
