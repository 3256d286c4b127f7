/* shm_test_boot.c - fork launcher and fake host for shm tests
 * (shm_test_boot.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shm_test_boot.h"
#include "test_req.h"
#include "test_host.h"

/* The subdevice under test, linked in from libshm_core. */
MD_LOAD_DEVICE_PTR(shm);

int tb_current_rank = -1;
tb_host_log_t tb_host_log;
int (*tb_arrival_hook)(const md_envelope_t *env);
int tb_log_level = -1;
unsigned tb_spin_before_yield = 16;

double tb_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ launcher */

/* LeakSanitizer's explicit check, present only in sanitized builds: forked
 * ranks leave with _exit (Criterion's exit handlers belong to the parent),
 * which would skip the leak check at exit. */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

tb_shared_t *tb_create(int nprocs)
{
    static int counter;
    pthread_barrierattr_t attr;
    tb_shared_t *tb;

    if (nprocs < 1 || nprocs > TB_MAX_PROCS)
        return NULL;
    tb = mmap(NULL, sizeof(*tb), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (tb == MAP_FAILED)
        return NULL;
    memset(tb, 0, sizeof(*tb));
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&tb->barrier, &attr, (unsigned)nprocs);
    pthread_barrierattr_destroy(&attr);
    tb->nprocs = nprocs;
    /* pid, counter and clock: a pid reused after a killed run never
     * meets that run's segments */
    snprintf(tb->job_id, sizeof(tb->job_id), "tshm%dx%dt%llx", (int)getpid(),
             counter++, (unsigned long long)(tb_now() * 1e6) & 0xffffffull);
    for (int r = 0; r < nprocs; r++)
        tb_set_node(tb, r, 0, "n0");
    return tb;
}

void tb_destroy(tb_shared_t *tb)
{
    if (tb == NULL)
        return;
    pthread_barrier_destroy(&tb->barrier);
    munmap(tb, sizeof(*tb));
}

void tb_set_node(tb_shared_t *tb, int rank, int node, const char *name)
{
    tb->node_of_rank[rank] = node;
    snprintf(tb->node_name[rank], sizeof(tb->node_name[rank]), "%s", name);
}

void tb_barrier(tb_shared_t *tb)
{
    pthread_barrier_wait(&tb->barrier);
}

int tb_run(tb_shared_t *tb, tb_rank_fn fn, void *arg, int timeout_s, int *status)
{
    pid_t parent = getpid();
    int failed = 0, left = tb->nprocs;
    double deadline = tb_now() + timeout_s;
    int st[TB_MAX_PROCS];

    fflush(stdout);
    fflush(stderr);
    for (int r = 0; r < tb->nprocs; r++) {
        pid_t pid = fork();

        if (pid == 0) {
            /* never outlive the test, whatever happens to it */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(99);
            alarm((unsigned)timeout_s + 5);
            tb_current_rank = r;
            tb->pid[r] = getpid();      /* before any barrier */
            memset(&tb_host_log, 0, sizeof(tb_host_log));
            int rc = fn(tb, r, arg);
            if (rc == 0 && __lsan_do_recoverable_leak_check != NULL &&
                __lsan_do_recoverable_leak_check() != 0)
                rc = 1;
            fflush(stdout);
            fflush(stderr);
            _exit(rc == 0 ? 0 : 1);
        }
        tb->pid[r] = pid;
        st[r] = -1;
    }
    while (left > 0) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);

        if (pid > 0) {
            for (int r = 0; r < tb->nprocs; r++)
                if (tb->pid[r] == pid) {
                    st[r] = wstatus;
                    left--;
                }
            continue;
        }
        if (pid < 0 && errno != EINTR)
            break;
        if (tb_now() > deadline) {
            fprintf(stderr, "tb_run: ranks still running after %d s; "
                    "killing them\n", timeout_s);
            for (int r = 0; r < tb->nprocs; r++)
                if (st[r] == -1)
                    kill(tb->pid[r], SIGKILL);
            deadline = tb_now() + 3600;
        }
        usleep(2000);
    }
    for (int r = 0; r < tb->nprocs; r++) {
        if (status != NULL)
            status[r] = st[r];
        if (st[r] == -1 || !WIFEXITED(st[r]) || WEXITSTATUS(st[r]) != 0) {
            failed++;
            if (st[r] != -1 && WIFSIGNALED(st[r]))
                fprintf(stderr, "tb_run: rank %d died of signal %d\n", r,
                        WTERMSIG(st[r]));
            else if (st[r] != -1)
                fprintf(stderr, "tb_run: rank %d exited with %d\n", r,
                        WEXITSTATUS(st[r]));
        }
    }
    return failed;
}

