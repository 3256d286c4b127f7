/*
 * sci_job.h - run subdev-sci in several processes, each a rank driving the
 * subdevice through its SDI ops with a stand-in for the multidevice (a fake
 * md_sdi_host_t).  Ranks are forked; the cards travel through a shared
 * anonymous mapping made before the fork; every emulated node gets its own
 * bridge firmware (nicd, started on demand under a private rundir).  Used
 * by the tests here and by bench/sci-vs-udp.
 */
#ifndef SCI_JOB_H
#define SCI_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "md_sdi.h"
#include "sci/sci_wire.h"
#include "test_host.h"

#define SJ_MAX_RANKS 16
#define SJ_MAX_SYS   64

typedef struct sj_job {
    int         n;                       /* ranks */
    int32_t     node[SJ_MAX_RANKS];      /* emulated node of each rank */
    const char *id;                      /* job id (the bridge's job key) */
    md_param_t  params[8];               /* device-line parameters */
    size_t      nparams;
    int         timeout_s;               /* the whole job; default 60 */
    /* whether rank me's SCI serves peer (its routes reach it); NULL:
     * every other rank */
    int       (*serves)(const struct sj_job *job, int me, int peer);
} sj_job_t;

typedef struct sj_rank {
    int              rank;
    sj_job_t        *job;
    md_subdev_ops_t  ops;
    md_subdev_t      sd;
    md_sdi_host_t    host;
    int              hold;               /* arrival_ok() says 0 while set */
    int              arrived;            /* arrived() calls */
    int              nsys;               /* system messages received */
    md_envelope_t    sys_env[SJ_MAX_SYS];
    uint64_t         sys_sum[SJ_MAX_SYS];
    test_peer_failures_t failed;         /* the peer_failed upcall's */
} sj_rank_t;

/* Fork the ranks; each inits, exchanges cards, connects, runs body and
 * finalizes.  0 if every rank succeeded, else as test_ranks_reap: the
 * first failing rank's status (the others are killed then), 124 at the
 * timeout. */
int  sj_run(sj_job_t *job, int (*body)(sj_rank_t *r));
void sj_barrier(sj_rank_t *r);
/* Progress until req completes: its status, MD_ERR_TIMEOUT, or a progress
 * error. */
int  sj_wait(sj_rank_t *r, md_request_t *req, int timeout_ms);
int  sj_send(sj_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf,
             size_t len, uint32_t flags);
int  sj_recv(sj_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len);
/* Pid of the bridge firmware (nicd) of this rank's node, -1 if none. */
int  sj_bridge_pid(sj_rank_t *r);
/* The bridge's counters for this rank's endpoint and its node. */
int  sj_stats(sj_rank_t *r, sci_stats_t *st);
/* Remote reads this rank made or served (the protocols must make none). */
long sj_remote_reads(sj_rank_t *r);
uint64_t sj_now_us(void);
/* Per-peer protocol state on stderr (diagnostics of a failed test). */
void sj_dump(sj_rank_t *r);

/* Fill and check a buffer with a pattern of (seed, offset). */
void sj_fill(uint8_t *b, size_t n, unsigned seed);
int  sj_check(const uint8_t *b, size_t n, unsigned seed);

#endif /* SCI_JOB_H */
