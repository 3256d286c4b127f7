/*
 * via_wire.h - the emulated VI NIC: frames between VI firmwares, the
 * configuration calls of the host (nic_ep_ctl op numbers and their
 * arguments), the per-VI state the firmware publishes in the endpoint
 * segment, completion-queue entries and the timing model.  Shared by the
 * firmware (nic/via/via_fw*.c) and the VI user agent (vipl*.c).
 *
 * Every object of the VI architecture is a core endpoint (nic_abi.h) owned
 * by one process:
 *   NIC handle   opened by vipl_open_nic; holds the process's protection
 *                tags and memory registrations (the TPT entries);
 *   VI           SQ = send doorbell FIFO, RQ = receive doorbell FIFO
 *                (one via_token_t per posted descriptor); its 1-entry CQ
 *                ring is unused: cq_prod counts completion events and is
 *                the futex a blocking wait sleeps on;
 *   CQ           its CQ ring holds via_cqe_t entries (VI, queue).
 *
 * A frame on the wire:
 *   [via_hdr_t (type "\x02VIA", stream header, VI fields, checksum)] [payload]
 * Frames of reliable VIs (and all connection management) travel on the
 * core's reliable streams (nic_rel); frames of unreliable VIs go raw
 * (kind VIA_KIND_RAW), at most once, dropped on a bad checksum.
 */
#ifndef VIA_WIRE_H
#define VIA_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define VIA_TYPE0 0x02u            /* type word: VI traffic (LCP uses 0x01) */
#define VIA_TYPE1 'V'
#define VIA_TYPE2 'I'
#define VIA_TYPE3 'A'

#define VIA_KIND_RAW       3u      /* unreliable frame, outside nic_rel */
#define VIA_PAYLOAD_MAX    8192u   /* largest payload of one frame */
#define VIA_DISC_MAX       16u     /* MaxDiscriminatorLen */
#define VIA_ADDR_LEN       6u      /* host address: IPv4 + UDP port */

/* Reliability levels (VIP_SERVICE_*) */
#define VIA_UNRELIABLE          1u
#define VIA_RELIABLE_DELIVERY   2u
#define VIA_RELIABLE_RECEPTION  4u

/* Frame operations */
enum via_op {
    VIA_OP_SEND = 1,        /* send fragment: consumes a receive descriptor */
    VIA_OP_WRITE,           /* RDMA write fragment */
    VIA_OP_READ_REQ,        /* RDMA read request */
    VIA_OP_READ_RESP,       /* RDMA read data fragment */
    VIA_OP_PLACED,          /* reliable reception: message msg_id placed, status */
    VIA_OP_BREAK,           /* the sender broke the connection; status = cause */
    VIA_OP_CONN_REQ,        /* connection request: discriminator in payload */
    VIA_OP_CONN_ACCEPT,
    VIA_OP_CONN_REJECT,     /* status: VIA_CONN_* reason */
    VIA_OP_DISCONNECT,
};

/* Header flags */
#define VIA_HF_IMMEDIATE  0x1u
#define VIA_HF_LAST       0x2u     /* last fragment of a message */

typedef struct via_hdr {
    uint8_t  type[4];
    /* nic_rel_hdr_t (offset 4): src_fw, seq, ack, kind, flags, 2 bytes */
    uint32_t src_fw;
    uint32_t seq;
    uint32_t ack;
    uint8_t  kind;
    uint8_t  rflags;
    uint8_t  op;             /* enum via_op */
    uint8_t  level;          /* sender VI's reliability level */
    uint32_t dst_vi;         /* endpoint id of the target VI (0: firmware) */
    uint32_t src_vi;
    uint32_t conn_id;        /* connection number chosen by the client NIC */
    uint16_t flags;          /* VIA_HF_* */
    uint16_t len;            /* payload bytes in this frame */
    uint32_t pad0;
    uint64_t job_key;
    uint32_t msg_id;         /* per-VI message number (PLACED, READ_RESP) */
    uint32_t status;         /* VIA_STATUS_* or VIA_CONN_* reason */
    uint64_t offset;         /* this fragment's offset in the message */
    uint64_t total;          /* message bytes */
    uint64_t raddr;          /* RDMA: remote address of byte 0 */
    uint32_t rhandle;        /* RDMA: remote memory handle */
    uint32_t immediate;
    uint64_t sent_ns;        /* timing model: when the last byte left */
    uint64_t csum;           /* via_csum of the frame with this field 0 */
} via_hdr_t;

_Static_assert(sizeof(via_hdr_t) == 104, "via_hdr_t layout");
#define VIA_FRAME_MAX (sizeof(via_hdr_t) + VIA_PAYLOAD_MAX)

