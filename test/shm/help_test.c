/*
 * help_test.c - large messages that the sender helps its receiver copy
 * (shm_help.c), between forked ranks driving the subdevice's ops: the data
 * arrive intact at every size and with truncation, both sides take chunks,
 * and a sender that does not progress holds nothing up.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>
#include <unistd.h>

#include "mp_ranks.h"
#include "shm_impl.h"
#include "shm_test_boot.h"

TestSuite(help, .timeout = 120);

/* help_min given: the oversubscription rule (no help with more ranks than
 * processing units) would otherwise turn it off on a small machine */
static const char *const help_params[] = { "help_min=32k", NULL };

/* Two ranks running fn with params to the end, leaving no segment. */
static tb_shared_t *run_pair(tb_rank_fn fn, const char *const *params)
{
    tb_shared_t *tb = tb_create(2);

    cr_assert_eq(tb_run(tb, fn, (void *)params, 100, NULL), 0);
    cr_assert_eq(tb_count_segments(tb), 0);
    return tb;
}

static shm_ctx_t *ctx_of(tb_dev_t *dev)
{
    return shm_ctx(&dev->sd);
}

static const size_t help_sizes[] = {
    48 * 1024 + 5, 128 * 1024, 128 * 1024 + 1, 1u << 20, (1u << 20) + 4093, 4u << 20,
};
#define HELP_ROUNDS 8

/* Rank 0 sends every size HELP_ROUNDS times, rank 1 checks every byte;
 * flags[r] = chunks rank r copied (given as sender, taken as receiver). */
static int help_data_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    uint8_t *buf = malloc(5u << 20);

    TB_CHECK(buf != NULL, "malloc");
    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    for (int round = 0; round < HELP_ROUNDS; round++) {
        for (size_t k = 0; k < sizeof(help_sizes) / sizeof(help_sizes[0]); k++) {
            size_t len = help_sizes[k];
            uint32_t seed = (uint32_t)(round * 16 + k);
            md_request_t r;

            if (rank == 0) {
                tb_fill(buf, len, seed);
                send_wait(&dev, 1, buf, len, 3, 0);
            } else {
                memset(buf, 0, len);
                recv_wait(&dev, 0, buf, 5u << 20, 3, &r);
                TB_CHECK(r.status.error == MD_OK && r.status.size == len,
                         "%zu bytes: %s, %llu bytes", len, md_status_string(r.status.error),
                         (unsigned long long)r.status.size);
                TB_CHECK(tb_check(buf, len, seed) == -1, "%zu bytes: byte %ld wrong", len,
                         tb_check(buf, len, seed));
            }
        }
    }
    atomic_store(&tb->flags[rank], (int)(rank == 0 ? ctx_of(&dev)->help_chunks_given
                                                   : ctx_of(&dev)->help_chunks_taken));
    TB_CHECK(ctx_of(&dev)->help_free == (1u << SHM_HELP_SLOTS) - 1, "help slots left taken");
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    free(buf);
    return 0;
}

Test(help, large_messages_arrive_intact_and_both_sides_copy)
{
    tb_shared_t *tb = run_pair(help_data_rank, help_params);

    cr_assert_gt(atomic_load(&tb->flags[1]), 0, "the receiver copied no chunk");
    cr_assert_gt(atomic_load(&tb->flags[0]), 0,
                 "the sender, waiting for its sends, never helped");
    tb_destroy(tb);
}

Test(help, off_when_help_min_is_0)
{
    static const char *const params[] = { "help_min=0", NULL };
    tb_shared_t *tb = run_pair(help_data_rank, params);

    cr_assert_eq(atomic_load(&tb->flags[0]) + atomic_load(&tb->flags[1]), 0,
                 "chunks copied with help_min=0");
    tb_destroy(tb);
}

/* Rank 0 starts a 4 MiB send and sleeps without progress; rank 1's
 * receive must complete meanwhile (flags[0] is still 0), by its own
 * copying.  A 700 KiB receive of a 1 MiB message then gets what fits. */
