/*
 * multi_impl.h - internals shared by the files of the netmod "multi".
 *
 * The netmod is a thin translation layer: MPI objects (communicators,
 * datatypes, requests) stay here; libmultidev sees world ranks,
 * communicator ranks, context ids and contiguous bytes.
 */
#ifndef MULTI_IMPL_H_INCLUDED
#define MULTI_IMPL_H_INCLUDED

#include <sched.h>
#include <mpidimpl.h>
#include "mpidch4r.h"
#include <multidev.h>

/* Matching happens below us, and one lock covers every call into
 * libmultidev: MPICH's global critical section.  Finer MPICH granularities
 * would call us concurrently without it. */
#if MPICH_THREAD_GRANULARITY != MPICH_THREAD_GRANULARITY__GLOBAL && \
    MPICH_THREAD_GRANULARITY != MPICH_THREAD_GRANULARITY__SINGLE
#error "the multi netmod needs MPICH configured with --enable-thread-cs=global"
#endif

/* The netmod's own constants and wildcards must agree with MPICH's. */
#if MD_ANY_TAG != MPI_ANY_TAG
#error "MD_ANY_TAG differs from MPI_ANY_TAG"
#endif

/* Tag of the system messages that carry MPIDIG active messages (RMA,
 * partitioned communication); libmultidev reserves -1..-63 for itself. */
#define MPIDI_MULTI_AM_SYSTAG     (MD_SYSTAG_USER_FIRST)

/* What MPIDIG may send eagerly: an active message of at most this many
 * bytes (our header + MPIDIG header + data).  Above it MPIDIG first
 * exchanges a request-to-send and a clear-to-send; the data then still
 * travels as one system message of any size (libmultidev's subdevices
 * fragment large system messages themselves).  Must stay below
 * MPIR_CVAR_CH4_AM_PACK_BUFFER_SIZE (MPIDIG checks at init). */
#define MPIDI_MULTI_AM_BUF_LIMIT  (16 * 1024)

typedef struct {
    md_t *md;                   /* NULL until init_world */
    int spin_polls;             /* MULTIDEV_SPIN_POLLS (threaded MPI only) */
    int idle_polls;             /* consecutive polls that found nothing */
    int freed_seen;             /* ch4's count of requests freed, at our
                                 * last progress call (multi_progress.h) */
    md_request_t *spare_msg;    /* one cached improbe handle */
    int pending_error;          /* error met inside a callback, reported by
                                 * the next progress call */
} MPIDI_MULTI_global_t;

extern MPIDI_MULTI_global_t MPIDI_MULTI_global;

#define MPIDI_MULTI_REQ(req)    ((req)->dev.ch4.netmod.multi)
#define MPIDI_MULTI_AMREQ(req)  ((req)->dev.ch4.am.netmod_am.multi)
#define MPIDI_MULTI_COMM(comm)  ((comm)->dev.ch4.netmod.multi)

/* Converts a libmultidev status code into an MPI error code that names the
 * operation and libmultidev's reason. */
int MPIDI_MULTI_md_error(int md_rc, const char *what);
/* The same for an operation with one peer (world rank, or -1): a peer that
 * failed or left is MPIX_ERR_PROC_FAILED, whose message names the rank,
 * its node, the network and why (md_rank_failure), so that MPICH's
 * collectives and the error handlers see a process failure, not an
 * unspecified error. */
int MPIDI_MULTI_md_peer_error(int md_rc, const char *what, int peer_world);

/* Completion callbacks installed in md_request_t.on_complete. */
void MPIDI_MULTI_send_complete(md_request_t * mdr);
void MPIDI_MULTI_recv_complete(md_request_t * mdr);

/* Handler of MPIDI_MULTI_AM_SYSTAG system messages (md_sysmsg_handler_t). */
void MPIDI_MULTI_am_recv(void *ctx, int32_t src_world, int32_t tag, const void *payload,
                         size_t len);

/* Records an error found where nobody can be told (inside a callback run by
 * md_progress); the next MPIDI_NM_progress returns it.  The first one wins. */
MPL_STATIC_INLINE_PREFIX void MPIDI_MULTI_global_error(int mpi_errno)
{
    if (MPIDI_MULTI_global.pending_error == MPI_SUCCESS)
        MPIDI_MULTI_global.pending_error = mpi_errno;
}

/* A communicator rank (remote group for intercommunicators) as a world
 * rank; -1 for processes outside MPI_COMM_WORLD (dynamic processes, which
 * this netmod does not support). */
MPL_STATIC_INLINE_PREFIX int MPIDI_MULTI_world_rank(MPIR_Comm * comm, int rank)
{
    return MPIDIU_rank_to_lpid(rank, comm);
}

/* Prepares the embedded md_request_t for a new operation.  Only the
 * caller's fields are ours to set: every md_* call that starts a request
 * resets the multidevice's own fields first (md_request_reset), so the
 * stale contents of a recycled MPICH request do not matter and the fast
 * path does not clear ~200 bytes per message. */
MPL_STATIC_INLINE_PREFIX md_request_t *MPIDI_MULTI_md_req_init(MPIR_Request * req,
                                                               md_request_cb_t cb)
{
    md_request_t *mdr = &MPIDI_MULTI_REQ(req).md;
    mdr->on_complete = cb;
    mdr->user = req;
    return mdr;
}

/* Called when a poll found nothing to do.  Jobs here routinely run more
 * ranks than there are cores, so a rank waiting for a message must let
 * the rank it waits for run.  libmultidev's md_idle() decides how: spin
 * for MULTIDEV_SPIN_POLLS empty polls, then yield, or - on a host with
 * more ranks than processing units - sleep on the subdevices' wait
 * descriptors until something arrives (MULTIDEV_IDLE).
 *
 * With MPI_THREAD_MULTIPLE we are inside MPICH's global critical section,
 * and sleeping there would lock every other thread of the process out of
 * MPI for the length of the sleep; MPICH releases the lock between polls,
 * so after the same number of empty polls we only yield the core. */
MPL_STATIC_INLINE_PREFIX void MPIDI_MULTI_idle(void)
{
    if (likely(!MPIR_ThreadInfo.isThreaded)) {
        md_idle(MPIDI_MULTI_global.md);
    } else if (MPIDI_MULTI_global.idle_polls >= MPIDI_MULTI_global.spin_polls) {
        sched_yield();
    } else {
        MPIDI_MULTI_global.idle_polls++;
    }
}

#endif /* MULTI_IMPL_H_INCLUDED */
