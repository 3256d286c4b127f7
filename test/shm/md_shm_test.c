/*
 * md_shm_test.c - the shm module as libmultidev uses it: forked ranks call
 * md_init (no node configuration: every peer on this node goes over shm),
 * the loader finds libmd_shm in the build tree, and MPI-style traffic
 * through md_isend/md_irecv must arrive intact and be counted by shm.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "md_sdi.h"
#include "multidev.h"
#include "shm_test_boot.h"

#define SLOT (64 * 1024)

TestSuite(md, .timeout = 60);

typedef struct boot_slots {
    uint8_t slot[TB_MAX_PROCS][SLOT];
} boot_slots_t;

static boot_slots_t *slots;

typedef struct boot_ctx {
    tb_shared_t *tb;
    int          rank;
} boot_ctx_t;

static int boot_allgather(void *c, const void *in, void *out, size_t len)
{
    boot_ctx_t *b = c;

    if (len > SLOT)
        return -1;
    memcpy(slots->slot[b->rank], in, len);
    tb_barrier(b->tb);
    for (int r = 0; r < b->tb->nprocs; r++)
        memcpy((uint8_t *)out + (size_t)r * len, slots->slot[r], len);
    tb_barrier(b->tb);
    return 0;
}

static int boot_barrier(void *c)
{
    tb_barrier(((boot_ctx_t *)c)->tb);
    return 0;
}

static int md_wait(md_t *md, md_request_t *req)
{
    double deadline = tb_now() + 20;

    while (!md_request_is_complete(req)) {
        int rc = md_progress(md);

        if (rc < 0)
            return rc;
        if (rc == 0) {
            sched_yield();
            if (tb_now() > deadline)
                return MD_ERR_TIMEOUT;
        }
    }
    return MD_OK;
}

/* md_init of this rank with no node configuration; *shm = the shm subdevice. */
static md_t *md_rank_init(tb_shared_t *tb, int rank, boot_ctx_t *bc, const md_subdev_t **shm)
{
    md_init_params_t p = {
        .world_rank = rank, .world_size = tb->nprocs, .job_id = tb->job_id,
        .bootstrap = { .allgather = boot_allgather, .barrier = boot_barrier,
                       .ctx = bc },
        .node_name = "n0", .module_path = SHM_TEST_MODULE_DIR,
    };
    md_t *md = NULL;
    int rc;

    bc->tb = tb;
    bc->rank = rank;
    unsetenv("MULTIDEV_CONFIG");
    rc = md_init(&p, &md);
    TB_CHECK(rc == MD_OK, "md_init: %s", md_status_string(rc));
    *shm = NULL;
    for (int i = 0; i < md_num_subdevs(md); i++)
        if (strcmp(md_subdev(md, i)->name, "shm") == 0)
            *shm = md_subdev(md, i);
    TB_CHECK(*shm != NULL, "shm not loaded");
    return md;
}

static int md_rank(tb_shared_t *tb, int rank, void *arg)
{
    static const size_t sizes[] = { 0, 8, 1000, 16384, 70000, 1u << 20, 4u << 20 };
    uint8_t *buf = malloc(4u << 20);
    const md_subdev_t *shm;
    boot_ctx_t bc;
    md_t *md = md_rank_init(tb, rank, &bc, &shm);
    int rc;

    (void)arg;

    /* ring: each rank sends every size to the next, receives from the
     * previous with ANY_SOURCE */
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        int next = (rank + 1) % tb->nprocs, prev = (rank + tb->nprocs - 1) % tb->nprocs;
        uint8_t *out = malloc(sizes[k] + 1);
        md_request_t s, r;

        memset(&s, 0, sizeof(s));      /* on_complete, user: the caller's */
        memset(&r, 0, sizeof(r));
        tb_fill(out, sizes[k], (uint32_t)(rank * 100 + k));
        rc = md_irecv(md, &r, buf, 4u << 20, -1, MD_ANY_SOURCE, (int)k, 5, NULL);
        TB_CHECK(rc == MD_OK, "md_irecv: %s", md_status_string(rc));
        rc = md_isend(md, &s, out, sizes[k], next, rank, (int)k, 5, 0);
        TB_CHECK(rc == MD_OK, "md_isend: %s", md_status_string(rc));
        TB_CHECK(md_wait(md, &s) == MD_OK && md_wait(md, &r) == MD_OK, "wait");
        TB_CHECK(r.status.src_rank == prev && r.status.size == sizes[k],
                 "from %d, %llu bytes", (int)r.status.src_rank,
                 (unsigned long long)r.status.size);
        TB_CHECK(tb_check(buf, sizes[k], (uint32_t)(prev * 100 + k)) == -1,
                 "data of %zu bytes", sizes[k]);
        free(out);
    }
    TB_CHECK(shm->counters.msgs_sent == sizeof(sizes) / sizeof(sizes[0]),
             "shm sent %llu messages", (unsigned long long)shm->counters.msgs_sent);
    TB_CHECK(shm->counters.rndv_sent > 0, "no rendezvous");
    rc = md_finalize(md);
    TB_CHECK(rc == MD_OK, "md_finalize: %s", md_status_string(rc));
    free(buf);
    return 0;
}

