/* sci_job.c - forked ranks over subdev-sci with a fake multidevice. */
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

#include "test_nic_rundir.h"
#include "test_ranks.h"
#include "test_req.h"
#include "sci_impl.h"
#include "sci_job.h"
#include "test_job.h"

MD_LOAD_DEVICE_PTR(sci);

/* What the ranks share: a sense-reversing barrier and the cards. */
typedef struct sj_board {
    _Atomic int count;
    _Atomic int sense;
    uint16_t    len[SJ_MAX_RANKS];
    uint8_t     card[SJ_MAX_RANKS][MD_CARD_MAX];
} sj_board_t;

static sj_board_t *board;

uint64_t sj_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

void sj_fill(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)((i * 2654435761u + seed * 40503u) >> 13);
}

int sj_check(const uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (uint8_t)((i * 2654435761u + seed * 40503u) >> 13))
            return 0;
    return 1;
}

void sj_barrier(sj_rank_t *r)
{
    int sense = atomic_load(&board->sense);

    if (atomic_fetch_add(&board->count, 1) + 1 == r->job->n) {
        atomic_store(&board->count, 0);
        atomic_store(&board->sense, !sense);
        return;
    }
    test_idle_t idle = { 0 };
    while (atomic_load(&board->sense) == sense) {
        /* peers may wait on our flags */
        if (r->sd.priv != NULL && r->ops.progress(&r->sd) > 0)
            test_idle_busy(&idle);
        else
            test_idle_wait(&idle);
    }
}

/* --- the fake multidevice --- */

static void fake_complete(md_subdev_t *sd, md_request_t *req)
{
    atomic_store(&req->complete, 1);
}

static int fake_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    return !((sj_rank_t *)sd->host_ctx)->hold;
}

static void fake_arrived(md_subdev_t *sd, const md_envelope_t *env)
{
    ((sj_rank_t *)sd->host_ctx)->arrived++;
}

static void fake_sysmsg(md_subdev_t *sd, const md_envelope_t *env, const void *payload)
{
    sj_rank_t *r = sd->host_ctx;
    uint64_t h = 14695981039346656037ull;

    for (uint64_t i = 0; i < env->size; i++)
        h = (h ^ ((const uint8_t *)payload)[i]) * 1099511628211ull;
    if (r->nsys < SJ_MAX_SYS) {
        r->sys_env[r->nsys] = *env;
        r->sys_sum[r->nsys] = h;
    }
    r->nsys++;
}

