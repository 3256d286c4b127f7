/*
 * md_core.h - internal state of one multidevice instance.
 *
 * Nothing here is visible to subdevices (they see md_sdi.h) or to the MPICH
 * netmod (it sees multidev.h).
 */
#ifndef MD_CORE_H
#define MD_CORE_H

#include <ltdl.h>
#include <pthread.h>
#include <stdint.h>

#include "md_hosts.h"
#include "md_nodeconf.h"
#include "md_sdi.h"
#include "multidev.h"

#define MD_MAX_SUBDEVS     8    /**< device list capacity (mask is 8 bits) */
#define MD_MAX_CLASSES     8    /**< size classes per peer node */
#define MD_NAME_MAX        64
#define MD_SYSTAG_HANDLERS 64   /**< user system tags -64 .. -127 */
/* System messages are not ordered; their seq only names them (forwarded
 * flows are keyed by origin, destination and seq), apart from user
 * messages' sequence numbers. */
#define MD_SYS_SEQ_BIT     (1ull << 63)

/* One size class of a route: messages of up to max bytes (inclusive) go
 * over subdev to next_hop (the peer itself for a direct link). */
typedef struct md_route_class {
    size_t  max;
    int32_t subdev;
    int32_t next_hop_node;      /**< -1: direct */
} md_route_class_t;

#define MD_MAX_RAILS       MD_NODECONF_RAILS_MAX

/* One network a large message to a node is striped over (md_stripe.c). */
typedef struct md_rail {
    int32_t  subdev;
    uint32_t weight;            /**< its share: modelled MB/s */
} md_rail_t;

/* How this node talks to the ranks of one node. */
typedef struct md_node_route {
    int32_t          num_classes;     /**< 0: unreachable */
    md_route_class_t classes[MD_MAX_CLASSES];
    uint32_t         arrive_mask;     /**< subdevices messages come in on */
    /* Rails: messages of at least stripe_from bytes are cut into chunks
     * that go straight to the peer over every rail not down. */
    int32_t          num_rails;       /**< 0: none (or MULTIDEV_RAILS=off) */
    size_t           stripe_from;
    md_rail_t        rails[MD_MAX_RAILS];
    uint32_t         rails_down;      /**< bit k: rails[k] lost this node */
    uint32_t         rails_told;      /**< bit k: the node's ranks know it (told, or telling us) */
    /* the rails' use by every striped flow to the node (md_fwd_stripe.c) */
    int              rail_inflight[MD_MAX_RAILS];   /**< chunks in flight */
    uint64_t         rail_given[MD_MAX_RAILS];      /**< bytes given to it */
    uint64_t         rail_moved_ns[MD_MAX_RAILS];   /**< its last completion, or its
                                                         first chunk since none was in flight */
} md_node_route_t;

/* The device list: loaded modules and their instances. */
typedef struct md_devlist {
    int          num;
    md_subdev_t  subdevs[MD_MAX_SUBDEVS];
    md_subdev_ops_t ops[MD_MAX_SUBDEVS];
    lt_dlhandle  handles[MD_MAX_SUBDEVS];
} md_devlist_t;

/* A receive that was posted on several subdevices at once (AnyQueue
 * entry): the user's request, the claim and the duplicates. */
typedef struct md_anyreq {
    md_claim_t        claim;
    md_request_t     *orig;
    md_request_t     *dups[MD_MAX_SUBDEVS];   /* NULL once resolved */
    md_request_t      dup_store[MD_MAX_SUBDEVS];
    int               num_dups;
    int               num_unresolved;   /**< dups not yet completed/cancelled */
    struct md_anyreq *next;             /**< free list / cancel queue */
    struct md_anyreq *live_prev, *live_next;  /**< md->any_live, while orig waits */
    const struct md_comm *comm;         /**< the receive's communicator (NULL: all) */
} md_anyreq_t;

typedef struct md_failure md_failure_t;

