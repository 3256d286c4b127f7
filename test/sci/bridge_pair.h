/* bridge_pair.h - a few emulated nodes in one process: one bridge firmware
 * thread, one host attachment and one endpoint per node. */
#ifndef BRIDGE_PAIR_H
#define BRIDGE_PAIR_H

#include "core/nic_fw_thread.h"
#include "core/nic_host.h"
#include "sci/sci_host.h"

#define BP_MAX 3

typedef struct bp_node {
    nic_fw_thread_t *fw;
    nic_host_t      *h;
    sci_dev_t       *dev;
} bp_node_t;

typedef struct bridge_pair {
    int       n;
    bp_node_t node[BP_MAX];
    char      rundir[64];
} bridge_pair_t;

/* n nodes; job[i] (0: 1) numbers node i's endpoint's job (test_job.h); fault applies to every
 * firmware's transmissions. */
int  bp_start(bridge_pair_t *bp, int n, const uint64_t *job, const nic_fault_t *fault);
/* inproc: each node's firmware started by its host as an in-process
 * firmware (the host lends it turns, nic_host_lend), not a thread of ours. */
int  bp_start_opts(bridge_pair_t *bp, int n, int inproc);
int  bp_start_full(bridge_pair_t *bp, int n, const uint64_t *job, const nic_fault_t *fault,
                   int inproc);
void bp_stop(bridge_pair_t *bp);
/* A region of node i with every access bit, zeroed. */
int  bp_region(bridge_pair_t *bp, int i, uint64_t size, nic_mr_t *mr);
/* Wait (bounded) for a CQE of node i. */
int  bp_cqe(bridge_pair_t *bp, int i, sci_cqe_t *c, int timeout_ms);
/* Wait (bounded) until the 64-bit word at p equals v. */
int  bp_until(const void *p, uint64_t v, int timeout_ms);
/* Store barrier on node i, waited for. */
int  bp_barrier(bridge_pair_t *bp, int i);

#endif /* BRIDGE_PAIR_H */