int tb_count_segments(const tb_shared_t *tb)
{
    char prefix[96];
    struct dirent *de;
    DIR *dir = opendir("/dev/shm");
    int n = 0;

    if (dir == NULL)
        return 0;
    snprintf(prefix, sizeof(prefix), "mdshm-%s-", tb->job_id);
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0) {
            fprintf(stderr, "in /dev/shm: %s\n", de->d_name);
            n++;
        }
    }
    closedir(dir);
    return n;
}

/* ------------------------------------------------------------ fake host */

static void tb_host_complete(md_subdev_t *sd, md_request_t *req)
{
    (void)sd;
    tb_host_log.completions++;
    atomic_store_explicit(&req->complete, 1, memory_order_release);
}

static int tb_host_arrival_ok(md_subdev_t *sd, const md_envelope_t *env)
{
    (void)sd;
    if (tb_arrival_hook != NULL && !tb_arrival_hook(env)) {
        tb_host_log.held++;
        return 0;
    }
    return 1;
}

static void tb_host_arrived(md_subdev_t *sd, const md_envelope_t *env)
{
    (void)sd;
    (void)env;
    tb_host_log.arrived++;
}

static void tb_host_sysmsg(md_subdev_t *sd, const md_envelope_t *env,
                           const void *payload)
{
    (void)sd;
    tb_host_log.sysmsgs++;
    tb_host_log.last_sys_tag = env->tag;
    tb_host_log.last_sys_size = env->size;
    tb_host_log.sys_checksum += tb_checksum(payload, env->size);
}

static void tb_host_logf(md_subdev_t *sd, int level, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    if (tb_log_level == -1) {
        const char *env = getenv("TB_LOG_LEVEL");
        tb_log_level = env != NULL ? atoi(env) : 0;
    }
    if (level > tb_log_level)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[rank %d pid %d] log%d: %s: %s\n", tb_current_rank,
            (int)getpid(), level, sd->name, line);
}

test_peer_failures_t tb_peer_failures;

static void tb_host_peer_failed(md_subdev_t *sd, int32_t peer, int status)
{
    (void)sd;
    test_peer_failures_note(&tb_peer_failures, peer, status);
}

const md_sdi_host_t tb_host = {
    .complete = tb_host_complete,
    .arrival_ok = tb_host_arrival_ok,
    .arrived = tb_host_arrived,
    .sysmsg = tb_host_sysmsg,
    .log = tb_host_logf,
    .peer_failed = tb_host_peer_failed,
};

/* ------------------------------------------------------------ the device */

