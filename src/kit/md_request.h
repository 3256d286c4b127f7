/*
 * md_request.h - what the multidevice shares with those above it (the
 * netmod, through multidev.h) and below it (the subdevices, through
 * md_sdi.h): status codes, envelopes, matching, receive status and
 * requests.
 *
 * The netmod embeds md_request_t in MPICH's request, so every MPICH object
 * is built against this header: any change to it bumps MD_API_VERSION
 * (multidev.h) and MD_SDI_ABI_VERSION (md_sdi.h) together.  What only the
 * subdevices see (their function table, init arguments, attributes, host
 * upcalls) is in md_sdi.h, so a change there rebuilds no MPICH.
 */
#ifndef MD_REQUEST_H
#define MD_REQUEST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

typedef enum md_status {
    MD_OK               = 0,
    MD_INPROGRESS       = 1,   /**< started; completes later */
    MD_ERR_NO_RESOURCE  = -2,  /**< back-pressure: retry after progress */
    MD_ERR_INVALID      = -3,  /**< bad argument */
    MD_ERR_NO_MEMORY    = -4,
    MD_ERR_UNSUPPORTED  = -5,  /**< operation not offered by this subdevice */
    MD_ERR_TRUNCATE     = -6,  /**< message longer than the receive buffer */
    MD_ERR_NOT_FOUND    = -7,  /**< e.g. cancel of a request already matched */
    MD_ERR_IO           = -8,  /**< system call failed; see the log */
    MD_ERR_PEER_FAILED  = -9,  /**< peer process or its NIC firmware died */
    MD_ERR_TIMEOUT      = -10,
    MD_ERR_CONFIG       = -11, /**< bad configuration file or parameter */
    MD_ERR_ABI          = -12, /**< module built against another SDI version */
    MD_ERR_PROTECTION   = -13, /**< protection key or tag mismatch */
    MD_ERR_NO_ROUTE     = -14, /**< the connection table has no way to a peer */
    MD_ERR_NOT_LOADED   = -15, /**< module or symbol could not be loaded */
} md_status_t;

const char *md_status_string(int status);

/* ------------------------------------------------------------------ */
/* Envelopes and matching                                              */
/* ------------------------------------------------------------------ */

#define MD_ANY_SOURCE   (-2)   /**< same values as MPICH's MPI_ANY_SOURCE */
#define MD_ANY_TAG      (-1)   /**< and MPI_ANY_TAG */

/* Envelope flags */
#define MD_ENV_F_SYNC   0x1u   /**< MPI_Ssend: the send completes only when
                                    the receiver has matched it */
/* A collective's send made after its sender saw an error (MPICH's errflag):
 * the receiver's collective must end in an error too, not with this data.
 * Carried in the envelope, not in the tag as other netmods do, since
 * subdevices match tags exactly. */
#define MD_ENV_F_COLL_ERR         0x2u
#define MD_ENV_F_COLL_PROC_FAILED 0x4u   /**< ... and the error was a process failure */

/* The envelope travels with every message.  Tags >= 0 are user tags; tags
 * < 0 are system messages (P1 §3.4) and never match a user receive. */
typedef struct md_envelope {
    int32_t  src_rank;    /**< sender's rank in the communicator (matching) */
    int32_t  src_world;   /**< sender's world rank (routing, ordering) */
    int32_t  dst_world;   /**< final destination's world rank */
    int32_t  tag;
    uint32_t context_id;  /**< communicator context, offset included */
    uint32_t flags;       /**< MD_ENV_F_* */
    uint64_t seq;         /**< per (src_world, dst_world) send sequence */
    uint64_t size;        /**< payload bytes */
} md_envelope_t;

/* What a receive or probe asks for. */
typedef struct md_match {
    int32_t  src_rank;    /**< rank in the communicator or MD_ANY_SOURCE */
    int32_t  tag;         /**< tag or MD_ANY_TAG (never matches tag < 0) */
    uint32_t context_id;
} md_match_t;

