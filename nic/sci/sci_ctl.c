/* sci_ctl.c - the bridge's configuration calls: protection tags, export
 * and import (filling the two ATTs), remote interrupts, counters, timing.
 * Everything arriving here comes from the endpoint's owner (the core checks
 * that) but is otherwise untrusted and checked in full. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "sci_fw.h"

/* A tag the endpoint's process may use (0: untagged). */
static int tag_usable(sci_bridge_t *b, nic_fw_ep_t *ep, uint32_t tag)
{
    if (tag == 0)
        return 1;
    return tag < SCI_TAG_MAX && b->tags[tag].owner_ep != 0 && b->tags[tag].conn == ep->conn;
}

static int ctl_tag_alloc(sci_bridge_t *b, nic_fw_ep_t *ep, void *out, size_t *out_len)
{
    for (uint32_t t = 1; t < SCI_TAG_MAX; t++) {
        if (b->tags[t].owner_ep != 0)
            continue;
        b->tags[t].owner_ep = ep->id;
        b->tags[t].conn = ep->conn;
        memcpy(out, &t, sizeof(t));
        *out_len = sizeof(t);
        return NIC_OK;
    }
    return NIC_ERR_NO_RESOURCE;
}

static int ctl_export(sci_bridge_t *b, nic_fw_ep_t *ep, const void *in, size_t in_len,
                      void *out, size_t *out_len)
{
    const sci_ctl_export_t *x = in;
    uint64_t npages, have = 0;
    uint32_t first, access = 0, page = 0;
    int rc;

    if (in_len < sizeof(*x) || in_len != sizeof(*x) + (size_t)x->nruns * sizeof(x->run[0]) ||
        x->first_off >= SCI_UP_PAGE || x->size == 0 ||
        x->size > (uint64_t)b->up_entries * SCI_UP_PAGE ||
        (x->flags & ~(SCI_EXP_REMOTE | SCI_EXP_DMA)) != 0 || x->flags == 0)
        return NIC_ERR_INVALID;
    if (!tag_usable(b, ep, x->tag))
        return NIC_ERR_PROTECTION;
    npages = (x->first_off + x->size + SCI_UP_PAGE - 1) / SCI_UP_PAGE;
    for (uint32_t i = 0; i < x->nruns; i++) {
        if (x->run[i].off % SCI_UP_PAGE != 0 || x->run[i].npages == 0)
            return NIC_ERR_INVALID;
        have += x->run[i].npages;
    }
    if (have != npages)
        return NIC_ERR_INVALID;
    if (x->flags & SCI_EXP_REMOTE)
        access |= NIC_MR_REMOTE_WRITE;
    if (x->flags & SCI_EXP_DMA)
        access |= NIC_MR_LOCAL_READ;
    if ((rc = sci_up_alloc(b, (uint32_t)npages, &first)) != NIC_OK) {
        nic_log_warn(b->log, "endpoint %#x: export of %llu pages refused: the upstream ATT has no "
                     "such free range (%u of %u entries used)", ep->id,
                     (unsigned long long)npages, b->up_used, b->up_entries);
        return rc;
    }
    for (uint32_t i = 0; i < x->nruns; i++) {
        for (uint32_t k = 0; k < x->run[i].npages; k++, page++) {
            sci_up_t *e = &b->up[first + page];
            uint64_t seg_lo = (uint64_t)page * SCI_UP_PAGE;   /* page start, in segment space */
            uint64_t lo = page == 0 ? x->first_off : 0;
            uint64_t end = x->first_off + x->size - seg_lo;
            uint64_t hi = end < SCI_UP_PAGE ? end : SCI_UP_PAGE;
            uint64_t off = x->run[i].off + (uint64_t)k * SCI_UP_PAGE;
            if (nic_fw_mr_lookup(ep, x->run[i].key, off + lo, hi - lo, access) == NULL) {
                /* undo what was filled */
                b->up[first].npages = page;
                b->up[first].head = first;
                if (page > 0)
                    sci_up_free_seg(b, first);
                return NIC_ERR_PROTECTION;
            }
            e->ep = ep;
            e->off = off;
            e->key = x->run[i].key;
            e->tag = x->tag;
            e->lo = (uint16_t)lo;
            e->hi = (uint16_t)hi;
            e->flags = (uint16_t)x->flags;
            e->head = first;
            b->up_used++;
        }
    }
    b->up[first].npages = (uint32_t)npages;
    sci_ctl_seg_t seg = { .offset = (uint64_t)first * SCI_UP_PAGE + x->first_off,
                          .size = x->size };
    memcpy(out, &seg, sizeof(seg));
    *out_len = sizeof(seg);
    return NIC_OK;
}

