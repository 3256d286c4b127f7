/* myri_harness.c - fork-based ranks over subdev-myri with a fake host. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "md_log.h"
#include "test_nic_rundir.h"
#include "test_ranks.h"
#include "test_req.h"
#include "core/nic_host.h"
#include "myri_harness.h"
#include "test_job.h"

MD_LOAD_DEVICE_PTR(myri);

typedef struct mh_shared {
    _Atomic int arrived;
    _Atomic int generation;
    uint16_t    card_len[MH_MAX_RANKS];
    uint8_t     card[MH_MAX_RANKS][MD_CARD_MAX];
} mh_shared_t;

static mh_shared_t *mh_sh;

uint64_t mh_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

void mh_env_setup(void)
{
    if (test_nic_rundir("mh") != 0)
        abort();
    if (getenv("MULTIDEV_NICD") == NULL && getenv("MH_NICD") != NULL)
        setenv("MULTIDEV_NICD", getenv("MH_NICD"), 1);
}

void mh_barrier(mh_rank_t *r)
{
    int gen = atomic_load(&mh_sh->generation);
    if (atomic_fetch_add(&mh_sh->arrived, 1) + 1 == r->w->n) {
        atomic_store(&mh_sh->arrived, 0);
        atomic_fetch_add(&mh_sh->generation, 1);
        return;
    }
    test_idle_t idle = { 0 };
    while (atomic_load(&mh_sh->generation) == gen) {
        /* keep the NIC traffic moving while others catch up */
        if (r->ops.progress(&r->sd) > 0)
            test_idle_busy(&idle);
        else
            test_idle_wait(&idle);
    }
}

static void fh_complete(md_subdev_t *sd, md_request_t *req)
{
    atomic_store(&req->complete, 1);
}

static int fh_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    mh_rank_t *r = sd->host_ctx;
    return !r->hold_arrivals;
}

static void fh_arrived(md_subdev_t *sd, const md_envelope_t *env) {}

static void fh_sysmsg(md_subdev_t *sd, const md_envelope_t *env, const void *payload)
{
    mh_rank_t *r = sd->host_ctx;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < env->size; i++)
        sum = sum * 31 + ((const uint8_t *)payload)[i];
    if (r->sys_count < MH_MAX_SYS) {
        r->sys_env[r->sys_count] = *env;
        r->sys_sum[r->sys_count] = sum;
    }
    r->sys_count++;
}

