/*
 * multi_am.c - sending and receiving MPIDIG active messages as
 * libmultidev system messages (format in multi_am.h).
 */
/* mpidimpl.h first: it pulls in our inline headers (netmod_inline.h) */
#include <mpidimpl.h>
#include "multi_impl.h"
#include "multi_am.h"

/* One active message in flight: the system message owns a copy of header
 * and data, so MPIDIG's buffers are free as soon as we return. */
struct MPIDI_MULTI_am_send {
    md_request_t md;
    MPIR_Request *sreq;         /* gets the origin callback; NULL for hdr-only */
    int handler_id;
    size_t len;
    uint64_t buf[];             /* wire header, MPIDIG header, data */
};

/* An active message that came before its turn, copied. */
typedef struct am_held {
    struct am_held *next;
    uint16_t seq;
    size_t len;
    uint64_t buf[];
} am_held_t;

/* Per peer world rank: the next number to send, the next to hand to
 * MPIDIG, and the early ones, ascending from the next. */
static struct {
    int nranks;
    uint16_t *send_seq, *recv_seq;
    am_held_t **held;
} am_order;

int MPIDI_MULTI_am_order_init(int world_size)
{
    am_order.nranks = world_size;
    am_order.send_seq = MPL_calloc(world_size, sizeof(uint16_t), MPL_MEM_OTHER);
    am_order.recv_seq = MPL_calloc(world_size, sizeof(uint16_t), MPL_MEM_OTHER);
    am_order.held = MPL_calloc(world_size, sizeof(am_held_t *), MPL_MEM_OTHER);
    if (!am_order.send_seq || !am_order.recv_seq || !am_order.held) {
        MPIDI_MULTI_am_order_fini();
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void MPIDI_MULTI_am_order_fini(void)
{
    for (int r = 0; am_order.held && r < am_order.nranks; r++)
        while (am_order.held[r]) {
            am_held_t *h = am_order.held[r];
            am_order.held[r] = h->next;
            MPL_free(h);
        }
    MPL_free(am_order.send_seq);
    MPL_free(am_order.recv_seq);
    MPL_free(am_order.held);
    memset(&am_order, 0, sizeof(am_order));
}

static void am_send_complete(md_request_t * mdr)
{
    struct MPIDI_MULTI_am_send *s = mdr->user;
    MPIR_Request *sreq = s->sreq;
    int handler_id = s->handler_id;

    if (mdr->status.error != MD_OK)
        MPIDI_MULTI_global_error(MPIDI_MULTI_md_peer_error(mdr->status.error,
                                                           "active message send",
                                                           mdr->env.dst_world));
    if (sreq) {
        MPIDI_MULTI_AMREQ(sreq).send = NULL;
        int mpi_errno = MPIDIG_global.origin_cbs[handler_id] (sreq);
        if (mpi_errno != MPI_SUCCESS)
            MPIDI_MULTI_global_error(mpi_errno);
    }
    MPL_free(s);
}

int MPIDI_MULTI_am_send(MPIR_Comm * comm, int rank, int handler_id, const void *am_hdr,
                        MPI_Aint am_hdr_sz, const void *data, MPI_Aint count,
                        MPI_Datatype datatype, MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;
    size_t data_sz = 0;

    MPIR_FUNC_ENTER;

    int dst_world = MPIDI_MULTI_world_rank(comm, rank);
    MPIR_ERR_CHKANDJUMP1(dst_world < 0, mpi_errno, MPI_ERR_OTHER, "**multi_dynamic",
                         "**multi_dynamic %d", rank);

    if (count > 0) {
        MPI_Aint dt_size;
        MPIR_Datatype_get_size_macro(datatype, dt_size);
        data_sz = (size_t) count *dt_size;
    }
    size_t hdr_off = sizeof(MPIDI_MULTI_am_wire_t);
    size_t data_off = hdr_off + MPIDI_MULTI_AM_HDR_PAD(am_hdr_sz);
    size_t len = data_off + data_sz;

    struct MPIDI_MULTI_am_send *s = MPL_malloc(sizeof(*s) + len, MPL_MEM_BUFFER);
    MPIR_ERR_CHKANDJUMP2(s == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem2", "**nomem2 %d %s",
                         (int) (sizeof(*s) + len), "multi netmod active message");
    memset(&s->md, 0, offsetof(md_request_t, sd_priv));
    s->md.on_complete = am_send_complete;
    s->md.user = s;
    s->sreq = sreq;
    s->handler_id = handler_id;
    s->len = len;

    char *p = (char *) s->buf;
    MPIDI_MULTI_am_wire_t wire = {
        .handler_id = (uint16_t) handler_id,
        .seq = am_order.send_seq[dst_world]++,
        .am_hdr_sz = (uint32_t) am_hdr_sz,
        .data_sz = data_sz,
    };
    memcpy(p, &wire, sizeof(wire));
    if (am_hdr_sz > 0)
        memcpy(p + hdr_off, am_hdr, am_hdr_sz);
    if (data_sz > 0) {
        MPI_Aint packed;
        mpi_errno = MPIR_Typerep_pack(data, count, datatype, 0, p + data_off, data_sz, &packed);
        if (mpi_errno != MPI_SUCCESS || (size_t) packed != data_sz) {
            MPL_free(s);
            MPIR_ERR_SETANDJUMP(mpi_errno, MPI_ERR_OTHER, "**multi_pack");
        }
    }

    if (sreq)
        MPIDI_MULTI_AMREQ(sreq).send = s;
    int rc;
    for (;;) {
        rc = md_sysmsg_isend(MPIDI_MULTI_global.md, &s->md, dst_world, MPIDI_MULTI_AM_SYSTAG,
                             s->buf, len);
        if (rc != MD_ERR_NO_RESOURCE)
            break;
        rc = md_progress(MPIDI_MULTI_global.md);
        if (rc < 0)
            break;
        if (rc == 0)
            MPIDI_MULTI_idle();
    }
    if (rc < 0) {
        if (sreq)
            MPIDI_MULTI_AMREQ(sreq).send = NULL;
        MPL_free(s);
        mpi_errno = MPIDI_MULTI_md_peer_error(rc, "active message send (RMA/partitioned)",
                                              dst_world);
        goto fn_fail;
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Hands one whole active message (an aligned copy we own) to MPIDIG. */
static void am_deliver(uint64_t * copy)
{
    MPIDI_MULTI_am_wire_t wire;

    memcpy(&wire, copy, sizeof(wire));
    size_t hdr_off = sizeof(wire);
    size_t data_off = hdr_off + MPIDI_MULTI_AM_HDR_PAD(wire.am_hdr_sz);
    uint32_t attr = 0;
    MPIDIG_AM_ATTR_SET_VCIS(attr, 0, 0);
    int mpi_errno = MPIDIG_global.target_msg_cbs[wire.handler_id] ((char *) copy + hdr_off,
                                                                   (char *) copy + data_off,
                                                                   (MPI_Aint) wire.data_sz,
                                                                   attr, NULL);
    if (mpi_errno != MPI_SUCCESS)
        MPIDI_MULTI_global_error(mpi_errno);
}

/* Keeps h among src's early arrivals, in the order they are due. */
static void am_hold(int32_t src_world, am_held_t * h)
{
    am_held_t **p = &am_order.held[src_world];
    uint16_t due = (uint16_t) (h->seq - am_order.recv_seq[src_world]);

    while (*p && (uint16_t) ((*p)->seq - am_order.recv_seq[src_world]) < due)
        p = &(*p)->next;
    h->next = *p;
    *p = h;
}

/* Runs inside md_progress() with MPICH's global lock held.  The payload is
 * the subdevice's buffer and alignment is not guaranteed, so MPIDIG gets a
 * private, aligned copy; one that came before its turn waits for it.  A
 * callback may make progress and so bring the next message of the same
 * sender here while its predecessor is being delivered: the number moves
 * on only after the callback, so that one waits too. */
void MPIDI_MULTI_am_recv(void *ctx, int32_t src_world, int32_t tag, const void *payload,
                         size_t len)
{
    MPIDI_MULTI_am_wire_t wire;

    if (len >= sizeof(wire))
        memcpy(&wire, payload, sizeof(wire));
    if (len < sizeof(wire) || src_world < 0 || src_world >= am_order.nranks ||
        sizeof(wire) + MPIDI_MULTI_AM_HDR_PAD(wire.am_hdr_sz) + wire.data_sz != len ||
        wire.handler_id >= MPIDI_AM_HANDLERS_MAX ||
        MPIDIG_global.target_msg_cbs[wire.handler_id] == NULL) {
        MPIDI_MULTI_global_error(MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                      __func__, __LINE__, MPI_ERR_INTERN,
                                                      "**multi_am", "**multi_am %d %d",
                                                      (int) src_world, (int) len));
        return;
    }

    am_held_t *h = MPL_malloc(sizeof(*h) + len, MPL_MEM_BUFFER);
    if (h == NULL) {
        MPIDI_MULTI_global_error(MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                      __func__, __LINE__, MPI_ERR_OTHER,
                                                      "**nomem2", "**nomem2 %d %s", (int) len,
                                                      "multi netmod active message"));
        return;
    }
    memcpy(h->buf, payload, len);
    h->seq = wire.seq;
    h->len = len;
    am_hold(src_world, h);
    if (wire.seq != am_order.recv_seq[src_world])
        return;                 /* early */
    /* deliver it and every one due after it */
    while ((h = am_order.held[src_world]) != NULL && h->seq == am_order.recv_seq[src_world]) {
        am_order.held[src_world] = h->next;
        am_deliver(h->buf);
        am_order.recv_seq[src_world]++;
        MPL_free(h);
    }
}
