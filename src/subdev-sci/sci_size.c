/* sci_size.c - defaults of the SCI segment's sizes (sci_size.h). */
#include "config.h"

#include "md_sdi.h"
#include "sci_size.h"

#define STEPS 7           /* ring 256k .. 4k */
#define PAGE  4096u

static uint32_t at_least(uint32_t v, uint32_t floor)
{
    return v > floor ? v : floor;
}

/* p's automatic fields at step k, from the given fields in want. */
static void step(const sci_params_t *want, uint32_t want_eager, int k, sci_params_t *p,
                 uint32_t *eager)
{
    *p = *want;
    if (p->ring_size == SCI_AUTO) {
        p->ring_size = at_least(SCI_RING_MAX_AUTO >> k, SCI_RING_MIN_AUTO);
        if (want_eager != SCI_AUTO && p->ring_size < want_eager)
            p->ring_size = (want_eager + 63u) / 64u * 64u;
    }
    if (p->chunk == SCI_AUTO)
        p->chunk = at_least(SCI_CHUNK_MAX_AUTO >> k, SCI_CHUNK_MIN_AUTO);
    if (p->nmsg == SCI_AUTO)
        p->nmsg = k < 3 ? SCI_NMSG_MAX_AUTO
                        : at_least(SCI_NMSG_MAX_AUTO >> (k - 2), SCI_NMSG_MIN_AUTO);
    *eager = want_eager;
    if (*eager == SCI_AUTO)
        *eager = p->ring_size / 2 < SCI_EAGER_MAX_AUTO ? p->ring_size / 2 : SCI_EAGER_MAX_AUTO;
    if (p->inline_max == SCI_AUTO)
        p->inline_max = *eager < SCI_INLINE_AUTO ? *eager : SCI_INLINE_AUTO;
}

uint64_t sci_size_node(uint32_t ranks, uint64_t seg_bytes)
{
    return (uint64_t)ranks * ((seg_bytes + PAGE - 1) / PAGE * PAGE);
}

void sci_size_auto(const sci_size_job_t *j, sci_params_t *p, uint32_t *eager)
{
    const sci_params_t want = *p;
    const uint32_t want_eager = *eager;
    uint32_t peers = j->world > 1 ? j->world - 1 : 1;

    for (int k = 0; k < STEPS; k++) {
        sci_layout_t l;

        step(&want, want_eager, k, p, eager);
        if (sci_layout_make(p, peers, &l) == MD_OK &&
            sci_size_node(j->node_max, l.size) <= j->att_bytes / 4 * 3)
            return;
    }
}
