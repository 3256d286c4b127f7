/* lcp_pair.h - a few emulated nodes in one process: one firmware thread
 * (or nicd process), one host attachment and one GAM endpoint per node, on
 * one switch or on two cabled switches. */
#ifndef LCP_PAIR_H
#define LCP_PAIR_H

#include <netinet/in.h>

#include "core/nic_fw_thread.h"
#include "core/nic_host.h"
#include "myri/myri_fabric.h"
#include "myri/myri_gam.h"

#define LCP_PAIR_MAX 4

enum { LCP_TOPO_ONE_SWITCH = 0, LCP_TOPO_TWO_SWITCHES = 1 };

typedef struct lcp_node {
    nic_fw_thread_t   *fw;
    nic_host_t        *h;
    myri_gam_t        *g;
    struct sockaddr_in addr;
    uint16_t           sw;
    uint8_t            port;
} lcp_node_t;

typedef struct lcp_pair {
    int           n, topo;
    lcp_node_t    node[LCP_PAIR_MAX];
    myri_fabric_t fab;
    char          rundir[64];
} lcp_pair_t;

typedef struct lcp_pair_opts {
    int         n, topo;
    int         nicd;                    /* firmwares as nicd processes, not threads */
    int         inproc;                  /* firmwares the hosts start in-process and
                                            lend turns (nic_attach_opts_t.inproc) */
    uint32_t    credits;
    nic_fault_t fault;
    uint64_t    job[LCP_PAIR_MAX];       /* node i's job: test_job(job[i]), 0: 1 */
} lcp_pair_opts_t;

int  lcp_pair_start(lcp_pair_t *p, const lcp_pair_opts_t *o);
void lcp_pair_stop(lcp_pair_t *p);
/* Load the fabric and every node's peers into each node's endpoint (again,
 * after a test replaced a node's firmware or endpoint). */
int  lcp_pair_wire(lcp_pair_t *p);
/* Poll every node once; returns events. */
int  lcp_pair_poll(lcp_pair_t *p);
/* A counter from the firmware status text of node i ("crc", "retransmits",
 * ...), -1 if absent. */
long lcp_pair_counter(lcp_pair_t *p, int i, const char *name);

#endif /* LCP_PAIR_H */
