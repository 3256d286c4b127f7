/* bridge_pair.c - emulated nodes in one process for the bridge tests. */
#include "config.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bridge_pair.h"
#include "test_job.h"

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int bp_start(bridge_pair_t *bp, int n, const uint64_t *job, const nic_fault_t *fault)
{
    return bp_start_full(bp, n, job, fault, 0);
}

int bp_start_opts(bridge_pair_t *bp, int n, int inproc)
{
    return bp_start_full(bp, n, NULL, NULL, inproc);
}

int bp_start_full(bridge_pair_t *bp, int n, const uint64_t *job, const nic_fault_t *fault,
                  int inproc)
{
    int rc;

    memset(bp, 0, sizeof(*bp));
    bp->n = n;
    snprintf(bp->rundir, sizeof(bp->rundir), "/tmp/bp-XXXXXX");
    if (mkdtemp(bp->rundir) == NULL)
        return NIC_ERR_IO;
    for (int i = 0; i < n; i++) {
        nic_fw_config_t cfg;
        char name[16];
        snprintf(name, sizeof(name), "b%d", i);
        nic_fw_config_defaults(&cfg, NULL);
        cfg.node = name;
        cfg.nic = "sci0";
        cfg.pers = "sci";
        cfg.rundir = bp->rundir;
        cfg.idle_exit_ms = -1;
        if (fault != NULL) {
            cfg.fault = *fault;
            cfg.fault.seed = fault->seed + (uint64_t)i * 104729;
        }
        if (!inproc && (rc = nic_fw_thread_start(&cfg, &bp->node[i].fw)) != NIC_OK)
            return rc;
        nic_attach_opts_t o = { .node = name, .nic = "sci0", .pers = "sci",
                                .rundir = bp->rundir, .inproc = inproc };
        if ((rc = nic_host_attach(&o, &bp->node[i].h)) != NIC_OK)
            return rc;
        if ((rc = sci_open(bp->node[i].h, test_jobp(job && job[i] ? job[i] : 1), 1024, 256,
                           &bp->node[i].dev)) != NIC_OK)
            return rc;
    }
    return NIC_OK;
}

void bp_stop(bridge_pair_t *bp)
{
    char cmd[128];

    for (int i = 0; i < bp->n; i++) {
        sci_close(bp->node[i].dev);
        nic_host_detach(bp->node[i].h);
        if (bp->node[i].fw != NULL)
            nic_fw_thread_stop(bp->node[i].fw);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", bp->rundir);
    if (system(cmd) != 0) {
        /* a leftover temp directory is harmless */
    }
}

int bp_region(bridge_pair_t *bp, int i, uint64_t size, nic_mr_t *mr)
{
    return nic_mr_alloc(bp->node[i].dev->ep, size,
                        NIC_MR_LOCAL_READ | NIC_MR_LOCAL_WRITE | NIC_MR_REMOTE_READ |
                            NIC_MR_REMOTE_WRITE, mr);
}

int bp_cqe(bridge_pair_t *bp, int i, sci_cqe_t *c, int timeout_ms)
{
    uint64_t end = now_ms() + (uint64_t)timeout_ms;
    int rc;

    while ((rc = sci_poll(bp->node[i].dev, c)) == 0) {
        if (now_ms() > end)
            return NIC_ERR_TIMEOUT;
        sched_yield();
    }
    return rc == 1 ? NIC_OK : rc;
}

int bp_until(const void *p, uint64_t v, int timeout_ms)
{
    uint64_t end = now_ms() + (uint64_t)timeout_ms;

    while (atomic_load_explicit((const _Atomic uint64_t *)p, memory_order_acquire) != v) {
        if (now_ms() > end)
            return NIC_ERR_TIMEOUT;
        sched_yield();
    }
    return NIC_OK;
}

int bp_barrier(bridge_pair_t *bp, int i)
{
    sci_cqe_t c;
    int rc = sci_post(bp->node[i].dev, SCI_OP_BARRIER, 0, 0, 0, 0, 99);

    if (rc != NIC_OK || (rc = bp_cqe(bp, i, &c, 5000)) != NIC_OK)
        return rc;
    return c.op == SCI_OP_BARRIER && c.cookie == 99 ? c.status : NIC_ERR_INVALID;
}
