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

/* Runs inside md_progress() with MPICH's global lock held.  The payload is
 * the subdevice's buffer and alignment is not guaranteed, so MPIDIG gets a
 * private, aligned copy. */
void MPIDI_MULTI_am_recv(void *ctx, int32_t src_world, int32_t tag, const void *payload,
                         size_t len)
{
    MPIDI_MULTI_am_wire_t wire;

    if (len < sizeof(wire)) {
        MPIDI_MULTI_global_error(MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                      __func__, __LINE__, MPI_ERR_INTERN,
                                                      "**multi_am", "**multi_am %d %d",
                                                      (int) src_world, (int) len));
        return;
    }
    memcpy(&wire, payload, sizeof(wire));
    size_t hdr_off = sizeof(wire);
    size_t data_off = hdr_off + MPIDI_MULTI_AM_HDR_PAD(wire.am_hdr_sz);
    if (data_off + wire.data_sz != len || wire.handler_id >= MPIDI_AM_HANDLERS_MAX ||
        MPIDIG_global.target_msg_cbs[wire.handler_id] == NULL) {
        MPIDI_MULTI_global_error(MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                      __func__, __LINE__, MPI_ERR_INTERN,
                                                      "**multi_am", "**multi_am %d %d",
                                                      (int) src_world, (int) len));
        return;
    }

    uint64_t *copy = MPL_malloc(len, MPL_MEM_BUFFER);
    if (copy == NULL) {
        MPIDI_MULTI_global_error(MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                      __func__, __LINE__, MPI_ERR_OTHER,
                                                      "**nomem2", "**nomem2 %d %s", (int) len,
                                                      "multi netmod active message"));
        return;
    }
    memcpy(copy, payload, len);

    uint32_t attr = 0;
    MPIDIG_AM_ATTR_SET_VCIS(attr, 0, 0);
    int mpi_errno = MPIDIG_global.target_msg_cbs[wire.handler_id] ((char *) copy + hdr_off,
                                                                   (char *) copy + data_off,
                                                                   (MPI_Aint) wire.data_sz,
                                                                   attr, NULL);
    if (mpi_errno != MPI_SUCCESS)
        MPIDI_MULTI_global_error(mpi_errno);
    MPL_free(copy);
}
