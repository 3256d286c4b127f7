/*
 * myri_harness.h - drive subdev-myri directly through its SDI ops, with a
 * fake md_sdi_host_t and a fork-based bootstrap: every rank is a process,
 * cards are exchanged through an anonymous shared mapping made before the
 * fork, and each emulated node gets its own NIC firmware (nicd, started on
 * demand under a private MULTIDEV_NIC_RUNDIR).  Used by test/myri and by
 * bench/myri-vs-udp.
 */
#ifndef MYRI_HARNESS_H
#define MYRI_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "md_sdi.h"
#include "test_host.h"

#define MH_MAX_RANKS 16
#define MH_MAX_SYS   64

typedef struct mh_world {
    int         n;                        /* ranks */
    int32_t     node_of_rank[MH_MAX_RANKS];
    int         num_nodes;
    const char *job;                      /* job id (protection key) */
    md_param_t  params[8];
    size_t      nparams;
    int         timeout_s;                /* whole run; default 60 */
} mh_world_t;

typedef struct mh_rank {
    int                   rank;
    mh_world_t           *w;
    md_subdev_ops_t       ops;
    md_subdev_t           sd;
    md_sdi_host_t         host;
    int                   hold_arrivals;  /* arrival_ok answers 0 while set */
    int                   sys_count;      /* system messages received */
    md_envelope_t         sys_env[MH_MAX_SYS];
    uint64_t              sys_sum[MH_MAX_SYS];
    test_peer_failures_t  failed;         /* the peer_failed upcall's */
} mh_rank_t;

/* Fork w->n ranks; each inits, exchanges cards, connects, runs fn and
 * finalizes.  0 if every rank succeeded, else as test_ranks_reap: the
 * first failing rank's status (the others are killed then), 124 at the
 * timeout. */
int  mh_run(mh_world_t *w, int (*fn)(mh_rank_t *r));
/* Fresh MULTIDEV_NIC_RUNDIR and MULTIDEV_NICD for this test process. */
void mh_env_setup(void);
void mh_barrier(mh_rank_t *r);
/* Progress until req completes: its status error, or MD_ERR_TIMEOUT, or a
 * progress error. */
int  mh_wait(mh_rank_t *r, md_request_t *req, int timeout_ms);
int  mh_isend(mh_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf,
              size_t len, uint32_t flags);
int  mh_irecv(mh_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len);
uint64_t mh_now_us(void);
/* Pid of the nicd serving a node (-1 if none), from its status page. */
int  mh_nicd_pid(const char *node);

#endif /* MYRI_HARNESS_H */
