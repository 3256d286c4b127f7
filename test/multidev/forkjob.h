/*
 * forkjob.h - a multi-process job for tests: forks one process per rank,
 * each with its own node name and md_init over a shared-memory bootstrap.
 */
#ifndef FORKJOB_H
#define FORKJOB_H

#include <time.h>

#include "md_sdi.h"
#include "multidev.h"

#define FORKJOB_MAX_RANKS 16

typedef struct forkjob_shared {
    _Atomic int done;               /* ranks that finished their part */
    _Atomic int counters[64];       /* free for the test */
} forkjob_shared_t;

/* What a rank runs between md_init and md_finalize; returns 0 on success. */
typedef int (*forkjob_fn)(md_t *md, int rank, int size,
                          forkjob_shared_t *shared, void *arg);

/* Node configurations: nodes[i] is the node name of rank i; confs is a NULL
 * terminated list of { node name, file text } pairs written into a fresh
 * directory used as MULTIDEV_CONFIG.  Returns 0 if every rank returned 0,
 * else the first failing rank's status (the others are killed then);
 * kills the job after timeout_s. */
int forkjob_run(int size, const char *const *nodes,
                const char *const (*confs)[2], forkjob_fn fn, void *arg,
                int timeout_s);

/* forkjob_run with the environment variables env (a NULL-terminated list of
 * { name, value } pairs) set for the job, and unset again after it. */
int forkjob_run_env(const char *const (*env)[2], int size, const char *const *nodes,
                    const char *const (*confs)[2], forkjob_fn fn, void *arg, int timeout_s);

/* Progress until every rank has called forkjob_finish (relays use it). */
int forkjob_serve(md_t *md, forkjob_shared_t *shared, int size);
void forkjob_finish(forkjob_shared_t *shared);

/* Seconds of CLOCK_MONOTONIC, for the tests' time bounds. */
static inline double forkjob_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait for a request with a bound on the number of progress calls. */
int forkjob_wait(md_t *md, md_request_t *req);

/* Sends the int value to world rank to (as src_rank me, tag, context ctx)
 * and waits until it has left; 0 on success. */
int forkjob_send_int(md_t *md, int to, int me, int tag, uint32_t ctx, int value);

/* A rank's last step: forkjob_finish, then forkjob_serve; returns rc. */
int forkjob_end(md_t *md, forkjob_shared_t *shared, int size, int rc);

/* The same after forwarded traffic: forkjob_finish and forkjob_serve (99 if
 * that fails), then progress until this rank's IndirectQueues are empty (the
 * destination sends the acknowledgements it gathered once they have waited
 * MULTIDEV_FWD_ACK_DELAY_US; 97 if they are not within 10 s), then wait for
 * the others.  Returns rc, or the first of those that failed if rc is 0.
 * Uses shared->counters[FORKJOB_DRAINED]. */
#define FORKJOB_DRAINED 63
int forkjob_end_drained(md_t *md, forkjob_shared_t *shared, int size, int rc);

/* A rundir of the test's own for the emulated NICs (MULTIDEV_NIC_RUNDIR):
 * a subdevice that drives one starts its node's nicd there on demand
 * (MULTIDEV_NICD, which make check sets); see test_nic_rundir.h.  0, or
 * -1 if MULTIDEV_NICD is unset or the directory cannot be made. */
int  forkjob_nic_rundir_make(void);
void forkjob_nic_rundir_remove(void);

/* This rank's idle sleeps so far, from md_print_stats: how many, how many
 * ran to their bound, and how many of those were late (a lost wake-up).
 * 0 on success, -1 if the stats have no idle line (it never slept). */
typedef struct forkjob_idle {
    unsigned long long sleeps, timeouts, late;
} forkjob_idle_t;
int forkjob_idle_stats(md_t *md, forkjob_idle_t *out);

/* The index of the subdevice called name in md's device list, or -1. */
int forkjob_subdev_index(md_t *md, const char *name);

#endif