typedef struct md_sysmsg_slot {
    md_sysmsg_handler_t handler;
    void               *ctx;
    unsigned            flags;          /**< MD_SYSMSG_F_* */
} md_sysmsg_slot_t;

/* Sends a subdevice pushed back (MD_ERR_NO_RESOURCE): retried in order
 * by md_progress. */
typedef struct md_pending {
    md_request_t *head, *tail;          /**< linked through md_next */
} md_pending_t;

typedef struct md_deferred_sys {
    struct md_deferred_sys *next;
    int32_t                 src_world, tag;
    size_t                  len;
    uint8_t                 payload[];
} md_deferred_sys_t;

/* The progress thread (md_thread.c). */
typedef struct md_thread_state {
    int               enabled;
    pthread_mutex_t   lock;
    pthread_t         thread;
    _Atomic int       stop;
    /* caller-side work, protected by lock */
    md_request_t     *done_head, *done_tail;
    md_deferred_sys_t *sys_head, *sys_tail;
    /* a caller blocked in md_idle sleeps on wake_fd (an eventfd) and says
     * so in caller_waiting; both under lock */
    int               wake_fd;
    int               caller_waiting;
    /* the thread sleeps on this too (an eventfd): a caller about to sleep
     * that found a subdevice which must be polled (no wait descriptor now:
     * work that no arrival announces) writes it, so that the thread, maybe
     * asleep on descriptors armed before that work existed, polls */
    int               kick_fd;
    /* the caller polls the subdevices in its idle loop (md_idle, past its
     * spin polls) and has neither slept nor seen an event since: the
     * thread sleeps beside it rather than on the wire it is polling */
    _Atomic int       caller_polling;
    /* md_work_count at the end of the caller's last progress pass (under
     * lock; block mode only, the one that sleeps): a sleep must not begin
     * once it moved */
    uint64_t          work_seen;
    /* the thread sleeps (poll or nap) until sleep_until_ns at the latest
     * and is not woken yet; soon_ns: when a caller last left work for its
     * next pass (md_thread_pass_soon: chunks held to leave together,
     * md_fwd_batch.c); all under lock */
    int               asleep;
    uint64_t          sleep_until_ns, soon_ns;
} md_thread_state_t;

struct md_comm {
    uint32_t subdev_mask;               /**< union of members' arrive masks */
    uint8_t *members;                   /**< bit r: world rank r is a member */
};

/* A wildcard receive posted on one subdevice, while it waits (md_wild.c). */
typedef struct md_wild {
    md_request_t    *req;
    const md_comm_t *comm;
} md_wild_t;

/* md_flags of a request the multidevice keeps in its wildcard table */
#define MD_REQ_F_WILD 0x2u

struct md {
    int32_t        rank, size;
    char           job_id[MD_NAME_MAX];
    uint8_t        job_secret[MD_JOB_SECRET_LEN];   /**< rank 0's draw, shared */
    uint64_t       job_key;       /**< derived from job_secret once (md_secret.c) */
    char           node_name[MD_NAME_MAX];

    /* nodes */
    int32_t        num_nodes;
    int32_t        my_node;
    int32_t       *node_of_rank;        /**< [size] */
    char         (*node_names)[MD_NAME_MAX]; /**< [num_nodes] */
    int32_t       *node_relay_rank;     /**< [num_nodes] rank relaying there */
    int32_t        host_ranks;          /**< ranks on this host (all nodes) */
    int            host_oversubscribed; /**< host_ranks > processing units (md_idle.c) */
    md_hosts_t     hosts;               /**< loopback domains, default NIC address */

