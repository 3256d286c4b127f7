/*
 * nic_ctl_proto.h - the control protocol between host processes and the
 * firmware: one SOCK_SEQPACKET Unix socket per attached process, one request
 * and one reply per call.  Only set-up and tear-down travel here (open and
 * close endpoints, register memory, personality configuration, status);
 * traffic goes through the rings.  The firmware ties every endpoint and
 * region to the connection that created it: a request naming another
 * connection's endpoint is refused with NIC_ERR_PROTECTION, and when the
 * connection closes (or the process's pidfd fires) everything it owned is
 * reclaimed.
 */
#ifndef NIC_CTL_PROTO_H
#define NIC_CTL_PROTO_H

#include <stdint.h>

#define NIC_CTL_DATA_MAX 4096u

enum nic_ctl_op {
    NIC_CTL_HELLO    = 1,  /* -> fds: eventfd, status page; arg0 pers id */
    NIC_CTL_EP_OPEN  = 2,  /* data: the job's secret, arg0..2 sq/rq/cq entries
                              -> ep_id, job_key (the tag), fd */
    NIC_CTL_EP_CLOSE = 3,  /* ep_id, job_key */
    NIC_CTL_MR_REG   = 4,  /* ep_id, job_key, fd, arg0 size, arg1 access -> arg0 key */
    NIC_CTL_MR_DEREG = 5,  /* ep_id, job_key, arg0 key */
    NIC_CTL_PERS     = 6,  /* ep_id, job_key, pers_op, data -> data */
    NIC_CTL_STATUS   = 7,  /* -> data: text */
    NIC_CTL_SHUTDOWN = 8,  /* stop the firmware */
    NIC_CTL_EP_WAKEFD = 9, /* ep_id, job_key, fd: an eventfd the firmware writes
                              after a CQ entry while host_waiting is set */
    NIC_CTL_START_FAILED = 10, /* the caller's start-up failed: a firmware
                              started on demand exits when its last process
                              has left, without idling */
};

typedef struct nic_ctl_msg {
    uint32_t op;
    int32_t  status;       /* reply: nic status */
    uint32_t ep_id;
    uint32_t pers_op;
    uint64_t job_key;
    uint64_t arg[4];
    uint32_t abi_version;
    uint32_t len;          /* bytes used in data */
    uint8_t  data[NIC_CTL_DATA_MAX];
} nic_ctl_msg_t;

#define NIC_CTL_HDR_SIZE (sizeof(nic_ctl_msg_t) - NIC_CTL_DATA_MAX)

#endif /* NIC_CTL_PROTO_H */
