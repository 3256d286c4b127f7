/*
 * nic_abi.h - the host/NIC interface of the emulated NIC: everything a host
 * process and the firmware share in memory.  This header is an ABI: fixed
 * width fields, explicit padding, offsets instead of pointers (each side maps
 * the segments at its own address).  Any change bumps NIC_ABI_VERSION; a
 * host library refuses a firmware whose version differs.
 *
 * Shared objects (all memfds created by one side and passed over the
 * control socket, so nothing has a name another node could open):
 *
 *   status page  one per firmware, created by the firmware, mapped
 *                read-only by every attached host: firmware pid, sleeping
 *                flag, ABI version.
 *   endpoint     one per open endpoint, created by the firmware, mapped
 *                read-write by the one host process that opened it:
 *                nic_ep_shared_t, then the send queue (SQ), receive queue
 *                (RQ) and completion queue (CQ) rings of 64-byte entries.
 *   region       a registered memory region, created by the host
 *                (nic_mr_alloc), mapped by the firmware; the firmware touches
 *                host memory only through regions it has validated.
 *
 * Rings.  Every ring is a power of two of 64-byte entries with a producer
 * index and a consumer index, free-running 32-bit counters (slot = index &
 * (entries - 1)).  The producer writes the entry, then publishes the new
 * producer index with a release store; the consumer reads the index with an
 * acquire load, reads the entry, then publishes its consumer index with a
 * release store.  Producer-written and consumer-written words sit on
 * separate cache lines.
 *
 *   SQ: host produces (sq_prod is the send doorbell), firmware consumes.
 *   RQ: host produces (rq_prod is the receive doorbell), firmware consumes.
 *   CQ: firmware produces (cq_prod), host consumes (cq_cons).
 *
 * Sleeping.  The firmware spins for a bounded time when idle, then sets
 * fw_sleeping in the status page and blocks.  A host that rang a doorbell
 * reads fw_sleeping afterwards (both accesses sequentially consistent) and,
 * only if it is set, writes the firmware's eventfd: the one syscall a host
 * may make to post work, and only when the NIC was idle.
 */
#ifndef NIC_ABI_H
#define NIC_ABI_H

#include <stdatomic.h>
#include <stdint.h>

#define NIC_ABI_VERSION   3u
#define NIC_EP_MAGIC      0x4e494345u   /* "NICE" */
#define NIC_STATUS_MAGIC  0x4e494353u   /* "NICS" */
#define NIC_ENTRY_SIZE    64u           /* bytes per ring entry */
#define NIC_CACHELINE     64u

/* Personality identifiers: which control program a firmware runs. */
enum nic_pers_id {
    NIC_PERS_MYRI = 1,   /* LANai control program (nic/myri) */
    NIC_PERS_VIA  = 2,   /* VI firmware (nic/via) */
    NIC_PERS_SCI  = 3,   /* SCI adapter (nic/sci) */
};

/* Endpoint states (nic_ep_shared_t.state), written by the firmware. */
enum nic_ep_state {
    NIC_EP_OPEN   = 1,
    NIC_EP_ERROR  = 2,   /* firmware saw a fatal error; see ep->error */
    NIC_EP_CLOSED = 3,
};

/* One ring entry.  Its layout belongs to the personality. */
typedef struct nic_entry {
    uint8_t bytes[NIC_ENTRY_SIZE];
} __attribute__((aligned(NIC_ENTRY_SIZE))) nic_entry_t;

/* The firmware's status page. */
typedef struct nic_status_page {
    uint32_t magic;                /* NIC_STATUS_MAGIC */
    uint32_t abi_version;          /* NIC_ABI_VERSION */
    uint32_t fw_pid;
    uint32_t pers_id;              /* enum nic_pers_id */
    uint8_t  pad0[NIC_CACHELINE - 16];
    _Atomic uint32_t fw_sleeping;  /* 1: blocked, kick the eventfd */
    _Atomic uint32_t fw_alive;     /* 0 once the firmware shut down cleanly */
    _Atomic uint64_t loops;        /* main-loop iterations (diagnostics) */
    uint8_t  pad1[NIC_CACHELINE - 16];
} nic_status_page_t;

/* Head of an endpoint segment.  Offsets are from the segment start. */
typedef struct nic_ep_shared {
    /* --- written once by the firmware at open --- */
    uint32_t magic;                /* NIC_EP_MAGIC */
    uint32_t abi_version;
    uint32_t ep_id;                /* firmware-wide endpoint number */
    uint32_t pers_id;
    uint64_t job_key;              /* the protection key it was opened with */
    uint32_t sq_entries, rq_entries, cq_entries, reserved0;
    uint64_t sq_off, rq_off, cq_off;
    uint64_t seg_size;
    uint8_t  pad0[2 * NIC_CACHELINE - 72];

    /* --- host-written line: doorbells and the CQ consumer --- */
    _Atomic uint32_t sq_prod;      /* send doorbell */
    _Atomic uint32_t rq_prod;      /* receive doorbell */
    _Atomic uint32_t cq_cons;
    _Atomic uint32_t host_waiting; /* 1: host blocks on cq_prod (futex) */
    uint8_t  pad1[NIC_CACHELINE - 16];

    /* --- firmware-written line --- */
    _Atomic uint32_t sq_cons;
    _Atomic uint32_t rq_cons;
    _Atomic uint32_t cq_prod;      /* futex word for host_waiting */
    _Atomic uint32_t state;        /* enum nic_ep_state */
    _Atomic int32_t  error;        /* nic status code when state is ERROR */
    _Atomic uint32_t mem_gen;      /* bumped after the firmware wrote host memory
                                      outside the CQ (SCI remote stores) */
    uint8_t  pad2[NIC_CACHELINE - 24];

    /* --- personality scratch: 2 lines, layout owned by the personality --- */
    uint8_t  pers[2 * NIC_CACHELINE];
} nic_ep_shared_t;

_Static_assert(sizeof(nic_status_page_t) == 2 * NIC_CACHELINE, "status page layout");
_Static_assert(sizeof(nic_ep_shared_t) == 6 * NIC_CACHELINE, "endpoint header layout");

/* Region access flags (nic_mr_alloc). */
#define NIC_MR_LOCAL_READ    0x1u   /* firmware may read it for local sends */
#define NIC_MR_LOCAL_WRITE   0x2u   /* firmware may write received data */
#define NIC_MR_REMOTE_READ   0x4u   /* peers may read it (RDMA read) */
#define NIC_MR_REMOTE_WRITE  0x8u   /* peers may write it (RDMA write, SCI) */

#endif /* NIC_ABI_H */
