/* myri_lcp.c - the LANai control program as a firmware personality:
 * set-up, endpoint configuration (copy block, peer routes, fabric), status.
 * The data path is in myri_lcp_tx.c, myri_lcp_rx.c and myri_lcp_rel.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/nic_log.h"
#include "myri_lcp.h"

static int lcp_fw_init(nic_fw_t *fw, void **state)
{
    lcp_t *l = calloc(1, sizeof(*l));
    int rc;

    if (l == NULL)
        return NIC_ERR_NO_MEMORY;
    /* Reliability (sequence, acks, retransmission, dead peers) is the
     * core's nic_rel; MULTIDEV_MYRI_RTO_US etc. configure it. */
    if ((rc = lcp_rel_create(fw, l)) != NIC_OK) {
        free(l);
        return rc;
    }
    *state = l;
    return NIC_OK;
}

static void lcp_fw_fini(nic_fw_t *fw, void *state)
{
    lcp_t *l = state;
    nic_rel_destroy(l->rel);
    free(l);
}

static int lcp_ep_open(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    lcp_ep_t *e = calloc(1, sizeof(lcp_ep_t));

    if (e == NULL)
        return NIC_ERR_NO_MEMORY;
    e->job = ep->job_key;
    ep->pers = e;
    return NIC_OK;
}

/* The job's last endpoint here closed: its streams end (a BYE to each
 * peer), and their slots serve other jobs. */
static void lcp_job_end(nic_fw_t *fw, uint64_t job)
{
    lcp_t *l = nic_fw_pers_state(fw);
    nic_rel_job_end(l->rel, job);
}

static void lcp_ep_close(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    lcp_ep_t *e = ep->pers;
    if (e != NULL) {
        free(e->peers);
        free(e->peer_fw);
        free(e);
    }
    ep->pers = NULL;
}

static int lcp_ctl_setup(nic_fw_t *fw, nic_fw_ep_t *ep, lcp_ep_t *e,
                         const myri_ctl_setup_t *s)
{
    uint64_t need = (uint64_t)s->recv_offset + (uint64_t)ep->sh->cq_entries * MYRI_PAGE;

    if (s->num_vnn == 0 || s->num_vnn > 65536 || s->my_vnn < 0 ||
        (uint32_t)s->my_vnn >= s->num_vnn)
        return NIC_ERR_INVALID;
    /* The receive partition must hold one page per in-queue entry. */
    if (nic_fw_mr_lookup(ep, s->copy_key, s->recv_offset, need - s->recv_offset,
                         NIC_MR_LOCAL_WRITE) == NULL) {
        nic_log_warn(nic_fw_log(fw), "endpoint %#x: copy block %#x does not cover %u "
                     "receive pages", ep->id, s->copy_key, ep->sh->cq_entries);
        return NIC_ERR_PROTECTION;
    }
    if (s->stamp_offset != 0 &&
        (s->stamp_offset % 8 != 0 ||
         nic_fw_mr_lookup(ep, s->copy_key, s->stamp_offset,
                          MYRI_STAMPS_BYTES(ep->sh->sq_entries, ep->sh->cq_entries),
                          NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE) == NULL)) {
        nic_log_warn(nic_fw_log(fw), "endpoint %#x: copy block %#x does not hold the timing "
                     "stamps at %#x", ep->id, s->copy_key, s->stamp_offset);
        return NIC_ERR_PROTECTION;
    }
    free(e->peers);
    free(e->peer_fw);
    e->peers = calloc(s->num_vnn, sizeof(*e->peers));
    e->peer_fw = malloc(s->num_vnn * sizeof(*e->peer_fw));
    if (e->peers == NULL || e->peer_fw == NULL)
        return NIC_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < s->num_vnn; i++)
        e->peer_fw[i] = -1;
    e->setup = *s;
    e->setup_done = 1;
    return NIC_OK;
}

uint64_t *lcp_stamp(nic_fw_ep_t *ep, int in_queue, uint32_t idx)
{
    lcp_ep_t *e = ep->pers;
    uint64_t off;

    if (e == NULL || !e->setup_done || e->setup.stamp_offset == 0)
        return NULL;
    off = e->setup.stamp_offset + ((in_queue ? (uint64_t)ep->sh->sq_entries : 0) + idx) * 8;
    /* through the gate every time: the host may deregister its copy block */
    return nic_fw_mr_lookup(ep, e->setup.copy_key, off, sizeof(uint64_t),
                            NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE);
}

/* The endpoint's set-up has just named the peers from first on (or the
 * fabric that routes to them): it is newer than a BYE or a timeout that
 * ended the stream to a firmware at such an address, which may be a new one
 * on a reused port (nic_rel_peer_revive). */
