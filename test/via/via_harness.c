/* via_harness.c - forked ranks over subdev-via with a fake host. */
#include "config.h"

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
#include "via_harness.h"
#include "test_job.h"

MD_LOAD_DEVICE_PTR(via);

/* Shared between the ranks of one run. */
typedef struct vh_board {
    _Atomic int count, phase;
    uint16_t    len[VH_MAX_RANKS];
    uint8_t     card[VH_MAX_RANKS][MD_CARD_MAX];
} vh_board_t;

static vh_board_t *board;

uint64_t vh_usec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

uint64_t vh_sum(const void *p, size_t n)
{
    uint64_t s = 1;
    for (size_t i = 0; i < n; i++)
        s = s * 131 + ((const uint8_t *)p)[i];
    return s;
}

void vh_barrier(vh_rank_t *r)
{
    int phase = atomic_load(&board->phase);
    if (atomic_fetch_add(&board->count, 1) == r->job->n - 1) {
        atomic_store(&board->count, 0);
        atomic_fetch_add(&board->phase, 1);
        return;
    }
    test_idle_t idle = { 0 };
    while (atomic_load(&board->phase) == phase) {
        /* keep our side of the traffic moving */
        if (r->ops.progress(&r->sd) > 0)
            test_idle_busy(&idle);
        else
            test_idle_wait(&idle);
    }
}

static void h_complete(md_subdev_t *sd, md_request_t *req)
{
    atomic_store(&req->complete, 1);
}

static int h_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    return !((vh_rank_t *)sd->host_ctx)->hold;
}

static void h_arrived(md_subdev_t *sd, const md_envelope_t *env)
{
    vh_rank_t *r = sd->host_ctx;
    r->arrivals++;
    if (env->src_world >= 0 && env->src_world < VH_MAX_RANKS)
        r->arrived_from[env->src_world]++;
}

static void h_sysmsg(md_subdev_t *sd, const md_envelope_t *env, const void *payload)
{
    vh_rank_t *r = sd->host_ctx;
    if (r->nsys < VH_MAX_SYS) {
        r->sys_env[r->nsys] = *env;
        r->sys_sum[r->nsys] = vh_sum(payload, env->size);
    }
    r->nsys++;
}

static void h_peer_failed(md_subdev_t *sd, int32_t peer, int status)
{
    test_peer_failures_note(&((vh_rank_t *)sd->host_ctx)->failed, peer, status);
}

static void h_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;
    if (level > MD_LOG_WARN && getenv("VH_VERBOSE") == NULL)
        return;
    fprintf(stderr, "rank %d: ", ((vh_rank_t *)sd->host_ctx)->rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int vh_rank(vh_job_t *j, int rank, int (*fn)(vh_rank_t *r))
{
    static vh_rank_t r;
    uint8_t serves[VH_MAX_RANKS], card[MD_CARD_MAX];
    const uint8_t *cards[VH_MAX_RANKS];
    size_t card_len = 0;
    char node[16];
    int rc, nodes = 0;

    memset(&r, 0, sizeof(r));
    r.rank = rank;
    r.job = j;
    if (j->pin) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(ncpu > 0 ? rank % ncpu : 0, &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    r.host = (md_sdi_host_t){ .complete = h_complete, .arrival_ok = h_arrival_ok,
                              .arrived = h_arrived, .sysmsg = h_sysmsg, .log = h_log,
                              .peer_failed = h_peer_failed };
    if (via_LoadDevicePtr(&r.ops) != MD_OK)
        return 20;
    r.sd.ops = &r.ops;
    r.sd.host = &r.host;
    r.sd.host_ctx = &r;
    r.sd.index = 2;
    snprintf(r.sd.name, sizeof(r.sd.name), "via");
    for (int i = 0; i < j->n; i++) {
        serves[i] = i != rank || j->serve_self;
        nodes = j->node_of[i] + 1 > nodes ? j->node_of[i] + 1 : nodes;
    }
    snprintf(node, sizeof(node), "n%d", (int)j->node_of[rank]);
    md_subdev_init_args_t a = {
        .world_rank = rank, .world_size = j->n, .node_of_rank = j->node_of,
        .my_node = j->node_of[rank], .num_nodes = nodes, .node_name = node,
        .job_id = j->job ? j->job : "vh-job",
        .job_secret = test_job_secret(j->job ? j->job : "vh-job"), .serves = serves, .role = MD_ROLE_GLOBAL,
        .params = j->params, .num_params = j->nparams,
    };
    if ((rc = r.ops.init(&r.sd, &a, card, &card_len)) != MD_OK) {
        fprintf(stderr, "rank %d: init: %s\n", rank, md_status_string(rc));
        return 21;
    }
    memcpy(board->card[rank], card, card_len);
    board->len[rank] = (uint16_t)card_len;
    vh_barrier(&r);
    for (int i = 0; i < j->n; i++)
        cards[i] = board->card[i];
    md_card_table_t ct = { .world_size = j->n, .card = cards, .len = board->len };
    if ((rc = r.ops.connect(&r.sd, &ct)) != MD_OK) {
        fprintf(stderr, "rank %d: connect: %s\n", rank, md_status_string(rc));
        return 22;
    }
    vh_barrier(&r);
    rc = fn(&r);
    vh_barrier(&r);
    r.ops.finalize(&r.sd);
    return rc;
}

int vh_run(vh_job_t *j, int (*fn)(vh_rank_t *r))
{
    pid_t pid[VH_MAX_RANKS];
    int failed;

    if (getenv("MULTIDEV_NIC_IDLE_MS") == NULL)
        setenv("MULTIDEV_NIC_IDLE_MS", "300", 1);
    if (test_nic_rundir("vh") != 0)
        return j->n;
    board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (board == MAP_FAILED)
        return j->n;
    memset(board, 0, sizeof(*board));
    fflush(NULL);
    for (int i = 0; i < j->n; i++)
        if ((pid[i] = fork()) == 0)
            _exit(vh_rank(j, i, fn));
    failed = test_ranks_reap(pid, j->n, j->timeout_s, "vh");
    munmap(board, sizeof(*board));
    return failed;
}

int vh_wait(vh_rank_t *r, md_request_t *req, int timeout_ms)
{
    return test_ranks_wait(r->ops.progress, &r->sd, req, timeout_ms);
}

int vh_send(vh_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf, size_t len,
            uint32_t flags)
{
    test_req_send(req, r->rank, dst, tag, 0, flags, buf, len);
    return r->ops.isend(&r->sd, req);
}

int vh_recv(vh_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len)
{
    test_req_recv(req, src, tag, 0, buf, len);
    return r->ops.irecv(&r->sd, req);
}

int vh_fw_pid(int node)
{
    char name[16];
    nic_attach_opts_t o = { .node = name, .nic = "via0" };
    nic_host_t *h;
    int pid;
    snprintf(name, sizeof(name), "n%d", node);
    if (nic_host_attach(&o, &h) != NIC_OK)
        return -1;
    pid = (int)h->status->fw_pid;
    nic_host_detach(h);
    return pid;
}
