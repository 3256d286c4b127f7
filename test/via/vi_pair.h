/* vi_pair.h - emulated VI nodes in one process for the NIC-level tests:
 * one VI firmware thread and one VI user agent (vipl) per node, a
 * protection tag each, and helpers to connect two VIs and to make
 * registered buffers and descriptors. */
#ifndef VI_PAIR_H
#define VI_PAIR_H

#include "core/nic_fw_thread.h"
#include "via/vipl.h"

#define VI_PAIR_MAX 3

typedef struct vi_node {
    nic_fw_thread_t *fw;
    vipl_nic_t      *nic;
    vipl_ptag_t      ptag;
    char             name[16];
} vi_node_t;

typedef struct vi_pair {
    int       n;
    vi_node_t node[VI_PAIR_MAX];
    char      rundir[64];
} vi_pair_t;

typedef struct vi_pair_opts {
    int         n;               /* 0: 2 */
    nic_fault_t fault;
    uint64_t    job[VI_PAIR_MAX];      /* node i's job: test_job(job[i]), 0: 1 */
} vi_pair_opts_t;

int  vi_pair_start(vi_pair_t *p, const vi_pair_opts_t *o);
void vi_pair_stop(vi_pair_t *p);

/* Attributes with sensible defaults for level (depths 16, 1 MiB transfers). */
vipl_vi_attr_t vi_attr(vi_node_t *n, uint32_t level, int rdma_write, int rdma_read);
/* Connect a VI on node a (client) to a new VI on node b (server). */
vipl_result_t vi_connect(vi_pair_t *p, int a, int b, const vipl_vi_attr_t *aa,
                         const vipl_vi_attr_t *ba, vipl_cq_t *cq_a, vipl_cq_t *cq_b,
                         vipl_vi_t **va, vipl_vi_t **vb);

/* A registered buffer (malloc'd: the NIC reaches it by cross-memory attach,
 * or shared with the NIC when shared is set) and descriptors in it. */
typedef struct vi_buf {
    vipl_nic_t       *nic;
    uint8_t          *mem;
    size_t            len;
    vipl_mem_handle_t h;
    int               shared;
} vi_buf_t;

vipl_result_t vi_buf_make(vi_node_t *n, size_t len, int shared, int rdma_write, int rdma_read,
                          vi_buf_t *b);
void          vi_buf_free(vi_buf_t *b);
/* Descriptor i (0..) of a descriptor area (each 512 bytes, 64-aligned). */
via_desc_t   *vi_desc(vi_buf_t *descs, int i);

/* Poll a queue until a descriptor is done or timeout_ms passes. */
vipl_result_t vi_poll_send(vipl_vi_t *vi, int timeout_ms, via_desc_t **d);
vipl_result_t vi_poll_recv(vipl_vi_t *vi, int timeout_ms, via_desc_t **d);
/* A counter from the firmware status ("recvq-empty", "protection", ...),
 * -1 if absent. */
long vi_counter(vi_pair_t *p, int node, const char *name);
uint64_t vi_now_us(void);

#endif /* VI_PAIR_H */