static int help_busy_sender_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    size_t len = 4u << 20;
    uint8_t *buf = malloc(len);
    md_request_t s, r;

    TB_CHECK(buf != NULL, "malloc");
    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    if (rank == 0) {
        tb_fill(buf, len, 7);
        tb_send_req(&dev, &s, 1, buf, len, 4, CTX, 0);
        TB_CHECK(dev.ops.isend(&dev.sd, &s) == MD_OK, "isend");
        usleep(300 * 1000);             /* busy elsewhere: no progress */
        atomic_store(&tb->flags[0], 1);
        TB_CHECK(tb_wait(&dev, &s, 20) == 0 && s.status.error == MD_OK, "send");
        tb_fill(buf, 1u << 20, 8);
        send_wait(&dev, 1, buf, 1u << 20, 5, 0);
    } else {
        recv_wait(&dev, 0, buf, len, 4, &r);
        TB_CHECK(atomic_load(&tb->flags[0]) == 0,
                 "the receive waited for the sender to progress");
        TB_CHECK(r.status.error == MD_OK && tb_check(buf, len, 7) == -1, "4 MiB data");
        recv_wait(&dev, 0, buf, 700 * 1024, 5, &r);
        TB_CHECK(r.status.error == MD_ERR_TRUNCATE && r.status.size == 700 * 1024 &&
                 r.status.msg_size == 1u << 20, "truncated: %s, %llu of %llu",
                 md_status_string(r.status.error), (unsigned long long)r.status.size,
                 (unsigned long long)r.status.msg_size);
        TB_CHECK(tb_check(buf, 700 * 1024, 8) == -1, "truncated data");
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    free(buf);
    return 0;
}

Test(help, a_sender_that_does_not_progress_holds_nothing_up)
{
    tb_destroy(run_pair(help_busy_sender_rank, help_params));
}

/* A window of large messages at once: several receives wait for their
 * chunks together (more than there are help slots: the rest take the
 * single copy), each completes once, with its own data. */
#define HELP_WINDOW 24
#define HELP_WLEN   (512 * 1024 + 77)

static int help_window_rank(tb_shared_t *tb, int rank, void *arg)
{
    static md_request_t reqs[HELP_WINDOW];
    md_request_t *ptrs[HELP_WINDOW];
    tb_dev_t dev;
    uint8_t *buf = malloc((size_t)HELP_WINDOW * HELP_WLEN);

    TB_CHECK(buf != NULL, "malloc");
    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    for (int round = 0; round < 4; round++) {
        for (int i = 0; i < HELP_WINDOW; i++) {
            uint8_t *b = buf + (size_t)i * HELP_WLEN;

            ptrs[i] = &reqs[i];
            if (rank == 0) {
                tb_fill(b, HELP_WLEN, (uint32_t)(round * 100 + i));
                tb_send_req(&dev, &reqs[i], 1, b, HELP_WLEN, 6, CTX, 0);
                TB_CHECK(dev.ops.isend(&dev.sd, &reqs[i]) == MD_OK, "isend %d", i);
            } else {
                memset(b, 0, HELP_WLEN);
                tb_recv_req(&reqs[i], 0, b, HELP_WLEN, 6, CTX);
                TB_CHECK(dev.ops.irecv(&dev.sd, &reqs[i]) == MD_OK, "irecv %d", i);
            }
        }
        TB_CHECK(tb_wait_all(&dev, ptrs, HELP_WINDOW, 30) == 0, "round %d timed out", round);
        for (int i = 0; rank == 1 && i < HELP_WINDOW; i++)
            TB_CHECK(reqs[i].status.error == MD_OK &&
                     tb_check(buf + (size_t)i * HELP_WLEN, HELP_WLEN,
                              (uint32_t)(round * 100 + i)) == -1,
                     "round %d message %d: %s or data", round, i,
                     md_status_string(reqs[i].status.error));
    }
    TB_CHECK(ctx_of(&dev)->help_waiting == 0 &&
             ctx_of(&dev)->help_free == (1u << SHM_HELP_SLOTS) - 1, "help state left over");
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    free(buf);
    return 0;
}

Test(help, a_window_of_large_messages_each_completes_once)
{
    tb_destroy(run_pair(help_window_rank, help_params));
}
