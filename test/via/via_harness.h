/*
 * via_harness.h - drive subdev-via through its SDI ops, without
 * libmultidev: every rank is a forked process with a fake md_sdi_host_t;
 * business cards go through a shared anonymous mapping made before the
 * fork; each emulated node ("n<k>") has its own VI firmware (nicd, started
 * on demand under a private MULTIDEV_NIC_RUNDIR).  Used by test/via and
 * bench/via-vs-udp.
 */
#ifndef VIA_HARNESS_H
#define VIA_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "md_sdi.h"
#include "test_host.h"

#define VH_MAX_RANKS 16
#define VH_MAX_SYS   64

typedef struct vh_job {
    int         n;                          /* ranks */
    int32_t     node_of[VH_MAX_RANKS];
    const char *job;                        /* job id */
    md_param_t  params[8];
    size_t      nparams;
    int         timeout_s;                  /* whole run; 0: 60 */
    int         serve_self;                 /* 1: the subdevice also serves its own rank */
    int         pin;                        /* 1: rank r on CPU r before init, so the
                                               nicd it starts shares that CPU */
} vh_job_t;

typedef struct vh_rank {
    int              rank;
    vh_job_t        *job;
    md_subdev_ops_t  ops;
    md_subdev_t      sd;
    md_sdi_host_t    host;
    int              hold;                  /* arrival_ok() says 0 while set */
    int              arrivals;              /* arrived() calls */
    int              arrived_from[VH_MAX_RANKS];   /* ... by sender (reads the envelope) */
    int              nsys;
    md_envelope_t    sys_env[VH_MAX_SYS];
    uint64_t         sys_sum[VH_MAX_SYS];
    test_peer_failures_t failed;            /* the peer_failed upcall's */
} vh_rank_t;

/* Fork the ranks; each inits, exchanges cards, connects, runs fn and
 * finalizes.  0 if every rank succeeded, else as test_ranks_reap: the
 * first failing rank's status (the others are killed then), 124 at the
 * timeout. */
int      vh_run(vh_job_t *j, int (*fn)(vh_rank_t *r));
void     vh_barrier(vh_rank_t *r);
/* Progress until req completes: its status error, MD_ERR_TIMEOUT, or a
 * progress error. */
int      vh_wait(vh_rank_t *r, md_request_t *req, int timeout_ms);
int      vh_send(vh_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf,
                 size_t len, uint32_t flags);
int      vh_recv(vh_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len);
uint64_t vh_usec(void);
/* A checksum of bytes, the one the fake host computes for system messages. */
uint64_t vh_sum(const void *p, size_t n);
/* Pid of the firmware serving node "n<k>", -1 if none. */
int      vh_fw_pid(int node);

#endif /* VIA_HARNESS_H */