/* nprocs ranks running fn under libmultidev, to the end, leaving nothing. */
static void run_md_job(int nprocs, tb_rank_fn fn)
{
    tb_shared_t *tb = tb_create(nprocs);

    slots = mmap(NULL, sizeof(*slots), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(slots, MAP_FAILED);
    cr_assert_eq(tb_run(tb, fn, NULL, 50, NULL), 0);
    cr_assert_eq(tb_count_segments(tb), 0);
    munmap(slots, sizeof(*slots));
    tb_destroy(tb);
}

Test(md, shm_under_libmultidev, .timeout = 60)
{
    run_md_job(3, md_rank);
}

/* ------------------------------------------------------------ md_inject */

#define INJECT_MSGS 2000
#define INJECT_TAG  7

/* Rank 0 sends INJECT_MSGS numbered messages of 8..200 bytes to rank 1, each
 * by md_inject when it takes it, else by md_isend; rank 1 receives them in
 * order.  A 4 KiB ring fills, so sends queue and inject must refuse until
 * they have gone, or a later message would overtake them. */
static int inject_rank(tb_shared_t *tb, int rank, void *arg)
{
    static md_request_t reqs[INJECT_MSGS];
    static uint8_t out[INJECT_MSGS][200];
    static char by_isend[INJECT_MSGS];
    const md_subdev_t *shm;
    boot_ctx_t bc;
    md_t *md;
    int rc, injected = 0, refused = 0;
    uint8_t big[64 * 1024], in[200];

    (void)arg;
    setenv("MULTIDEV_SHM_RING_SIZE", "4k", 1);
    md = md_rank_init(tb, rank, &bc, &shm);
    if (rank == 0) {
        /* what inject leaves to isend: a sync send, a system tag, a large message */
        TB_CHECK(md_inject(md, out[0], 8, 1, 0, 1, 5, MD_ENV_F_SYNC) == MD_ERR_NO_RESOURCE,
                 "a synchronous send was injected");
        TB_CHECK(md_inject(md, out[0], 8, 1, 0, -3, 5, 0) == MD_ERR_NO_RESOURCE,
                 "a system tag was injected");
        TB_CHECK(md_inject(md, big, sizeof(big), 1, 0, 1, 5, 0) == MD_ERR_NO_RESOURCE,
                 "a message over the eager limit was injected");
        TB_CHECK(md_inject(md, out[0], 8, 9, 0, 1, 5, 0) == MD_ERR_NO_RESOURCE,
                 "an injection to a rank that does not exist");
        for (int i = 0; i < INJECT_MSGS; i++) {
            size_t len = 8 + (size_t)(i * 37) % 193;

            tb_fill(out[i], len, (uint32_t)i);
            rc = md_inject(md, out[i], len, 1, 0, INJECT_TAG, 5, 0);
            if (rc == MD_OK) {
                injected++;
                continue;
            }
            TB_CHECK(rc == MD_ERR_NO_RESOURCE, "md_inject: %s", md_status_string(rc));
            refused++;
            by_isend[i] = 1;
            memset(&reqs[i], 0, sizeof(reqs[i]));
            rc = md_isend(md, &reqs[i], out[i], len, 1, 0, INJECT_TAG, 5, 0);
            TB_CHECK(rc == MD_OK, "md_isend: %s", md_status_string(rc));
            if ((i & 15) == 0)
                md_progress(md);    /* the queue drains: injection resumes */
        }
        for (int i = 0; i < INJECT_MSGS; i++)
            if (by_isend[i])
                TB_CHECK(md_wait(md, &reqs[i]) == MD_OK, "send %d", i);
        TB_CHECK(injected > 0 && refused > 0, "%d injected, %d refused: the ring never filled",
                 injected, refused);
        TB_CHECK(shm->counters.msgs_sent == INJECT_MSGS, "shm counted %llu sends",
                 (unsigned long long)shm->counters.msgs_sent);
    } else {
        for (int i = 0; i < INJECT_MSGS; i++) {
            md_request_t r;
            size_t len = 8 + (size_t)(i * 37) % 193;

            memset(&r, 0, sizeof(r));
            if ((i & 63) == 0)
                usleep(2000);       /* let the sender's ring fill */
            rc = md_irecv(md, &r, in, sizeof(in), 0, 0, INJECT_TAG, 5, NULL);
            TB_CHECK(rc == MD_OK && md_wait(md, &r) == MD_OK, "receive %d", i);
            TB_CHECK(r.status.size == len && tb_check(in, len, (uint32_t)i) == -1,
                     "message %d: %llu bytes or its data out of order", i,
                     (unsigned long long)r.status.size);
        }
    }
    tb_barrier(tb);
    rc = md_finalize(md);
    TB_CHECK(rc == MD_OK, "md_finalize: %s", md_status_string(rc));
    return 0;
}

Test(md, inject_sends_small_messages_in_order_behind_queued_ones, .timeout = 60)
{
    run_md_job(2, inject_rank);
}
