/* sci_layout.c - offsets of the exported segment (sci_layout.h).  Every
 * area starts on a 64-byte boundary (one SCI transaction), the large ones
 * on a page. */
#include "config.h"

#include <string.h>

#include "md_sdi.h"
#include "sci_layout.h"

#define LINE 64u
#define PAGE 4096u

static uint64_t up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

int sci_layout_make(const sci_params_t *p, uint32_t nblocks, sci_layout_t *l)
{
    uint64_t at;

    if (p->nmsg < 2 || p->nmsg > 4096 || p->nrdv < 1 || p->nrdv > 65536 || p->chunk < 4096 ||
        p->chunk % LINE != 0 || p->nchunk < 1 || p->nchunk > 64 || p->nstage < 1 ||
        p->nstage > 256 || p->ring_size < 4096 || p->world_size < 1 || p->inline_max > 65536 ||
        nblocks > p->world_size)
        return MD_ERR_CONFIG;
    memset(l, 0, sizeof(*l));
    l->p = *p;
    l->nblocks = nblocks;
    l->info_size = up(SCI_INFO_HDR + p->inline_max, LINE);

    /* one block per peer: what it writes as a sender (rx part), then what
     * it writes as a receiver of this rank's messages (tx part) */
    at = 0;
    l->rx_used = at;
    at += up((uint64_t)p->nmsg * 8, LINE);
    l->rx_filled = at;
    at += LINE;
    l->rx_info = at;
    at += (uint64_t)p->nmsg * l->info_size;
    l->tx_part = at;
    l->tx_ready = 0;
    at = up((uint64_t)p->nmsg * 8, LINE);
    l->tx_done = at;
    at += up((uint64_t)p->nrdv * 8, LINE);
    l->tx_ctl = at;
    at += LINE;
    l->tx_grant = at;
    at += LINE;
    l->tx_len = at;
    l->rx_ring = at = up(l->tx_part + l->tx_len, PAGE);
    at += up(p->ring_size, LINE);
    l->rx_staging = at = up(at, PAGE);
    at += (uint64_t)p->nchunk * p->chunk;
    l->block = up(at, PAGE);

    l->stage_base = PAGE;      /* the first page stays unused */
    l->block_base = up(l->stage_base + (uint64_t)p->nstage * p->chunk, PAGE);
    l->size = l->block_base + (uint64_t)nblocks * l->block;
    return MD_OK;
}
