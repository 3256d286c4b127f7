/*
 * multi_pre.h - per-object types of the ch4 netmod "multi".
 *
 * ch4 embeds these structs in its requests, communicators, windows, ...
 * (subconfigure.m4 of ch4 builds the MPIDI_NM_*_DECL unions from the names
 * MPIDI_MULTI_<object>_t).  This header is included very early by ch4's
 * mpidpre.h, so it may only use libmultidev's public header and plain C.
 */
#ifndef MULTI_PRE_H_INCLUDED
#define MULTI_PRE_H_INCLUDED

#include <multidev.h>

/* A point-to-point MPI request: the multidevice request lives inside it, so
 * a send or receive costs no allocation of its own. */
typedef struct {
    md_request_t md;            /* handed to md_isend/md_irecv/md_imrecv */
    md_request_t *mprobe_msg;   /* improbe'd message, freed when the receive
                                 * that consumes it completes */
    void *staging;              /* non-contiguous datatypes: packed send data,
                                 * or the receive's staging buffer */
    void *user_buf;             /* receive into staging: where to unpack */
    MPI_Aint user_count;
    MPI_Datatype user_type;
} MPIDI_MULTI_request_t;

/* An active-message (MPIDIG) request: MPIDIG owns the request, we only need
 * to find our in-flight system message again. */
struct MPIDI_MULTI_am_send;
typedef struct {
    struct MPIDI_MULTI_am_send *send;
} MPIDI_MULTI_am_request_t;

/* A communicator: its member set as registered with md_comm_create (NULL
 * if not registered; then every subdevice is a candidate for ANY_SOURCE). */
typedef struct {
    md_comm_t *md_comm;
} MPIDI_MULTI_comm_t;

typedef struct {
    int unused;
} MPIDI_MULTI_dt_t;

typedef struct {
    int unused;
} MPIDI_MULTI_op_t;

typedef struct {
    int unused;
} MPIDI_MULTI_win_t;

typedef struct {
    int unused;
} MPIDI_MULTI_addr_t;

typedef struct {
    int unused;
} MPIDI_MULTI_part_t;

#endif /* MULTI_PRE_H_INCLUDED */