static void fake_log(md_subdev_t *sd, int level, const char *fmt, ...)
{
    va_list ap;

    if (level > MD_LOG_WARN && getenv("SJ_VERBOSE") == NULL)
        return;
    fprintf(stderr, "[rank %d] ", ((sj_rank_t *)sd->host_ctx)->rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void fake_peer_failed(md_subdev_t *sd, int32_t peer, int status)
{
    test_peer_failures_note(&((sj_rank_t *)sd->host_ctx)->failed, peer, status);
}

static int rank_main(sj_job_t *job, int rank, int (*body)(sj_rank_t *r))
{
    static sj_rank_t r;
    uint8_t serves[SJ_MAX_RANKS], card[MD_CARD_MAX];
    const uint8_t *cards[SJ_MAX_RANKS];
    size_t card_len = 0;
    char node[32];
    int rc;

    memset(&r, 0, sizeof(r));
    r.rank = rank;
    r.job = job;
    r.host = (md_sdi_host_t){ .complete = fake_complete, .arrival_ok = fake_arrival_ok,
                              .arrived = fake_arrived, .sysmsg = fake_sysmsg,
                              .log = fake_log, .peer_failed = fake_peer_failed };
    if (sci_LoadDevicePtr(&r.ops) != MD_OK)
        return 90;
    r.sd = (md_subdev_t){ .ops = &r.ops, .host = &r.host, .host_ctx = &r, .index = 2 };
    snprintf(r.sd.name, sizeof(r.sd.name), "sci");
    for (int i = 0; i < job->n; i++)
        serves[i] = i != rank && (job->serves == NULL || job->serves(job, rank, i));
    snprintf(node, sizeof(node), "node%d", (int)job->node[rank]);
    md_subdev_init_args_t a = {
        .world_rank = rank, .world_size = job->n, .node_of_rank = job->node,
        .my_node = job->node[rank], .node_name = node, .job_id = job->id ? job->id : "sj",
        .job_secret = test_job_secret(job->id ? job->id : "sj"),
        .job_key = test_job_key(job->id ? job->id : "sj"),
        .serves = serves, .role = MD_ROLE_GLOBAL, .params = job->params,
        .num_params = job->nparams,
    };
    for (int i = 0; i < job->n; i++)
        a.num_nodes = job->node[i] + 1 > a.num_nodes ? job->node[i] + 1 : a.num_nodes;
    if ((rc = r.ops.init(&r.sd, &a, card, &card_len)) != MD_OK) {
        fprintf(stderr, "[rank %d] init: %s\n", rank, md_status_string(rc));
        return 91;
    }
    memcpy(board->card[rank], card, card_len);
    board->len[rank] = (uint16_t)card_len;
    sj_barrier(&r);
    for (int i = 0; i < job->n; i++)
        cards[i] = board->card[i];
    md_card_table_t ct = { .world_size = job->n, .card = cards, .len = board->len };
    if ((rc = r.ops.connect(&r.sd, &ct)) != MD_OK) {
        fprintf(stderr, "[rank %d] connect: %s\n", rank, md_status_string(rc));
        return 92;
    }
    sj_barrier(&r);
    rc = body(&r);
    sj_barrier(&r);
    r.ops.finalize(&r.sd);
    return rc;
}

int sj_run(sj_job_t *job, int (*body)(sj_rank_t *r))
{
    pid_t pid[SJ_MAX_RANKS];
    int failed;

    if (test_nic_rundir("sj") != 0)
        abort();
    board = mmap(NULL, sizeof(*board), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (board == MAP_FAILED)
        return job->n;
    memset(board, 0, sizeof(*board));
    fflush(NULL);
    for (int i = 0; i < job->n; i++)
        if ((pid[i] = fork()) == 0)
            _exit(rank_main(job, i, body));
    failed = test_ranks_reap(pid, job->n, job->timeout_s, "sj");
    munmap(board, sizeof(*board));
    return failed;
}

int sj_wait(sj_rank_t *r, md_request_t *req, int timeout_ms)
{
    return test_ranks_wait(r->ops.progress, &r->sd, req, timeout_ms);
}

int sj_send(sj_rank_t *r, md_request_t *req, int32_t dst, int32_t tag, const void *buf,
            size_t len, uint32_t flags)
{
    test_req_send(req, r->rank, dst, tag, 0, flags, buf, len);
    return r->ops.isend(&r->sd, req);
}

int sj_recv(sj_rank_t *r, md_request_t *req, int32_t src, int32_t tag, void *buf, size_t len)
{
    test_req_recv(req, src, tag, 0, buf, len);
    return r->ops.irecv(&r->sd, req);
}

int sj_bridge_pid(sj_rank_t *r)
{
    sci_ctx_t *ctx = r->sd.priv;
    return ctx != NULL && ctx->nic != NULL ? (int)ctx->nic->status->fw_pid : -1;
}

long sj_remote_reads(sj_rank_t *r)
{
    sci_stats_t st;
    if (sj_stats(r, &st) != MD_OK)
        return -1;
    return (long)(st.ep.remote_reads + st.ep.rx_reads_served);
}

int sj_stats(sj_rank_t *r, sci_stats_t *st)
{
    sci_ctx_t *ctx = r->sd.priv;
    return sci_stats(ctx->dev, st);
}

void sj_dump(sj_rank_t *r)
{
    sci_ctx_t *ctx = r->sd.priv;
    for (int32_t i = 0; i < ctx->nserved; i++) {
        int32_t q = ctx->served[i];
        sci_peer_t *p = &ctx->peers[q];
        fprintf(stderr, "[rank %d] peer %d: next_id %llu oldest %llu ring %llu..%llu rx_next %llu "
                "rdv_used %u sendq %s tp_sent %llu failed %d ctlq %s\n", r->rank, q,
                (unsigned long long)p->next_id, (unsigned long long)p->oldest_id,
                (unsigned long long)p->ring_tail, (unsigned long long)p->ring_head,
                (unsigned long long)p->rx_next, p->rdv_used, p->sendq.head ? "busy" : "empty",
                (unsigned long long)p->tp_sent, p->failed, ctx->ctl_head ? "busy" : "empty");
    }
}