int tb_dev_open(tb_shared_t *tb, int rank, tb_dev_t *dev,
                const char *const *params, int skip_ready)
{
    static char kv[8][64];
    md_subdev_init_args_t args;
    const uint8_t *cards[TB_MAX_PROCS];
    md_card_table_t table;
    size_t card_len = 0;
    int rc;

    memset(dev, 0, sizeof(*dev));
    dev->rank = rank;
    dev->nprocs = tb->nprocs;
    tb_current_rank = rank;
    for (size_t i = 0; params != NULL && params[i] != NULL && i < 8; i++) {
        char *eq;

        snprintf(kv[i], sizeof(kv[i]), "%s", params[i]);
        eq = strchr(kv[i], '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        dev->params[dev->num_params].key = kv[i];
        dev->params[dev->num_params].value = eq + 1;
        dev->num_params++;
    }
    for (int r = 0; r < tb->nprocs; r++)
        dev->serves[r] = 1;

    rc = shm_LoadDevicePtr(&dev->ops);
    if (rc != MD_OK)
        return rc;
    dev->sd.ops = &dev->ops;
    dev->sd.host = &tb_host;
    dev->sd.index = 0;
    snprintf(dev->sd.name, sizeof(dev->sd.name), "shm");

    memset(&args, 0, sizeof(args));
    args.world_rank = rank;
    args.world_size = tb->nprocs;
    args.node_of_rank = tb->node_of_rank;
    args.my_node = tb->node_of_rank[rank];
    args.num_nodes = 1;
    args.node_name = tb->node_name[rank];
    args.job_id = tb->job_id;
    args.serves = dev->serves;
    args.role = MD_ROLE_LOCAL;
    args.params = dev->params;
    args.num_params = dev->num_params;

    rc = dev->ops.init(&dev->sd, &args, tb->card[rank], &card_len);
    tb->card_len[rank] = (uint16_t)(rc == MD_OK ? card_len : 0);
    tb_barrier(tb);                     /* the card exchange */
    if (rc != MD_OK) {
        tb_barrier(tb);                 /* keep the others in step */
        return rc;
    }
    if (tb->die_after_init == rank + 1)
        kill(getpid(), SIGKILL);
    if (tb->die_after_init != 0) {
        /* the others connect once the victim is gone (and reaped) */
        pid_t victim = tb->pid[tb->die_after_init - 1];
        double until = tb_now() + 10;

        while (kill(victim, 0) == 0 && tb_now() < until)
            usleep(1000);
    }
    for (int r = 0; r < tb->nprocs; r++)
        cards[r] = tb->card[r];
    table.world_size = tb->nprocs;
    table.card = cards;
    table.len = tb->card_len;
    rc = dev->ops.connect(&dev->sd, &table);
    if (tb->die_after_init != 0)
        return rc;                      /* no more barriers: one is dead */
    tb_barrier(tb);                     /* everybody connected */
    if (rc != MD_OK)
        return rc;
    if (!skip_ready)
        rc = dev->ops.ready(&dev->sd);
    return rc;
}

int tb_dev_close(tb_dev_t *dev)
{
    return dev->ops.finalize(&dev->sd);
}

void tb_send_req(tb_dev_t *dev, md_request_t *req, int dst, const void *buf,
                 size_t len, int tag, uint32_t context, uint32_t flags)
{
    test_req_send(req, dev->rank, dst, tag, context, flags, buf, len);
    req->env.seq = tag < 0 ? 0 : dev->seq_to[dst]++;
}

void tb_recv_req(md_request_t *req, int src, void *buf, size_t len, int tag,
                 uint32_t context)
{
    test_req_recv(req, src, tag, context, buf, len);
}

int tb_progress(tb_dev_t *dev)
{
    int rc = dev->ops.progress(&dev->sd);

    if (rc < 0) {
        dev->last_progress_error = rc;
        return 0;
    }
    return rc;
}

int tb_wait_all(tb_dev_t *dev, md_request_t **reqs, int n, double timeout_s)
{
    double deadline = tb_now() + timeout_s;
    unsigned idle = 0;

    for (;;) {
        int done = 0;

        for (int i = 0; i < n; i++)
            done += atomic_load_explicit(&reqs[i]->complete,
                                         memory_order_acquire) != 0;
        if (done == n)
            return 0;
        if (tb_progress(dev) > 0) {
            idle = 0;
            continue;
        }
        /* oversubscribed: give the core away when nothing happens */
        if (++idle >= tb_spin_before_yield) {
            sched_yield();
            idle = 0;
            if (tb_now() > deadline)
                return -1;
        }
    }
}

int tb_wait(tb_dev_t *dev, md_request_t *req, double timeout_s)
{
    return tb_wait_all(dev, &req, 1, timeout_s);
}

/* ------------------------------------------------------------ data */

void tb_fill(void *buf, size_t len, uint32_t seed)
{
    uint8_t *p = buf;
    uint32_t x = seed * 2654435761u + 1;

    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

long tb_check(const void *buf, size_t len, uint32_t seed)
{
    const uint8_t *p = buf;
    uint32_t x = seed * 2654435761u + 1;

    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if (p[i] != (uint8_t)x)
            return (long)i;
    }
    return -1;
}

uint64_t tb_checksum(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}
