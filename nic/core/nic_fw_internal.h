/* nic_fw_internal.h - the firmware core's own state; not for personalities. */
#ifndef NIC_FW_INTERNAL_H
#define NIC_FW_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "nic_ctl_proto.h"
#include "nic_fw.h"
#include "nic_job.h"

typedef struct nic_fw_conn {
    int   fd;        /* -1: free */
    int   pidfd;     /* -1 if pidfd_open is unavailable */
    pid_t pid;
} nic_fw_conn_t;

struct nic_fw {
    nic_fw_config_t       cfg;
    char                  node[64], nic[64];
    char                  dir[PATH_MAX];        /* <rundir>/<node> */
    char                  sock_path[PATH_MAX];
    const nic_pers_ops_t *pers;
    void                 *pers_state;
    nic_wire_t            wire;
    int                   listen_fd, event_fd, epoll_fd, status_fd;
    nic_status_page_t    *status;
    nic_fw_conn_t         conns[NIC_FW_MAX_CONN];
    unsigned              nconns;
    nic_fw_ep_t          *eps[NIC_FW_MAX_EP];
    unsigned              eps_end;              /* 1 + the highest slot in use: every
                                                   turn scans only up to it */
    uint32_t              ep_gen[NIC_FW_MAX_EP];
    atomic_int            stop;
    uint64_t              idle_since_ns;        /* no process attached since */
    int                   exit_when_idle;       /* NIC_CTL_START_FAILED: no idle
                                                   time after the last process */
    uint64_t              rng;
    nic_ctl_msg_t         ctl_msg;              /* control request being served */
    /* Everything a turn or a control request touches is changed only
     * under turn_lock: by the firmware's own loop, or by a host thread of
     * the same process that lends its idle time (nic_fw_lend). */
    pthread_mutex_t       turn_lock;
    _Atomic uint64_t      lent_ns;              /* last turn a host lent, or
                                                   NIC_FW_HOST_ON_WIRE */
    _Atomic uint64_t      next_ns;              /* the data path's next deadline */
    int                   wire_watched;         /* wire socket in the epoll set */
    uint8_t               ctl_out[NIC_CTL_DATA_MAX];
};

/* lent_ns while a host sleeps in poll() on the wire (nic_fw_host_on_wire) */
#define NIC_FW_HOST_ON_WIRE UINT64_MAX

/* epoll tags: kind << 32 | index */
enum { NIC_EV_LISTEN = 1, NIC_EV_EVENT, NIC_EV_WIRE, NIC_EV_CONN, NIC_EV_PIDFD };

int  nic_fw_ep_create(nic_fw_t *fw, uint32_t conn, const nic_job_t *job, uint32_t sq_n,
                      uint32_t rq_n, uint32_t cq_n, nic_fw_ep_t **ep_p);
void nic_fw_ep_destroy(nic_fw_t *fw, nic_fw_ep_t *ep);
int  nic_fw_mr_register(nic_fw_t *fw, nic_fw_ep_t *ep, int fd, uint64_t size,
                        uint32_t access, uint32_t *key_p);
int  nic_fw_mr_deregister(nic_fw_ep_t *ep, uint32_t key);
uint64_t nic_fw_random(nic_fw_t *fw);

/* nic_fw_ctl.c */
int  nic_fw_ctl_accept(nic_fw_t *fw);
void nic_fw_ctl_handle(nic_fw_t *fw, unsigned conn);
void nic_fw_conn_drop(nic_fw_t *fw, unsigned conn, const char *why);
void nic_fw_status_text(nic_fw_t *fw, char *buf, size_t len);

#endif /* NIC_FW_INTERNAL_H */
