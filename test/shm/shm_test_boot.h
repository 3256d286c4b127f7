/*
 * shm_test_boot.h - a tiny launcher and fake multidevice for driving the
 * shm subdevice directly through its ops in test processes.
 *
 * tb_create() maps a shared anonymous area holding a process-shared
 * pthread barrier and a card table; tb_run() forks one child per rank and
 * collects their exit codes; tb_dev_open() does what libmultidev does at
 * md_init: load the ops, init, exchange cards, connect, barrier, ready.
 * The host upcalls are a fake (tb_host): completion sets req->complete,
 * ordering can be steered by a hook, system messages are recorded.
 *
 * Rank bodies report failures with TB_CHECK (message on stderr, exit 1):
 * Criterion's asserts do not work in forked children.
 */
#ifndef SHM_TEST_BOOT_H
#define SHM_TEST_BOOT_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "md_sdi.h"
#include "test_host.h"

#define TB_MAX_PROCS 16

typedef struct tb_shared {
    pthread_barrier_t barrier;
    int               nprocs;
    char              job_id[64];
    char              node_name[TB_MAX_PROCS][32];   /**< per rank */
    int32_t           node_of_rank[TB_MAX_PROCS];
    pid_t             pid[TB_MAX_PROCS];
    uint16_t          card_len[TB_MAX_PROCS];
    uint8_t           card[TB_MAX_PROCS][MD_CARD_MAX];
    _Atomic int       flags[TB_MAX_PROCS];           /**< free for tests */
    int               die_after_init;  /**< rank + 1 that SIGKILLs itself
                                            after init, 0: none */
    uint8_t           scratch[8192];                 /**< free for tests */
} tb_shared_t;

/* nprocs ranks, all on node 0 named "n0"; a job id unique to this call. */
tb_shared_t *tb_create(int nprocs);
void tb_destroy(tb_shared_t *tb);
/* Puts rank on node (index and name). */
void tb_set_node(tb_shared_t *tb, int rank, int node, const char *name);
void tb_barrier(tb_shared_t *tb);

typedef int (*tb_rank_fn)(tb_shared_t *tb, int rank, void *arg);
/* Forks nprocs children running fn; kills them after timeout_s.  Returns
 * the number of ranks that did not exit with status 0; raw wait statuses
 * in status[] if not NULL. */
int tb_run(tb_shared_t *tb, tb_rank_fn fn, void *arg, int timeout_s,
           int *status);

/* Names of /dev/shm entries of this job; returns how many (printed). */
int tb_count_segments(const tb_shared_t *tb);

/* ------------------------------------------------------------ the device */

typedef struct tb_dev {
    md_subdev_ops_t       ops;
    md_subdev_t           sd;
    int                   rank;
    int                   nprocs;
    md_param_t            params[8];
    size_t                num_params;
    uint8_t               serves[TB_MAX_PROCS];
    uint64_t              seq_to[TB_MAX_PROCS];     /**< next seq per dest */
    int                   last_progress_error;
} tb_dev_t;

/* Loads and brings up the subdevice as rank of tb.  params: "key=value"
 * strings (NULL-terminated list, may be NULL).  skip_ready: leave the
 * segment linked (for tests that look at it). */
int tb_dev_open(tb_shared_t *tb, int rank, tb_dev_t *dev,
                const char *const *params, int skip_ready);
int tb_dev_close(tb_dev_t *dev);

/* Fills a send request (seq numbered per destination). */
void tb_send_req(tb_dev_t *dev, md_request_t *req, int dst, const void *buf,
                 size_t len, int tag, uint32_t context, uint32_t flags);
/* Fills a receive request; src may be MD_ANY_SOURCE. */
void tb_recv_req(md_request_t *req, int src, void *buf, size_t len, int tag,
                 uint32_t context);
/* Drives progress until req completes or timeout_s passes; yields when
 * progress found nothing.  0, or -1 on timeout. */
int tb_wait(tb_dev_t *dev, md_request_t *req, double timeout_s);
/* Drives progress until all n requests complete; 0 or -1 on timeout. */
int tb_wait_all(tb_dev_t *dev, md_request_t **reqs, int n, double timeout_s);
int tb_progress(tb_dev_t *dev);
/* Idle progress calls before tb_wait yields the core (default 16). */
extern unsigned tb_spin_before_yield;

/* ------------------------------------------------------------ fake host */

/* What the fake host saw (per process). */
typedef struct tb_host_log {
    int      completions;
    int      arrived;
    int      sysmsgs;
    int32_t  last_sys_tag;
    uint64_t last_sys_size;
    uint64_t sys_checksum;
    int      held;            /**< arrival_ok answers of 0 */
} tb_host_log_t;

extern tb_host_log_t tb_host_log;
extern const md_sdi_host_t tb_host;
/* What tb_host's peer_failed upcall was told, in this process. */
extern test_peer_failures_t tb_peer_failures;
/* If set, arrival_ok asks this. */
extern int (*tb_arrival_hook)(const md_envelope_t *env);
/* Log level shown by the fake host (default 0: errors; TB_LOG_LEVEL env). */
extern int tb_log_level;

/* Deterministic test data. */
void tb_fill(void *buf, size_t len, uint32_t seed);
/* Index of the first wrong byte, or -1. */
long tb_check(const void *buf, size_t len, uint32_t seed);
uint64_t tb_checksum(const void *buf, size_t len);
double tb_now(void);

#define TB_CHECK(_cond, ...) \
    do { \
        if (!(_cond)) { \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", \
                    tb_current_rank, __FILE__, __LINE__, #_cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            exit(1); \
        } \
    } while (0)

extern int tb_current_rank;

#endif /* SHM_TEST_BOOT_H */