    /* configuration, device list, connection table */
    md_nodeconf_t *conf;                /**< NULL: the default (shm only) */
    md_devlist_t   devs;
    int            devs_initialised;    /**< subdevices whose init ran (and, in
                                             teardown, not yet finalized) */
    int            tearing_down;        /**< md_teardown has begun */
    int            failed_everywhere;   /**< an agreement (md_agree) ended in
                                             failure: every rank knows */
    md_bootstrap_t bootstrap;           /**< valid until md_finalize */
    uint8_t       *ordered_node;        /**< [num_nodes] arrivals need seq */
    md_sdi_host_t  host;
    md_node_route_t *routes;            /**< [num_nodes] */
    uint32_t       all_mask;            /**< every subdevice that receives */

    /* ordering: per peer world rank */
    uint64_t      *send_seq;            /**< next seq to send to rank */
    uint64_t      *recv_seq;            /**< next seq expected from rank */
    uint64_t       sys_seq;             /**< names system messages */

    /* AnyQueue: free entries and entries whose losers await cancel */
    md_anyreq_t   *any_free;
    md_anyreq_t   *any_cancel;
    md_anyreq_t   *any_live;            /**< entries whose user request waits */
    md_anyq_counters_t any_counters;
    md_pending_t   pending;

    md_sysmsg_slot_t sys_handlers[MD_SYSTAG_HANDLERS];

    /* indirect communication (md_fwd*.c) */
    struct md_fwd_state *fwd;
    int            fwd_index;           /**< the forwarding receiver, or -1 */

    /* ranks that cannot be reached any more (md_fail.c) */
    uint8_t       *rank_failed;         /**< [size] 1: failed */
    struct md_failure *failures;        /**< why, per failed rank */
    int            fail_pending;        /**< failures whose consequences wait */
    md_wild_t     *wild;                /**< waiting wildcard receives of one subdevice */
    int            nwild, wild_cap;

    md_thread_state_t thr;
    int            idle_mode;           /**< md_idle_mode_t */
    int            idle_polls;          /**< idle md_progress calls in a row (the caller's thread only) */
    int            spin_polls;          /**< MULTIDEV_SPIN_POLLS */
    uint64_t       yield_ns;            /**< MULTIDEV_YIELD_US, before blocking */
    uint64_t       spin_ns;             /**< MULTIDEV_SPIN_US, block mode */
    uint64_t       spin_since_ns;       /**< when the spinning began */
    uint64_t       yield_since_ns;      /**< when the yielding began */
    uint64_t       idle_left_ns;        /**< when md_idle last returned */
    int            idle_sleep_ms;       /**< MULTIDEV_IDLE_SLEEP_MS: one sleep's bound */
    /* Sleeps of the caller (block mode), those that ran to their bound,
     * and those of them that were late: work was there when the bound
     * passed (a lost wake-up).  The caller's thread only. */
    uint64_t       idle_sleeps, idle_timeouts, idle_late;
    int            idle_carry;          /**< events (or an error) that check
                                             found, for the next md_progress */
    uint64_t       requests_done;       /**< the caller's requests completed
                                             (md_request_done; not internal ones) */
    uint64_t       user_sysmsgs;        /**< system messages of the caller's tags
                                             dispatched (md_sysmsg_dispatch) */
    int            progress_rr;
    int            progress_error[MD_MAX_SUBDEVS];   /**< a subdevice's last progress error */
    int            print_stats;
};

/* md_node.c: node membership */
int  md_nodes_setup(md_t *md, const md_init_params_t *p);
/* Rank 0 draws the job's secret, every rank gets it (one allgather; call
 * on every rank). */
int  md_secret_setup(md_t *md);
void md_nodes_free(md_t *md);
int32_t md_node_index(const md_t *md, const char *name);

/* md_conntab.c: connection table from the configuration */
int  md_conntab_build(md_t *md);
void md_conntab_print(const md_t *md);
const md_route_class_t *md_conntab_lookup(const md_t *md, int32_t dst_world,
                                          size_t len);
uint32_t md_conntab_arrive_mask(const md_t *md, int32_t src_world);

