/* myri_lcp_tx.c - the LCP send thread: take out-queue (SQ) entries, check
 * them, build packets and hand them to the reliable stream of the peer
 * firmware the route leads to.  An entry that cannot go yet (window full,
 * CQ full for an error report) stays in the out-queue: back-pressure. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_lcp.h"

int lcp_post_error(nic_fw_ep_t *ep, const myri_desc_t *d, int status)
{
    nic_entry_t *slot = nic_ring_slot(&ep->cq);
    myri_desc_t *c;

    if (slot == NULL)
        return 0;
    c = (myri_desc_t *)slot;
    *c = *d;
    c->op = MYRI_OP_ERROR | (d->op & (MYRI_OP_MASK | MYRI_OP_REPLY));
    c->aux = (uint16_t)(-status);
    c->len = 0;
    c->key = 0;
    c->offset = 0;
    lcp_stamp_in(ep, 0);              /* failures are not modelled: at once */
    nic_fw_cq_commit(ep);
    return 1;
}

void lcp_stamp_in(nic_fw_ep_t *ep, uint64_t valid_ns)
{
    uint64_t *st = lcp_stamp(ep, 1, nic_ring_index(&ep->cq));
    if (st != NULL)
        *st = valid_ns;
}

/* Timing model: when the host's last PIO write of out-queue entry idx
 * would have landed (its stamp), so that the send thread's time counts
 * from there and not from when this emulation got round to the entry;
 * never more than LCP_STAMP_AHEAD_MAX_NS ahead.  0 (no stamp): now. */
static uint64_t lcp_entry_ready(nic_fw_ep_t *ep, uint32_t idx)
{
    const uint64_t *st = lcp_stamp(ep, 0, idx);
    uint64_t now = nic_now_ns(), v = st != NULL ? *st : 0;

    if (v == 0)
        return now;
    return v > now + LCP_STAMP_AHEAD_MAX_NS ? now + LCP_STAMP_AHEAD_MAX_NS : v;
}

/* The peer firmware a destination's route reaches. */
int lcp_resolve(nic_fw_t *fw, lcp_t *l, lcp_ep_t *e, int32_t vnn, nic_rel_peer_t **pp,
                int *hops)
{
    myri_peer_entry_t *pe = &e->peers[vnn];
    struct sockaddr_in dst;
    nic_rel_peer_t *p;
    int rc;

    if (e->peer_fw[vnn] >= 0 && (p = nic_rel_peer_at(l->rel, e->peer_fw[vnn])) != NULL) {
        *pp = p;
        *hops = pe->pad[0];
        return NIC_OK;
    }
    if (!pe->valid || !l->have_self)
        return NIC_ERR_NO_ROUTE;
    rc = myri_fabric_walk(&l->fab, l->self_sw, l->self_port, pe->route, pe->route_len, &dst, hops);
    if (rc != NIC_OK) {
        l->c.route_errors++;
        nic_log_warn(nic_fw_log(fw), "route to node %d (%u bytes) leads nowhere in the fabric", vnn,
                     pe->route_len);
        return rc;
    }
    p = nic_rel_peer(l->rel, &dst, e->job, 1);
    if (p == NULL)
        return NIC_ERR_NO_RESOURCE;
    e->peer_fw[vnn] = (int16_t)nic_rel_peer_index(l->rel, p);
    pe->pad[0] = (uint8_t)*hops;
    *pp = p;
    return NIC_OK;
}

/* The emulated Myrinet packet, not our UDP frame, is what the model
 * clocks over the link: a route byte per hop, the 4-byte type, the 8-word
 * queue entry (P2 §4.1), the payload and the CRC byte. */
uint64_t lcp_wire_ns(const lcp_t *l, size_t payload, int hops)
{
    const myri_timing_t *t = &l->timing;
    uint64_t bytes = (uint64_t)hops + 4 + 32 + payload + 1;
    uint64_t ns = 0;
    if (t->link_MBps)
        ns += bytes * 1000 / t->link_MBps;
    ns += (uint64_t)hops * t->switch_ns;
    return ns;
}

int lcp_tx_frame(nic_fw_t *fw, lcp_t *l, nic_rel_peer_t *p, myri_hdr_t *hdr,
                 const void *payload, uint32_t len)
{
    uint8_t *buf = nic_rel_tx_buf(l->rel, p);

    if (buf == NULL)
        return NIC_ERR_NO_RESOURCE;      /* window full (or no memory yet) */
    hdr->type[0] = MYRI_TYPE0;
    hdr->type[1] = MYRI_TYPE1;
    hdr->type[2] = MYRI_TYPE2;
    hdr->type[3] = MYRI_TYPE3;
    memcpy(buf, hdr, sizeof(*hdr));
    if (len)
        memcpy(buf + sizeof(*hdr), payload, len);
    /* nic_rel fills the stream fields, then lcp_seal stamps and CRCs it. */
    return nic_rel_tx_commit(l->rel, p, sizeof(*hdr) + len + 1);
}

int lcp_ep_service(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    lcp_t *l = nic_fw_pers_state(fw);
    lcp_ep_t *e = ep->pers;
    nic_entry_t *slot;
    int n = 0;

    while ((slot = nic_ring_peek(&ep->sq)) != NULL) {
        myri_desc_t d = *(myri_desc_t *)slot;   /* the host may change the slot */
        const void *payload = NULL;
        nic_rel_peer_t *p = NULL;
        int hops = 0, rc = NIC_OK;

        if (!e->setup_done)
            rc = NIC_ERR_INVALID;
        else if (d.peer < 0 || (uint32_t)d.peer >= e->setup.num_vnn)
            rc = NIC_ERR_NO_ROUTE;
        else if (d.len > MYRI_PAGE)
            rc = NIC_ERR_INVALID;
        else if (d.len > 0 &&
                 (payload = nic_fw_mr_lookup(ep, d.key, d.offset, d.len, NIC_MR_LOCAL_READ)) == NULL)
            rc = NIC_ERR_PROTECTION;      /* not in memory this endpoint registered */
        else
            rc = lcp_resolve(fw, l, e, d.peer, &p, &hops);
        if (rc == NIC_OK && p->dead)
            rc = p->dead;                 /* its firmware died or stopped */

        if (rc != NIC_OK) {
            if (rc == NIC_ERR_PROTECTION)
                l->c.protection++;
            l->c.send_errors++;
            if (!lcp_post_error(ep, &d, rc))
                break;                    /* no room to report it yet */
            nic_ring_release(&ep->sq);
            n++;
            continue;
        }
        myri_hdr_t hdr;
        memset(&hdr, 0, sizeof(hdr));
        hdr.hops = (uint8_t)hops;
        hdr.dst_ep = e->peers[d.peer].ep_id;
        hdr.src_ep = ep->id;
        hdr.job_key = ep->job_key;
        hdr.dst_vnn = d.peer;
        hdr.d = d;
        hdr.d.peer = e->setup.my_vnn;
        hdr.d.key = 0;
        hdr.d.offset = 0;
        if (l->timing.enabled)            /* lcp_seal turns it into the send time */
            hdr.sent_ns = lcp_entry_ready(ep, nic_ring_index(&ep->sq));
        rc = lcp_tx_frame(fw, l, p, &hdr, payload, d.len);
        if (rc == NIC_ERR_NO_RESOURCE)
            break;                        /* window full: back-pressure */
        nic_ring_release(&ep->sq);
        n++;
    }
    return n;
}
