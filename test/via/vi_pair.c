/* vi_pair.c - emulated VI nodes in one process (see vi_pair.h). */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/nic_host.h"
#include "vi_pair.h"
#include "test_job.h"

uint64_t vi_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

int vi_pair_start(vi_pair_t *p, const vi_pair_opts_t *o)
{
    nic_fw_config_t cfg;
    int rc;

    memset(p, 0, sizeof(*p));
    p->n = o && o->n ? o->n : 2;
    snprintf(p->rundir, sizeof(p->rundir), "/tmp/vi-XXXXXX");
    if (mkdtemp(p->rundir) == NULL)
        return -1;
    for (int i = 0; i < p->n; i++) {
        vi_node_t *n = &p->node[i];
        snprintf(n->name, sizeof(n->name), "v%d", i);
        nic_fw_config_defaults(&cfg, NULL);
        cfg.node = n->name;
        cfg.nic = "via0";
        cfg.pers = "via";
        cfg.rundir = p->rundir;
        cfg.idle_exit_ms = -1;
        if (o != NULL) {
            cfg.fault = o->fault;
            cfg.fault.seed = o->fault.seed + (uint64_t)i * 7919;
        }
        if ((rc = nic_fw_thread_start(&cfg, &n->fw)) != NIC_OK)
            return rc;
        nic_job_t job = test_job(o && o->job[i] ? o->job[i] : 1);
        vipl_nic_opts_t no = { .node = n->name, .nic = "via0", .rundir = p->rundir,
                               .job = &job };
        if ((rc = vipl_open_nic(&no, &n->nic)) != VIPL_SUCCESS)
            return -100 - rc;
        if ((rc = vipl_create_ptag(n->nic, &n->ptag)) != VIPL_SUCCESS)
            return -100 - rc;
    }
    return 0;
}

void vi_pair_stop(vi_pair_t *p)
{
    for (int i = 0; i < p->n; i++) {
        if (p->node[i].nic != NULL)
            vipl_close_nic(p->node[i].nic);
        nic_fw_thread_stop(p->node[i].fw);
    }
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", p->rundir);
    if (system(cmd) != 0) {
        /* leftovers in /tmp only */
    }
}

vipl_vi_attr_t vi_attr(vi_node_t *n, uint32_t level, int rdma_write, int rdma_read)
{
    vipl_vi_attr_t a;
    memset(&a, 0, sizeof(a));
    a.reliability = level;
    a.max_transfer = level == VIA_UNRELIABLE ? 8192 : 1u << 20;
    a.ptag = n->ptag;
    a.enable_rdma_write = rdma_write;
    a.enable_rdma_read = rdma_read;
    a.send_depth = 16;
    a.recv_depth = 16;
    return a;
}

vipl_result_t vi_connect(vi_pair_t *p, int a, int b, const vipl_vi_attr_t *aa,
                         const vipl_vi_attr_t *ba, vipl_cq_t *cq_a, vipl_cq_t *cq_b,
                         vipl_vi_t **va, vipl_vi_t **vb)
{
    static unsigned disc_counter;
    vipl_net_addr_t remote, local;
    vipl_conn_t conn;
    vipl_result_t r;
    uint32_t disc = ++disc_counter;

    if ((r = vipl_create_vi(p->node[a].nic, aa, cq_a, cq_a, va)) != VIPL_SUCCESS)
        return r;
    if ((r = vipl_create_vi(p->node[b].nic, ba, cq_b, cq_b, vb)) != VIPL_SUCCESS)
        return r;
    vipl_nic_address(p->node[b].nic, &remote);
    vipl_addr_set_disc(&remote, &disc, sizeof(disc));
    memset(&local, 0, sizeof(local));
    vipl_addr_set_disc(&local, &disc, sizeof(disc));
    if ((r = vipl_connect_start(*va, &remote, 5000)) != VIPL_SUCCESS)
        return r;
    if ((r = vipl_connect_wait(p->node[b].nic, &local, 5000, &conn)) != VIPL_SUCCESS)
        return r;
    if ((r = vipl_connect_accept(&conn, *vb)) != VIPL_SUCCESS)
        return r;
    uint64_t end = vi_now_us() + 5000000;
    while ((r = vipl_connect_poll(*va)) == VIPL_NOT_DONE && vi_now_us() < end)
        sched_yield();
    return r;
}

vipl_result_t vi_buf_make(vi_node_t *n, size_t len, int shared, int rdma_write, int rdma_read,
                          vi_buf_t *b)
{
    vipl_mem_attr_t ma = { .ptag = n->ptag, .enable_rdma_write = rdma_write,
                           .enable_rdma_read = rdma_read };
    void *va = NULL;
    vipl_result_t r;

    memset(b, 0, sizeof(*b));
    b->nic = n->nic;
    b->len = len;
    b->shared = shared;
    if (shared) {
        r = vipl_alloc_mem(n->nic, len, &ma, &va, &b->h);
        b->mem = va;
        return r;
    }
    if (posix_memalign(&va, 4096, len) != 0)
        return VIPL_ERROR_RESOURCE;
    memset(va, 0, len);
    b->mem = va;
    r = vipl_register_mem(n->nic, va, len, &ma, &b->h);
    if (r != VIPL_SUCCESS) {
        free(va);
        b->mem = NULL;
    }
    return r;
}

void vi_buf_free(vi_buf_t *b)
{
    if (b->mem == NULL)
        return;
    if (b->shared) {
        vipl_free_mem(b->nic, b->mem);
    } else {
        vipl_deregister_mem(b->nic, b->mem, b->h);
        free(b->mem);
    }
    b->mem = NULL;
}

via_desc_t *vi_desc(vi_buf_t *descs, int i)
{
    return (via_desc_t *)(descs->mem + (size_t)i * 512);
}

static vipl_result_t poll(vipl_vi_t *vi, int timeout_ms, via_desc_t **d, int recv)
{
    uint64_t end = vi_now_us() + (uint64_t)timeout_ms * 1000;
    vipl_result_t r;
    while ((r = recv ? vipl_recv_done(vi, d) : vipl_send_done(vi, d)) == VIPL_NOT_DONE) {
        if (vi_now_us() > end)
            return VIPL_TIMEOUT;
        sched_yield();
    }
    return r;
}

vipl_result_t vi_poll_send(vipl_vi_t *vi, int t, via_desc_t **d) { return poll(vi, t, d, 0); }
vipl_result_t vi_poll_recv(vipl_vi_t *vi, int t, via_desc_t **d) { return poll(vi, t, d, 1); }

long vi_counter(vi_pair_t *p, int node, const char *name)
{
    nic_attach_opts_t ao = { .node = p->node[node].name, .nic = "via0", .rundir = p->rundir };
    nic_host_t *h;
    char buf[4096], key[64];
    const char *s;
    long v = -1;

    if (nic_host_attach(&ao, &h) != NIC_OK)
        return -1;
    if (nic_host_status(h, buf, sizeof(buf)) == NIC_OK) {
        snprintf(key, sizeof(key), " %s ", name);
        if ((s = strstr(buf, key)) != NULL)
            v = strtol(s + strlen(key), NULL, 10);
    }
    nic_host_detach(h);
    return v;
}
