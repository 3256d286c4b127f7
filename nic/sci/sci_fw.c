/* sci_fw.c - the PCI-SCI bridge as a firmware personality: set-up,
 * endpoints, the per-turn work (delayed frames, held completions, timeouts,
 * sending the frames filled this turn) and the status text.  The send side
 * is sci_tx.c, the receive side sci_rx.c, configuration sci_ctl.c. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../core/nic_env.h"
#include "sci_fw.h"

static void sci_fw_fini(nic_fw_t *fw, void *state)
{
    sci_bridge_t *b = state;
    nic_rel_destroy(b->rel);
    free(b->up);
    free(b->down);
    free(b->late);
    free(b->delay);
    free(b);
}

static int sci_fw_init(nic_fw_t *fw, void **state)
{
    sci_bridge_t *b;
    long long up, timeout_ms;
    int rc;

    /* MULTIDEV_SCI_UP_ATT's declared default is SCI_UP_ENTRIES_DEF */
    if (nic_env_num(nic_fw_log(fw), "MULTIDEV_SCI_UP_ATT", &up) != NIC_OK ||
        nic_env_num(nic_fw_log(fw), "MULTIDEV_SCI_TIMEOUT_MS", &timeout_ms) != NIC_OK)
        return NIC_ERR_CONFIG;
    if ((b = calloc(1, sizeof(*b))) == NULL)
        return NIC_ERR_NO_MEMORY;
    b->log = nic_fw_log(fw);
    b->up_entries = (uint32_t)up;
    sci_frame_fit(b, nic_fw_wire(fw)->piece_max);
    b->timeout_ns = (uint64_t)timeout_ms * 1000000u;
    b->up = calloc(b->up_entries, sizeof(*b->up));
    b->down = calloc(SCI_DOWN_ENTRIES, sizeof(*b->down));
    rc = b->up == NULL || b->down == NULL ? NIC_ERR_NO_MEMORY : sci_rel_open(fw, b);
    if (rc != NIC_OK) {
        sci_fw_fini(fw, b);
        return rc;
    }
    *state = b;
    return NIC_OK;
}

static int sci_ep_open(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    ep->pers = calloc(1, sizeof(sci_ep_t));
    return ep->pers ? NIC_OK : NIC_ERR_NO_MEMORY;
}

/* Forget everything that names ep: its ATT entries, tags, interrupts, and
 * the reads, barriers and completions still owed to it. */
static void sci_job_end(nic_fw_t *fw, uint64_t job)
{
    sci_peer_job_end(fw, sci_of(fw), job);
}

static void sci_ep_close(nic_fw_t *fw, nic_fw_ep_t *ep)
{
    sci_bridge_t *b = sci_of(fw);

    sci_up_free_ep(b, ep);
    sci_down_free_ep(b, ep);
    for (unsigned i = 0; i < SCI_TAG_MAX; i++)
        if (b->tags[i].owner_ep == ep->id)
            memset(&b->tags[i], 0, sizeof(b->tags[i]));
    for (unsigned i = 0; i < SCI_INTR_MAX; i++)
        if (b->intr[i].ep == ep)
            b->intr[i].ep = NULL;
    for (unsigned i = 0; i < SCI_READS_MAX; i++)
        if (b->reads[i].ep == ep) {
            b->reads[i].ep = NULL;
            b->nreads--;
        }
    for (unsigned i = 0; i < SCI_BARRIERS_MAX; i++)
        if (b->barriers[i].ep == ep) {
            b->barriers[i].ep = NULL;
            b->nbarriers--;
        }
    for (uint32_t i = b->late_head; i != b->late_tail; i++)
        if (b->late[i % SCI_LATE_MAX].ep == ep)
            b->late[i % SCI_LATE_MAX].ep = NULL;
    free(ep->pers);
    ep->pers = NULL;
}

/* Timing model: completions held until the emulated hardware is done. */
static int sci_late_post(sci_bridge_t *b, uint64_t now, uint64_t *next)
{
    int n = 0;

    while (b->late_head != b->late_tail) {
        sci_late_cqe_t *l = &b->late[b->late_head % SCI_LATE_MAX];
        if (l->ep != NULL && l->due_ns > now) {
            if (l->due_ns < *next)
                *next = l->due_ns;
            break;
        }
        b->late_head++;
        if (l->ep == NULL)
            continue;   /* its endpoint closed */
        if (sci_ep(l->ep)->cq_reserved > 0)
            sci_ep(l->ep)->cq_reserved--;
        sci_cq_post(l->ep, &l->cqe);
        n++;
    }
    return n;
}

static int sci_poll(nic_fw_t *fw, uint64_t now, uint64_t *next)
{
    sci_bridge_t *b = sci_of(fw);
    int n = 0;

    if (b->delay_head != b->delay_tail)
        n += sci_rx_delayed(fw, b, now, next);
    if (b->late_head != b->late_tail)
        n += sci_late_post(b, now, next);
    n += sci_waits_timeout(b, now, next);
    n += nic_rel_poll(b->rel, now, next);
    if (b->timing.enabled && b->dma_free_ns > now && b->dma_free_ns < *next)
        *next = b->dma_free_ns;
    sci_peer_flush_all(fw, b);
    return n;
}

static void sci_status(nic_fw_t *fw, FILE *f)
{
    sci_bridge_t *b = sci_of(fw);
    const sci_fw_stats_t *s = &b->st;
    const nic_rel_counters_t *r = nic_rel_counters(b->rel);
    unsigned peers = 0;

    for (unsigned i = 0; i < SCI_NODE_MAX; i++)
        peers += b->peer[i].used;
    fprintf(f, "sci: incarnation %#x, %u bridges, upstream ATT %u/%u, downstream ATT %u/%u, "
               "timing model %s\n", nic_rel_incarnation(b->rel), peers, b->up_used,
            b->up_entries, b->down_used, SCI_DOWN_ENTRIES, b->timing.enabled ? "on" : "off");
    fprintf(f, "sci: tx frames %llu packets %llu; rx frames %llu packets %llu\n",
            (unsigned long long)s->tx_frames, (unsigned long long)s->tx_packets,
            (unsigned long long)s->rx_frames, (unsigned long long)s->rx_packets);
    fprintf(f, "sci: dropped unmapped %llu clipped %llu foreign_job %llu bad %llu "
               "intr_dropped %llu\n",
            (unsigned long long)s->rx_unmapped, (unsigned long long)s->rx_clipped,
            (unsigned long long)s->rx_foreign_job, (unsigned long long)s->rx_bad,
            (unsigned long long)s->intr_dropped);
    fprintf(f, "sci: stream retransmits %llu duplicates %llu out_of_order %llu "
               "backpressure %llu peer_failures %llu peers_stopped %llu\n",
            (unsigned long long)r->retransmits, (unsigned long long)r->duplicates,
            (unsigned long long)r->out_of_order, (unsigned long long)r->backpressure,
            (unsigned long long)r->peer_failures, (unsigned long long)r->peers_stopped);
    nic_rel_status(b->rel, f, "sci");
}

const nic_pers_ops_t nic_sci_bridge_ops = {
    .name = "sci",
    .id = NIC_PERS_SCI,
    .fw_init = sci_fw_init,
    .fw_fini = sci_fw_fini,
    .ep_open = sci_ep_open,
    .ep_close = sci_ep_close,
    .ep_ctl = sci_ep_ctl,
    .ep_service = sci_ep_service,
    .rx_frame = sci_rx_frame,
    .job_end = sci_job_end,
    .poll = sci_poll,
    .status = sci_status,
};
