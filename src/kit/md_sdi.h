/*
 * md_sdi.h - the SubDevice Interface (SDI) of the multidevice.
 *
 * The contract between the multidevice (libmultidev) and the subdevices it
 * loads at run time (shm, sci, via, myri, ...), in the spirit of P1 §3.2:
 * an ADI-2-like point-to-point interface with matching done inside the
 * subdevice.  It lives in src/kit with the subdevice kit (md_kit.h) and is
 * installed with the kit's headers; what the netmod shares with the
 * subdevices (status codes, envelopes, matching, requests) is md_request.h,
 * which it includes.  A subdevice is compiled with -I src/kit (and -I nic
 * for its NIC) only, includes this header and the kit's, and links
 * libmdkit (md_status_string among them), never libmultidev, which links
 * libmdkit too.
 *
 * Life cycle of a subdevice, driven by the multidevice:
 *
 *   1. load:     lt_dlopenext("libmd_<name>"), resolve <name>_LoadDevicePtr
 *                and call it; it fills an md_subdev_ops_t.  The loader
 *                checks abi_version, kit_abi_version (md_kit.h), the name
 *                and that every mandatory slot is set.  What the table
 *                says (caps, which optional slots are set) is known from
 *                here on, before any job: the connection table is checked
 *                against caps, and mdinfo prints both.
 *   2. init:     the subdevice learns who it is (rank, node, peers it serves,
 *                parameters from the node configuration), fills sd->attr
 *                and writes a small "business card" (its address, at most
 *                MD_CARD_MAX bytes).
 *   3. connect:  the multidevice has exchanged the cards of all ranks; the
 *                subdevice connects to the peers it serves.
 *   4. (barrier over all ranks)
 *   5. ready:    optional; called once every rank has connected (shm uses it
 *                to unlink its segments so that nothing survives a crash).
 *   6. traffic:  isend/irecv/iprobe/improbe/imrecv/recv_cancel/progress.
 *   7. finalize.
 *
 * Threading: a subdevice instance is called by one thread at a time and
 * needs no lock for state that only its SDI calls touch.  The multidevice
 * makes one call at a time into all of its subdevices: its callers
 * serialise their calls (the MPICH netmod runs under MPICH's global
 * critical section), and when its progress thread runs
 * (MULTIDEV_PROGRESS_THREAD) one mutex covers every call into every
 * subdevice, the thread's and the callers' (md_thread.h).  A subdevice calls
 * the host upcalls (md_sdi_host_t) only from inside an SDI call made on it,
 * never from a thread of its own (an in-process NIC firmware thread
 * included): such a thread leaves its work for progress() and makes the
 * wait_fd() descriptor readable.  Memory shared with other processes or
 * with a NIC firmware needs the subdevice's own atomics.
 *
 * Ownership of requests: the multidevice allocates every md_request_t and
 * fills its public part before handing it to a subdevice.  The subdevice owns
 * the sd_priv area until it reports completion with host->complete() or
 * until recv_cancel() returns MD_OK.
 *
 * ABI: any change to a struct or function type below bumps
 * MD_SDI_ABI_VERSION; there are no compatibility shims.
 */
#ifndef MD_SDI_H
#define MD_SDI_H

#include <stddef.h>
#include <stdint.h>

#include "md_request.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MD_SDI_ABI_VERSION 5

/* ------------------------------------------------------------------ */
/* Subdevice capabilities and attributes                               */
/* ------------------------------------------------------------------ */

/* Capabilities (md_subdev_ops_t.caps): what a subdevice is, known when it
 * loads.  Only what the multidevice acts on is a flag; what a subdevice
 * offers is said by its optional slots instead (improbe/imrecv,
 * send_cancel, ready, wait_fd: NULL means not offered), and what the
 * multidevice needs of every subdevice a route names is no flag at all
 * (system messages, tag < 0: see isend). */
#define MD_CAP_LOCAL_ONLY (1ull << 0)  /**< reaches same-node peers only: the
                                            connection table refuses a route
                                            to another node over it
                                            (md_conntab.c) */