static inline int md_match_envelope(const md_match_t *m, const md_envelope_t *e)
{
    if (m->context_id != e->context_id)
        return 0;
    if (m->src_rank != MD_ANY_SOURCE && m->src_rank != e->src_rank)
        return 0;
    if (m->tag == MD_ANY_TAG)
        return e->tag >= 0;
    return m->tag == e->tag;
}

/* Completion status of a receive (or of a probe). */
typedef struct md_recv_status {
    int32_t  src_rank;
    int32_t  src_world;
    int32_t  tag;
    int32_t  error;       /**< MD_OK, MD_ERR_TRUNCATE, ... */
    uint64_t size;        /**< bytes delivered (<= buffer length) */
    uint64_t msg_size;    /**< bytes the sender sent */
    int32_t  cancelled;
    int32_t  subdev;      /**< index of the subdevice that delivered */
    uint64_t seq;         /**< the envelope's sequence number (probes use
                               it to report a sender's earliest message) */
    uint32_t flags;       /**< the envelope's flags (MD_ENV_F_*) */
    uint32_t pad;
} md_recv_status_t;

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

typedef enum md_req_kind {
    MD_REQ_SEND  = 1,
    MD_REQ_RECV  = 2,
    MD_REQ_MPROBE = 3,    /**< a message taken by improbe, awaiting imrecv */
} md_req_kind_t;

/* Shared by the duplicates of one receive that was posted on several
 * subdevices (MPI_ANY_SOURCE, or a peer reachable over more than one
 * subdevice).  The first subdevice to win the claim delivers. */
typedef struct md_claim {
    _Atomic int32_t owner;  /**< -1 while unclaimed, else subdevice index */
} md_claim_t;

#define MD_REQ_SD_PRIV_WORDS 16

/* md_flags */
#define MD_REQ_F_INTERNAL 0x1u   /**< the multidevice's own request: its
                                      callback runs wherever it completes */

typedef struct md_request md_request_t;
typedef void (*md_request_cb_t)(md_request_t *req);

struct md_request {
    /* --- set by the multidevice; read-only for the subdevice --- */
    uint8_t        kind;          /**< md_req_kind_t */
    uint8_t        internal;      /**< owned by the multidevice (duplicate) */
    uint16_t       md_flags;      /**< MD_REQ_F_*, the multidevice's */
    int32_t        peer_world;    /**< send: next hop's world rank;
                                       recv: sender's world rank or -1 */
    void          *buf;           /**< contiguous bytes */
    size_t         len;           /**< send: size; recv: capacity */
    md_envelope_t  env;           /**< send: the envelope to deliver */
    md_match_t     match;         /**< recv: what to match */
    md_claim_t    *claim;         /**< recv duplicates: shared claim; else NULL */

    /* --- written by the subdevice before host->complete() --- */
    md_recv_status_t status;

    /* --- owned by the multidevice --- */
    _Atomic int32_t complete;     /**< 1 once finished (status valid) */
    int32_t        subdev;        /**< index of the carrying subdevice */
    md_request_t  *orig;          /**< duplicate -> the user's request */
    md_request_t  *next_dup;      /**< list of a request's duplicates */
    md_request_cb_t on_complete;  /**< caller's completion callback or NULL */
    void          *user;          /**< caller's cookie */
    md_request_t  *md_next;       /**< link of the multidevice's queues:
                                       back-pressured sends (md_pending.c),
                                       the caller's completions queued by
                                       the progress thread (md_thread.c) */
    void          *md_any;        /**< AnyQueue entry of a duplicated recv */

    /* --- private to the subdevice carrying the request --- */
    uint64_t       sd_priv[MD_REQ_SD_PRIV_WORDS];
};

/* A subdevice calls this before it consumes a message for a posted receive.
 * 1: deliver; 0: another subdevice owns this receive already, so look for
 * another posted receive (P1 §3.3.4, step 3.1). */
static inline int md_request_claim(md_request_t *req, int subdev_index)
{
    int32_t unclaimed = -1;
    if (req->claim == NULL)
        return 1;
    return atomic_compare_exchange_strong(&req->claim->owner, &unclaimed,
                                          subdev_index) ||
           unclaimed == subdev_index;
}

#ifdef __cplusplus
}
#endif

#endif /* MD_REQUEST_H */
