/* mp_ranks.c - rank bodies shared by the multi-process tests (mp_ranks.h). */
#include "config.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "mp_ranks.h"
#include "shm_impl.h"

void send_wait(tb_dev_t *dev, int dst, const void *buf, size_t len,
                      int tag, uint32_t flags)
{
    md_request_t s;

    tb_send_req(dev, &s, dst, buf, len, tag, CTX, flags);
    TB_CHECK(dev->ops.isend(&dev->sd, &s) == MD_OK, "isend");
    TB_CHECK(tb_wait(dev, &s, 20) == 0, "send of %zu bytes timed out", len);
    TB_CHECK(s.status.error == MD_OK, "send: %s", md_status_string(s.status.error));
}

void recv_wait(tb_dev_t *dev, int src, void *buf, size_t len, int tag,
                      md_request_t *r)
{
    tb_recv_req(r, src, buf, len, tag, CTX);
    TB_CHECK(dev->ops.irecv(&dev->sd, r) == MD_OK, "irecv");
    TB_CHECK(tb_wait(dev, r, 20) == 0, "receive of %zu bytes timed out", len);
}

static const size_t pp_sizes[] = {
    0, 1, 7, 8, 63, 64, 100, 1000, 4095, 4096, 8192, 16383, 16384, 16385,
    32768, 65536, 100000, 262144, 1000000, 1u << 20, 3u << 20, 4u << 20,
};

int pingpong_rank(tb_shared_t *tb, int rank, void *arg)
{
    const char *const *params = arg;
    tb_dev_t dev;
    uint8_t *out = malloc(MAX_MSG), *in = malloc(MAX_MSG + 64);
    int peer = 1 - rank;

    TB_CHECK(out && in, "malloc");
    TB_CHECK(tb_dev_open(tb, rank, &dev, params, 0) == MD_OK, "open");
    for (size_t k = 0; k < sizeof(pp_sizes) / sizeof(pp_sizes[0]); k++) {
        size_t len = pp_sizes[k];

        for (int round = 0; round < 2; round++) {
            uint32_t seed = (uint32_t)(k * 4 + round * 2);
            md_request_t r;

            if (rank == 0) {
                tb_fill(out, len, seed);
                send_wait(&dev, peer, out, len, 10, 0);
                memset(in, 0, len + 64);
                recv_wait(&dev, peer, in, len + 64, 11, &r);
                TB_CHECK(r.status.size == len && r.status.error == MD_OK,
                         "size %zu: got %llu (%s)", len,
                         (unsigned long long)r.status.size,
                         md_status_string(r.status.error));
                TB_CHECK(tb_check(in, len, seed + 1) == -1,
                         "size %zu: byte %ld wrong", len, tb_check(in, len, seed + 1));
            } else {
                memset(in, 0, len + 64);
                recv_wait(&dev, peer, in, len + 64, 10, &r);
                TB_CHECK(r.status.size == len, "size %zu: got %llu", len,
                         (unsigned long long)r.status.size);
                TB_CHECK(tb_check(in, len, seed) == -1, "size %zu: byte %ld wrong",
                         len, tb_check(in, len, seed));
                tb_fill(out, len, seed + 1);
                send_wait(&dev, peer, out, len, 11, 0);
            }
        }
    }
    TB_CHECK(dev.sd.counters.eager_sent > 0 && dev.sd.counters.rndv_sent > 0,
             "eager %llu rndv %llu", (unsigned long long)dev.sd.counters.eager_sent,
             (unsigned long long)dev.sd.counters.rndv_sent);
    TB_CHECK(dev.sd.counters.msgs_recvd == dev.sd.counters.msgs_sent, "counts");
    /* which path did large messages take? flags[rank] tells the parent */
    atomic_store(&tb->flags[rank], shm_ctx(&dev.sd)->peers[
        shm_ctx(&dev.sd)->local_of_world[peer]].cma_ok ? 1 : 2);
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    free(out);
    free(in);
    return 0;
}

#define WINDOW 64

/* Rank 0 sends many messages at once (ring full: sends queue in order),
 * rank 1 receives them with ANY_TAG in order. */
