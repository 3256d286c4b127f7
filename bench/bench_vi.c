/* bench_vi.c - the raw VI benchmark of P4 Table 1: two processes, each on
 * its own emulated node with its own VI firmware (in-process: each is its
 * node's only process, and it lends the firmware its polling, as the
 * subdevices do; doc/nic.md §1), one reliable delivery VI between them,
 * descriptors and buffers in memory shared with the NIC.  Ping-pong by polling (VipRecvDone) and by blocking
 * (VipRecvWait); streaming with a window that the receiver's
 * acknowledgements keep below the receives it has posted. */
#include "config.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "via/vipl.h"
#include "via_bench.h"

#define RECVS     32                 /* receives posted by each side */
#define WINDOW    24                 /* messages in flight (< RECVS) */
#define ACK_EVERY 8

typedef struct vi_shared {
    _Atomic int     phase;
    vipl_net_addr_t server;          /* rank 1's NIC address */
    double          out[3];
} vi_shared_t;

typedef struct vi_end {
    vipl_nic_t       *nic;
    vipl_vi_t        *vi;
    uint8_t          *mem;           /* descriptors, then buffers */
    vipl_mem_handle_t h;
    size_t            buf;           /* bytes per buffer */
} vi_end_t;

static via_desc_t *desc(vi_end_t *e, int i)
{
    return (via_desc_t *)(e->mem + (size_t)i * 128);
}

static uint8_t *bufp(vi_end_t *e, int i)
{
    return e->mem + (size_t)(2 * RECVS) * 128 + (size_t)i * e->buf;
}


/* The job both ranks belong to, drawn before they fork. */
static nic_job_t vi_job;

static int post_recv(vi_end_t *e, int i)
{
    via_desc_t *d = desc(e, i);
    vipl_desc_init(d, 0);
    vipl_desc_add_data(d, bufp(e, i), e->h, (uint32_t)e->buf);
    return vipl_post_recv(e->vi, d, e->h) == VIPL_SUCCESS ? 0 : -1;
}

static int post_send(vi_end_t *e, int slot, size_t len)
{
    via_desc_t *d = desc(e, RECVS + slot);
    vipl_result_t r;
    vipl_desc_init(d, 0);
    vipl_desc_add_data(d, bufp(e, RECVS + slot), e->h, (uint32_t)len);
    if ((r = vipl_post_send(e->vi, d, e->h)) != VIPL_SUCCESS) {
        fprintf(stderr, "bench_vi: post send: %s\n", vipl_result_str(r));
        return -1;
    }
    return 0;
}

/* Nothing done yet: the firmware's turn on this CPU. */
static void idle(vi_end_t *e)
{
    if (vipl_nic_lend(e->nic) < 0)
        sched_yield();                   /* the firmware runs elsewhere */
}

static int recv_done(vi_end_t *e, int block, via_desc_t **d)
{
    vipl_result_t r;
    if (block)
        return vipl_recv_wait(e->vi, 30000, d) == VIPL_SUCCESS ? 0 : -1;
    uint64_t spins = 0;
    while ((r = vipl_recv_done(e->vi, d)) == VIPL_NOT_DONE) {
        int rc;
        idle(e);
        if (++spins % 4096 == 0 && (rc = vipl_nic_check(e->nic)) != 0) {
            fprintf(stderr, "bench_vi: the NIC: %d\n", rc);
            return -1;
        }
    }
    if (r != VIPL_SUCCESS || (atomic_load(&(*d)->cs.status) & VIA_STATUS_ERROR_MASK)) {
        fprintf(stderr, "bench_vi: receive: %s, status %#x\n", vipl_result_str(r),
                r == VIPL_SUCCESS ? atomic_load(&(*d)->cs.status) : 0);
        return -1;
    }
    return 0;
}

static void reap_sends(vi_end_t *e)
{
    via_desc_t *d;
    while (vipl_send_done(e->vi, &d) == VIPL_SUCCESS)
        ;
}

static void sync_phase(vi_shared_t *sh, int want)
{
    atomic_fetch_add(&sh->phase, 1);
    while (atomic_load(&sh->phase) < want)
        sched_yield();
}

static int vi_fail(vi_end_t *e, const char *what, int i)
{
    vipl_vi_info_t info;
    vipl_query_vi(e->vi, &info);
    fprintf(stderr, "bench_vi: %s failed at %d: VI state %u, asynchronous error %u\n", what, i,
            info.state, info.async_error);
    return -1;
}

static int pingpong(vi_end_t *e, int rank, const bench_opts_t *o, int block, double *out)
{
    int warm = o->iters / 10 + 10;
    double t0 = 0;
    via_desc_t *d;

    for (int i = -warm; i < o->iters; i++) {
        int slot = (i + warm) % RECVS;   /* a descriptor is reposted only once done */
        if (i == 0)
            t0 = bench_now_us();
        if (rank == 0) {
            if (post_send(e, slot, o->lat_size) || recv_done(e, block, &d))
                return vi_fail(e, "ping", i);
        } else {
            if (recv_done(e, block, &d) || post_send(e, slot, o->lat_size))
                return vi_fail(e, "pong", i);
        }
        if (post_recv(e, (int)(((uint8_t *)d - e->mem) / 128)))
            return vi_fail(e, "repost", i);
        reap_sends(e);
    }
    *out = (bench_now_us() - t0) / o->iters / 2;
    return 0;
}