/* Attributes one instance decides at init (md_subdev_t.attr), from its
 * parameters and the job (shm's eager limit shrinks with its rings as the
 * node fills). */
typedef struct md_subdev_attr {
    size_t eager_limit;     /**< largest payload sent without a handshake;
                                 the multidevice cuts forwarded messages into
                                 chunks that fit it (md_fwd_eager_cut) */
} md_subdev_attr_t;

/* ------------------------------------------------------------------ */
/* Parameters and init arguments                                       */
/* ------------------------------------------------------------------ */

#define MD_CARD_MAX 256     /**< business card bytes per rank per subdevice */
#define MD_JOB_SECRET_LEN 32 /**< bytes of the job's secret (init args) */

typedef struct md_param {
    const char *key;
    const char *value;
} md_param_t;

typedef enum md_role {
    MD_ROLE_LOCAL  = 1,     /**< serves peers on this node (shm) */
    MD_ROLE_GLOBAL = 2,     /**< serves peers on other nodes */
} md_role_t;

/* Where the job's ranks run, for subdevices that put addresses on a wire
 * (filled by the multidevice from what every rank publishes at init; valid
 * until finalize).  A loopback domain is one kernel and one network
 * namespace: its ranks, and only they, reach each other over 127.0.0.1. */
typedef struct md_job_hosts {
    int32_t            num_domains;    /**< loopback domains in the job */
    const int32_t     *domain_of_rank; /**< [world_size] 0.., numbered in
                                            order of their lowest rank */
    const char *const *host_of_rank;   /**< [world_size] host names */
    const char *const *node_names;     /**< [num_nodes] node names */
    const char        *default_addr;   /**< the IPv4 address this rank's NICs
                                            bind unless told otherwise:
                                            127.0.0.1 in a single domain, else
                                            the local address that reaches
                                            the other hosts; "" if none does */
    const char        *default_why;    /**< how it was chosen (messages) */
} md_job_hosts_t;

typedef struct md_subdev_init_args {
    int32_t         world_rank;
    int32_t         world_size;
    const int32_t  *node_of_rank;   /**< node index of every world rank */
    int32_t         my_node;
    int32_t         num_nodes;
    const char     *node_name;      /**< this node's name */
    const char     *job_id;         /**< unique per job; safe in file names */
    const uint8_t  *job_secret;     /**< [MD_JOB_SECRET_LEN] random bytes every
                                         rank of the job shares, drawn at init:
                                         the key to the job's frames; never
                                         put it in a file, a name or the
                                         environment */
    uint64_t        job_key;        /**< the job's key, never 0: 64 public
                                         bits the multidevice derives once
                                         from job_secret (src/jobkey/
                                         md_job_key.h), the same in every
                                         rank.  NIC firmware isolates the
                                         job's endpoints by it and names the
                                         job with it on the wire; it derives
                                         the same value from the secret and
                                         refuses requests naming another */
    const uint8_t  *serves;         /**< [world_size]: 1 if this subdevice
                                         carries traffic to/from that rank
                                         (P1's GetDeviceNodeList) */
    int             role;           /**< md_role_t */
    const md_param_t *params;       /**< from the node configuration */
    size_t          num_params;
    const md_job_hosts_t *hosts;    /**< NULL: every rank on one host (a
                                         test driving a subdevice alone) */
    int             host_oversubscribed; /**< 1: this host runs more ranks
                                         than it has processing units (the
                                         multidevice's idle waits block then) */
} md_subdev_init_args_t;

/* Cards of all ranks, indexed by world rank; len 0 if a rank does not run
 * this subdevice. */
typedef struct md_card_table {
    int32_t         world_size;
    const uint8_t  *const *card;
    const uint16_t *len;
} md_card_table_t;

/* ------------------------------------------------------------------ */
/* The function tables                                                 */
/* ------------------------------------------------------------------ */

typedef struct md_subdev md_subdev_t;
typedef struct md_sdi_host md_sdi_host_t;

/* Upcalls the multidevice offers to its subdevices. */
struct md_sdi_host {
    /* A request finished: status (receives) is filled.  May be called from
     * inside any SDI call on the subdevice. */
    void (*complete)(md_subdev_t *sd, md_request_t *req);