/* Connection request payload (VIA_OP_CONN_REQ) and accept payload. */
typedef struct via_conn_info {
    uint32_t level;          /* reliability level of the requesting VI */
    uint32_t max_transfer;
    uint32_t mtu;
    uint32_t rdma_flags;     /* VIA_MR_RDMA_* the VI enables */
    uint32_t timeout_ms;     /* how long the client waits */
    uint32_t pad0;
    uint16_t disc_len;
    uint8_t  disc[VIA_DISC_MAX];
    uint8_t  pad[6];
} via_conn_info_t;

/* Outcome of a connection attempt (via_vi_shared_t.conn_result, REJECT
 * status). */
enum via_conn_result {
    VIA_CONN_NONE = 0,
    VIA_CONN_OK,
    VIA_CONN_REJECTED,
    VIA_CONN_TIMEOUT,
    VIA_CONN_BAD_LEVEL,      /* reliability levels differ */
    VIA_CONN_BAD_MTU,
    VIA_CONN_UNREACHABLE,    /* the peer firmware is dead */
};

/* VI states (via_vi_shared_t.state; VIP_STATE_*) */
enum via_vi_state {
    VIA_VI_IDLE = 0,
    VIA_VI_CONNECT_PENDING,
    VIA_VI_CONNECTED,
    VIA_VI_ERROR,
};

/* Asynchronous errors (VIP_ERROR_* of VipErrorCallback) */
enum via_async_error {
    VIA_AERR_NONE = 0,
    VIA_AERR_POST_DESC,      /* a posted descriptor was malformed */
    VIA_AERR_CONN_LOST,      /* the peer broke the connection or died */
    VIA_AERR_RECVQ_EMPTY,    /* a send found no receive descriptor */
    VIA_AERR_VI_OVERRUN,     /* a completion queue overflowed */
    VIA_AERR_RDMAW_PROT,     /* an RDMA write was refused here */
    VIA_AERR_RDMAW_DATA,
    VIA_AERR_RDMAW_ABORT,
    VIA_AERR_RDMAR_PROT,     /* an RDMA read was refused here */
    VIA_AERR_COMP_PROT,
    VIA_AERR_RDMA_TRANSPORT,
    VIA_AERR_CATASTROPHIC,
    VIA_AERR_PEER_STOPPED,   /* ours, beyond VIA 1.0: the connection is lost because the
                                peer's NIC stopped (its process finalized or exited) */
};

/* What the firmware publishes about a VI in nic_ep_shared_t.pers. */
typedef struct via_vi_shared {
    _Atomic uint32_t state;        /* enum via_vi_state */
    _Atomic uint32_t conn_result;  /* enum via_conn_result */
    _Atomic uint32_t async_error;  /* last enum via_async_error */
    _Atomic uint32_t async_count;  /* asynchronous errors so far */
    uint32_t remote_vi;
    uint32_t remote_ip;            /* network order */
    uint16_t remote_port;          /* network order */
    uint16_t pad;
    uint32_t remote_level, remote_mtu, remote_max_transfer, remote_rdma;
    uint32_t conn_id;
} via_vi_shared_t;

/* A completion-queue entry (VipCQDone returns the VI and the queue). */
typedef struct via_cqe {
    uint32_t vi_id;          /* endpoint id of the VI */
    uint32_t is_recv;        /* 1: receive queue, 0: send queue */
    uint64_t desc_va;        /* the completed descriptor (extension) */
    uint32_t status;         /* its status (extension) */
    uint8_t  pad[44];
} via_cqe_t;

_Static_assert(sizeof(via_cqe_t) == 64, "a CQ entry is one ring entry");

/* A memory handle's low VIA_TPT_BITS bits are its TPT slot (never 0). */
#define VIA_TPT_BITS     13u
#define VIA_TPT_MAX      (1u << VIA_TPT_BITS)   /* registrations per firmware */

/* Memory registration flags */
#define VIA_MR_RDMA_WRITE 0x1u     /* EnableRdmaWrite */
#define VIA_MR_RDMA_READ  0x2u     /* EnableRdmaRead */

/* Configuration calls (nic_ep_ctl op) */
enum via_ctl_op {
    VIA_CTL_NIC_OPEN = 1,    /* this endpoint is a NIC handle -> via_nic_attr_t */
    VIA_CTL_PTAG_CREATE,     /* NIC handle -> uint32_t ptag */
    VIA_CTL_PTAG_DESTROY,    /* NIC handle: uint32_t ptag */
    VIA_CTL_MEM_REG,         /* NIC handle: via_ctl_mem_reg_t -> uint32_t handle */
    VIA_CTL_MEM_DEREG,       /* NIC handle: uint32_t handle */
    VIA_CTL_CQ_CREATE,       /* this endpoint is a CQ */
    VIA_CTL_VI_CREATE,       /* this endpoint is a VI: via_ctl_vi_create_t */
    VIA_CTL_CONNECT,         /* VI: via_ctl_connect_t (client request) */
    VIA_CTL_CONN_TAKE,       /* NIC handle: discriminator -> via_ctl_conn_req_t */
    VIA_CTL_CONN_ACCEPT,     /* VI: uint32_t conn handle */
    VIA_CTL_CONN_REJECT,     /* NIC handle: uint32_t conn handle */
    VIA_CTL_DISCONNECT,      /* VI */
    VIA_CTL_TIMING,          /* NIC handle: via_timing_t (firmware-wide) */
};