static int ctl_import(nic_fw_t *fw, sci_bridge_t *b, nic_fw_ep_t *ep, const void *in,
                      size_t in_len, void *out, size_t *out_len)
{
    sci_ctl_import_t m;
    uint32_t first, npages;
    int peer, rc;

    if (in_len != sizeof(m))
        return NIC_ERR_INVALID;
    memcpy(&m, in, sizeof(m));
    if (m.size == 0 || m.size > (uint64_t)SCI_DOWN_PAGE * (SCI_DOWN_ENTRIES - 1))
        return NIC_ERR_INVALID;
    if (!tag_usable(b, ep, m.tag))
        return NIC_ERR_PROTECTION;
    sci_node_t node = sci_node_unpack(m.node);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = node.ip,
                              .sin_port = node.port };
    if (node.port == 0 || (peer = sci_peer_get(b, &to, ep->job_key, 1)) < 0)
        return NIC_ERR_NO_ROUTE;
    npages = (uint32_t)((m.size + SCI_DOWN_PAGE - 1) / SCI_DOWN_PAGE);
    if ((rc = sci_down_alloc(b, npages, &first)) != NIC_OK) {
        nic_log_warn(nic_fw_log(fw),
                     "endpoint %#x: import of %u pages refused: the downstream ATT has no "
                     "such free range", ep->id, npages);
        return rc;
    }
    for (uint32_t i = 0; i < npages; i++) {
        sci_down_t *d = &b->down[first + i];
        uint64_t left = m.size - (uint64_t)i * SCI_DOWN_PAGE;
        d->ep = ep;
        d->remote = m.remote_off + (uint64_t)i * SCI_DOWN_PAGE;
        d->tag = m.tag;
        d->valid = (uint32_t)(left < SCI_DOWN_PAGE ? left : SCI_DOWN_PAGE);
        d->node = (uint16_t)peer;
        d->head = first;
        b->down_used++;
    }
    b->down[first].npages = npages;
    uint64_t addr = (uint64_t)first * SCI_DOWN_PAGE;
    memcpy(out, &addr, sizeof(addr));
    *out_len = sizeof(addr);
    (void)fw;
    return NIC_OK;
}

static int get_u32(const void *in, size_t in_len, uint32_t *v)
{
    if (in_len != sizeof(*v))
        return NIC_ERR_INVALID;
    memcpy(v, in, sizeof(*v));
    return NIC_OK;
}

static int get_u64(const void *in, size_t in_len, uint64_t *v)
{
    if (in_len != sizeof(*v))
        return NIC_ERR_INVALID;
    memcpy(v, in, sizeof(*v));
    return NIC_OK;
}

int sci_ep_ctl(nic_fw_t *fw, nic_fw_ep_t *ep, uint32_t op, const void *in, size_t in_len,
               void *out, size_t *out_len)
{
    sci_bridge_t *b = sci_of(fw);
    sci_ep_t *se = sci_ep(ep);
    uint32_t v32;
    uint64_t v64;
    int rc;

    *out_len = 0;
    switch (op) {
    case SCI_CTL_TAG_ALLOC:
        return ctl_tag_alloc(b, ep, out, out_len);
    case SCI_CTL_DMA_TAG:
        if ((rc = get_u32(in, in_len, &v32)) != NIC_OK)
            return rc;
        if (!tag_usable(b, ep, v32))
            return NIC_ERR_PROTECTION;
        se->dma_tag = v32;
        return NIC_OK;
    case SCI_CTL_EXPORT:
        return ctl_export(b, ep, in, in_len, out, out_len);
    case SCI_CTL_UNEXPORT:
        if ((rc = get_u64(in, in_len, &v64)) != NIC_OK)
            return rc;
        v64 /= SCI_UP_PAGE;
        if (v64 == 0 || v64 >= b->up_entries || b->up[v64].ep != ep || b->up[v64].head != v64)
            return NIC_ERR_NOT_FOUND;
        sci_up_free_seg(b, (uint32_t)v64);
        return NIC_OK;
    case SCI_CTL_IMPORT:
        return ctl_import(fw, b, ep, in, in_len, out, out_len);
    case SCI_CTL_UNIMPORT:
        if ((rc = get_u64(in, in_len, &v64)) != NIC_OK)
            return rc;
        v64 /= SCI_DOWN_PAGE;
        if (v64 == 0 || v64 >= SCI_DOWN_ENTRIES || b->down[v64].ep != ep ||
            b->down[v64].head != v64)
            return NIC_ERR_NOT_FOUND;
        sci_down_free_imp(b, (uint32_t)v64);
        return NIC_OK;
    case SCI_CTL_INTR_CREATE:
        for (uint32_t no = 1; no < SCI_INTR_MAX; no++) {
            if (b->intr[no].ep != NULL)
                continue;
            b->intr[no].ep = ep;
            memcpy(out, &no, sizeof(no));
            *out_len = sizeof(no);
            return NIC_OK;
        }
        return NIC_ERR_NO_RESOURCE;
    case SCI_CTL_INTR_REMOVE:
        if ((rc = get_u32(in, in_len, &v32)) != NIC_OK)
            return rc;
        if (v32 == 0 || v32 >= SCI_INTR_MAX || b->intr[v32].ep != ep)
            return NIC_ERR_NOT_FOUND;
        b->intr[v32].ep = NULL;
        return NIC_OK;
    case SCI_CTL_STATS: {
        sci_stats_t s;
        s.ep = se->st;
        s.fw = b->st;
        s.fw.up_used = b->up_used;
        s.fw.down_used = b->down_used;
        const nic_rel_counters_t *r = nic_rel_counters(b->rel);
        s.fw.retransmits = r->retransmits;
        s.fw.duplicates = r->duplicates;
        s.fw.out_of_order = r->out_of_order;
        s.fw.backpressure = r->backpressure;
        s.fw.peer_failures = r->peer_failures;
        memcpy(out, &s, sizeof(s));
        *out_len = sizeof(s);
        return NIC_OK;
    }
    case SCI_CTL_TIMING:
        if (in_len != sizeof(sci_timing_t))
            return NIC_ERR_INVALID;
        memcpy(&b->timing, in, sizeof(b->timing));
        if (b->timing.enabled && b->late == NULL &&
            (b->late = calloc(SCI_LATE_MAX, sizeof(*b->late))) == NULL)
            return NIC_ERR_NO_MEMORY;
        return NIC_OK;
    default:
        return NIC_ERR_UNSUPPORTED;
    }
}