int window_rank(tb_shared_t *tb, int rank, void *arg)
{
    static md_request_t req[WINDOW];
    static uint8_t buf[WINDOW][3000];
    tb_dev_t dev;
    md_request_t *list[WINDOW];

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    for (int iter = 0; iter < 20; iter++) {
        for (int i = 0; i < WINDOW; i++) {
            size_t len = (size_t)(i * 47) % 3000;

            list[i] = &req[i];
            if (rank == 0) {
                tb_fill(buf[i], len, (uint32_t)(iter * WINDOW + i));
                tb_send_req(&dev, &req[i], 1, buf[i], len, i, CTX, 0);
                TB_CHECK(dev.ops.isend(&dev.sd, &req[i]) == MD_OK, "isend");
            } else {
                tb_recv_req(&req[i], 0, buf[i], sizeof(buf[i]), MD_ANY_TAG, CTX);
                TB_CHECK(dev.ops.irecv(&dev.sd, &req[i]) == MD_OK, "irecv");
            }
        }
        TB_CHECK(tb_wait_all(&dev, list, WINDOW, 20) == 0, "window timed out");
        for (int i = 0; rank == 1 && i < WINDOW; i++) {
            size_t len = (size_t)(i * 47) % 3000;

            TB_CHECK(req[i].status.tag == i, "message %d came as tag %d", i,
                     (int)req[i].status.tag);
            TB_CHECK(req[i].status.size == len, "size");
            TB_CHECK(tb_check(buf[i], len, (uint32_t)(iter * WINDOW + i)) == -1,
                     "data of message %d", i);
        }
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

#define AS_MSGS 200

int any_source_rank(tb_shared_t *tb, int rank, void *arg)
{
    tb_dev_t dev;
    int next[TB_MAX_PROCS] = { 0 };

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    if (rank == 0) {
        for (int i = 0; i < AS_MSGS * (tb->nprocs - 1); i++) {
            uint32_t v[600] = { 0 };
            md_request_t r;
            int src;
            size_t want;

            recv_wait(&dev, MD_ANY_SOURCE, v, sizeof(v), MD_ANY_TAG, &r);
            src = r.status.src_rank;
            TB_CHECK(src >= 1 && src < tb->nprocs, "source %d", src);
            TB_CHECK(r.status.tag == src, "tag %d from %d", (int)r.status.tag, src);
            TB_CHECK((int)v[0] == next[src], "from %d: message %u, expected %d "
                     "(non-overtaking)", src, v[0], next[src]);
            want = (size_t)(1 + (next[src] % 5) * 100) * sizeof(uint32_t);
            TB_CHECK(r.status.size == want, "size");
            for (size_t k = 1; k < want / 4; k++)
                TB_CHECK(v[k] == (uint32_t)(src * 1000 + next[src]), "payload");
            next[src]++;
        }
    } else {
        for (int i = 0; i < AS_MSGS; i++) {
            uint32_t v[600];
            size_t n = (size_t)(1 + (i % 5) * 100);

            v[0] = (uint32_t)i;
            for (size_t k = 1; k < n; k++)
                v[k] = (uint32_t)(rank * 1000 + i);
            send_wait(&dev, 0, v, n * sizeof(uint32_t), rank, 0);
        }
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

int sysmsg_rank(tb_shared_t *tb, int rank, void *arg)
{
    static uint8_t small[200], big[300000];
    tb_dev_t dev;

    TB_CHECK(tb_dev_open(tb, rank, &dev, arg, 0) == MD_OK, "open");
    tb_fill(small, sizeof(small), 1);
    tb_fill(big, sizeof(big), 2);
    if (rank == 0) {
        for (int i = 0; i < 10; i++) {
            send_wait(&dev, 1, small, sizeof(small), -2, 0);
            send_wait(&dev, 1, big, sizeof(big), -3, 0);
        }
    } else {
        md_request_t r;
        int x;
        double until = tb_now() + 20;

        /* a user receive that must never see a system message */
        tb_recv_req(&r, MD_ANY_SOURCE, &x, sizeof(x), MD_ANY_TAG, CTX);
        TB_CHECK(dev.ops.irecv(&dev.sd, &r) == MD_OK, "irecv");
        while (tb_host_log.sysmsgs < 20 && tb_now() < until)
            if (tb_progress(&dev) == 0)
                sched_yield();
        TB_CHECK(tb_host_log.sysmsgs == 20, "got %d system messages",
                 tb_host_log.sysmsgs);
        TB_CHECK(tb_host_log.sys_checksum ==
                 10 * (tb_checksum(small, sizeof(small)) + tb_checksum(big, sizeof(big))),
                 "system message payloads");
        TB_CHECK(!atomic_load(&r.complete), "user receive matched a sysmsg");
        TB_CHECK(dev.ops.recv_cancel(&dev.sd, &r) == MD_OK, "cancel");
        TB_CHECK(dev.sd.counters.sysmsgs_recvd == 20, "counter");
    }
    tb_barrier(tb);
    TB_CHECK(tb_dev_close(&dev) == MD_OK, "close");
    return 0;
}