typedef struct via_nic_attr {
    uint32_t max_register_regions;
    uint32_t max_vi;
    uint32_t max_descriptors_per_queue;
    uint32_t max_segments_per_desc;
    uint32_t max_cq_entries;
    uint32_t max_transfer;
    uint32_t native_mtu;
    uint32_t max_ptags;
    uint32_t reliability_support;   /* VIA_UNRELIABLE | ... */
    uint32_t rdma_read_support;
    uint32_t max_discriminator_len;
    uint32_t ip;                    /* wire address, network order */
    uint16_t port;
    uint16_t pad;
    int32_t  fw_pid;
} via_nic_attr_t;

typedef struct via_ctl_mem_reg {
    uint64_t va, len;
    uint32_t ptag;
    uint32_t flags;          /* VIA_MR_* */
    uint32_t core_key;       /* 0, or a core region of this endpoint that holds
                                [va, va+len): the NIC reaches it directly */
    uint32_t pad;
    uint64_t core_off;       /* offset of va in that region */
} via_ctl_mem_reg_t;

typedef struct via_ctl_vi_create {
    uint32_t nic_ep;         /* the NIC handle endpoint */
    uint32_t ptag;
    uint32_t level;          /* VIA_UNRELIABLE .. */
    uint32_t max_transfer;
    uint32_t rdma_flags;     /* VIA_MR_RDMA_* */
    uint32_t send_cq, recv_cq;   /* CQ endpoint ids, 0: none */
    uint32_t pad;
} via_ctl_vi_create_t;

typedef struct via_ctl_connect {
    uint32_t ip;             /* remote NIC, network order */
    uint16_t port;
    uint16_t disc_len;
    uint8_t  disc[VIA_DISC_MAX];
    uint32_t timeout_ms;
    uint32_t pad;
} via_ctl_connect_t;

typedef struct via_ctl_conn_req {
    uint32_t conn;           /* handle for accept / reject */
    uint32_t ip;
    uint16_t port;
    uint16_t pad;
    via_conn_info_t info;    /* the client VI's attributes */
} via_ctl_conn_req_t;

/* Timing model (all 0: off): component costs only.  doc/via.md gives the
 * sources of each value of the profiles (via_timing.c). */
typedef struct via_timing {
    uint32_t enabled;
    uint32_t link_MBps;          /* link rate, 1e6 bytes/s */
    uint32_t mtu;                /* packet payload on the link */
    uint32_t switch_ns;          /* per crossbar */
    uint32_t dma_MBps;           /* host DMA engine rate */
    uint32_t dma_setup_ns;       /* one DMA transaction (null DMA) */
    uint32_t nic_send_ns;        /* NIC processor work per packet sent */
    uint32_t nic_recv_ns;        /* NIC processor work per packet received */
    uint32_t desc_dma;           /* 1: the NIC fetches descriptors by DMA */
    uint32_t status_dma;         /* 1: the NIC writes status by DMA */
    uint32_t pad[2];
} via_timing_t;

/* Host-side costs, charged by the VI user agent. */
typedef struct via_host_timing {
    uint32_t doorbell_ns;        /* PIO write of a doorbell token */
    uint32_t done_ns;            /* VipSendDone/RecvDone: uncached status read */
    uint32_t cq_done_ns;         /* VipCQDone: PIO read (+ clear) of the NIC CQ */
    uint32_t wake_ns;            /* blocking wait: interrupt and wake-up */
    uint32_t reg_base_ns;        /* memory registration, fixed part */
    uint32_t reg_page_ns;        /* ... per 4 kB page */
    uint32_t dereg_base_ns;
    uint32_t dereg_page_ns;
} via_host_timing_t;

/* Profiles: "lanai7" (Berkeley VI on Myrinet LANai 7, P4), "clan" (Giganet
 * cLAN 1000, P6).  0 on success. */
int via_timing_profile(const char *name, via_timing_t *t, via_host_timing_t *ht);

/* Frame checksum (64-bit, fast; detects any single flipped bit). */
uint64_t via_csum(const void *data, size_t len);

#endif /* VIA_WIRE_H */
