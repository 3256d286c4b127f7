/* nic_wire_reasm.c - frames put together from the pieces a sender cut them
 * into for the path MTU (see nic_wire.h).  Every piece has passed its MAC
 * and the replay window before it comes here, so only members of a job
 * make state, and no piece is taken twice.  A frame is known by its job,
 * its sender and the counter of its first piece (a piece's counter less
 * its index); its pieces may come in any order.  A fixed set of slots:
 * a new frame takes a free one, else the one that waited longest (whose
 * missing piece was lost: its frame is given up, the reliability above
 * resends it).  A frame handed up stays in its slot until the receive
 * call that completed it ends, as the wire's receive buffers do. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "nic_status.h"
#include "nic_wire.h"

int nic_wire_reasm_init(nic_wire_t *w)
{
    /* Each slot starts 8-byte aligned (NIC_WIRE_MTU is a multiple of 8):
     * personalities read their headers in place. */
    _Static_assert(NIC_WIRE_MTU % 8 == 0, "reassembly slots stay aligned");
    w->reasm_mem = malloc((size_t)NIC_WIRE_REASM_SLOTS * NIC_WIRE_MTU);
    if (w->reasm_mem == NULL)
        return NIC_ERR_NO_MEMORY;
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++) {
        memset(&w->reasm[i], 0, sizeof(w->reasm[i]));
        w->reasm[i].buf = w->reasm_mem + (size_t)i * NIC_WIRE_MTU;
    }
    return NIC_OK;
}

void nic_wire_reasm_fini(nic_wire_t *w)
{
    free(w->reasm_mem);
    w->reasm_mem = NULL;
    memset(w->reasm, 0, sizeof(w->reasm));
    w->reasm_handed = 0;
}

static void slot_free(nic_wire_partial_t *p)
{
    uint8_t *buf = p->buf;

    memset(p, 0, sizeof(*p));
    p->buf = buf;
}

/* The slot of the piece's frame, or a slot for it (a free one, or the
 * oldest that is not handed up); NULL when every slot holds a frame handed
 * up in this receive call. */
static nic_wire_partial_t *slot_for(nic_wire_t *w, const nic_wire_env_t *env, uint64_t first)
{
    nic_wire_partial_t *victim = NULL;

    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++) {
        nic_wire_partial_t *p = &w->reasm[i];
        if (p->job == env->job && p->sender == env->sender && p->first == first &&
            !p->handed_up)
            return p;
        if (p->handed_up)
            continue;
        if (victim == NULL || (victim->job != 0 && (p->job == 0 || p->used < victim->used)))
            victim = p;
    }
    if (victim == NULL)
        return NULL;
    if (victim->job != 0)
        w->st.rx_given_up++;
    slot_free(victim);
    victim->job = env->job;
    victim->sender = env->sender;
    victim->first = first;
    victim->pieces = env->pieces;
    victim->len = env->frame_len;
    return victim;
}

uint8_t *nic_wire_reasm_add(nic_wire_t *w, const nic_wire_env_t *env, const uint8_t *piece,
                            size_t piece_len, size_t *len)
{
    nic_wire_partial_t *p;
    size_t frame_len = env->frame_len, off, bytes;

    /* The sender's own business, but a bug there must not write past a
     * slot: a frame no larger than the largest, cut as nic_wire_cut_plan
     * cuts (every piece of one length, each holding some of the frame). */
    if (env->pieces < 2 || env->pieces > NIC_WIRE_MAX_PIECES || env->piece >= env->pieces ||
        frame_len > NIC_WIRE_MTU || piece_len != nic_wire_piece_len(frame_len, env->pieces) ||
        (off = env->piece * piece_len) >= frame_len || env->counter < env->piece) {
        w->st.rx_bad_piece++;
        return NULL;
    }
    p = slot_for(w, env, env->counter - env->piece);
    if (p == NULL) {
        w->st.rx_given_up++;        /* this piece's frame, then */
        return NULL;
    }
    if (p->pieces != env->pieces || p->len != frame_len) {
        w->st.rx_bad_piece++;
        slot_free(p);
        return NULL;
    }
    bytes = frame_len - off < piece_len ? frame_len - off : piece_len;
    memcpy(p->buf + off, piece, bytes);
    p->have |= 1ull << env->piece;
    p->used = ++w->rx_clock;
    if (p->have != (env->pieces == 64 ? ~0ull : (1ull << env->pieces) - 1))
        return NULL;
    p->handed_up = 1;
    w->reasm_handed++;
    w->st.rx_joined++;
    *len = p->len;
    return p->buf;
}

void nic_wire_reasm_release(nic_wire_t *w)
{
    if (w->reasm_handed == 0)
        return;            /* the usual case: every receive call ends here */
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++)
        if (w->reasm[i].handed_up)
            slot_free(&w->reasm[i]);
    w->reasm_handed = 0;
}

void nic_wire_reasm_forget_job(nic_wire_t *w, uint64_t job)
{
    for (unsigned i = 0; i < NIC_WIRE_REASM_SLOTS; i++)
        if (w->reasm[i].job == job && !w->reasm[i].handed_up)
            slot_free(&w->reasm[i]);
}

int nic_wire_reasm_holds(const nic_wire_t *w, const void *p)
{
    const uint8_t *b = p;
    return w->reasm_mem != NULL && b >= w->reasm_mem &&
           b < w->reasm_mem + (size_t)NIC_WIRE_REASM_SLOTS * NIC_WIRE_MTU;
}