static void lcp_peers_named(nic_fw_t *fw, lcp_t *l, lcp_ep_t *e, uint32_t first, uint32_t count)
{
    for (uint32_t v = first; v < first + count; v++) {
        nic_rel_peer_t *p;
        int hops;
        e->peer_fw[v] = -1;
        if (e->peers[v].valid && l->have_self &&
            lcp_resolve(fw, l, e, (int32_t)v, &p, &hops) == NIC_OK)
            nic_rel_peer_revive(p);
    }
}

static int lcp_ep_ctl(nic_fw_t *fw, nic_fw_ep_t *ep, uint32_t op, const void *in, size_t in_len,
                      void *out, size_t *out_len)
{
    lcp_t *l = nic_fw_pers_state(fw);
    lcp_ep_t *e = ep->pers;
    int rc = NIC_OK;

    *out_len = 0;
    switch (op) {
    case MYRI_CTL_SETUP:
        if (in_len != sizeof(myri_ctl_setup_t))
            return NIC_ERR_INVALID;
        return lcp_ctl_setup(fw, ep, e, in);
    case MYRI_CTL_PEERS: {
        const myri_ctl_peers_t *p = in;
        if (!e->setup_done || in_len < sizeof(*p) ||
            in_len != sizeof(*p) + (size_t)p->count * sizeof(p->e[0]) ||
            (uint64_t)p->first_vnn + p->count > e->setup.num_vnn)
            return NIC_ERR_INVALID;
        for (uint32_t i = 0; i < p->count; i++)
            if (p->e[i].route_len > MYRI_MAX_HOPS)
                return NIC_ERR_INVALID;
        for (uint32_t i = 0; i < p->count; i++)
            e->peers[p->first_vnn + i] = p->e[i];
        lcp_peers_named(fw, l, e, p->first_vnn, p->count);
        return NIC_OK;
    }
    case MYRI_CTL_FABRIC: {
        const myri_fabric_item_t *it = in;
        if (in_len % sizeof(*it) != 0)
            return NIC_ERR_INVALID;
        for (size_t i = 0; i < in_len / sizeof(*it) && rc == NIC_OK; i++)
            rc = myri_fabric_add(&l->fab, &it[i]);
        if (myri_fabric_find(&l->fab, &nic_fw_wire(fw)->addr, &l->self_sw, &l->self_port) ==
            NIC_OK)
            l->have_self = 1;
        /* Routes may resolve differently now. */
        if (e->setup_done)
            lcp_peers_named(fw, l, e, 0, e->setup.num_vnn);
        return rc;
    }
    case MYRI_CTL_TIMING:
        if (in_len != sizeof(myri_timing_t))
            return NIC_ERR_INVALID;
        memcpy(&l->timing, in, sizeof(l->timing));
        return NIC_OK;
    default:
        return NIC_ERR_UNSUPPORTED;
    }
}

static void lcp_status(nic_fw_t *fw, FILE *f)
{
    lcp_t *l = nic_fw_pers_state(fw);
    lcp_counters_t *c = &l->c;
    const nic_rel_counters_t *r = nic_rel_counters(l->rel);

    fprintf(f, "lcp: incarnation %#x, streams %u (peer firmware and job), fabric %u nics %u links, "
               "timing model %s\n", nic_rel_incarnation(l->rel), nic_rel_peer_count(l->rel),
            l->fab.nattach, l->fab.nlink, l->timing.enabled ? "on" : "off");
    fprintf(f, "lcp: tx data %llu acks %llu retransmits %llu; rx data %llu acks %llu\n",
            (unsigned long long)r->tx_data, (unsigned long long)r->tx_acks,
            (unsigned long long)r->retransmits, (unsigned long long)c->rx_data,
            (unsigned long long)r->rx_acks);
    fprintf(f, "lcp: dropped crc %llu bad %llu duplicate %llu out-of-order %llu "
               "backpressure %llu protection %llu route %llu; peer failures %llu stopped %llu\n",
            (unsigned long long)c->crc_errors, (unsigned long long)c->bad_frames,
            (unsigned long long)r->duplicates, (unsigned long long)r->out_of_order,
            (unsigned long long)r->backpressure, (unsigned long long)c->protection,
            (unsigned long long)c->route_errors, (unsigned long long)r->peer_failures,
            (unsigned long long)r->peers_stopped);
    nic_rel_status(l->rel, f, "lcp");
}

const nic_pers_ops_t nic_myri_lcp_ops = {
    .name = "myri",
    .id = NIC_PERS_MYRI,
    .fw_init = lcp_fw_init,
    .fw_fini = lcp_fw_fini,
    .ep_open = lcp_ep_open,
    .ep_close = lcp_ep_close,
    .ep_ctl = lcp_ep_ctl,
    .ep_service = lcp_ep_service,
    .rx_frame = lcp_rx_frame,
    .job_end = lcp_job_end,
    .poll = lcp_poll,
    .status = lcp_status,
};