/* md_loader.c: device list */
int  md_loader_load(const char *name, const char *search_path,
                    md_subdev_ops_t *ops, lt_dlhandle *handle,
                    char *err, size_t err_len);
void md_loader_unload(lt_dlhandle handle);
int  md_loader_validate(const char *name, const md_subdev_ops_t *ops,
                        char *err, size_t err_len);
int  md_devlist_load(md_t *md, const char *module_path);
int  md_devlist_index(const md_t *md, const char *name);
int  md_devlist_add_builtin(md_t *md, const md_subdev_ops_t *ops);
void md_devlist_unload(md_t *md);

/* md_wireup.c: subdevice init, card exchange, connect, ready */
int  md_wireup(md_t *md, const md_bootstrap_t *bs);
/* serves[r] = 1 for every rank subdevice index carries traffic to or from */
void md_wireup_serves(const md_t *md, int index, uint8_t *serves);
/* Collective: every rank passes its local status; all get MD_OK only if
 * every rank succeeded (failures elsewhere are logged, naming the rank). */
int  md_agree(md_t *md, const md_bootstrap_t *bs, int local_rc,
              const char *what);

/* md_host.c: the upcalls offered to subdevices */
void md_host_setup(md_t *md);

/* md_anyq.c: receives posted on several subdevices */
int  md_anyq_post(md_t *md, md_request_t *req, uint32_t mask, const md_comm_t *comm);

/* md_wild.c: wildcard receives and failed ranks */
int     md_comm_has(const md_comm_t *comm, int32_t rank);
/* A failed member of comm (NULL: of the job), or -1. */
int32_t md_comm_failed_member(const md_t *md, const md_comm_t *comm);
int     md_wild_track(md_t *md, md_request_t *req, const md_comm_t *comm);
void    md_wild_untrack(md_t *md, md_request_t *req);
/* Wildcard receives of communicators that hold rank fail (rank failed). */
void    md_wild_fail(md_t *md, int32_t rank, int status);
/* A receive that rank's failure ends: its error, naming rank as the
 * source (a wildcard one keeps MD_ANY_SOURCE as the rank it asked for). */
void    md_fail_status(md_request_t *req, int32_t rank, int status, int wildcard);
void md_anyq_dup_complete(md_t *md, md_request_t *dup);
int  md_anyq_cancel(md_t *md, md_request_t *req);
void md_anyq_drain_cancels(md_t *md);
void md_anyq_free_all(md_t *md);

/* md_param.c: a whole number from lo to hi in the environment variable
 * name, or def when it is unset; MD_ERR_CONFIG (said) when it is not one. */
int md_env_count(const char *name, long long def, long long lo, long long hi,
                 long long *value);
/* md_param.c: which of the n words (any case) the environment variable name
 * holds, or def when it is unset; MD_ERR_CONFIG (said, with the words) when
 * it holds none of them. */
int md_env_choice(const char *name, const char *const *words, int n, int def, int *value);

/* md_p2p.c: shared by the forwarding code and the progress thread */
int  md_progress_locked(md_t *md);
void md_request_reset(md_request_t *req, uint8_t kind);
/* Hands a prepared send (subdev, peer_world, env, buf, len set) to its
 * subdevice, queueing it behind back-pressured sends. */
int  md_send_start(md_t *md, md_request_t *req);

/* md_p2p.c: a system message (tag < 0) to dst_world by its route, with the
 * lock held (md_sysmsg_isend is the public entry). */
int  md_sysmsg_send_locked(md_t *md, md_request_t *req, int32_t dst_world,
                           int32_t tag, const void *buf, size_t len);

/* md_pending.c: sends delayed by back-pressure */
void md_pending_push(md_pending_t *q, md_request_t *req);
int  md_pending_retry(md_t *md);

static inline md_subdev_t *md_sd(md_t *md, int index)
{
    return &md->devs.subdevs[index];
}

#endif /* MD_CORE_H */
