/* forkjob.c - multi-process test jobs with a shared-memory bootstrap. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "forkjob.h"
#include "test_nic_rundir.h"
#include "test_ranks.h"

#define FORKJOB_SLOT (64 * 1024)

typedef struct forkjob_boot {
    pthread_barrier_t barrier;
    int               size;
    forkjob_shared_t  shared;
    uint8_t           slots[FORKJOB_MAX_RANKS][FORKJOB_SLOT];
} forkjob_boot_t;

typedef struct forkjob_ctx {
    forkjob_boot_t *boot;
    int             rank;
} forkjob_ctx_t;

static int forkjob_allgather(void *c, const void *in, void *out, size_t len)
{
    forkjob_ctx_t *ctx = c;
    forkjob_boot_t *b = ctx->boot;

    if (len > FORKJOB_SLOT)
        return -1;
    memcpy(b->slots[ctx->rank], in, len);
    pthread_barrier_wait(&b->barrier);
    for (int r = 0; r < b->size; r++)
        memcpy((uint8_t *)out + (size_t)r * len, b->slots[r], len);
    pthread_barrier_wait(&b->barrier);
    return 0;
}

static int forkjob_barrier(void *c)
{
    forkjob_ctx_t *ctx = c;

    pthread_barrier_wait(&ctx->boot->barrier);
    return 0;
}

static int forkjob_write_confs(char *dir, const char *const (*confs)[2])
{
    char path[512];

    snprintf(dir, 256, "/tmp/md-forkjob-%d-XXXXXX", (int)getpid());
    if (mkdtemp(dir) == NULL)
        return -1;
    for (int i = 0; confs != NULL && confs[i][0] != NULL; i++) {
        FILE *f;
        snprintf(path, sizeof(path), "%s/%s.conf", dir, confs[i][0]);
        f = fopen(path, "w");
        if (f == NULL)
            return -1;
        fputs(confs[i][1], f);
        fclose(f);
    }
    return 0;
}

static void forkjob_remove_confs(const char *dir, const char *const (*confs)[2])
{
    char path[512];

    for (int i = 0; confs != NULL && confs[i][0] != NULL; i++) {
        snprintf(path, sizeof(path), "%s/%s.conf", dir, confs[i][0]);
        unlink(path);
    }
    rmdir(dir);
}

static int forkjob_child(forkjob_boot_t *boot, int rank, int size,
                         const char *node, const char *dir, const char *job,
                         forkjob_fn fn, void *arg)
{
    forkjob_ctx_t ctx = { .boot = boot, .rank = rank };
    md_init_params_t p = {
        .world_rank = rank, .world_size = size, .job_id = job,
        .bootstrap = { forkjob_allgather, forkjob_barrier, &ctx },
        .config_path = dir, .node_name = node,
        .module_path = MD_TEST_MODULE_DIR,
    };
    md_t *md;
    int rc = md_init(&p, &md);

    if (rc != MD_OK) {
        fprintf(stderr, "rank %d: md_init: %s\n", rank, md_status_string(rc));
        return 10;
    }
    rc = fn(md, rank, size, &boot->shared, arg);
    if (md_finalize(md) != MD_OK && rc == 0)
        rc = 11;
    return rc;
}

int forkjob_run(int size, const char *const *nodes,
                const char *const (*confs)[2], forkjob_fn fn, void *arg,
                int timeout_s)
{
    forkjob_boot_t *boot;
    pthread_barrierattr_t attr;
    pid_t pids[FORKJOB_MAX_RANKS];
    char dir[256], job[64];
    int result;

    if (size > FORKJOB_MAX_RANKS || forkjob_write_confs(dir, confs) != 0)
        return -1;
    boot = mmap(NULL, sizeof(*boot), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (boot == MAP_FAILED)
        return -1;
    memset(boot, 0, sizeof(*boot));
    boot->size = size;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&boot->barrier, &attr, (unsigned)size);
    snprintf(job, sizeof(job), "fj%d-%ld", (int)getpid(), (long)time(NULL));

    fflush(NULL);
    for (int r = 0; r < size; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            _exit(forkjob_child(boot, r, size, nodes[r], dir, job, fn, arg));
    }
    result = test_ranks_reap(pids, size, (unsigned)timeout_s, "forkjob");
    forkjob_remove_confs(dir, confs);
    munmap(boot, sizeof(*boot));
    return result;
}

void forkjob_finish(forkjob_shared_t *shared)
{
    atomic_fetch_add(&shared->done, 1);
}

int forkjob_serve(md_t *md, forkjob_shared_t *shared, int size)
{
    while (atomic_load(&shared->done) < size) {
        if (md_progress(md) < 0)
            return -1;
        sched_yield();
    }
    return 0;
}

int forkjob_wait(md_t *md, md_request_t *req)
{
    for (long i = 0; i < 20000000 && !md_request_is_complete(req); i++) {
        if (md_progress(md) < 0)
            return -1;
        if ((i & 63) == 63)
            sched_yield();
    }
    return md_request_is_complete(req) ? 0 : -1;
}

int forkjob_run_env(const char *const (*env)[2], int size, const char *const *nodes,
                    const char *const (*confs)[2], forkjob_fn fn, void *arg, int timeout_s)
{
    for (int i = 0; env[i][0] != NULL; i++)
        setenv(env[i][0], env[i][1], 1);
    int rc = forkjob_run(size, nodes, confs, fn, arg, timeout_s);
    for (int i = 0; env[i][0] != NULL; i++)
        unsetenv(env[i][0]);
    return rc;
}

int forkjob_send_int(md_t *md, int to, int me, int tag, uint32_t ctx, int value)
{
    md_request_t req = { 0 };

    if (md_isend(md, &req, &value, sizeof(value), to, me, tag, ctx, 0) != MD_OK)
        return -1;
    return forkjob_wait(md, &req);
}

int forkjob_end(md_t *md, forkjob_shared_t *shared, int size, int rc)
{
    forkjob_finish(shared);
    forkjob_serve(md, shared, size);
    return rc;
}

static int forkjob_drain_indirect(md_t *md, forkjob_shared_t *shared, int size)
{
    double end = forkjob_now_s() + 10;
    int rc = 0;

    while (md_indirect_in_flight(md) != 0 && forkjob_now_s() < end)
        if (md_progress(md) < 0)
            break;
    if (md_indirect_in_flight(md) != 0)
        rc = -1;
    atomic_fetch_add(&shared->counters[FORKJOB_DRAINED], 1);
    while (atomic_load(&shared->counters[FORKJOB_DRAINED]) < size && forkjob_now_s() < end + 10)
        md_progress(md);
    return rc;
}

int forkjob_end_drained(md_t *md, forkjob_shared_t *shared, int size, int rc)
{
    forkjob_finish(shared);
    if (forkjob_serve(md, shared, size) != 0 && rc == 0)
        rc = 99;
    if (forkjob_drain_indirect(md, shared, size) != 0 && rc == 0)
        rc = 97;    /* every IndirectQueue empties: the acknowledgements came */
    return rc;
}

int forkjob_nic_rundir_make(void)
{
    return getenv("MULTIDEV_NICD") != NULL ? test_nic_rundir("forkjob") : -1;
}

void forkjob_nic_rundir_remove(void)
{
    test_nic_rundir_remove();
}

int forkjob_idle_stats(md_t *md, forkjob_idle_t *out)
{
    char *text = NULL, *line;
    size_t len = 0;
    int bound, found = 0;
    FILE *f = open_memstream(&text, &len);

    memset(out, 0, sizeof(*out));
    if (f == NULL)
        return -1;
    md_print_stats(md, f);
    fclose(f);
    if ((line = strstr(text, "stats idle: ")) != NULL)
        found = sscanf(line, "stats idle: %llu sleeps, %llu ran to their %d ms bound, %llu",
                       &out->sleeps, &out->timeouts, &bound, &out->late) == 4;
    free(text);
    return found ? 0 : -1;
}

int forkjob_subdev_index(md_t *md, const char *name)
{
    for (int i = 0; i < md_num_subdevs(md); i++)
        if (strcmp(md_subdev(md, i)->name, name) == 0)
            return i;
    return -1;
}