    /* Ordering across subdevices.  Before matching an incoming user message
     * the subdevice asks arrival_ok(); 0 means an earlier message from the
     * same sender is still on its way over another subdevice: keep this one
     * (unmatched, in arrival order) and ask again later.  Once the message
     * has been matched or queued as unexpected, the subdevice calls
     * arrived(). */
    int  (*arrival_ok)(md_subdev_t *sd, const md_envelope_t *env);
    void (*arrived)(md_subdev_t *sd, const md_envelope_t *env);

    /* A system message (env->tag < 0) arrived; payload is valid only during
     * the call (the subdevice owns the buffer, P1 §3.4). */
    void (*sysmsg)(md_subdev_t *sd, const md_envelope_t *env,
                   const void *payload);

    /* Logging through the multidevice's logger (MULTIDEV_LOG_LEVEL).
     * level: MD_LOG_ERROR, _WARN, _INFO, _DEBUG or _TRACE (md_log.h).
     * The line comes out as "<subdevice name>: <text>": a text never
     * starts with the subdevice's name itself. */
    void (*log)(md_subdev_t *sd, int level, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

    /* The subdevice can no longer reach world_rank: its process, its NIC
     * firmware or the link to it failed, or it left.  Call once per peer,
     * after failing this subdevice's own requests that wait on it, from
     * any SDI call.  The multidevice then fails what waits on that rank
     * elsewhere (receives posted on several subdevices, forwarded
     * messages), the ranks reached through it when it relays, and tells
     * the ranks that reach it through this one (DESIGN invariant 5).
     * status: MD_ERR_PEER_FAILED, or MD_ERR_NOT_FOUND when it said it
     * leaves. */
    void (*peer_failed)(md_subdev_t *sd, int32_t world_rank, int status);
};

/* Per-message counters every subdevice keeps (shown by MULTIDEV_STATS). */
typedef struct md_subdev_counters {
    uint64_t msgs_sent, bytes_sent;
    uint64_t msgs_recvd, bytes_recvd;
    uint64_t eager_sent, rndv_sent;     /**< protocol split of msgs_sent */
    uint64_t unexpected;                /**< arrivals with no posted receive */
    uint64_t sysmsgs_sent, sysmsgs_recvd;
} md_subdev_counters_t;

/* One loaded subdevice instance. */
struct md_subdev {
    const struct md_subdev_ops *ops;
    const md_sdi_host_t *host;
    void                *host_ctx;      /**< the multidevice instance */
    void                *priv;          /**< the subdevice's own state */
    int32_t              index;         /**< position in the device list */
    char                 name[32];
    md_subdev_attr_t     attr;          /**< filled by init */
    md_subdev_counters_t counters;
};

/* wait_fd() flags */
#define MD_WAIT_F_SOLE 0x1u   /**< the sleeper is the process's only poller */

/* Mandatory slots are marked [M]; NULL in an optional slot means
 * "unsupported". */
typedef struct md_subdev_ops {
    uint32_t    abi_version;            /**< [M] MD_SDI_ABI_VERSION */
    uint32_t    kit_abi_version;        /**< MD_KIT_ABI_VERSION (md_kit.h) of
                                             the kit it was built with; 0 if
                                             it includes no kit header */
    const char *name;                   /**< [M] must equal the module name */
    uint64_t    caps;                   /**< MD_CAP_* */

    /* [M] Set up, fill sd->attr and write this rank's card (at most
     * MD_CARD_MAX bytes) into card, its length into *card_len. */
    int (*init)(md_subdev_t *sd, const md_subdev_init_args_t *args,
                void *card, size_t *card_len);
    /* [M] Connect to the peers this subdevice serves. */
    int (*connect)(md_subdev_t *sd, const md_card_table_t *cards);
    /* Every rank has connected. */
    int (*ready)(md_subdev_t *sd);
    /* [M] Release everything; outstanding requests are abandoned. */
    int (*finalize)(md_subdev_t *sd);

    /* [M] Start a send of req->buf/len with req->env to req->peer_world.
     * A negative req->env.tag makes it a system message, which a subdevice
     * that a route names must carry (the multidevice's own protocols,
     * forwarding among them, ride on system messages over whatever
     * subdevice the route names): it is sent at once, never matched by a
     * receive, and on arrival the receiving subdevice supplies the buffer
     * and calls host->sysmsg().  System messages are not subject to
     * arrival_ok() ordering. */
    int (*isend)(md_subdev_t *sd, md_request_t *req);
    /* [M] Post a receive for req->match into req->buf (capacity req->len).
     * If a matching message is already here (and the claim is won) the
     * request may complete inside the call. */
    int (*irecv)(md_subdev_t *sd, md_request_t *req);
    /* [M] Remove a posted receive.  MD_OK: unlinked, will never complete
     * (the caller completes it as cancelled); MD_ERR_NOT_FOUND: already
     * matched, it will complete normally. */
    int (*recv_cancel)(md_subdev_t *sd, md_request_t *req);
    /* Try to take back a send that has not been matched.  MD_OK: the
     * message will never be received. */
    int (*send_cancel)(md_subdev_t *sd, md_request_t *req);

    /* [M] Is a message matching *match here?  *flag = 1 and *status filled
     * if so.  The message stays queued. */
    int (*iprobe)(md_subdev_t *sd, const md_match_t *match, int *flag,
                  md_recv_status_t *status);
    /* Like iprobe, but dequeue the message and bind it to msg (kind
     * MD_REQ_MPROBE, status filled) for a later imrecv. */
    int (*improbe)(md_subdev_t *sd, const md_match_t *match, int *flag,
                   md_request_t *msg);
    /* Receive the message bound to msg into req->buf/len; completes req. */
    int (*imrecv)(md_subdev_t *sd, md_request_t *msg, md_request_t *req);

    /* [M] Make progress; return the number of events (>= 0) or an error. */
    int (*progress)(md_subdev_t *sd);

    /* A file descriptor that becomes readable when progress() has work to
     * do; an idle thread (the multidevice's progress thread, or a caller
     * blocked in md_idle) sleeps on it and calls progress() when it wakes.
     * flags: MD_WAIT_F_SOLE when no other thread of the process will call
     * progress() before the sleeper wakes; the descriptor may then stand
     * for raw arrivals that only progress() turns into work (an in-process
     * NIC firmware leaves its wire to the sleeper, so an arrival wakes one
     * thread instead of two).  Without it another thread keeps polling, and
     * the descriptor must take nothing over from it.  Returns -1 (or the
     * slot is NULL) if there is none: the thread then polls with a growing
     * pause. */
    int (*wait_fd)(md_subdev_t *sd, unsigned flags);

    /* Optional.  Send a small user message (env->tag >= 0, no
     * MD_ENV_F_SYNC) to env->dst_world, a peer this subdevice reaches
     * directly, and be done with it inside the call: the payload is
     * copied, no request exists, nothing completes later.  MD_OK: sent;
     * MD_ERR_NO_RESOURCE: not now (too large, earlier sends still queued,
     * no room) and nothing happened, so the caller starts an isend; any
     * other error is the send's.  It counts in the counters like a send. */
    int (*inject)(md_subdev_t *sd, const md_envelope_t *env, const void *buf);
} md_subdev_ops_t;

/* Every subdevice module exports
 *     int <name>_LoadDevicePtr(md_subdev_ops_t *ops);
 * which fills *ops and returns MD_OK.  MD_LOAD_DEVICE_PTR(name) declares it
 * with the right spelling. */
#define MD_LOAD_DEVICE_PTR_SYMBOL(name) name##_LoadDevicePtr
#define MD_LOAD_DEVICE_PTR(name) \
    int MD_LOAD_DEVICE_PTR_SYMBOL(name)(md_subdev_ops_t *ops)

typedef int (*md_load_device_ptr_fn)(md_subdev_ops_t *ops);

#ifdef __cplusplus
}
#endif

#endif /* MD_SDI_H */