static int stream(vi_end_t *e, int rank, const bench_opts_t *o, double *out)
{
    size_t count = o->bw_total / o->bw_size;
    via_desc_t *d;
    double t0 = bench_now_us();

    if (rank == 1) {
        for (size_t got = 0; got < count; got++) {
            if (recv_done(e, 0, &d) || post_recv(e, (int)(((uint8_t *)d - e->mem) / 128)))
                return -1;
            reap_sends(e);
            if ((got + 1) % ACK_EVERY == 0 || got + 1 == count)
                if (post_send(e, (int)(got / ACK_EVERY) % 4, 4))
                    return -1;
        }
        return 0;
    }
    size_t sent = 0, acked = 0;
    int slot = 0;
    while (acked < count) {
        while (sent < count && sent - acked < WINDOW) {
            via_desc_t *s;
            /* a send descriptor is reused only once it is done */
            if (sent >= WINDOW)
                while (vipl_send_done(e->vi, &s) != VIPL_SUCCESS)
                    idle(e);
            if (post_send(e, slot, o->bw_size))
                return -1;
            slot = (slot + 1) % WINDOW;
            sent++;
        }
        if (recv_done(e, 0, &d) || post_recv(e, (int)(((uint8_t *)d - e->mem) / 128)))
            return -1;
        acked = acked + ACK_EVERY > count ? count : acked + ACK_EVERY;
    }
    *out = (double)(count * o->bw_size) / (bench_now_us() - t0);
    return 0;
}

static int vi_rank(int rank, vi_shared_t *sh, const bench_opts_t *o, const char *timing,
                   int inproc)
{
    char node[16];
    vi_end_t e = { .buf = o->bw_size > o->lat_size ? o->bw_size : o->lat_size };
    vipl_ptag_t ptag;
    vipl_vi_attr_t a;
    vipl_net_addr_t addr;
    uint32_t disc = 0x76696221;

    if (o->pin)
        bench_pin(rank);                 /* before the firmware starts: it inherits the CPU */
    snprintf(node, sizeof(node), "n%d", rank);
    vipl_nic_opts_t no = { .node = node, .nic = "via0", .job = &vi_job, .start = 1,
                           .inproc = inproc };
    if (vipl_open_nic(&no, &e.nic) != VIPL_SUCCESS || vipl_create_ptag(e.nic, &ptag))
        return 10;
    if (timing != NULL && vipl_set_timing(e.nic, timing) != VIPL_SUCCESS)
        return 11;
    vipl_mem_attr_t ma = { .ptag = ptag };
    void *va;
    if (vipl_alloc_mem(e.nic, (size_t)(2 * RECVS) * (128 + e.buf), &ma, &va, &e.h) != VIPL_SUCCESS)
        return 12;
    e.mem = va;
    memset(&a, 0, sizeof(a));
    a.reliability = VIA_RELIABLE_DELIVERY;
    a.max_transfer = 1u << 20;
    a.ptag = ptag;
    a.send_depth = 64;
    a.recv_depth = 64;
    if (vipl_create_vi(e.nic, &a, NULL, NULL, &e.vi) != VIPL_SUCCESS)
        return 13;
    for (int i = 0; i < RECVS; i++)
        if (post_recv(&e, i))
            return 14;
    if (rank == 1) {
        vipl_conn_t conn;
        vipl_nic_address(e.nic, &sh->server);
        sync_phase(sh, 2);
        memset(&addr, 0, sizeof(addr));
        vipl_addr_set_disc(&addr, &disc, sizeof(disc));
        if (vipl_connect_wait(e.nic, &addr, 20000, &conn) != VIPL_SUCCESS ||
            vipl_connect_accept(&conn, e.vi) != VIPL_SUCCESS)
            return 15;
    } else {
        sync_phase(sh, 2);
        addr = sh->server;
        vipl_addr_set_disc(&addr, &disc, sizeof(disc));
        if (vipl_connect_request(e.vi, &addr, 20000, NULL) != VIPL_SUCCESS)
            return 16;
    }
    sync_phase(sh, 4);
    if (pingpong(&e, rank, o, 0, &sh->out[0]))
        return 17;
    sync_phase(sh, 6);
    bench_opts_t ob = *o;
    ob.iters = o->iters / 4 + 1;
    if (pingpong(&e, rank, &ob, 1, &sh->out[1]))
        return 18;
    sync_phase(sh, 8);
    double bw = 0;
    if (stream(&e, rank, o, &bw))
        return 19;
    if (rank == 0)
        sh->out[2] = bw;
    sync_phase(sh, 10);
    vipl_destroy_vi(e.vi);
    vipl_close_nic(e.nic);
    return 0;
}

int bench_vi(const bench_opts_t *o, const char *timing, int inproc, vi_result_t *r)
{
    vi_shared_t *sh = bench_shared(sizeof(*sh));
    pid_t pid[2];
    int ok = 1;

    if (sh == NULL || nic_job_random(&vi_job) != 0)   /* both ranks' (they fork) */
        return -1;
    fflush(NULL);
    for (int i = 0; i < 2; i++)
        if ((pid[i] = fork()) == 0)
            _exit(vi_rank(i, sh, o, timing, inproc));
    for (int i = 0; i < 2; i++) {
        int st;
        waitpid(pid[i], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "bench_vi: rank %d failed (%d)\n", i,
                    WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
            ok = 0;
        }
    }
    r->half_rtt_us = sh->out[0];
    r->half_rtt_block_us = sh->out[1];
    r->bw_MBs = sh->out[2];
    return ok ? 0 : -1;
}
