/*
 * via_desc.h - VI descriptors and doorbell tokens: the memory layout the
 * host (VI user agent, vipl.h) and the emulated VI NIC (nic/via) share.
 *
 * A descriptor is a control segment, then for RDMA one address segment,
 * then data segments, in registered memory, 64-byte aligned, exactly as in
 * VIA 1.0 (VIPL's VIP_CONTROL_SEGMENT, VIP_ADDRESS_SEGMENT,
 * VIP_DATA_SEGMENT).  Fields are little-endian fixed-width.  Departures from
 * VIA 1.0 (see doc/via.md):
 *   - Next/NextHandle are not followed by the NIC: the doorbell token names
 *     each descriptor (LANai-7-style doorbell FIFO), so the VI user agent
 *     keeps its own queue order;
 *   - addresses in segments are host virtual addresses, translated by the
 *     NIC's TPT entry for the handle, not NIC-virtual addresses;
 *   - the NIC writes ImmediateData and Length first and Status last, the
 *     latter with a release store, so a host may poll Status in place.
 */
#ifndef VIA_DESC_H
#define VIA_DESC_H

#include <stdatomic.h>
#include <stdint.h>

#define VIA_DESC_ALIGN      64u      /* VIP_DESCRIPTOR_ALIGNMENT */
#define VIA_MAX_DATA_SEGS   16u      /* MaxSegmentsPerDesc (data segments) */

/* Control.Control (VIP_CONTROL_*) */
#define VIA_CONTROL_OP_SENDRECV   0x0u
#define VIA_CONTROL_OP_RDMAWRITE  0x1u
#define VIA_CONTROL_OP_RDMAREAD   0x2u
#define VIA_CONTROL_OP_MASK       0x3u
#define VIA_CONTROL_IMMEDIATE     0x4u
#define VIA_CONTROL_QFENCE        0x8u
#define VIA_CONTROL_RESERVED      0xfff0u

/* Control.Status (VIP_STATUS_*) */
#define VIA_STATUS_DONE                 0x1u
#define VIA_STATUS_FORMAT_ERROR         0x2u
#define VIA_STATUS_PROTECTION_ERROR     0x4u
#define VIA_STATUS_LENGTH_ERROR         0x8u
#define VIA_STATUS_PARTIAL_ERROR        0x10u
#define VIA_STATUS_DESC_FLUSHED_ERROR   0x20u
#define VIA_STATUS_TRANSPORT_ERROR      0x40u
#define VIA_STATUS_RDMA_PROT_ERROR      0x80u
#define VIA_STATUS_REMOTE_DESC_ERROR    0x100u
#define VIA_STATUS_ERROR_MASK           0x1feu
#define VIA_STATUS_OP_SEND              0x00000u
#define VIA_STATUS_OP_RECEIVE           0x10000u
#define VIA_STATUS_OP_RDMA_WRITE        0x20000u
#define VIA_STATUS_OP_REMOTE_RDMA_WRITE 0x30000u
#define VIA_STATUS_OP_RDMA_READ         0x40000u
#define VIA_STATUS_OP_MASK              0x70000u
#define VIA_STATUS_IMMEDIATE            0x80000u

typedef struct via_ctl_seg {
    uint64_t         next;           /* not used by the NIC (see above) */
    uint32_t         next_handle;
    uint16_t         seg_count;      /* segments after this one (address + data) */
    uint16_t         control;        /* VIA_CONTROL_* */
    uint32_t         reserved;
    uint32_t         immediate;      /* ImmediateData: 4 bytes, no more */
    uint32_t         length;         /* receive: bytes received */
    _Atomic uint32_t status;         /* VIA_STATUS_*; written last by the NIC */
} via_ctl_seg_t;

typedef struct via_addr_seg {
    uint64_t data;                   /* remote virtual address */
    uint32_t handle;                 /* remote memory handle */
    uint32_t reserved;
} via_addr_seg_t;

typedef struct via_data_seg {
    uint64_t data;                   /* local virtual address */
    uint32_t handle;                 /* local memory handle */
    uint32_t length;
} via_data_seg_t;

typedef union via_seg {
    via_addr_seg_t as;
    via_data_seg_t ds;
} via_seg_t;

/* The largest descriptor: control, address and VIA_MAX_DATA_SEGS data. */
typedef struct via_desc {
    via_ctl_seg_t cs;
    via_seg_t     seg[VIA_MAX_DATA_SEGS + 1];
} __attribute__((aligned(VIA_DESC_ALIGN))) via_desc_t;

_Static_assert(sizeof(via_ctl_seg_t) == 32, "VIA 1.0 control segment");
_Static_assert(sizeof(via_seg_t) == 16, "VIA 1.0 address/data segment");

/* Bytes of a descriptor with n segments after the control segment. */
static inline uint32_t via_desc_bytes(uint32_t nsegs)
{
    return (uint32_t)sizeof(via_ctl_seg_t) + nsegs * (uint32_t)sizeof(via_seg_t);
}

/* One doorbell token: an entry of a VI's send or receive ring. */
typedef struct via_token {
    uint64_t desc_va;                /* the descriptor's host address */
    uint32_t desc_handle;            /* memory handle that covers it */
    uint32_t pad;
    uint64_t reserved[6];
} via_token_t;

_Static_assert(sizeof(via_token_t) == 64, "a token is one ring entry");

#endif /* VIA_DESC_H */