static void fh_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    mh_rank_t *r = sd->host_ctx;
    va_list ap;
    if (level > MD_LOG_WARN && getenv("MH_VERBOSE") == NULL)
        return;
    fprintf(stderr, "rank %d: ", r->rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void fh_peer_failed(md_subdev_t *sd, int32_t peer, int status)
{
    test_peer_failures_note(&((mh_rank_t *)sd->host_ctx)->failed, peer, status);
}

static int mh_rank_main(mh_world_t *w, int rank, int (*fn)(mh_rank_t *r))
{
    static mh_rank_t r;
    uint8_t serves[MH_MAX_RANKS];
    char node[32];
    uint8_t card[MD_CARD_MAX];
    size_t card_len = 0;
    int rc;

    memset(&r, 0, sizeof(r));
    r.rank = rank;
    r.w = w;
    r.host.complete = fh_complete;
    r.host.arrival_ok = fh_arrival_ok;
    r.host.arrived = fh_arrived;
    r.host.sysmsg = fh_sysmsg;
    r.host.log = fh_log;
    r.host.peer_failed = fh_peer_failed;
    if (myri_LoadDevicePtr(&r.ops) != MD_OK)
        return 10;
    r.sd.ops = &r.ops;
    r.sd.host = &r.host;
    r.sd.host_ctx = &r;
    r.sd.index = 1;
    snprintf(r.sd.name, sizeof(r.sd.name), "myri");
    for (int i = 0; i < w->n; i++)
        serves[i] = 1;
    snprintf(node, sizeof(node), "n%d", (int)w->node_of_rank[rank]);
    md_subdev_init_args_t a = {
        .world_rank = rank, .world_size = w->n, .node_of_rank = w->node_of_rank,
        .my_node = w->node_of_rank[rank], .num_nodes = w->num_nodes, .node_name = node,
        .job_id = w->job ? w->job : "mh-job",
        .job_secret = test_job_secret(w->job ? w->job : "mh-job"), .serves = serves, .role = MD_ROLE_GLOBAL,
        .params = w->params, .num_params = w->nparams,
    };
    if ((rc = r.ops.init(&r.sd, &a, card, &card_len)) != MD_OK) {
        fprintf(stderr, "rank %d: init failed: %s\n", rank, md_status_string(rc));
        return 11;
    }
    memcpy(mh_sh->card[rank], card, card_len);
    mh_sh->card_len[rank] = (uint16_t)card_len;
    mh_barrier(&r);
    const uint8_t *cp[MH_MAX_RANKS];
    for (int i = 0; i < w->n; i++)
        cp[i] = mh_sh->card[i];
    md_card_table_t ct = { .world_size = w->n, .card = cp, .len = mh_sh->card_len };
    if ((rc = r.ops.connect(&r.sd, &ct)) != MD_OK) {
        fprintf(stderr, "rank %d: connect failed: %s\n", rank, md_status_string(rc));
        return 12;
    }
    mh_barrier(&r);
    rc = fn(&r);
    r.ops.finalize(&r.sd);
    return rc;
}

int mh_run(mh_world_t *w, int (*fn)(mh_rank_t *r))
{
    pid_t pids[MH_MAX_RANKS];
    int failed;

    mh_env_setup();
    mh_sh = mmap(NULL, sizeof(*mh_sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mh_sh == MAP_FAILED)
        return w->n;
    memset(mh_sh, 0, sizeof(*mh_sh));
    if (w->num_nodes == 0)
        for (int i = 0; i < w->n; i++)
            if (w->node_of_rank[i] + 1 > w->num_nodes)
                w->num_nodes = w->node_of_rank[i] + 1;
    fflush(NULL);
    for (int i = 0; i < w->n; i++) {
        pids[i] = fork();
        if (pids[i] == 0)
            _exit(mh_rank_main(w, i, fn));
    }
    failed = test_ranks_reap(pids, w->n, w->timeout_s, "mh");
    munmap(mh_sh, sizeof(*mh_sh));
    return failed;
}

/* Waits as a multidevice would: poll, yielding the CPU when idle; after
 * MH_SPIN_US (default 100) without progress, sleep on the subdevice's
 * wait_fd (the NIC writes it) for at most a millisecond at a time. */
int mh_wait(mh_rank_t *r, md_request_t *req, int timeout_ms)
{
    static int spin_us = -1;
    uint64_t now = mh_now_us(), end = now + (uint64_t)timeout_ms * 1000, idle_since = now;

    if (spin_us < 0)
        spin_us = getenv("MH_SPIN_US") ? atoi(getenv("MH_SPIN_US")) : 100;
    while (!atomic_load(&req->complete)) {
        int rc = r->ops.progress(&r->sd);
        if (rc < 0)
            return rc;
        now = mh_now_us();
        if (now > end)
            return MD_ERR_TIMEOUT;
        if (rc > 0) {
            idle_since = now;
            continue;
        }
        int fd;
        if (now - idle_since >= (uint64_t)spin_us && r->ops.wait_fd != NULL &&
            (fd = r->ops.wait_fd(&r->sd, MD_WAIT_F_SOLE)) >= 0) {
            struct pollfd p = { .fd = fd, .events = POLLIN };
            poll(&p, 1, 1);
        } else {
            sched_yield();
        }
    }
    return req->status.error;
}

int mh_isend(mh_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf,
             size_t len, uint32_t flags)
{
    test_req_send(req, r->rank, dst, tag, 0, flags, buf, len);
    return r->ops.isend(&r->sd, req);
}

int mh_irecv(mh_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len)
{
    test_req_recv(req, src, tag, 0, buf, len);
    return r->ops.irecv(&r->sd, req);
}

int mh_nicd_pid(const char *node)
{
    nic_attach_opts_t o = { .node = node, .nic = "myri0" };
    nic_host_t *h;
    int pid;
    if (nic_host_attach(&o, &h) != NIC_OK)
        return -1;
    pid = (int)h->status->fw_pid;
    nic_host_detach(h);
    return pid;
}
